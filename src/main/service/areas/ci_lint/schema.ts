import type { Migration } from '../../db/migrations';

export const ciLintMigrations: Migration[] = [
  {
    name: 'ci_lint/001_initial',
    sql: `
      -- Sandlab-only: files "committed" to a project at a ref, until repositories exist.
      CREATE TABLE ci_project_files (
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        ref TEXT NOT NULL,
        path TEXT NOT NULL,
        content TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (project_id, ref, path)
      );
    `,
  },
  {
    // CI lint reads the projects' git repositories now; the stand-in file store goes.
    name: 'ci_lint/002_drop_project_files',
    sql: `DROP TABLE ci_project_files;`,
  },
];
