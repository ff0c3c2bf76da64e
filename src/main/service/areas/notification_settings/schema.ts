import type { Migration } from '../../db/migrations';

export const notificationSettingsMigrations: Migration[] = [
  {
    name: 'notification_settings/001_initial',
    sql: `
-- One row per user and source ('Global' with source_id 0, 'Namespace' or 'Project'); absent = defaults.
CREATE TABLE notification_settings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  source_type TEXT NOT NULL CHECK (source_type IN ('Global', 'Namespace', 'Project')),
  source_id INTEGER NOT NULL,
  level TEXT NOT NULL,
  notification_email TEXT,
  events TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX notification_settings_user_source ON notification_settings (user_id, source_type, source_id);
`,
  },
];
