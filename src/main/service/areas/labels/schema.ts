import type { Migration } from '../../db/migrations';

/**
 * Labels of groups and projects (exactly one of group_id/project_id is set). Issues, merge
 * requests and epics carry label names, so renames and deletes rewrite those lists.
 */
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
];
