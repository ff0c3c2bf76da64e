import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { applyMigrations } from '../../src/main/service/db/migrations';
import { ciLintMigrations } from '../../src/main/service/areas/ci_lint/schema';

// Files saved through the removed Sandlab-only `/projects/:id/sandlab/files` endpoint must survive
// the migration that drops the stand-in store: a data folder keeps every record it had.
describe('the CI lint stand-in file store', () => {
  const [initial] = ciLintMigrations;

  function dataDirBeforeTheDrop(): Database.Database {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE projects (id INTEGER PRIMARY KEY)');
    applyMigrations(db, [initial]);
    db.prepare('INSERT INTO projects (id) VALUES (7)').run();
    db.prepare('INSERT INTO ci_project_files VALUES (7, ?, ?, ?, ?)').run('main', '.gitlab-ci.yml', 'test:\n  script: make\n', '2026-11-25T10:00:00Z');
    return db;
  }

  it('keeps the files of a data dir written before the drop', () => {
    const db = dataDirBeforeTheDrop();
    applyMigrations(db, ciLintMigrations);
    expect(db.prepare('SELECT * FROM ci_project_files_kept').all()).toEqual([
      { project_id: 7, ref: 'main', path: '.gitlab-ci.yml', content: 'test:\n  script: make\n', updated_at: '2026-11-25T10:00:00Z' },
    ]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'ci_project_files'").get()).toBeUndefined();
  });

  it('opens a data dir that had already dropped the store', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE projects (id INTEGER PRIMARY KEY)');
    applyMigrations(db, ciLintMigrations.filter((m) => m.name !== 'ci_lint/001a_keep_stand_in_files'));
    expect(() => applyMigrations(db, ciLintMigrations)).not.toThrow();
    expect(db.prepare('SELECT count(*) AS n FROM ci_project_files_kept').get()).toEqual({ n: 0 });
  });
});
