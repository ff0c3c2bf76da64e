import type { Migration } from '../../db/migrations';

export const featureFlagsMigrations: Migration[] = [
  {
    name: 'feature_flags/001_initial',
    sql: `
      CREATE TABLE feature_flag_user_lists (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        iid INTEGER NOT NULL,
        name TEXT NOT NULL,
        user_xids TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (project_id, iid),
        UNIQUE (project_id, name)
      );
      CREATE TABLE feature_flags (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        iid INTEGER NOT NULL,
        name TEXT NOT NULL,
        description TEXT,
        active INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (project_id, iid),
        UNIQUE (project_id, name)
      );
      CREATE TABLE feature_flag_strategies (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        feature_flag_id INTEGER NOT NULL REFERENCES feature_flags(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        parameters TEXT NOT NULL DEFAULT '{}',
        user_list_id INTEGER REFERENCES feature_flag_user_lists(id),
        created_at TEXT NOT NULL
      );
      CREATE TABLE feature_flag_scopes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        strategy_id INTEGER NOT NULL REFERENCES feature_flag_strategies(id) ON DELETE CASCADE,
        environment_scope TEXT NOT NULL
      );
      -- GitLab's audit events for flag changes (no REST surface of their own here).
      CREATE TABLE feature_flag_audit_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        feature_flag_name TEXT NOT NULL,
        author_id INTEGER,
        message TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      -- Operations::FeatureFlagsClient: when the project's flags last changed (Unleash clients poll it).
      CREATE TABLE feature_flags_clients (
        project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
        last_feature_flag_updated_at TEXT NOT NULL
      );
    `,
  },
];
