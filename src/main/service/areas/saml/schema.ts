import type { Migration } from '../../db/migrations';

/** SAML group links (identities live in core's `identities`, keyed by `saml_group_id`). */
export const samlMigrations: Migration[] = [
  {
    name: 'saml/001_initial',
    sql: `
CREATE TABLE saml_group_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  group_id INTEGER NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
  saml_group_name TEXT NOT NULL,
  access_level INTEGER NOT NULL,
  member_role_id INTEGER,
  provider TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX saml_group_links_name ON saml_group_links (group_id, saml_group_name, ifnull(provider, ''));
`,
  },
];
