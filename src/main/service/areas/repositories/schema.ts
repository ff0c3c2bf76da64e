import type { Migration } from '../../db/migrations';

/**
 * The repository itself lives in `<dataDir>/repositories/<project id>.git`; the database keeps
 * only what the project entity shows without asking git (the README of the default branch) and
 * which repositories await removal.
 */
/** core/188's tables, of areas after core (a landed migration's text once landed: never edit). */
const TABLE_VERSIONED_188 = ['application_settings', 'badges', 'uploads', 'merge_request_diffs'];

export const repositoryMigrations: Migration[] = [
  {
    name: 'repositories/001_project_repositories',
    sql: `
CREATE TABLE project_repositories (
  project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
  readme_path TEXT,
  updated_at TEXT NOT NULL
);

-- However a project goes (itself, with its group, with its user), its repository is removed
-- after the commit: the trigger notes it, the repositories area deletes the folder.
CREATE TABLE deleted_project_repositories (project_id INTEGER PRIMARY KEY);
CREATE TRIGGER projects_delete_repository AFTER DELETE ON projects BEGIN
  INSERT OR IGNORE INTO deleted_project_repositories (project_id) VALUES (old.id);
END;
`,
  },
  {
    name: 'repositories/002_merge_request_diffs',
    sql: `
-- A merge request's versions (GitLab's merge_request_diffs): the branch heads each push or
-- refresh saw. base = merge base of target and source, start = target head, head = source head.
CREATE TABLE merge_request_diffs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merge_request_id INTEGER NOT NULL REFERENCES merge_requests(id) ON DELETE CASCADE,
  state TEXT NOT NULL,
  base_commit_sha TEXT,
  start_commit_sha TEXT,
  head_commit_sha TEXT,
  real_size TEXT,
  -- git patch-id of the version's diff (Gitaly's GetPatchID); NULL when it is empty.
  patch_id_sha TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX merge_request_diffs_merge_request ON merge_request_diffs (merge_request_id, id);

-- What the mergeability check and a merge leave on the merge request (NULL on merge requests
-- made before repositories existed, which keep their stored diff_refs).
ALTER TABLE merge_requests ADD COLUMN merge_status TEXT;
ALTER TABLE merge_requests ADD COLUMN merge_commit_sha TEXT;
ALTER TABLE merge_requests ADD COLUMN squash_commit_sha TEXT;
ALTER TABLE merge_requests ADD COLUMN merge_error TEXT;
-- The source branch lacks commits of the target branch (a fast-forward merge needs a rebase first).
ALTER TABLE merge_requests ADD COLUMN behind_target INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    name: 'repositories/003_commit_notes_and_statuses',
    sql: `
-- Notes on a commit (GitLab keeps commit_id on the note and no noteable_id): one row per noted
-- commit gives the notes table the integer noteable_id it indexes by.
CREATE TABLE commit_noteables (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  sha TEXT NOT NULL,
  UNIQUE (project_id, sha)
);

-- Statuses external systems post to a commit (POST /projects/:id/statuses/:sha), grouped as GitLab
-- groups them into an \`external\` pipeline per sha and ref.
CREATE TABLE ci_pipelines (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  iid INTEGER NOT NULL,
  sha TEXT NOT NULL,
  ref TEXT NOT NULL,
  source TEXT NOT NULL,
  status TEXT NOT NULL,
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX ci_pipelines_sha ON ci_pipelines (project_id, sha, id);

CREATE TABLE commit_statuses (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  pipeline_id INTEGER NOT NULL REFERENCES ci_pipelines(id) ON DELETE CASCADE,
  sha TEXT NOT NULL,
  ref TEXT NOT NULL,
  name TEXT NOT NULL,
  stage TEXT NOT NULL DEFAULT 'external',
  status TEXT NOT NULL,
  target_url TEXT,
  description TEXT,
  coverage REAL,
  allow_failure INTEGER NOT NULL DEFAULT 0,
  -- A newer status of the same name in the pipeline replaced this one (hidden unless all=true).
  retried INTEGER NOT NULL DEFAULT 0,
  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX commit_statuses_pipeline ON commit_statuses (pipeline_id, name, id);
`,
  },
  {
    // core/099's versions for tables of areas that come after core (the application settings read
    // by every request, badges, uploads and merge request diffs): their statements' answers
    // outlive writes to other tables. A core migration (core/188, reserved for it) listed here,
    // in the last area's list, after each area made its table.
    name: 'core/188_area_table_versions',
    sql: `
${TABLE_VERSIONED_188.map((t) => `INSERT INTO table_versions (name, version) VALUES ('${t}', 0);
CREATE TRIGGER ${t}_table_version_insert AFTER INSERT ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_update AFTER UPDATE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_delete AFTER DELETE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;`).join('\n')}
`,
  },
];
