import type { Migration } from '../../db/migrations';

/** CI/CD variables of projects, groups and the instance (owner_id NULL). Values are kept as given. */
export const ciVariableMigrations: Migration[] = [
  {
    name: 'ci_variables/001_initial',
    sql: `
CREATE TABLE ci_variables (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  owner_type TEXT NOT NULL CHECK (owner_type IN ('Project', 'Namespace', 'Instance')),
  project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  variable_type TEXT NOT NULL DEFAULT 'env_var' CHECK (variable_type IN ('env_var', 'file')),
  protected INTEGER NOT NULL DEFAULT 0,
  masked INTEGER NOT NULL DEFAULT 0,
  hidden INTEGER NOT NULL DEFAULT 0,
  raw INTEGER NOT NULL DEFAULT 0,
  environment_scope TEXT NOT NULL DEFAULT '*',
  description TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX ci_variables_project ON ci_variables (project_id, key);
CREATE INDEX ci_variables_group ON ci_variables (group_id, key);
`,
  },
];
