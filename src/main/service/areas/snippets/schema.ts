import type { Migration } from '../../db/migrations';
import { retitleEventsTrigger } from '../core/schema';

/**
 * Snippets keep every version, as GitLab's snippet repositories do: each change to the files is a
 * revision (a commit with its own sha) listing the files it holds; contents are stored once per
 * snippet as blobs named by their git blob sha.
 */
/** A snippet `s`'s row of snippets_search (snippets/004): its id, title, description and every revision's file names, 'İ' as 'i'. */
const SEARCH_ROW = `s.id, replace(s.title, 'İ', 'i'), replace(coalesce(s.description, ''), 'İ', 'i'),
  replace(coalesce((SELECT group_concat(DISTINCT f.path) FROM snippet_revisions r CROSS JOIN snippet_revision_files f ON f.revision_id = r.id WHERE r.snippet_id = s.id), ''), 'İ', 'i')`;

/** snippets/005's tables (a landed migration's text once landed: never edit). */
const TABLE_VERSIONED_SNIPPETS_005 = ['snippets', 'snippet_blobs', 'snippet_user_agent_details', 'project_snippet_counts', 'project_snippet_list_versions'];

export const snippetMigrations: Migration[] = [
  {
    name: 'snippets/001_initial',
    sql: `
CREATE TABLE snippets (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  description TEXT,
  visibility TEXT NOT NULL CHECK (visibility IN ('private', 'internal', 'public')),
  imported INTEGER NOT NULL DEFAULT 0,
  imported_from TEXT NOT NULL DEFAULT 'none',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX snippets_project ON snippets (project_id, id);
CREATE INDEX snippets_author ON snippets (author_id, id);

CREATE TABLE snippet_blobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  snippet_id INTEGER NOT NULL REFERENCES snippets(id) ON DELETE CASCADE,
  sha TEXT NOT NULL,
  content TEXT NOT NULL
);
CREATE UNIQUE INDEX snippet_blobs_sha ON snippet_blobs (snippet_id, sha);

CREATE TABLE snippet_revisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  snippet_id INTEGER NOT NULL REFERENCES snippets(id) ON DELETE CASCADE,
  sha TEXT NOT NULL,
  parent_sha TEXT,
  message TEXT NOT NULL,
  author_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX snippet_revisions_sha ON snippet_revisions (snippet_id, sha);

CREATE TABLE snippet_revision_files (
  revision_id INTEGER NOT NULL REFERENCES snippet_revisions(id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  blob_id INTEGER NOT NULL REFERENCES snippet_blobs(id) ON DELETE CASCADE,
  PRIMARY KEY (revision_id, path)
);

CREATE TABLE snippet_user_agent_details (
  snippet_id INTEGER PRIMARY KEY REFERENCES snippets(id) ON DELETE CASCADE,
  user_agent TEXT NOT NULL,
  ip_address TEXT NOT NULL,
  submitted INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
`,
  },
  {
    name: 'snippets/002_award_emoji_cleanup',
    sql: `
-- A snippet's reactions (core's award_emoji) go with it.
CREATE TRIGGER snippets_award_emoji_cleanup AFTER DELETE ON snippets BEGIN
  DELETE FROM award_emoji WHERE awardable_type = 'Snippet' AND awardable_id = OLD.id;
END;
`,
  },
  {
    // A project's snippets at scale: counted per author and visibility by triggers, so a list's
    // count reads a few counter rows instead of walking 10,001 snippets; and a version per
    // project, moved on by every insert, update and delete of its snippets (cascades included),
    // so deep pages start after a row an earlier page read (PageAnchors). The column is `author`
    // for the reason core/018 gives.
    name: 'snippets/003_project_list_counts',
    sql: `
CREATE TABLE project_snippet_counts (
  project_id INTEGER NOT NULL,
  author INTEGER NOT NULL,
  visibility TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (project_id, author, visibility)
) WITHOUT ROWID;
INSERT INTO project_snippet_counts (project_id, author, visibility, n)
  SELECT project_id, author_id, visibility, count(*) FROM snippets WHERE project_id IS NOT NULL GROUP BY project_id, author_id, visibility;
CREATE TRIGGER snippets_count_insert AFTER INSERT ON snippets WHEN NEW.project_id IS NOT NULL BEGIN
  INSERT INTO project_snippet_counts (project_id, author, visibility, n) VALUES (NEW.project_id, NEW.author_id, NEW.visibility, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER snippets_count_delete AFTER DELETE ON snippets WHEN OLD.project_id IS NOT NULL BEGIN
  UPDATE project_snippet_counts SET n = n - 1 WHERE project_id = OLD.project_id AND author = OLD.author_id AND visibility = OLD.visibility;
END;
CREATE TRIGGER snippets_count_update AFTER UPDATE OF project_id, author_id, visibility ON snippets
  WHEN NEW.project_id IS NOT OLD.project_id OR NEW.author_id != OLD.author_id OR NEW.visibility != OLD.visibility BEGIN
  UPDATE project_snippet_counts SET n = n - 1 WHERE project_id = OLD.project_id AND author = OLD.author_id AND visibility = OLD.visibility;
  INSERT INTO project_snippet_counts (project_id, author, visibility, n) SELECT NEW.project_id, NEW.author_id, NEW.visibility, 1
    WHERE NEW.project_id IS NOT NULL ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TABLE project_snippet_list_versions (project_id INTEGER PRIMARY KEY, version INTEGER NOT NULL);
CREATE TRIGGER snippets_list_version_insert AFTER INSERT ON snippets WHEN NEW.project_id IS NOT NULL BEGIN
  INSERT INTO project_snippet_list_versions (project_id, version) VALUES (NEW.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER snippets_list_version_delete AFTER DELETE ON snippets WHEN OLD.project_id IS NOT NULL BEGIN
  INSERT INTO project_snippet_list_versions (project_id, version) VALUES (OLD.project_id, 1) ON CONFLICT DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER snippets_list_version_update AFTER UPDATE ON snippets BEGIN
  INSERT INTO project_snippet_list_versions (project_id, version) SELECT NEW.project_id, 1 WHERE NEW.project_id IS NOT NULL
    ON CONFLICT DO UPDATE SET version = version + 1;
  INSERT INTO project_snippet_list_versions (project_id, version) SELECT OLD.project_id, 1 WHERE OLD.project_id IS NOT NULL AND OLD.project_id IS NOT NEW.project_id
    ON CONFLICT DO UPDATE SET version = version + 1;
END;
`,
  },
  {
    // The Search API's snippet_titles scope: candidates by the trigram full-text index instead of
    // every snippet's title, description and files folded and searched (8-11 ms at 5,000). Keyed by
    // the snippet's id; the file names of every revision (a superset of the latest revision's:
    // the search still decides). 'İ' is indexed as 'i': JavaScript folds it to 'i' + U+0307, which
    // the tokenizer's folding does not (the only character besides ASCII whose toLowerCase holds
    // ASCII and the tokenizer folds otherwise), so every ASCII term the search matches is among
    // the index's matches.
    name: 'snippets/004_snippets_search',
    sql: `
CREATE VIRTUAL TABLE snippets_search USING fts5(title, description, paths, content = '', contentless_delete = 1, tokenize = 'trigram');
INSERT INTO snippets_search (rowid, title, description, paths) SELECT ${SEARCH_ROW} FROM snippets s;
INSERT INTO snippets_search (snippets_search) VALUES ('optimize');
CREATE TRIGGER snippets_search_insert AFTER INSERT ON snippets BEGIN
  INSERT INTO snippets_search (rowid, title, description, paths) SELECT ${SEARCH_ROW} FROM snippets s WHERE s.id = NEW.id;
END;
CREATE TRIGGER snippets_search_update AFTER UPDATE OF id, title, description ON snippets BEGIN
  DELETE FROM snippets_search WHERE rowid = OLD.id;
  INSERT INTO snippets_search (rowid, title, description, paths) SELECT ${SEARCH_ROW} FROM snippets s WHERE s.id = NEW.id;
END;
CREATE TRIGGER snippets_search_delete AFTER DELETE ON snippets BEGIN
  DELETE FROM snippets_search WHERE rowid = OLD.id;
END;
CREATE TRIGGER snippets_search_file_insert AFTER INSERT ON snippet_revision_files BEGIN
  DELETE FROM snippets_search WHERE rowid = (SELECT r.snippet_id FROM snippet_revisions r WHERE r.id = NEW.revision_id);
  INSERT INTO snippets_search (rowid, title, description, paths) SELECT ${SEARCH_ROW} FROM snippets s WHERE s.id = (SELECT r.snippet_id FROM snippet_revisions r WHERE r.id = NEW.revision_id);
END;
CREATE TRIGGER snippets_search_file_update AFTER UPDATE OF revision_id, path ON snippet_revision_files BEGIN
  DELETE FROM snippets_search WHERE rowid = (SELECT r.snippet_id FROM snippet_revisions r WHERE r.id = NEW.revision_id);
  INSERT INTO snippets_search (rowid, title, description, paths) SELECT ${SEARCH_ROW} FROM snippets s WHERE s.id = (SELECT r.snippet_id FROM snippet_revisions r WHERE r.id = NEW.revision_id);
END;
CREATE TRIGGER snippets_search_revision_update AFTER UPDATE OF snippet_id ON snippet_revisions BEGIN
  DELETE FROM snippets_search WHERE rowid = NEW.snippet_id;
  INSERT INTO snippets_search (rowid, title, description, paths) SELECT ${SEARCH_ROW} FROM snippets s WHERE s.id = NEW.snippet_id;
END;
`,
  },
  {
    // core/099's versions for the tables a page of snippets reads its files from (areas/snippets/
    // snippets.ts currentPathsOf): each snippet's current paths are kept across writes to other
    // tables, where a page of 100 read every snippet's latest revision and files again after any
    // write. A core migration (core/145, reserved for it) listed here, after snippets/001 made the tables.
    name: 'core/145_snippet_file_versions',
    sql: `
${['snippet_revisions', 'snippet_revision_files'].map((t) => `INSERT INTO table_versions (name, version) VALUES ('${t}', 0);
CREATE TRIGGER ${t}_table_version_insert AFTER INSERT ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_update AFTER UPDATE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_delete AFTER DELETE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;`).join('\n')}
`,
  },
  {
    // GET /snippets: the caller's personal snippets (no project), newest first. snippets_author
    // holds their project snippets too, and a page walked all of those newer than it (a project of
    // a million snippets by one author: 80-260 ms a page, and its count read each one). Only the
    // personal ones here; a core migration (core/169, reserved for it), after snippets/001.
    name: 'core/169_personal_snippets_author',
    sql: `
CREATE INDEX snippets_personal_author ON snippets (author_id, id) WHERE project_id IS NULL;
`,
  },
  {
    // The Search API's snippet_titles order (updated_at DESC, id DESC: SnippetSearchResults): a
    // page walks this index, each snippet checked, instead of every snippet of the instance that
    // holds the term read and sorted (a term a quarter of a million snippets hold: 1.2-1.4 s). A
    // core migration (core/166, reserved for it) listed here, after snippets/001 made the table.
    name: 'core/166_snippets_updated',
    sql: 'CREATE INDEX snippets_updated ON snippets (updated_at, id);',
  },
  {
    // core/099's versions for the tables the snippet lists read (the rows, their files of before
    // revisions, the per-project counts and list versions): their statements' answers outlive
    // writes to other tables, where any write let them go.
    name: 'snippets/005_snippet_table_versions',
    sql: `
${TABLE_VERSIONED_SNIPPETS_005.map((t) => `INSERT INTO table_versions (name, version) VALUES ('${t}', 0);
CREATE TRIGGER ${t}_table_version_insert AFTER INSERT ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_update AFTER UPDATE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_delete AFTER DELETE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;`).join('\n')}
`,
  },
  {
    // core/390 for snippets (their table is made after core's migrations): a snippet's comments
    // show it as now named in the event lists (a note's title is its noteable's, read live).
    name: 'core/397_snippet_event_titles',
    sql: retitleEventsTrigger('snippets', 'Snippet', true),
  },
];
