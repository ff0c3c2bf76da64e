import type { Migration } from '../../db/migrations';

/**
 * The repository itself lives in `<dataDir>/repositories/<project id>.git`; the database keeps
 * only what the project entity shows without asking git (the README of the default branch) and
 * which repositories await removal.
 */
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
];
