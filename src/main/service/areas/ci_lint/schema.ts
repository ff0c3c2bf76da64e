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
    // Runs before 002 (array order) on data dirs that have not dropped the stand-in store yet, so
    // files users saved through the removed Sandlab-only files endpoint are kept, not destroyed.
    // IF NOT EXISTS: data dirs that already ran 002 get an empty table back, harmlessly.
    name: 'ci_lint/001a_keep_stand_in_files',
    sql: `
      CREATE TABLE IF NOT EXISTS ci_project_files (
        project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        ref TEXT NOT NULL,
        path TEXT NOT NULL,
        content TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (project_id, ref, path)
      );
      CREATE TABLE ci_project_files_kept AS SELECT * FROM ci_project_files;
    `,
  },
  {
    // CI lint reads the projects' git repositories now; the stand-in file store goes.
    name: 'ci_lint/002_drop_project_files',
    sql: `DROP TABLE ci_project_files;`,
  },
];
