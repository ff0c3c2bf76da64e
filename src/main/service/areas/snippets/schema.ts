import type { Migration } from '../../db/migrations';

/**
 * Snippets keep every version, as GitLab's snippet repositories do: each change to the files is a
 * revision (a commit with its own sha) listing the files it holds; contents are stored once per
 * snippet as blobs named by their git blob sha.
 */
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
];
