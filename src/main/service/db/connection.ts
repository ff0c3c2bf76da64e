import Database from 'better-sqlite3';
import type { Migration } from './migrations';
import { applyMigrations } from './migrations';

export type Db = Database.Database;

/** Opens the data dir's database: WAL for concurrent readers, foreign keys enforced. */
export function openDatabase(file: string, migrations: Migration[], opts: { nativeBinding?: string; busyTimeoutMs?: number } = {}): Db {
  // nativeBinding: the Electron app loads a better-sqlite3 binding built for Electron's ABI.
  const db = new Database(file, opts.nativeBinding ? { nativeBinding: opts.nativeBinding } : {});
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
  // JavaScript's toLowerCase in SQL: Unicode-aware, where SQLite's lower() folds ASCII only.
  db.function('js_lower', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s));
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
  const state = lookupState(db);
  db.prepare = ((sql: string) => {
    let stmt = cache.get(sql);
    if (stmt) {
      cache.delete(sql); // re-insert: most recently used last
    } else {
      stmt = prepare(sql);
      if (!stmt.readonly) {
        // Every write (run, or get/all of `... RETURNING`) ends the current generation of cached lookups.
        for (const method of ['run', 'get', 'all'] as const) {
          const call = (stmt[method] as (...a: unknown[]) => unknown).bind(stmt);
          (stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
            state.generation++;
            return call(...args);
          };
        }
      }
      if (cache.size >= limit) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, stmt);
    return stmt;
  }) as Db['prepare'];
}

interface LookupState {
  generation: number;
  entries: Map<string, unknown>;
  entriesGeneration: number;
}
const lookupStates = new WeakMap<Db, LookupState>();

function lookupState(db: Db): LookupState {
  let state = lookupStates.get(db);
  if (!state) lookupStates.set(db, (state = { generation: 0, entries: new Map(), entriesGeneration: 0 }));
  return state;
}

/**
 * Memoizes a hot single-row lookup (a user, a token, a namespace, a project by id) until the
 * next write of any kind: every request authenticates and resolves its project, and between
 * writes the answers cannot change. Never caches inside a transaction, so an uncommitted row is
 * never served. Rows come back frozen: shared between requests, they must not be edited.
 */
export function cachedLookup<T>(db: Db, key: string, load: () => T | undefined): T | undefined {
  if (db.inTransaction) return load();
  const state = lookupState(db);
  if (state.entriesGeneration !== state.generation) {
    state.entries.clear();
    state.entriesGeneration = state.generation;
  }
  if (state.entries.has(key)) return state.entries.get(key) as T | undefined;
  const value = load();
  if (value && typeof value === 'object') Object.freeze(value);
  if (state.entries.size >= 10_000) state.entries.clear();
  state.entries.set(key, value);
  return value;
}

/**
 * SQLite's lock errors: another connection (a second Sandlab on the same data dir, a backup, the
 * sqlite3 shell) held the database past the busy timeout. Nothing was written; the request can be
 * sent again.
 */
export function isDatabaseBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** Runs `work` as one SQLite transaction (nested calls become savepoints). */
export function inTransaction<T>(db: Db, work: () => T): T {
  return db.transaction(work)();
}
