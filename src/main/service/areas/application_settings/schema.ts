import type { Migration } from '../../db/migrations';

/**
 * The instance's application settings: one row holding only what an administrator has set, so a
 * default added by a later release reaches existing data dirs too.
 */
export const applicationSettingsMigrations: Migration[] = [
  {
    name: 'application_settings/001_initial',
    sql: `
CREATE TABLE application_settings (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  overrides TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
  },
];
