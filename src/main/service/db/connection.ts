import Database from 'better-sqlite3';
import type { Migration } from './migrations';
import { applyMigrations } from './migrations';

export type Db = Database.Database;

/** Opens the data dir's database: WAL for concurrent readers, foreign keys enforced. */
export function openDatabase(file: string, migrations: Migration[], opts: { nativeBinding?: string } = {}): Db {
  // nativeBinding: the Electron app loads a better-sqlite3 binding built for Electron's ABI.
  const db = new Database(file, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  applyMigrations(db, migrations);
  cacheStatements(db);
  return db;
}

/**
 * Reuses prepared statements by SQL text: preparing is most of the cost of a small query, and the
 * same few hundred statements serve every request. Bounded, oldest dropped first, because some
 * SQL is built with a variable number of placeholders.
 */
function cacheStatements(db: Db, limit = 1000): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let stmt = cache.get(sql);
    if (stmt) {
      cache.delete(sql); // re-insert: most recently used last
    } else {
      stmt = prepare(sql);
      if (cache.size >= limit) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, stmt);
    return stmt;
  }) as Db['prepare'];
}

/** Runs `work` as one SQLite transaction (nested calls become savepoints). */
export function inTransaction<T>(db: Db, work: () => T): T {
  return db.transaction(work)();
}
