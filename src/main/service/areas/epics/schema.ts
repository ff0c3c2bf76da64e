import type { Migration } from '../../db/migrations';
import { DATE_LAG_071 } from '../core/schema';

/** Group epics, their to-dos and award emoji (notes hang on core's `notes` as noteable 'Epic'). */
/** epics/017's tables (a landed migration's text once landed: never edit). */
const TABLE_VERSIONED_EPICS_017 = ['epics', 'epic_counts', 'epic_created_counts', 'epic_label_counts', 'epic_list_writes', 'epic_dates_out_of_order', 'epic_award_emoji', 'epic_label_events', 'epic_todos'];

export const epicMigrations: Migration[] = [
  {
    name: 'epics/001_initial',
    sql: `
CREATE TABLE epics (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  group_id INTEGER NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
  iid INTEGER NOT NULL,
  parent_id INTEGER REFERENCES epics(id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  description TEXT,
  state TEXT NOT NULL DEFAULT 'opened',
  confidential INTEGER NOT NULL DEFAULT 0,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  labels TEXT NOT NULL DEFAULT '[]',
  color TEXT NOT NULL DEFAULT '#1068bf',
  start_date_fixed TEXT,
  start_date_is_fixed INTEGER NOT NULL DEFAULT 0,
  due_date_fixed TEXT,
  due_date_is_fixed INTEGER NOT NULL DEFAULT 0,
  closed_at TEXT,
  closed_by_id INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX epics_group_iid ON epics (group_id, iid);
CREATE INDEX epics_parent ON epics (parent_id);

CREATE TABLE epic_todos (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  epic_id INTEGER NOT NULL REFERENCES epics(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  action TEXT NOT NULL DEFAULT 'marked',
  state TEXT NOT NULL DEFAULT 'pending',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX epic_todos_user ON epic_todos (user_id, epic_id);

CREATE TABLE epic_award_emoji (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  epic_id INTEGER NOT NULL REFERENCES epics(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX epic_award_emoji_unique ON epic_award_emoji (epic_id, user_id, name);
`,
  },
  {
    name: 'epics/002_epic_issues',
    sql: `
-- An issue belongs to at most one epic.
CREATE TABLE epic_issues (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  epic_id INTEGER NOT NULL REFERENCES epics(id) ON DELETE CASCADE,
  issue_id INTEGER NOT NULL UNIQUE REFERENCES issues(id) ON DELETE CASCADE,
  relative_position INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX epic_issues_epic ON epic_issues (epic_id, relative_position);
`,
  },
  {
    name: 'epics/003_label_events',
    sql: `
-- Resource label events of epics: one row per label added or removed.
CREATE TABLE epic_label_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  epic_id INTEGER NOT NULL REFERENCES epics(id) ON DELETE CASCADE,
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  label_id INTEGER REFERENCES labels(id) ON DELETE SET NULL,
  action TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX epic_label_events_epic ON epic_label_events (epic_id, id);
`,
  },
  {
    name: 'epics/004_counters',
    sql: `
-- Highest epic iid per group and highest epic id ever handed out: GitLab never reuses either
-- after a delete. A group's counter goes with the group.
CREATE TABLE epic_iid_counters (
  group_id INTEGER PRIMARY KEY REFERENCES namespaces(id) ON DELETE CASCADE,
  last_iid INTEGER NOT NULL
);
INSERT INTO epic_iid_counters (group_id, last_iid) SELECT group_id, max(iid) FROM epics GROUP BY group_id;
CREATE TABLE epic_id_counter (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_id INTEGER NOT NULL
);
INSERT INTO epic_id_counter (id, last_id) SELECT 1, max(id) FROM epics HAVING count(*) > 0;
`,
  },
  {
    // The epic list's orders (created_at by default, updated_at, title) within a group, id last.
    name: 'epics/005_list_order_indexes',
    sql: `
CREATE INDEX epics_group_created ON epics (group_id, created_at, id);
CREATE INDEX epics_group_updated ON epics (group_id, updated_at, id);
CREATE INDEX epics_group_title ON epics (group_id, title, id);
`,
  },
  {
    // An epic's labels as rows of core's issuable_labels too (see core/008), kept by triggers.
    name: 'epics/006_epic_labels',
    sql: `
INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title)
  SELECT 'Epic', e.id, j.value FROM epics e, json_each(e.labels) j WHERE e.labels != '[]';
CREATE TRIGGER epics_labels_insert AFTER INSERT ON epics WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title) SELECT 'Epic', NEW.id, value FROM json_each(NEW.labels);
END;
CREATE TRIGGER epics_labels_update AFTER UPDATE OF labels ON epics WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'Epic' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title) SELECT 'Epic', NEW.id, value FROM json_each(NEW.labels);
END;
CREATE TRIGGER epics_labels_delete AFTER DELETE ON epics WHEN OLD.labels != '[]' BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'Epic' AND issuable_id = OLD.id;
END;
`,
  },
  {
    // A group's epics at scale. Their state and author filters read an index that keeps the
    // default order; counters kept by triggers (per group, author, state and confidentiality)
    // count a list filtered by nothing else, so no request walks 10,001 epics to count them; and
    // a version per group, moved on by every insert, update and delete of its epics (cascades
    // included), lets deep pages start after a row an earlier page read (PageAnchors). No author
    // is kept as 0; the column is `author` for the reason core/018 gives.
    name: 'epics/007_list_counts',
    sql: `
CREATE INDEX epics_group_state_created ON epics (group_id, state, created_at, id);
CREATE INDEX epics_group_author_created ON epics (group_id, author_id, created_at, id);
CREATE TABLE epic_counts (
  group_id INTEGER NOT NULL,
  author INTEGER NOT NULL,
  state TEXT NOT NULL,
  confidential INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (group_id, author, state, confidential)
) WITHOUT ROWID;
INSERT INTO epic_counts (group_id, author, state, confidential, n)
  SELECT group_id, ifnull(author_id, 0), state, confidential, count(*) FROM epics GROUP BY group_id, ifnull(author_id, 0), state, confidential;
CREATE TRIGGER epics_count_insert AFTER INSERT ON epics BEGIN
  INSERT INTO epic_counts (group_id, author, state, confidential, n) VALUES (NEW.group_id, ifnull(NEW.author_id, 0), NEW.state, NEW.confidential, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER epics_count_delete AFTER DELETE ON epics BEGIN
  UPDATE epic_counts SET n = n - 1
    WHERE group_id = OLD.group_id AND author = ifnull(OLD.author_id, 0) AND state = OLD.state AND confidential = OLD.confidential;
END;
CREATE TRIGGER epics_count_update AFTER UPDATE OF group_id, author_id, state, confidential ON epics
  WHEN NEW.group_id != OLD.group_id OR NEW.author_id IS NOT OLD.author_id OR NEW.state != OLD.state OR NEW.confidential != OLD.confidential BEGIN
  UPDATE epic_counts SET n = n - 1
    WHERE group_id = OLD.group_id AND author = ifnull(OLD.author_id, 0) AND state = OLD.state AND confidential = OLD.confidential;
  INSERT INTO epic_counts (group_id, author, state, confidential, n) VALUES (NEW.group_id, ifnull(NEW.author_id, 0), NEW.state, NEW.confidential, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TABLE epic_list_versions (group_id INTEGER PRIMARY KEY, version INTEGER NOT NULL);
CREATE TRIGGER epics_list_version_insert AFTER INSERT ON epics BEGIN
  INSERT INTO epic_list_versions (group_id, version) VALUES (NEW.group_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER epics_list_version_delete AFTER DELETE ON epics BEGIN
  INSERT INTO epic_list_versions (group_id, version) VALUES (OLD.group_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER epics_list_version_update AFTER UPDATE ON epics BEGIN
  INSERT INTO epic_list_versions (group_id, version) VALUES (NEW.group_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
  INSERT INTO epic_list_versions (group_id, version) SELECT OLD.group_id, 1 WHERE OLD.group_id != NEW.group_id
    ON CONFLICT DO UPDATE SET version = version + 1;
END;
`,
  },
  {
    // Epic search (`search` on title and description) through a trigram full-text index, kept by
    // triggers: a term few epics hold no longer reads every epic of a group with a million (see
    // db/trigram.ts). Contentless: the index keeps no copy of the text.
    name: 'epics/008_search',
    sql: `
CREATE VIRTUAL TABLE epics_search USING fts5(title, description, content = '', contentless_delete = 1, tokenize = 'trigram');
INSERT INTO epics_search (rowid, title, description) SELECT id, title, description FROM epics;
INSERT INTO epics_search (epics_search) VALUES ('optimize');
CREATE TRIGGER epics_search_insert AFTER INSERT ON epics BEGIN
  INSERT INTO epics_search (rowid, title, description) VALUES (NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER epics_search_update AFTER UPDATE OF title, description ON epics BEGIN
  DELETE FROM epics_search WHERE rowid = OLD.id;
  INSERT INTO epics_search (rowid, title, description) VALUES (NEW.id, NEW.title, NEW.description);
END;
CREATE TRIGGER epics_search_delete AFTER DELETE ON epics BEGIN
  DELETE FROM epics_search WHERE rowid = OLD.id;
END;
`,
  },
  {
    // A group's epics by one label at scale: counters per label title, group, author, state and
    // confidentiality, kept by triggers on the epics (their labels, group, author, state and
    // confidentiality; an epic counts once per distinct title, as its label rows do). A filter by
    // one label, alone or with a state or an author, counts from a few counter rows (exact for
    // every reader, as epic_counts); a label few epics of the instance carry is read from its
    // label rows instead of walking the group's epics to find them.
    name: 'epics/009_label_counts',
    sql: `
CREATE TABLE epic_label_counts (
  title TEXT NOT NULL,
  group_id INTEGER NOT NULL,
  author INTEGER NOT NULL,
  state TEXT NOT NULL,
  confidential INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (title, group_id, author, state, confidential)
) WITHOUT ROWID;
-- How many epics of the instance a title names in any case (label filters read label rows case-insensitively first).
CREATE INDEX epic_label_counts_title_nocase ON epic_label_counts (title COLLATE NOCASE);
INSERT INTO epic_label_counts (title, group_id, author, state, confidential, n)
  SELECT il.title, e.group_id, ifnull(e.author_id, 0), e.state, e.confidential, count(*)
  FROM issuable_labels il JOIN epics e ON e.id = il.issuable_id WHERE il.issuable_type = 'Epic'
  GROUP BY il.title, e.group_id, ifnull(e.author_id, 0), e.state, e.confidential;
CREATE TRIGGER epics_label_count_insert AFTER INSERT ON epics WHEN NEW.labels != '[]' BEGIN
  INSERT INTO epic_label_counts (title, group_id, author, state, confidential, n)
    SELECT DISTINCT value, NEW.group_id, ifnull(NEW.author_id, 0), NEW.state, NEW.confidential, 1 FROM json_each(NEW.labels) WHERE true
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER epics_label_count_delete AFTER DELETE ON epics WHEN OLD.labels != '[]' BEGIN
  UPDATE epic_label_counts SET n = n - 1
    WHERE title IN (SELECT value FROM json_each(OLD.labels)) AND group_id = OLD.group_id AND author = ifnull(OLD.author_id, 0)
      AND state = OLD.state AND confidential = OLD.confidential;
END;
CREATE TRIGGER epics_label_count_update AFTER UPDATE OF labels, group_id, author_id, state, confidential ON epics
  WHEN NEW.labels != OLD.labels OR NEW.group_id != OLD.group_id OR NEW.author_id IS NOT OLD.author_id OR NEW.state != OLD.state
    OR NEW.confidential != OLD.confidential BEGIN
  UPDATE epic_label_counts SET n = n - 1
    WHERE title IN (SELECT value FROM json_each(OLD.labels)) AND group_id = OLD.group_id AND author = ifnull(OLD.author_id, 0)
      AND state = OLD.state AND confidential = OLD.confidential;
  INSERT INTO epic_label_counts (title, group_id, author, state, confidential, n)
    SELECT DISTINCT value, NEW.group_id, ifnull(NEW.author_id, 0), NEW.state, NEW.confidential, 1 FROM json_each(NEW.labels) WHERE true
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // A group's epics created after (or before) a date at scale: counters per group, month of
    // created_at, state and confidentiality, kept by triggers. The months wholly inside the range
    // hold at least their count of the list's epics (the non-confidential ones, which every reader
    // of the group sees): past 10,000 the list is "more than 10,000" without counting 10,001 of
    // its index entries; otherwise it is counted as before.
    name: 'epics/010_created_month_counts',
    sql: `
CREATE TABLE epic_created_counts (
  group_id INTEGER NOT NULL,
  month TEXT NOT NULL,
  state TEXT NOT NULL,
  confidential INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (group_id, month, state, confidential)
) WITHOUT ROWID;
INSERT INTO epic_created_counts (group_id, month, state, confidential, n)
  SELECT group_id, substr(created_at, 1, 7), state, confidential, count(*) FROM epics GROUP BY group_id, substr(created_at, 1, 7), state, confidential;
CREATE TRIGGER epics_created_count_insert AFTER INSERT ON epics BEGIN
  INSERT INTO epic_created_counts (group_id, month, state, confidential, n) VALUES (NEW.group_id, substr(NEW.created_at, 1, 7), NEW.state, NEW.confidential, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER epics_created_count_delete AFTER DELETE ON epics BEGIN
  UPDATE epic_created_counts SET n = n - 1
    WHERE group_id = OLD.group_id AND month = substr(OLD.created_at, 1, 7) AND state = OLD.state AND confidential = OLD.confidential;
END;
CREATE TRIGGER epics_created_count_update AFTER UPDATE OF group_id, created_at, state, confidential ON epics
  WHEN NEW.group_id != OLD.group_id OR substr(NEW.created_at, 1, 7) != substr(OLD.created_at, 1, 7) OR NEW.state != OLD.state
    OR NEW.confidential != OLD.confidential BEGIN
  UPDATE epic_created_counts SET n = n - 1
    WHERE group_id = OLD.group_id AND month = substr(OLD.created_at, 1, 7) AND state = OLD.state AND confidential = OLD.confidential;
  INSERT INTO epic_created_counts (group_id, month, state, confidential, n) VALUES (NEW.group_id, substr(NEW.created_at, 1, 7), NEW.state, NEW.confidential, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
`,
  },
  {
    // Which epic each write to a group's epics touched, one row per move of epics/007's list
    // versions (the same events: every insert, update and delete; a move logs in both groups): a
    // list's remembered first row (PageAnchors.startBound) moves to a written epic that now sorts
    // before it instead of being found again by walking the list. The log keeps the last 1,000
    // writes of the instance; a list whose writes it no longer holds all of walks again.
    name: 'epics/011_list_writes',
    sql: `
CREATE TABLE epic_list_writes (
  seq INTEGER PRIMARY KEY,
  group_id INTEGER NOT NULL,
  epic_id INTEGER NOT NULL
);
CREATE INDEX epic_list_writes_group ON epic_list_writes (group_id, seq);
CREATE TRIGGER epics_list_write_insert AFTER INSERT ON epics BEGIN
  INSERT INTO epic_list_writes (group_id, epic_id) VALUES (NEW.group_id, NEW.id);
  DELETE FROM epic_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
CREATE TRIGGER epics_list_write_delete AFTER DELETE ON epics BEGIN
  INSERT INTO epic_list_writes (group_id, epic_id) VALUES (OLD.group_id, OLD.id);
  DELETE FROM epic_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
CREATE TRIGGER epics_list_write_update AFTER UPDATE ON epics BEGIN
  INSERT INTO epic_list_writes (group_id, epic_id) VALUES (NEW.group_id, NEW.id);
  INSERT INTO epic_list_writes (group_id, epic_id) SELECT OLD.group_id, OLD.id WHERE OLD.group_id != NEW.group_id;
  DELETE FROM epic_list_writes WHERE seq <= last_insert_rowid() - 1000;
END;
`,
  },
  {
    // Filters the order's index cannot check, each read from an index of its own (epicListSql):
    // - epic_dates_out_of_order: a group's epics updated before they were created (an
    //   administrator's created_at or updated_at, an import). While a group has none, updated_before
    //   bounds created_at too, so a list in creation order starts at that date instead of walking
    //   every newer epic (a third of a million-epic group before the first match).
    // - the confidential epics by creation date (few, and a list of them walked every epic);
    // - a user's award emoji by name (my_reaction_emoji read every epic's awards to find a few).
    name: 'epics/012_filter_indexes',
    sql: `
CREATE TABLE epic_dates_out_of_order (
  group_id INTEGER PRIMARY KEY,
  n INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO epic_dates_out_of_order (group_id, n)
  SELECT group_id, count(*) FROM epics WHERE updated_at < created_at GROUP BY group_id;
CREATE TRIGGER epics_dates_out_of_order_insert AFTER INSERT ON epics WHEN NEW.updated_at < NEW.created_at BEGIN
  INSERT INTO epic_dates_out_of_order (group_id, n) VALUES (NEW.group_id, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER epics_dates_out_of_order_delete AFTER DELETE ON epics WHEN OLD.updated_at < OLD.created_at BEGIN
  UPDATE epic_dates_out_of_order SET n = n - 1 WHERE group_id = OLD.group_id;
END;
CREATE TRIGGER epics_dates_out_of_order_update AFTER UPDATE OF group_id, created_at, updated_at ON epics
  WHEN OLD.updated_at < OLD.created_at OR NEW.updated_at < NEW.created_at BEGIN
  UPDATE epic_dates_out_of_order SET n = n - 1 WHERE group_id = OLD.group_id AND OLD.updated_at < OLD.created_at;
  INSERT INTO epic_dates_out_of_order (group_id, n) SELECT NEW.group_id, 1 WHERE NEW.updated_at < NEW.created_at
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE INDEX epics_group_confidential_created ON epics (group_id, created_at, id) WHERE confidential = 1;
CREATE INDEX epic_award_emoji_user ON epic_award_emoji (user_id, name, epic_id);
`,
  },
  {
    // A list ordered by one date and filtered by the other (db/date-lag.ts), as core/071 for issues
    // and merge requests: each epic's lag bucket between its group and the order's date. It replaces
    // epics/012's walk bounded while no epic of the groups was updated before its creation (those
    // are bucket -1); its counter is no longer read, kept (an older build reads it).
    name: 'epics/013_date_lag',
    sql: `
CREATE INDEX epics_group_lag_created ON epics (group_id, ${DATE_LAG_071}, created_at, id, updated_at);
CREATE INDEX epics_group_lag_updated ON epics (group_id, ${DATE_LAG_071}, updated_at, id, created_at);
`,
  },
  {
    // Epic label rows carry their epic's created_at and updated_at (kept by the label triggers,
    // redefined here, and on a date change), so they enter core's indexes of label rows by title
    // and date (core/030, core/054): a label filter reads the title's rows in the list's order
    // (labelRowsWalk) instead of reading every epic of the title and sorting them, or walking the
    // groups' epics probing each one's labels. Core's queries of those indexes name their type.
    name: 'epics/014_epic_label_dates',
    sql: `
UPDATE issuable_labels SET created_at = e.created_at, updated_at = e.updated_at FROM epics e
  WHERE issuable_labels.issuable_type = 'Epic' AND e.id = issuable_labels.issuable_id;
DROP TRIGGER epics_labels_insert;
CREATE TRIGGER epics_labels_insert AFTER INSERT ON epics WHEN NEW.labels != '[]' BEGIN
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, created_at, updated_at)
    SELECT 'Epic', NEW.id, value, NEW.created_at, NEW.updated_at FROM json_each(NEW.labels);
END;
DROP TRIGGER epics_labels_update;
CREATE TRIGGER epics_labels_update AFTER UPDATE OF labels ON epics WHEN NEW.labels != OLD.labels BEGIN
  DELETE FROM issuable_labels WHERE issuable_type = 'Epic' AND issuable_id = OLD.id;
  INSERT OR IGNORE INTO issuable_labels (issuable_type, issuable_id, title, created_at, updated_at)
    SELECT 'Epic', NEW.id, value, NEW.created_at, NEW.updated_at FROM json_each(NEW.labels);
END;
CREATE TRIGGER epics_labels_dates AFTER UPDATE OF created_at, updated_at ON epics
  WHEN NEW.created_at IS NOT OLD.created_at OR NEW.updated_at IS NOT OLD.updated_at BEGIN
  UPDATE issuable_labels SET created_at = NEW.created_at, updated_at = NEW.updated_at WHERE issuable_type = 'Epic' AND issuable_id = NEW.id;
END;
`,
  },
  {
    // A version of the issues' epic links (core/099's table_versions), moved by each link written
    // (an update by two: it may move a link from one issue to another), cascades included: an
    // issue list filtered by epic_id counts "more than 10,000" once and keeps it while the links'
    // and the project's records' writes since cannot have brought it under (core/count-versions.ts).
    name: 'epics/015_epic_issues_version',
    sql: `
INSERT INTO table_versions (name, version) VALUES ('epic_issues', 0);
CREATE TRIGGER epic_issues_table_version_insert AFTER INSERT ON epic_issues BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'epic_issues'; END;
CREATE TRIGGER epic_issues_table_version_update AFTER UPDATE ON epic_issues BEGIN UPDATE table_versions SET version = version + 2 WHERE name = 'epic_issues'; END;
CREATE TRIGGER epic_issues_table_version_delete AFTER DELETE ON epic_issues BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'epic_issues'; END;
`,
  },
  {
    // A group's epics by one author in updated_at order (`author_id=&order_by=updated_at`): the
    // author's own entries in that order, as epics_group_author_created serves created_at. Before,
    // a page walked the group's epics by updated_at and compared each author (le17: author 3's
    // 50,000 of 1,010,000 epics; with a common search term too, page 2500: 590 ms first time).
    name: 'epics/016_epics_group_author_updated',
    sql: `
CREATE INDEX epics_group_author_updated ON epics (group_id, author_id, updated_at, id);
`,
  },
  {
    // core/099's versions for the tables the epic lists read (the rows, their counters, list
    // writes and date exceptions, award emoji): their statements' answers outlive writes to
    // other tables, where any write let them go.
    name: 'epics/017_epic_table_versions',
    sql: `
${TABLE_VERSIONED_EPICS_017.map((t) => `INSERT INTO table_versions (name, version) VALUES ('${t}', 0);
CREATE TRIGGER ${t}_table_version_insert AFTER INSERT ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_update AFTER UPDATE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_delete AFTER DELETE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;`).join('\n')}
`,
  },
  {
    // core/099's version for epic_list_versions (the groups' epic list versions, moved by every
    // epic write): a group list's version (epics.ts `version`: the sum over the groups it reads)
    // was read again after any write elsewhere, the one statement of a date-bounded epic list.
    name: 'epics/018_epic_list_versions_version',
    sql: `
INSERT INTO table_versions (name, version) VALUES ('epic_list_versions', 0);
CREATE TRIGGER epic_list_versions_table_version_insert AFTER INSERT ON epic_list_versions BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'epic_list_versions'; END;
CREATE TRIGGER epic_list_versions_table_version_update AFTER UPDATE ON epic_list_versions BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'epic_list_versions'; END;
CREATE TRIGGER epic_list_versions_table_version_delete AFTER DELETE ON epic_list_versions BEGIN UPDATE table_versions SET version = version + 1 WHERE name = 'epic_list_versions'; END;
`,
  },
  {
    // A group's epics in one state by title or updated_at (`state=closed&order_by=title`): the
    // state's entries in that order, as epics_group_state_created serves created_at. Before, a page
    // walked the group's titles (or update dates) checking each epic's state (le17: 100,000 closed
    // of 1,010,000 epics; page 500 of 100 read about 500,000 epics first time, 154-204 ms).
    name: 'epics/019_epics_group_state_title_updated',
    sql: `
CREATE INDEX epics_group_state_title ON epics (group_id, state, title, id);
CREATE INDEX epics_group_state_updated ON epics (group_id, state, updated_at, id);
`,
  },
  {
    // A group's epics by one author in title order (`author_id=&order_by=title`): the author's own
    // entries in that order, as epics_group_author_created and _updated serve the dates. Before, a
    // page walked the group's titles checking each epic's author, or sorted the author's epics
    // (le17: author 3's 50,000 of 1,010,000; page 400 of 100 by title asc: 196 ms first time).
    name: 'epics/020_epics_group_author_title',
    sql: `
CREATE INDEX epics_group_author_title ON epics (group_id, author_id, title, id);
`,
  },
];
