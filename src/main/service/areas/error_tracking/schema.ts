import type { Migration } from '../../db/migrations';

export const errorTrackingMigrations: Migration[] = [
  {
    name: 'error_tracking/001_initial',
    sql: `
CREATE TABLE error_tracking_settings (
  project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  active INTEGER NOT NULL,
  integrated INTEGER NOT NULL,
  api_url TEXT,
  project_name TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE error_tracking_client_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  active INTEGER NOT NULL DEFAULT 1,
  public_key TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX error_tracking_client_keys_project ON error_tracking_client_keys (project_id, id);
`,
  },
];
