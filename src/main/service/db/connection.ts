import Database from 'better-sqlite3';
import type { Migration } from './migrations';
import { applyMigrations } from './migrations';

export type Db = Database.Database;

/** Opens the data dir's database: WAL for concurrent readers, foreign keys enforced. */
export function openDatabase(file: string, migrations: Migration[]): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  applyMigrations(db, migrations);
  return db;
}

/** Runs `work` as one SQLite transaction (nested calls become savepoints). */
export function inTransaction<T>(db: Db, work: () => T): T {
  return db.transaction(work)();
}
