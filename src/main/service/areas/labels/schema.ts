import type { Migration } from '../../db/migrations';

/**
 * Labels of groups and projects (exactly one of group_id/project_id is set). Issues, merge
 * requests and epics carry label names, so renames and deletes rewrite those lists.
 */
/** labels/005's tables (a landed migration's text once landed: never edit). */
const TABLE_VERSIONED_LABELS_005 = ['labels', 'label_priorities', 'label_subscriptions', 'label_owner_counts'];

export const labelMigrations: Migration[] = [
  {
    name: 'labels/001_initial',
    sql: `
CREATE TABLE labels (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  group_id INTEGER REFERENCES namespaces(id) ON DELETE CASCADE,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  color TEXT NOT NULL,
  description TEXT,
  priority INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((group_id IS NULL) != (project_id IS NULL))
);
CREATE UNIQUE INDEX labels_group_title ON labels (group_id, title) WHERE group_id IS NOT NULL;
CREATE UNIQUE INDEX labels_project_title ON labels (project_id, title) WHERE project_id IS NOT NULL;

CREATE TABLE label_subscriptions (
  label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (label_id, user_id)
);
`,
  },
  {
    // Label search (`search` on title and description) through a trigram full-text index, kept by
    // triggers: a term few labels hold no longer reads every label of a project with a million
    // (see db/trigram.ts). Contentless: the index keeps no copy of the text.
    name: 'labels/002_search',
    sql: `
CREATE VIRTUAL TABLE labels_search USING fts5(title, description, content = '', contentless_delete = 1, tokenize = 'trigram');
INSERT INTO labels_search (rowid, title, description) SELECT id, title, description FROM labels;
INSERT INTO labels_search (labels_search) VALUES ('optimize');
CREATE TRIGGER labels_search_insert AFTER INSERT ON labels BEGIN
  INSERT INTO labels_search (rowid, title, description) VALUES (NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER labels_search_update AFTER UPDATE OF title, description ON labels BEGIN
  DELETE FROM labels_search WHERE rowid = OLD.id;
  INSERT INTO labels_search (rowid, title, description) VALUES (NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER labels_search_delete AFTER DELETE ON labels BEGIN
  DELETE FROM labels_search WHERE rowid = OLD.id;
END;
`,
  },
  {
    // A group's or project's labels at scale: how many it owns and a version moved on by every
    // insert, update and delete of them (cascades included; a promoted label moves from its
    // project to its group), kept by triggers. A list of the labels of a few owners counts from
    // the counters instead of walking 10,001 labels, and its deep pages start after a row an
    // earlier page read (PageAnchors) while none of those owners' labels changed.
    name: 'labels/003_list_counts',
    sql: `
CREATE TABLE label_owner_counts (
  owner TEXT NOT NULL,
  owner_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  version INTEGER NOT NULL,
  PRIMARY KEY (owner, owner_id)
) WITHOUT ROWID;
INSERT INTO label_owner_counts (owner, owner_id, n, version) SELECT 'group', group_id, count(*), 1 FROM labels WHERE group_id IS NOT NULL GROUP BY group_id;
INSERT INTO label_owner_counts (owner, owner_id, n, version) SELECT 'project', project_id, count(*), 1 FROM labels WHERE project_id IS NOT NULL GROUP BY project_id;
CREATE TRIGGER labels_owner_count_insert AFTER INSERT ON labels BEGIN
  INSERT INTO label_owner_counts (owner, owner_id, n, version)
    VALUES (iif(NEW.group_id IS NULL, 'project', 'group'), ifnull(NEW.group_id, NEW.project_id), 1, 1)
    ON CONFLICT DO UPDATE SET n = n + 1, version = version + 1;
END;
CREATE TRIGGER labels_owner_count_delete AFTER DELETE ON labels BEGIN
  UPDATE label_owner_counts SET n = n - 1, version = version + 1
    WHERE owner = iif(OLD.group_id IS NULL, 'project', 'group') AND owner_id = ifnull(OLD.group_id, OLD.project_id);
END;
CREATE TRIGGER labels_owner_count_update AFTER UPDATE ON labels BEGIN
  UPDATE label_owner_counts SET n = n - 1, version = version + 1
    WHERE owner = iif(OLD.group_id IS NULL, 'project', 'group') AND owner_id = ifnull(OLD.group_id, OLD.project_id);
  INSERT INTO label_owner_counts (owner, owner_id, n, version)
    VALUES (iif(NEW.group_id IS NULL, 'project', 'group'), ifnull(NEW.group_id, NEW.project_id), 1, 1)
    ON CONFLICT DO UPDATE SET n = n + 1, version = version + 1;
END;
`,
  },
  {
    // The labels a project gave a priority (order_by=label_priority and priority on issue and merge
    // request lists: see areas/core/order-label-priority.ts), read without walking the project's
    // labels (a million in one project). Numbered from core's range reserved for that order (it
    // must run after labels/001, so it lives here).
    name: 'core/100_labels_prioritized',
    sql: `
CREATE INDEX labels_prioritized ON labels (project_id, priority) WHERE priority IS NOT NULL;
`,
  },
  {
    // GitLab's label_priorities for group labels: a group label prioritized in one project of the
    // group (a project label's priority stays on its row). Promoting a prioritized project label
    // keeps its priority in its project (Labels::PromoteService#update_priorities); the project's
    // labels show it, and order_by=label_priority / priority of its issues and merge requests use
    // it (areas/core/order-label-priority.ts). Earlier data dirs have none.
    name: 'labels/004_label_priorities',
    sql: `
CREATE TABLE label_priorities (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
  priority INTEGER NOT NULL,
  PRIMARY KEY (project_id, label_id)
) WITHOUT ROWID;
CREATE INDEX label_priorities_label ON label_priorities (label_id);
`,
  },
  {
    // A version of what labels_search indexes (labels/002): moved by a label created or deleted
    // and by a title or description changed, not by other writes (a color, a priority; the API
    // sets every column). A search's
    // candidates from the index are kept until it moves (db/trigram.ts rememberedCandidates): a
    // million labels' trigram lists merged for each page, 2-3 ms, after any write elsewhere.
    // A core migration (core/154, reserved for it) listed here, after labels/002 made the index.
    name: 'core/154_labels_search_version',
    sql: `
INSERT INTO table_versions (name, version) VALUES ('labels_search', 0);
CREATE TRIGGER labels_search_version_insert AFTER INSERT ON labels BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'labels_search'; END;
CREATE TRIGGER labels_search_version_update AFTER UPDATE OF title, description ON labels WHEN NEW.title IS NOT OLD.title OR NEW.description IS NOT OLD.description BEGIN
  UPDATE table_versions SET version = version + 1 WHERE name = 'labels_search';
END;
CREATE TRIGGER labels_search_version_delete AFTER DELETE ON labels BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'labels_search'; END;
`,
  },
  {
    // core/099's versions for the tables the label lists read (their rows, counts, priorities and
    // the caller's subscriptions): a statement naming one kept its answers only until the next
    // write of any kind (a project's description), as for every table without a version.
    name: 'labels/005_label_table_versions',
    sql: `
${TABLE_VERSIONED_LABELS_005.map((t) => `INSERT INTO table_versions (name, version) VALUES ('${t}', 0);
CREATE TRIGGER ${t}_table_version_insert AFTER INSERT ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_update AFTER UPDATE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_delete AFTER DELETE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;`).join('\n')}
`,
  },
];
