import type { Migration } from '../../db/migrations';

/** Markdown uploads: one row per file stored at `<dataDir>/uploads/<project_id>/<secret>/<filename>`. */
export const uploadMigrations: Migration[] = [
  {
    name: 'uploads/001_initial',
    sql: `
CREATE TABLE uploads (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  secret TEXT NOT NULL,
  filename TEXT NOT NULL,
  size INTEGER NOT NULL,
  mime_type TEXT NOT NULL,
  uploaded_by_user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX uploads_secret_filename ON uploads (project_id, secret, filename);
CREATE INDEX uploads_project_created ON uploads (project_id, created_at, id);
`,
  },
];
