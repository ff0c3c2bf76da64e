import type { Migration } from '../../db/migrations';

export const jobTokenScopeMigrations: Migration[] = [
  {
    name: 'job_token_scope/001_initial',
    sql: `
      -- One row per project whose setting was changed; no row = GitLab's default (inbound on).
      CREATE TABLE job_token_scope_settings (
        project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        inbound_enabled INTEGER NOT NULL DEFAULT 1
      );
      -- source project's inbound allowlist: jobs of target_project_id may reach source_project_id.
      CREATE TABLE job_token_project_links (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        source_project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        target_project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        added_by_id INTEGER,
        created_at TEXT NOT NULL,
        UNIQUE (source_project_id, target_project_id)
      );
      CREATE TABLE job_token_group_links (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        source_project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        target_group_id INTEGER NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
        added_by_id INTEGER,
        created_at TEXT NOT NULL,
        UNIQUE (source_project_id, target_group_id)
      );
      -- CI job tokens (minted through the Sandlab-only endpoint); digest only.
      CREATE TABLE ci_job_tokens (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        token_digest TEXT NOT NULL UNIQUE,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL
      );
    `,
  },
];
