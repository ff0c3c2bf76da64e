import type { Migration } from '../../db/migrations';

export const draftNotesMigrations: Migration[] = [
  {
    name: 'draft_notes/001_initial',
    sql: `
-- Pending review comments on merge requests, visible only to their author until published.
CREATE TABLE draft_notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merge_request_id INTEGER NOT NULL REFERENCES merge_requests(id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  note TEXT NOT NULL,
  discussion_id TEXT,
  resolve_discussion INTEGER NOT NULL DEFAULT 0,
  commit_id TEXT,
  line_code TEXT,
  position TEXT,
  internal INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX draft_notes_mr_author ON draft_notes (merge_request_id, author_id);
`,
  },
];
