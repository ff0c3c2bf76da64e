import type { Migration } from '../../db/migrations';

/**
 * Repository imports from the hosting providers. `projects.import_type/import_status/import_error/
 * import_url` say what the project is; these tables hold the rest of GitLab's import state. The
 * upstream token is never stored: it lives in memory for the import's life only.
 */
export const importMigrations: Migration[] = [
  {
    name: 'imports/001_initial',
    sql: `
-- One row per imported project (GitLab's project_import_data and import_state).
CREATE TABLE project_imports (
  project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  provider TEXT NOT NULL CHECK (provider IN ('github', 'bitbucket_server', 'bitbucket')),
  -- The repository as the provider names it ('owner/repo'); provider_link is derived from it.
  import_source TEXT NOT NULL,
  -- The provider API root read, and what locates the repository there (JSON, no secrets).
  api_url TEXT NOT NULL,
  locator TEXT NOT NULL,
  -- optional_stages, timeout_strategy, pagination_limit (JSON).
  settings TEXT NOT NULL DEFAULT '{}',
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  correlation_id TEXT NOT NULL,
  -- {"fetched": {"issue": 3, ...}, "imported": {...}}, as GitLab's ObjectCounter summary.
  stats TEXT NOT NULL DEFAULT '{"fetched":{},"imported":{}}',
  started_at TEXT,
  finished_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- Records that could not be imported (the import goes on), and the error that ended an import.
CREATE TABLE project_import_failures (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  correlation_id TEXT NOT NULL,
  relation_key TEXT,
  relation_index INTEGER,
  source TEXT NOT NULL,
  exception_class TEXT NOT NULL,
  exception_message TEXT NOT NULL,
  -- 1: one record failed and the import went on; 0: the error that stopped the import.
  record_failure INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL
);
CREATE INDEX project_import_failures_project ON project_import_failures (project_id, id);

-- Which upstream record became which record here, so a resumed stage never imports one twice.
CREATE TABLE project_import_records (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  source_id TEXT NOT NULL,
  target_id INTEGER NOT NULL,
  PRIMARY KEY (project_id, kind, source_id)
);

-- The non-functional "Import User" of a top-level namespace: unmatched contributions go to it.
CREATE TABLE import_placeholder_users (
  namespace_id INTEGER PRIMARY KEY REFERENCES namespaces(id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE
);

-- A user's gists import (GitLab keeps this in Redis): one at a time per user.
CREATE TABLE gist_imports (
  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('started', 'finished', 'failed')),
  api_url TEXT NOT NULL,
  imported_count INTEGER NOT NULL DEFAULT 0,
  -- Gists left out: [{"id", "description", "reason"}] (GitLab mails this list).
  skipped TEXT NOT NULL DEFAULT '[]',
  error TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT
);

-- Which gist became which snippet, so a resumed gists import never imports one twice.
CREATE TABLE gist_import_records (
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  gist_id TEXT NOT NULL,
  snippet_id INTEGER NOT NULL,
  PRIMARY KEY (user_id, gist_id)
);
`,
  },
];
