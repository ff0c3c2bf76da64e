import type { Migration } from '../../db/migrations';

/** Which users are service accounts, and the top-level group that provisioned each (null: instance-wide). */
export const serviceAccountMigrations: Migration[] = [
  {
    name: 'service_accounts/001_initial',
    sql: `
CREATE TABLE service_accounts (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  provisioned_by_group_id INTEGER REFERENCES namespaces(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL
);
CREATE INDEX service_accounts_group ON service_accounts (provisioned_by_group_id);
`,
  },
];
