import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { Migration } from './migrations';
import { applyMigrations } from './migrations';
import { MEMORY_BUDGET, deleteOldest } from '../memory';
import { MeasuredText } from '../http/server';

export type Db = Database.Database;

/**
 * better-sqlite3's binding for this Node, where `npm install` builds it (`packageDir`: better-sqlite3's
 * folder). Named directly because better-sqlite3's own lookup (the `bindings` package) tries a
 * dozen places first, ~3 ms of a start, and because better-sqlite3's JavaScript is bundled
 * (electron.vite.config.ts): from the bundle, `bindings` would search the bundle's folder instead
 * of better-sqlite3's. A binding built elsewhere (a debug build) is found by that same search, run
 * from better-sqlite3's folder.
 */
export function nodeBinding(packageDir?: string): string | undefined {
  try {
    const dir = packageDir ?? dirname(createRequire(__filename).resolve('better-sqlite3/package.json'));
    const built = join(dir, 'build', 'Release', 'better_sqlite3.node');
    if (existsSync(built)) return built;
    const bindings = createRequire(join(dir, 'package.json'))('bindings') as (opts: object) => string;
    return bindings({ bindings: 'better_sqlite3.node', module_root: dir, path: true });
  } catch {
    return undefined;
  }
}

/** Opens the data dir's database: WAL for concurrent readers, foreign keys enforced. */
export function openDatabase(file: string, migrations: Migration[], opts: { nativeBinding?: string; busyTimeoutMs?: number } = {}): Db {
  // nativeBinding: the Electron app loads a better-sqlite3 binding built for Electron's ABI.
  const nativeBinding = opts.nativeBinding ?? nodeBinding();
  const db = new Database(file, nativeBinding ? { nativeBinding } : {});
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
  // The page caches' size is the memory budget's (better-sqlite3's default was the same, unstated).
  db.pragma(`main.cache_size = ${-MEMORY_BUDGET.sqlitePageCacheKib}`);
  db.pragma(`temp.cache_size = ${-MEMORY_BUDGET.sqlitePageCacheKib}`);
  // JavaScript's toLowerCase in SQL: Unicode-aware, where SQLite's lower() folds ASCII only.
  db.function('js_lower', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s));
  applyMigrations(db, migrations);
  cacheStatements(db);
  trackTransactions(db);
  return db;
}

/**
 * Whether a transaction is open, without a call into SQLite each time (db.inTransaction is one):
 * the remembered lookups and reads ask on every read, six times a badge GET. A transaction opened
 * through db.transaction (inTransaction() below, better-sqlite3's variants) is open exactly while
 * its function runs, between BEGIN and COMMIT or ROLLBACK: trackTransactions counts those
 * functions. SQL that opens one by hand (BEGIN or SAVEPOINT through exec or a statement, seen by
 * cacheStatements), and a connection not opened by openDatabase, are answered by SQLite.
 */
function transactionOpen(db: Db, state: LookupState): boolean {
  return state.transactionDepth > 0 || (state.transactionsByHand && db.inTransaction);
}

/** SQL that changes the schema: remembered reads kept by their tables' versions go (rememberReads). */
const SCHEMA_SQL = /^\s*(create|drop|alter)\b/i;

/** SQL that opens a transaction by hand (not through db.transaction). */
const OPENS_TRANSACTION = /\b(begin|savepoint)\b/i;

/** Counts the transaction functions running (transactionOpen); from here on a BEGIN by hand is seen by cacheStatements. */
function trackTransactions(db: Db): void {
  const state = lookupState(db);
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...args: unknown[]) => unknown) => {
    // Not a function: better-sqlite3's own TypeError, at once.
    if (typeof fn !== 'function') return transaction(fn);
    return transaction(function (this: unknown, ...args: unknown[]) {
      state.transactionDepth++;
      try {
        return fn.apply(this, args);
      } finally {
        state.transactionDepth--;
      }
    });
  }) as Db['transaction'];
  state.transactionsByHand = db.inTransaction;
}

/**
 * Reuses prepared statements by SQL text: preparing is most of the cost of a small query, and the
 * same few hundred statements serve every request. Bounded, because some SQL is built with a
 * variable number of placeholders: when full, the oldest statement not used since the last
 * eviction pass goes (a used one gets a second chance at the back). A hit only sets a flag,
 * where moving the entry to the back cost a Map delete and insert on every prepare.
 */
function cacheStatements(db: Db, limit: number = MEMORY_BUDGET.statements): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, { stmt: Database.Statement; used: boolean }>();
  const evictOne = (): void => {
    for (const [sql, entry] of cache) {
      cache.delete(sql);
      if (!entry.used) return;
      entry.used = false;
      cache.set(sql, entry);
    }
  };
  const state = lookupState(db);
  // db.exec runs any SQL (schema changes included): it ends the generation too.
  const exec = db.exec.bind(db);
  db.exec = ((sql: string) => {
    state.generation++;
    state.flushes++;
    if (OPENS_TRANSACTION.test(sql)) state.transactionsByHand = true;
    return exec(sql);
  }) as Db['exec'];
  db.prepare = ((sql: string) => {
    const known = cache.get(sql);
    if (known) {
      known.used = true;
      return known.stmt;
    }
    const stmt = prepare(sql);
    if (!stmt.reader && OPENS_TRANSACTION.test(sql)) state.transactionsByHand = true;
    const rows = stmt.reader ? readRowsThroughArrays(stmt) : null;
    if (stmt.reader) unremembered.set(stmt, rows ? (...args) => rows.all(...args).map(rows.object) : (stmt.all.bind(stmt) as (...args: unknown[]) => unknown[]));
    if (stmt.readonly) rememberReads(db, stmt, state, rows);
    else {
      // Every write (run, or get/all of `... RETURNING`) ends the current generation of cached lookups.
      const schema = SCHEMA_SQL.test(sql);
      for (const method of ['run', 'get', 'all'] as const) {
        const call = (stmt[method] as (...a: unknown[]) => unknown).bind(stmt);
        (stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
          writeGuard?.();
          state.generation++;
          if (schema) state.flushes++;
          return call(...args);
        };
      }
    }
    if (cache.size >= limit) evictOne();
    cache.set(sql, { stmt, used: false });
    return stmt;
  }) as Db['prepare'];
}

/**
 * Rows as the same plain objects better-sqlite3 returns, built faster: the statement hands back
 * arrays (raw mode) and a function compiled once per statement turns each into an object literal.
 * better-sqlite3 sets each column by name on an empty object, re-deriving the object's shape
 * column by column, which made materializing a row most of a small query's cost (a wide row of
 * 100 columns ~3x slower than through the literal). Same keys in the same order, the last of two
 * equal names winning, as before. Rebuilt when the statement's columns change under it (SQLite
 * re-prepares `SELECT *` after a schema change).
 */
function readRowsThroughArrays(stmt: Database.Statement): RowArrays | null {
  const names = (): string[] => stmt.columns().map((c) => c.name);
  let columns = names();
  // A column named __proto__ would set the prototype in a literal: leave such statements as they are.
  if (columns.includes('__proto__')) return null;
  const compile = (cols: string[]) => new Function('r', `return {${cols.map((n, i) => `${JSON.stringify(n)}: r[${i}]`).join(', ')}};`) as (r: unknown[]) => unknown;
  let toObject = compile(columns);
  const object = (row: unknown[]): unknown => {
    if (row.length !== columns.length) {
      columns = names();
      toObject = compile(columns);
    }
    return toObject(row);
  };
  stmt.raw(true);
  const get = stmt.get.bind(stmt) as (...args: unknown[]) => unknown[] | undefined;
  const all = stmt.all.bind(stmt) as (...args: unknown[]) => unknown[][];
  const iterate = stmt.iterate.bind(stmt) as (...args: unknown[]) => IterableIterator<unknown[]>;
  const modes = stmt as unknown as Record<'get' | 'all' | 'iterate', unknown>;
  modes.get = (...args: unknown[]) => {
    const row = get(...args);
    return row === undefined ? undefined : object(row);
  };
  modes.all = (...args: unknown[]) => {
    const rows = all(...args);
    const out = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = object(rows[i]);
    return out;
  };
  modes.iterate = function* (...args: unknown[]) {
    for (const row of iterate(...args)) yield object(row);
  };
  // pluck(), raw() and expand() would hand the arrays to code expecting objects: nothing calls them.
  for (const mode of ['pluck', 'raw', 'expand'] as const) {
    (stmt as unknown as Record<string, unknown>)[mode] = () => {
      throw new Error(`Statement.${mode}() is not available: statements are shared by SQL text (db/connection.ts)`);
    };
  }
  return { get, all, object };
}

/** Each read statement's rows straight from SQLite, as the objects its `all` hands out, past its remembered answers (readUnremembered). */
const unremembered = new WeakMap<Database.Statement, (...args: unknown[]) => unknown[]>();

/**
 * A read's rows from SQLite, its answer not remembered by the statement (rememberReads): for a
 * caller that keeps the rows itself, each read once (rowsByIds by id, a page's counts by
 * cachedLookup). Remembered as well, every page never read before held its rows twice and counted
 * them against the remembered rows' bound: a client reading pages in turn reached it every ~70
 * pages and let every remembered read and lookup go (db/written-rows.ts).
 */
export function readUnremembered<T>(db: Db, sql: string, ...args: unknown[]): T[] {
  const stmt = db.prepare(sql);
  const read = unremembered.get(stmt);
  return (read ? read(...args) : stmt.all(...args)) as T[];
}

/**
 * `SELECT * FROM <table> WHERE <where>` as readUnremembered reads it (in no set order), the rows
 * made by SQLite as one JSON text (json_group_array of each row's json_array) and parsed by V8.
 * better-sqlite3 makes each value through V8's API, ~75 ns apiece: a page of 20 issues never read
 * before (20 columns) took ~38 us to read, ~25 through JSON. The same values: SQLite writes a
 * REAL's 17 digits and JSON.parse reads them back, text round-trips escaped (`-0.0` reads as 0,
 * which JSON sends as 0 either way). A BLOB, which JSON cannot hold, reads the plain way, as do
 * columns dropped by another connection (this one's statements still name them).
 */
export function readTableRows<T>(db: Db, table: string, where: string, ...args: unknown[]): T[] {
  const read = tableRowsAsJson(db, table);
  const plain = `SELECT * FROM ${table} WHERE ${where}`;
  if (!read) return readUnremembered<T>(db, plain, ...args);
  let text: string;
  try {
    text = readUnremembered<{ page: string }>(db, `SELECT json_group_array(json_array(${read.columns})) AS page FROM ${table} WHERE ${where}`, ...args)[0].page;
  } catch {
    // A BLOB (JSON cannot hold one), or columns another connection's schema change took away: the
    // columns are read again next time, and the plain read says what is wrong, if anything.
    tablesAsJson.get(db)?.delete(table);
    return readUnremembered<T>(db, plain, ...args);
  }
  return (JSON.parse(text) as unknown[][]).map(read.object) as T[];
}

/** A table's columns as json_array's arguments, and the function that makes a row's array the object `SELECT *` reads. */
interface TableRowsAsJson {
  columns: string;
  object: (row: unknown[]) => unknown;
}
/** Per table: its columns as read at a count of schema changes (LookupState.flushes); null for a column named __proto__ (a literal would set the prototype). */
const tablesAsJson = new WeakMap<Db, Map<string, { flushes: number; read: TableRowsAsJson | null }>>();

function tableRowsAsJson(db: Db, table: string): TableRowsAsJson | null {
  const { flushes } = lookupState(db);
  let tables = tablesAsJson.get(db);
  if (!tables) tablesAsJson.set(db, (tables = new Map()));
  const known = tables.get(table);
  if (known?.flushes === flushes) return known.read;
  // Prepared anew (not the statement cache's): a statement prepared before a schema change still names the columns of then.
  const names = Database.prototype.prepare.call(db, `SELECT * FROM ${table}`).columns().map((c) => c.name);
  const read = names.includes('__proto__')
    ? null
    : {
        columns: names.map((n) => `"${n.replaceAll('"', '""')}"`).join(', '),
        object: new Function('r', `return {${names.map((n, i) => `${JSON.stringify(n)}: r[${i}]`).join(', ')}};`) as (row: unknown[]) => unknown,
      };
  tables.set(table, { flushes, read });
  return read;
}

/** A statement's rows as arrays, and the function that makes each the object callers get. */
interface RowArrays {
  get(...args: unknown[]): unknown[] | undefined;
  all(...args: unknown[]): unknown[][];
  object(row: unknown[]): unknown;
}

/** SQL whose answer can change without a write: the clock, randomness, the connection's own counters. */
const VOLATILE_SQL = /'now'|\b(random|randomblob|current_timestamp|current_date|current_time|last_insert_rowid|changes|total_changes)\b|^\s*pragma\b/i;
/** Rows remembered across all statements, the young answers and the old together (rememberReads: the old go when the young reach half). */
const MAX_REMEMBERED_ROWS = MEMORY_BUDGET.rememberedRows;
/** Larger answers (long lists) are read again each time. */
const MAX_REMEMBERED_LIST = MEMORY_BUDGET.rememberedListRows;
/** Longer answers of one column, up to this many rows, are remembered too (each row a tenth against the bound). */
const MAX_REMEMBERED_IDS = MEMORY_BUDGET.rememberedIdRows;

/** The rows a remembered answer counts against MAX_REMEMBERED_ROWS (rememberReads): a long one of one column (ids) a tenth of a row each; null when it is not remembered. */
function rememberedWeight(list: readonly unknown[]): number | null {
  if (list.length <= MAX_REMEMBERED_LIST) return list.length + 1;
  if (list.length > MAX_REMEMBERED_IDS) return null;
  const first = list[0];
  const columns = Array.isArray(first) ? first.length : Object.keys(first as object).length;
  return columns === 1 ? Math.ceil(list.length / 10) + 1 : null;
}

/**
 * A read statement answers the same for the same parameters until the next write: its answers are
 * remembered per parameter list and dropped together with the cached lookups' generation (any
 * write through this connection, db.prepare's wrapper counts them). Never inside a transaction (an
 * uncommitted row must not outlive a rollback, and a transaction reads its own writes), never for
 * SQL that reads the clock or a counter. Callers get their own copy of each row: some edit what
 * they read. Every request reads its token, project and record again; most of those reads now
 * cost a Map lookup instead of a round into SQLite and its file locks.
 */
function rememberReads(db: Db, stmt: Database.Statement, state: LookupState, arrays: RowArrays | null): void {
  if (VOLATILE_SQL.test(stmt.source)) return;
  type Row = Record<string, unknown>;
  // Rows are remembered as the arrays SQLite handed over and made into objects on each read by the
  // statement's own literal (readRowsThroughArrays): a spread `{ ...row }` shared by every
  // statement saw rows of every shape, went megamorphic and copied property by property in V8's
  // runtime (~2 us for an issue row, bench/RESULTS.md).
  const get = (arrays ? arrays.get : stmt.get.bind(stmt)) as (...args: unknown[]) => unknown[] | Row | undefined;
  const all = (arrays ? arrays.all : stmt.all.bind(stmt)) as (...args: unknown[]) => (unknown[] | Row)[];
  const copy = (arrays ? arrays.object : (row: Row) => ({ ...row })) as (row: unknown[] | Row) => Row;
  let generation = -1;
  // The answers remembered (or asked for) since the last turn of the bound, and those of the turn
  // before it, let go at the next (ageAnswers). Until then an old answer asked for again is
  // young again.
  let rows: Answers = new Map();
  let lists: Answers = new Map();
  let oldRows: Answers | null = null;
  let oldLists: Answers | null = null;
  /** Rows this statement holds (counted in state.heldRows), of them `heldOld` in the old answers, and the generation it last said so in (state.holding). */
  let held = 0;
  let heldOld = 0;
  /** Whether the statement is in state.aging (it holds answers of this era or the one before). */
  let aging = false;
  let holdingIn = -1;
  // The tables the statement reads when core/099 versions every one (statementTables), and their
  // versions when its answers were read: the answers outlive writes to other tables (a project's
  // description leaves an issue list's statements as they were) until a schema change or the bound.
  let tables: string[] | null | undefined;
  let versionsAt: number[] | null = null;
  let flushesAt = state.flushes;
  const unchanged = (): boolean => {
    if (flushesAt !== state.flushes) return false;
    if (tables === undefined) tables = statementTables(db, state, stmt.source);
    if (tables === null || versionsAt === null) return false;
    const versions = tableVersions(db, state);
    for (let i = 0; i < tables.length; i++) {
      // A table whose version is gone (its row in table_versions deleted) counts as written.
      const version = versions.get(tables[i]);
      if (version === undefined || version !== versionsAt[i]) return false;
    }
    return true;
  };
  /** Whether the statement is in state.keptByTable's sets (its answers kept by its tables' versions). */
  let registered = false;
  /** Lets the answers of an earlier generation go, unless kept by their tables' versions: false while it holds them (the sweep keeps it). */
  const forget = (): boolean => {
    if (held === 0) return true;
    if (generation === state.generation || unchanged()) return false;
    rows.clear();
    lists.clear();
    oldRows = oldLists = null;
    state.heldRows -= held;
    held = heldOld = 0;
    registered = false;
    return true;
  };
  const current = (): boolean => {
    if (transactionOpen(db, state)) return false;
    if (generation !== state.generation) {
      forget();
      generation = state.generation;
      if (held === 0) {
        if (tables === undefined || flushesAt !== state.flushes) tables = statementTables(db, state, stmt.source);
        flushesAt = state.flushes;
        if (tables !== null) {
          const versions = tableVersions(db, state);
          versionsAt = tables.map((t) => versions.get(t) ?? -1);
        }
      }
    }
    return true;
  };
  const remember = (count: number): void => {
    if (state.rememberedGeneration !== state.generation) {
      state.rememberedGeneration = state.generation;
      state.rememberedRows = 0;
      // The answers of earlier generations go now, at the first one remembered in this one: left
      // until its statement is called again, each statement kept its last generation's answers
      // (a statement a crawler never calls again, for good).
      sweepRemembered(db, state);
    }
    if (tables) {
      // Kept by its tables' versions: swept only when one of them moves.
      if (!registered) {
        registered = true;
        for (const table of tables) {
          let statements = state.keptByTable.get(table);
          if (!statements) state.keptByTable.set(table, (statements = new Set()));
          statements.add(forget);
        }
      }
    } else if (holdingIn !== state.generation) {
      holdingIn = state.generation;
      state.holding.push(forget);
    }
    held += count;
    state.heldRows += count;
    state.rememberedRows += count;
    state.eraRows += count;
    if (!aging) {
      aging = true;
      state.aging.push(age);
    }
    // Past half the bound (answers kept across writes by their tables' versions count too), the
    // old answers go and the young become old: what was asked for since the last turn stays.
    if (state.eraRows > MAX_REMEMBERED_ROWS / 2) ageAnswers(state);
  };
  /** A turn of the bound's eras (ageAnswers): the old answers go, the young become old; false once nothing is held. */
  const age = (): boolean => {
    state.heldRows -= heldOld;
    held -= heldOld;
    heldOld = held;
    oldRows = held ? rows : null;
    oldLists = held ? lists : null;
    if (held) {
      rows = new Map();
      lists = new Map();
    }
    aging = held > 0;
    return aging;
  };
  // How many parameters the statement's remembered answers were read with: a call with another
  // count is SQLite's to refuse, never looked up among them.
  let depth = -1;
  /** The values the answer for `args` is remembered by (answerKey), or null when it is not. */
  const keyFor = (args: unknown[]): unknown[] | null => {
    if (!current()) return null;
    const key = answerKey(args);
    return key !== null && (depth === key.length || depth < 0) ? key : null;
  };
  const modes = stmt as unknown as Record<'get' | 'all', unknown>;
  modes.get = (...args: unknown[]) => {
    let row: unknown[] | Row | undefined;
    const key = keyFor(args);
    if (key === null) row = get(...args);
    else {
      const last = lastParameter(key);
      const known = answersFor(rows, key, false);
      row = known?.get(last) as unknown[] | Row | undefined;
      if (row === undefined && !known?.has(last)) {
        const old = oldRows && answersFor(oldRows, key, false);
        if (old?.has(last)) row = old.get(last) as unknown[] | Row | undefined;
        else row = get(...args);
        depth = key.length;
        answersFor(rows, key, true)!.set(last, row);
        remember(1);
      }
    }
    return row === undefined ? undefined : copy(row);
  };
  modes.all = (...args: unknown[]) => {
    const key = keyFor(args);
    let list = key !== null ? (answersFor(lists, key, false)?.get(lastParameter(key)) as (unknown[] | Row)[] | undefined) : undefined;
    if (!list) {
      list = (key !== null && oldLists ? (answersFor(oldLists, key, false)?.get(lastParameter(key)) as (unknown[] | Row)[] | undefined) : undefined) ?? all(...args);
      const weight = key !== null ? rememberedWeight(list) : null;
      if (weight !== null) {
        depth = key!.length;
        answersFor(lists, key!, true)!.set(lastParameter(key!), list);
        remember(weight);
      }
    }
    const out = new Array<Row>(list.length);
    for (let i = 0; i < list.length; i++) out[i] = copy(list[i]);
    return out;
  };
}

/**
 * A turn of the remembered rows' bound: every statement's old answers go, its young ones become
 * old (rememberReads), so that what was asked for in the last half of the bound stays. Before,
 * reaching the bound let every remembered answer and lookup go at once (a new generation): a
 * client reading pages in turn reached it every ~80 pages, and the next request of every list
 * paid its first-time cost again.
 */
function ageAnswers(state: LookupState): void {
  state.eraRows = 0;
  const aging = state.aging.splice(0);
  for (const f of aging) if (f()) state.aging.push(f);
}

/**
 * Lets go the answers of earlier generations that are out of date, at a generation's first
 * remembered answer: every statement's that reads a table without a version (state.holding), and
 * of those kept by their tables' versions only the statements of the tables whose version moved
 * since the last sweep (all of them after a flush). Checking every kept statement at every write
 * cost the first read after it ~0.4 us a statement (760 us with 2,000 holding answers).
 */
function sweepRemembered(db: Db, state: LookupState): void {
  const holding = state.holding.splice(0);
  for (const f of holding) if (!f()) state.holding.push(f);
  if (!state.keptByTable.size) return;
  const flushed = state.sweptFlushes !== state.flushes;
  let versions: Map<string, number> | null = null;
  try {
    versions = tableVersions(db, state);
  } catch {
    // No versions (a database before core/099): nothing was kept by them.
  }
  const swept = state.sweptVersions;
  for (const [table, statements] of state.keptByTable) {
    if (!flushed && versions && swept && versions.get(table) === swept.get(table)) continue;
    for (const f of statements) if (f()) statements.delete(f);
    if (!statements.size) state.keptByTable.delete(table);
  }
  state.sweptVersions = versions;
  state.sweptFlushes = state.flushes;
}

/**
 * The tables a statement reads, when core/099 versions every one of them (ordinary tables with a
 * row in table_versions, moved by each write to them): its answers then stay as long as those
 * versions do (rememberReads). Null (answers go at every write, as before) when its text names any
 * other table, view or virtual table (FTS), names none, or reads the schema. Every word of the text
 * that is a table's name counts, a column or a string of the same name too: a table too many only
 * makes the answers go sooner.
 */
function statementTables(db: Db, state: LookupState, sql: string): string[] | null {
  if (/\b(sqlite_\w+|pragma_\w+|temp|main)\b/i.test(sql)) return null;
  if (state.tables === null || state.tablesAt !== state.flushes) {
    const tables = new Map<string, boolean>();
    // Set first: the reads below are statements asking this of themselves (they name no versioned table).
    state.tables = tables;
    state.tablesAt = state.flushes;
    try {
      const versioned = new Set([...tableVersions(db, state).keys()].map((name) => name.toLowerCase()));
      for (const r of db.prepare("SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view') UNION ALL SELECT type, name, sql FROM sqlite_temp_master WHERE type IN ('table', 'view')").all() as { type: string; name: string; sql: string | null }[]) {
        const name = r.name.toLowerCase();
        tables.set(name, r.type === 'table' && versioned.has(name) && !/^\s*create\s+virtual\b/i.test(r.sql ?? '') && tables.get(name) !== false);
      }
    } catch {
      tables.clear();
    }
  }
  const names = new Set<string>();
  for (const word of sql.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []) {
    const versioned = state.tables.get(word);
    if (versioned === false) return null;
    if (versioned) names.add(word);
  }
  return names.size ? [...names] : null;
}

/** Rows the read statements hold now (rememberReads), for tests of the bound: at most MEMORY_BUDGET.rememberedRows and one more answer. */
export function rememberedRowsHeld(db: Db): number {
  return lookupState(db).heldRows;
}

/** A statement's remembered answers: one level of maps per parameter, keyed by the value itself. */
type Answers = Map<unknown, unknown>;

/** Parameters answers are remembered by: numbers, strings and nulls (Map tells 1 from '1'). */
function keyable(args: unknown[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'number' && typeof a !== 'string' && a !== null) return false;
  }
  return true;
}

/**
 * The values a statement's answer is remembered by: its parameters when each is keyable, or for
 * named parameters (one object, `{ project: 1 }`) its names and values in turn, so a statement
 * that names its parameters is remembered as one that numbers them (a milestone's label-priority
 * titles were read again after every write elsewhere). Null otherwise (never remembered).
 */
function answerKey(args: unknown[]): unknown[] | null {
  if (keyable(args)) return args;
  const named = args.length === 1 ? args[0] : undefined;
  if (typeof named !== 'object' || named === null || Object.getPrototypeOf(named) !== Object.prototype) return null;
  const key: unknown[] = [];
  for (const [name, value] of Object.entries(named)) key.push(name, value);
  return keyable(key) ? key : null;
}

const NO_PARAMETERS = Symbol('no parameters');
const lastParameter = (args: unknown[]): unknown => (args.length ? args[args.length - 1] : NO_PARAMETERS);

/**
 * The map that holds the answer for `args` under their last value (lastParameter): one level per
 * parameter before it, each keyed by the value itself, so a read builds no key string (a fresh
 * string is copied and hashed on every lookup). `create`: make the missing levels (only once the
 * statement has answered: a call SQLite refused leaves nothing behind). All of a statement's
 * answers sit at one depth: it takes a fixed number of parameters (rememberReads checks).
 */
function answersFor(root: Answers, args: unknown[], create: boolean): Answers | undefined {
  let map = root;
  for (let i = 0; i < args.length - 1; i++) {
    let next = map.get(args[i]) as Answers | undefined;
    if (next === undefined) {
      if (!create) return undefined;
      map.set(args[i], (next = new Map()));
    }
    map = next;
  }
  return map;
}

/** Remembered values by kind, then by id: the kinds are constant strings, the ids mostly numbers. */
type Remembered = Map<string, Map<unknown, unknown>>;

/** One part of a composite key: a value the remembered one depends on (a record's id, the viewer's, the base URL). */
export type KeyPart = number | string | boolean | null;

/**
 * What a remembered value is keyed by within its kind: an id, or the parts that name it. Parts
 * are looked up one map level each, keyed by the value itself, instead of joined into a string
 * per call: a fresh string is flattened and hashed on every lookup (~7% of a badge read's CPU),
 * where a number hashes for free and a string made once (the base URL, today's date) keeps its
 * hash. A kind is always keyed one way: by an id, or by the same number of parts.
 */
export type LookupKey = number | string | readonly KeyPart[];

interface LookupState {
  generation: number;
  entries: Remembered;
  entities: Remembered;
  /** How many values each store holds across its kinds (bounded as one). */
  sizes: { entries: number; entities: number };
  entriesGeneration: number;
  /** Rows the statements remember in generation `rememberedGeneration` (rememberReads). */
  rememberedRows: number;
  rememberedGeneration: number;
  /** Rows the statements hold, of this generation and of earlier ones not let go yet (rememberReads). */
  heldRows: number;
  /** Rows the statements remembered since the last turn of their bound (ageAnswers), and how each statement holding answers ages them. */
  eraRows: number;
  aging: (() => boolean)[];
  /** How each statement that remembered rows since the last sweep lets them go (rememberReads), those kept by their tables' versions apart. */
  holding: (() => boolean)[];
  /** The same for the statements kept by their tables' versions, by table: swept when its version moves (sweepRemembered). */
  keptByTable: Map<string, Set<() => boolean>>;
  /** The versions and flushes at the last sweep. */
  sweptVersions: Map<string, number> | null;
  sweptFlushes: number;
  /** db.transaction functions running (trackTransactions). */
  transactionDepth: number;
  /** A transaction may have been opened other than through db.transaction: transactionOpen asks SQLite. */
  transactionsByHand: boolean;
  /** cachedLookup kinds whose values read only these tables (core/099's versions): kept across writes to others. */
  tableKinds: Map<string, readonly string[]>;
  /** The versions of its tables each such kind's values were read at. */
  kindVersions: Map<string, number[]>;
  /** Such kinds found current in generation `entriesGeneration`. */
  kindsChecked: Set<string>;
  /** Every table's version (core/099's table_versions) as read in generation `versionsGeneration` (tableVersion). */
  versions: Map<string, number> | null;
  versionsGeneration: number;
  /** Moved by a schema change (db.exec, CREATE/DROP/ALTER): every remembered read goes (rememberReads). */
  flushes: number;
  /** Each table's name (lowercase) and whether core/099 versions it (an ordinary table with a row in table_versions), read at flush `tablesAt`. */
  tables: Map<string, boolean> | null;
  tablesAt: number;
}
const lookupStates = new WeakMap<Db, LookupState>();

function lookupState(db: Db): LookupState {
  let state = lookupStates.get(db);
  if (!state) lookupStates.set(db, (state = { generation: 0, entries: new Map(), entities: new Map(), sizes: { entries: 0, entities: 0 }, entriesGeneration: 0, rememberedRows: 0, rememberedGeneration: 0, heldRows: 0, eraRows: 0, aging: [], holding: [], transactionDepth: 0, transactionsByHand: true, tableKinds: new Map(), kindVersions: new Map(), kindsChecked: new Set(), versions: null, versionsGeneration: -1, flushes: 0, tables: null, tablesAt: -1, keptByTable: new Map(), sweptVersions: null, sweptFlushes: 0 }));
  return state;
}

/**
 * Memoizes a hot single-row lookup (a user, a token, a namespace, a project by id) until the
 * next write of any kind: every request authenticates and resolves its project, and between
 * writes the answers cannot change. Never caches inside a transaction, so an uncommitted row is
 * never served. Rows come back frozen: shared between requests, they must not be edited.
 * Keyed by `kind` (a constant) and `id` (the record's id, or a string naming the rest) rather
 * than one string built per call: a fresh string is copied and hashed on every lookup, where a
 * number hashes for free (the token, project and namespace lookups of every request).
 * `load` is called with `arg` and `id`: a lookup every request makes passes a function made once
 * and its context as `arg`, where a closure over them was a new object per call (~100 bytes, made
 * even when the value is remembered) for the collector to sweep.
 */
export function cachedLookup<T>(db: Db, kind: string, id: LookupKey, load: () => T | undefined, tables?: readonly string[]): T | undefined;
export function cachedLookup<T, A, K extends LookupKey>(db: Db, kind: string, id: K, load: (arg: A, id: K) => T | undefined, tables: readonly string[] | undefined, arg: A): T | undefined;
export function cachedLookup<T, A, K extends LookupKey>(db: Db, kind: string, id: K, load: (arg: A, id: K) => T | undefined, tables?: readonly string[], arg?: A): T | undefined {
  return remembered(db, 'entries', MEMORY_BUDGET.lookups, kind, id, load, tables, arg as A);
}

/** Whether cachedLookup holds `kind` `id` until the next write (a page then reads only the records it lacks). */
export function lookupKnown(db: Db, kind: string, id: number | string): boolean {
  const state = lookupState(db);
  if (transactionOpen(db, state)) return false;
  startEntriesGeneration(state);
  if (state.tableKinds.has(kind)) checkTableKind(db, state, kind);
  return !!state.entries.get(kind)?.has(id);
}

/**
 * A new generation of cached lookups (a write happened): every value goes, but the kinds that
 * read only tables core/099 versions, which stay until checked against their tables' versions.
 */
function startEntriesGeneration(state: LookupState): void {
  if (state.entriesGeneration === state.generation) return;
  const kept: [string, Map<unknown, unknown>][] = [];
  for (const kind of state.tableKinds.keys()) {
    const entries = state.entries.get(kind);
    if (entries) kept.push([kind, entries]);
  }
  state.entries.clear();
  state.entities.clear();
  state.sizes.entries = state.sizes.entities = 0;
  for (const [kind, entries] of kept) {
    state.entries.set(kind, entries);
    state.sizes.entries += entries.size;
  }
  state.kindsChecked.clear();
  state.entriesGeneration = state.generation;
}

/**
 * Every version as one JSON object, one row: read as rows (name, version), each row's array and
 * object cost ~0.5 us in JavaScript, 34 us for core/173's 59 tables after every write where the
 * one text parsed costs 10.
 */
const TABLE_VERSIONS_SQL = 'SELECT json_group_object(name, version) AS versions FROM table_versions';

/**
 * A table's version in core/099's table_versions (moved by every write to a row of it), undefined
 * for a table without one. Every version is read in one statement once per generation (as a
 * remembered read of one name was): a page that checks the versions of five or six tables (its
 * counts', users', milestones', namespaces') after a write made a statement of each, ~7-10 us
 * apiece in WAL mode (the read's locks), where the whole table (a few rows) costs one. Read afresh
 * inside a transaction. Throws on a database without the table (before core/099).
 */
export function tableVersion(db: Db, name: string): number | undefined {
  return tableVersions(db, lookupState(db)).get(name);
}

/** The versions of `tables` (tableVersion), in order: what a value kept across writes was read at. */
export function tableVersionsOf(db: Db, tables: readonly string[]): (number | undefined)[] {
  const versions = tableVersions(db, lookupState(db));
  return tables.map((t) => versions.get(t));
}

/** Whether each of `tables` is still at its version in `then` (tableVersionsOf); a table without one counts as written. */
export function sameTableVersions(db: Db, tables: readonly string[], then: readonly (number | undefined)[]): boolean {
  const versions = tableVersions(db, lookupState(db));
  for (let i = 0; i < tables.length; i++) {
    const version = versions.get(tables[i]);
    if (version === undefined || version !== then[i]) return false;
  }
  return true;
}

/** Moves with every write through this connection (and every db.exec): equal before and after a read, the read wrote nothing. */
export function writeGeneration(db: Db): number {
  return lookupState(db).generation;
}

/**
 * The sum of every table's version (core/099) but `besides`' and how many tables were summed: versions
 * only grow, so while both hold no other table was written. For what depends on nearly every table.
 * Summed once per generation (outside a transaction) for the last `besides` asked.
 */
export function tableVersionsBesides(db: Db, besides: ReadonlySet<string>): { sum: number; tables: number } {
  const state = lookupState(db);
  const known = versionSums.get(db);
  if (known && known.generation === state.generation && known.besides === besides && !db.inTransaction) return known.versions;
  let sum = 0;
  let tables = 0;
  for (const [name, version] of tableVersions(db, state)) {
    if (besides.has(name)) continue;
    sum += version;
    tables++;
  }
  const versions = { sum, tables };
  if (!db.inTransaction) versionSums.set(db, { generation: state.generation, besides, versions });
  return versions;
}
const versionSums = new WeakMap<Db, { generation: number; besides: ReadonlySet<string>; versions: { sum: number; tables: number } }>();

function tableVersions(db: Db, state: LookupState): Map<string, number> {
  if (transactionOpen(db, state)) return readTableVersions(db);
  if (state.versionsGeneration !== state.generation || state.versions === null) {
    state.versions = readTableVersions(db);
    state.versionsGeneration = state.generation;
  }
  return state.versions;
}

function readTableVersions(db: Db): Map<string, number> {
  const versions = new Map<string, number>();
  const all = JSON.parse((db.prepare(TABLE_VERSIONS_SQL).get() as { versions: string }).versions) as Record<string, number>;
  for (const name in all) versions.set(name, all[name]);
  return versions;
}

/**
 * Keeps a table kind's values only while each of its tables' versions (core/099, moved by every
 * write to a row of it) is the one they were read at; checked once per generation, before any
 * value of the kind is read or kept. Without the versions (a database before core/099) the
 * kind goes at every write, as the others.
 */
function checkTableKind(db: Db, state: LookupState, kind: string): void {
  if (state.kindsChecked.has(kind)) return;
  state.kindsChecked.add(kind);
  let now: number[] | null = [];
  try {
    const versions = tableVersions(db, state);
    for (const table of state.tableKinds.get(kind)!) now.push(versions.get(table) ?? -1);
  } catch {
    now = null;
  }
  const then = state.kindVersions.get(kind);
  if (now && then && now.length === then.length && now.every((v, i) => v >= 0 && v === then[i])) return;
  const entries = state.entries.get(kind);
  if (entries) {
    state.sizes.entries -= entries.size;
    state.entries.delete(kind);
  }
  if (now) state.kindVersions.set(kind, now);
  else state.kindVersions.delete(kind);
}

/**
 * Memoizes a built entity (the project or issue a serializer makes from rows, counts and
 * settings) until the next write, like cachedLookup: `kind` and `id` must name everything the entity
 * depends on besides the database (the viewer, the base URL, the date when it shows one, git's
 * state). Entities are larger than rows, so fewer are kept. Frozen: callers copy to extend.
 */
export function cachedEntity<T extends object>(db: Db, kind: string, id: LookupKey, build: () => T): T {
  return remembered(db, 'entities', MEMORY_BUDGET.entities, kind, id, build)!;
}

/** Entities unchangedEntity keeps per database and kind (beyond, the oldest go first). */
const UNCHANGED_ENTITIES = MEMORY_BUDGET.unchangedEntitiesPerKind;
const unchangedStores = new WeakMap<Db, Map<string, Map<string, { row: Row | null; inputs: unknown; entity: object }>>>();

/**
 * An entity built again only when what it is built from changed. cachedEntity forgets every entity
 * at the next write of any kind; this hands out the entity of the last build (and so its JSON
 * text, jsonBody's) for as long as `row` and `inputs` equal those of that build: `row` (the
 * record's row, which the build reads field by field) has the same fields and values, `inputs`
 * make the same JSON (the entities it embeds, its counts). The two must hold everything the
 * build reads, and `key` name what it depends on besides them (the viewer, the base URL, the date).
 * A write elsewhere (a project's description) then costs a page of unchanged records a
 * comparison per record instead of their entities and texts made anew. Never kept inside a
 * transaction (a rollback would leave an entity of rows that never were). Bounded per kind.
 */
export function unchangedEntity<T extends object>(db: Db, kind: string, key: string, row: Row | null, inputs: unknown, build: () => T): T {
  if (transactionOpen(db, lookupState(db))) return build();
  let kinds = unchangedStores.get(db);
  if (!kinds) unchangedStores.set(db, (kinds = new Map()));
  let store = kinds.get(kind);
  if (!store) kinds.set(kind, (store = new Map()));
  const known = store.get(key);
  // A row remembered by id (db/written-rows.ts) is the same object while unchanged.
  if (known && (known.row === row || (row !== null && known.row !== null && sameFields(known.row, row))) && sameJson(known.inputs, inputs)) return known.entity as T;
  const entity = build();
  Object.freeze(entity);
  if (!known && kind === freshPageKind) return entity;
  if (!entityJson.has(entity)) entityJson.set(entity, null);
  if (known) store.delete(key);
  else if (store.size >= UNCHANGED_ENTITIES) deleteOldest(store);
  store.set(key, { row, inputs, entity });
  return entity;
}

/**
 * The kind of entity a page built fresh is made of (unchangedPage), while it is built: its new
 * entities are not kept one by one (unchangedEntity). A page read for the first time (pages read
 * in turn: "issues pages 2481-2500 in turn") was read once, and the page store keeps its entities
 * anyway; keeping each of them again with its key and parts cost the fresh page ~10 us (the
 * entries, and their collection when the bound drops them). Nor are they in entityJson until the
 * page is handed out again (listEntities): sent once, the page is one text kept nowhere, where
 * each entity's weak entry, its mark as sent and the page's bytes kept in recentBodies cost a
 * page read once another ~10-25 us (and as much again in collection).
 */
let freshPageKind: string | null = null;
/** The last rows of the pages unchangedPage kept (a page whose first row was written ends as it did). */
const keptPageEnds = new WeakSet<object>();

/** `build` with the entities of kind `entityKind` it builds anew not kept one by one. */
function buildFresh<R>(entityKind: string, build: () => R): R {
  const was = freshPageKind;
  freshPageKind = entityKind;
  try {
    return build();
  } finally {
    freshPageKind = was;
  }
}

/** A page unchangedPage keeps: its key, its rows, its entities, what its build read besides the rows, and the generation it was last found current in. */
interface KeptPage {
  key: string;
  rows: readonly object[];
  entities: readonly object[];
  inputs: unknown;
  generation: number;
  /** Its entities are in entityJson (those of a page built fresh go in when the page is handed out again). */
  listed: boolean;
}
/**
 * Pages kept per database and kind, by their first row (a few a row: lists of other orders or
 * lengths that start with it), and the entities they hold; `before`: the first row of the last
 * page kept with a given second row (a page moved back by one row starts with it; an entry whose
 * page has gone finds none).
 */
const pageStores = new WeakMap<Db, Map<string, { pages: Map<object, KeptPage[]>; entities: number; before: WeakMap<object, object> }>>();
/** Pages kept that start with the same row, at most. */
const PAGES_PER_FIRST_ROW = 4;

/**
 * A page's entities built again only when one of its rows or what the page read besides them
 * changed: unchangedEntity for a page at once, a check per page instead of per row. `rows` are
 * compared by identity, which says they read the same only of frozen rows (rowsByIds and
 * rememberedPage hand out the same frozen object for as long as a row is unchanged; a page of
 * other rows is built and not kept). `build` returns the entities with `inputs`, what they read
 * besides the rows and `key` (the viewer, the base URL, the date: what they depend on besides
 * the database); `current(inputs)` says whether those still read the same (their tables'
 * versions, the few records the page shares), asked only after a write through this connection
 * (until then nothing changed, as for cachedEntity). A page of 100 issues after a write
 * elsewhere cost a key, a lookup and a comparison of its parts per row (~1.3 us). Never kept
 * inside a transaction (a rollback would leave entities of rows that never were). Bounded per
 * kind by the entities its pages hold (unchangedEntity's bound). Callers get their own array.
 * With `moved`, a page moved along by one row from a kept page builds only its new row (movedAlong).
 * A fresh page's new entities are kept in the page alone, not one by one (freshPageKind).
 */
export function unchangedPage<T extends object, I>(
  db: Db,
  kind: string,
  key: string,
  rows: readonly object[],
  current: (inputs: I) => boolean,
  build: () => { entities: T[]; inputs: I },
  moved?: MovedPage<T, I>,
): T[] {
  const state = lookupState(db);
  if (rows.length === 0 || transactionOpen(db, state)) return build().entities;
  let kinds = pageStores.get(db);
  if (!kinds) pageStores.set(db, (kinds = new Map()));
  let store = kinds.get(kind);
  if (!store) kinds.set(kind, (store = { pages: new Map(), entities: 0, before: new WeakMap() }));
  const first = rows[0];
  const generation = state.generation;
  const known = store.pages.get(first)?.find((p) => p.key === key && sameRows(p.rows, rows));
  if (known && (known.generation === generation || current(known.inputs as I))) {
    known.generation = generation;
    listEntities(known);
    return known.entities.slice() as T[];
  }
  // A page no kept page shares an end with (its first row; its second: one moved along by a row;
  // its first as a kept page's second: one moved back; its last: one whose first row was written)
  // is built fresh: its entities not kept one by one. A page built again (a row written, a note
  // or award added) keeps them: a later build finds them.
  const fresh = !store.pages.has(first) && !(rows.length > 1 && store.pages.has(rows[1])) && !store.before.has(first) && !keptPageEnds.has(rows[rows.length - 1]);
  const { entities, inputs } =
    (!known && moved && movedAlong(store, key, rows, generation, current, moved)) || (fresh && kind.endsWith('-page') ? buildFresh(kind.slice(0, -5), build) : build());
  if (!rows.every((r) => Object.isFrozen(r))) return entities;
  // This row's pages: this one newest, the others (other keys, lengths or rows) before it, up to the bound.
  const kept = store.pages.get(first);
  const pages = kept ? kept.filter((p) => p !== known) : [];
  if (known && kept?.includes(known)) store.entities -= known.entities.length;
  while (pages.length >= PAGES_PER_FIRST_ROW) store.entities -= pages.shift()!.entities.length;
  pages.push({ key, rows: rows.slice(), entities: entities.slice(), inputs, generation, listed: !fresh });
  keptPageEnds.add(rows[rows.length - 1]);
  store.pages.delete(first);
  store.entities += entities.length;
  while (store.entities > UNCHANGED_ENTITIES && store.pages.size) for (const p of deleteOldest(store.pages) ?? []) store.entities -= p.entities.length;
  store.pages.set(first, pages);
  if (rows.length > 1) store.before.set(rows[1], first);
  return entities;
}

/**
 * A page's entities and inputs from those of a kept page it moved along by one row (unchangedPage's
 * `moved`): `kept` holds that page's entities but the one of the row that left it, and its inputs;
 * `rows` are the new page's rows, `rows[added]` the one row the kept page did not show (its first
 * when the page moved forward, its last when it moved back). It builds that row's entity alone and
 * adds what it read to the kept inputs.
 */
export type MovedPage<T, I> = (kept: { entities: T[]; inputs: I }, rows: readonly object[], added: number) => { entities: T[]; inputs: I };

/**
 * A page moved along by one row, built from the kept page it moved from: forward, a page whose
 * rows are this one's but its first, followed by one more (one record added before a deep page, or
 * moved to its front: "issues page 2500 after a new issue"); back, a page whose rows are this one's
 * but its last, after one more (one record before the page deleted, or moved out of the list by a
 * close or a label change: every later page starts a row further on). The kept page has the same
 * key and its inputs are still current. Its rows but the one that left keep their entities (the
 * same frozen rows, and what they read besides reads the same), and only the new row is built:
 * where the whole page was built again, each row checked against its kept entity and the page's
 * counts read anew.
 */
function movedAlong<T extends object, I>(
  store: { pages: Map<object, KeptPage[]>; before: WeakMap<object, object> },
  key: string,
  rows: readonly object[],
  generation: number,
  current: (inputs: I) => boolean,
  moved: MovedPage<T, I>,
): { entities: T[]; inputs: I } | null {
  if (rows.length < 2) return null;
  const n = rows.length;
  const forward = store.pages.get(rows[1])?.find((p) => p.key === key && p.rows.length === n && sameRowsFrom(p.rows, rows, 1));
  const before = forward ? undefined : store.before.get(rows[0]);
  const back = before && store.pages.get(before)?.find((p) => p.key === key && p.rows.length === n && sameRowsFrom(rows, p.rows, 1));
  const from = forward ?? back;
  if (!from || !(from.generation === generation || current(from.inputs as I))) return null;
  from.generation = generation;
  listEntities(from);
  const entities = (forward ? from.entities.slice(0, -1) : from.entities.slice(1)) as T[];
  return moved({ entities, inputs: from.inputs as I }, rows, forward ? 0 : n - 1);
}

/** A kept page's entities in entityJson, where a page built fresh left them out (their texts kept once they are sent again). */
function listEntities(page: KeptPage): void {
  if (page.listed) return;
  for (const e of page.entities) if (!entityJson.has(e)) entityJson.set(e, null);
  page.listed = true;
}

/** Whether `rows` from `skip` on are `kept`'s rows from its first, one for one (kept's last `skip` rows aside). */
function sameRowsFrom(kept: readonly object[], rows: readonly object[], skip: number): boolean {
  for (let i = skip; i < rows.length; i++) if (kept[i - skip] !== rows[i]) return false;
  return true;
}

/** Whether two pages hold the same row objects in the same order. */
function sameRows(a: readonly object[], b: readonly object[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

type Row = Record<string, unknown>;

/**
 * Whether two rows have the same fields with the same values, in any order (a builder reads a row
 * by field name): a row's fields walked once, where sameJson lists both rows' keys (most of the
 * comparison's cost on a page of 100 issues).
 */
function sameFields(a: Row, b: Row): boolean {
  let fields = 0;
  for (const k in a) {
    const x = a[k];
    const y = b[k];
    if (x !== y && !(typeof x === 'object' && sameJson(x, y))) return false;
    if (y === undefined && !(k in b)) return false;
    fields++;
  }
  for (const _ in b) fields--;
  return fields === 0;
}

/** Whether two values make the same JSON text: the same keys in the same order, the same values. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  const others = Object.keys(y);
  if (keys.length !== others.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== others[i] || !sameJson(x[keys[i]], y[keys[i]])) return false;
  return true;
}

/**
 * The JSON text of each entity cachedEntity handed out, with its length in bytes, made on its first
 * answer (null until then; false once sent in a list made as one text, unsentList). The entity is
 * frozen and no longer handed out after the next write, so its text gives way with it; objects not
 * in here (anything built for one request) are serialized each time.
 */
const entityJson = new WeakMap<object, MeasuredText | null | false>();

/**
 * `value` as the JSON text of an answer: a remembered entity's text is made once, and a list of
 * them is joined from theirs. Text rather than a Buffer: node writes an answer whose body is a
 * string together with its head, in one write, where a Buffer body costs a second chunk (writev)
 * and its own allocation (bench/RESULTS.md, hot path round 5).
 */
export function jsonBody(value: unknown): string | Buffer | MeasuredText {
  if (typeof value === 'object' && value !== null) {
    const known = entityJson.get(value);
    if (known) return known;
    if (known !== undefined) return entityText(value);
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'object' && v !== null && entityJson.has(v))) return entityList(value as object[]);
  }
  return JSON.stringify(value);
}

function entityText(value: object): MeasuredText {
  const known = entityJson.get(value);
  if (known) return known;
  const text = MeasuredText.kept(JSON.stringify(value));
  entityJson.set(value, text);
  return text;
}

/** Lists longer than this (bytes) go out as bytes: Reply.send's bound for sending a text with its head. */
const LONG_LIST = 16_384;

/**
 * A list of remembered entities joined from their texts, its length in bytes the sum of theirs. A
 * long one is written straight into one Buffer: joined into a text first, the answer was copied
 * once more to flatten the joined text and once more to encode it. Same bytes as the joined text
 * encoded as UTF-8.
 */
function entityList(value: object[]): string | Buffer | MeasuredText {
  const n = value.length;
  const known = recentBodies.get(value[0]);
  if (known && known.entities.length === n && known.entities.every((e, i) => e === value[i])) return known.body;
  if (value.every((v) => entityJson.get(v) === null)) return unsentList(value);
  const texts = new Array<string>(n);
  let chars = n + 1;
  let bytes = n + 1;
  for (let i = 0; i < n; i++) {
    const kept = entityText(value[i]);
    chars += (texts[i] = kept.text).length;
    bytes += kept.bytes;
  }
  if (chars <= LONG_LIST) return new MeasuredText(`[${texts.join(',')}]`, bytes);
  const ascii = bytes === chars;
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  out[at++] = 0x5b; // [
  for (let i = 0; i < n; i++) {
    if (i) out[at++] = 0x2c; // ,
    // Texts of ASCII only (a byte per character) are copied as Latin-1, without UTF-8's encoding.
    at += out.write(texts[i], at, ascii ? 'latin1' : 'utf8');
  }
  out[at++] = 0x5d; // ]
  if (recentBodies.size >= RECENT_BODIES) deleteOldest(recentBodies);
  recentBodies.set(value[0], { entities: value.slice(), body: out });
  return out;
}

/**
 * A list none of whose entities was sent before (a page read for the second time, unchangedPage's
 * listEntities; a fresh page's entities are not in entityJson, and it goes out as one text): one text for the
 * whole list, the entities' own texts made only when one is sent again (entityText, entityList).
 * Made and kept for each, a page of 20 new issues kept ~30 KB of texts for a page most often never
 * asked again (a client reading pages in turn), and the young generation copied them on and on.
 * The same bytes as entityList's.
 */
function unsentList(value: object[]): string | Buffer {
  // Marked sent (false): sent again, in a list or alone, each gets its own text (entityText). A
  // WeakSet of them cost a new weak entry an entity (~0.35 us, and the collector's ephemeron work) where
  // this updates the one each has.
  for (const v of value) entityJson.set(v, false);
  const text = JSON.stringify(value);
  if (text.length <= LONG_LIST) return text;
  const out = Buffer.from(text);
  if (recentBodies.size >= RECENT_BODIES) deleteOldest(recentBodies);
  recentBodies.set(value[0], { entities: value.slice(), body: out });
  return out;
}

/**
 * The last long bodies made, by their first entity: the same remembered entities in the same order
 * (a page whose records read as before, asked again after a write elsewhere) are the same bytes,
 * sent again instead of copied anew. A few only: each holds a page's bytes (~150 KB).
 */
const recentBodies = new Map<object, { entities: object[]; body: Buffer }>();
const RECENT_BODIES = MEMORY_BUDGET.recentBodies;

/**
 * An answer body that never changes (the 404 for an unknown path): frozen, and its JSON text made
 * once by jsonBody instead of on every answer.
 */
export function constantJson<T extends object>(value: T): Readonly<T> {
  Object.freeze(value);
  entityJson.set(value, null);
  return value;
}

function remembered<T, A, K extends LookupKey>(db: Db, store: 'entries' | 'entities', limit: number, kind: string, id: K, load: (arg: A, id: K) => T | undefined, tables?: readonly string[], arg?: A): T | undefined {
  const state = lookupState(db);
  if (transactionOpen(db, state)) return load(arg as A, id);
  if (state.entriesGeneration !== state.generation) startEntriesGeneration(state);
  // A kind of one table's rows (cachedLookup's `tables`): checked against their versions once a generation.
  if (tables !== undefined && !state.kindsChecked.has(kind)) {
    if (!state.tableKinds.has(kind)) state.tableKinds.set(kind, tables);
    checkTableKind(db, state, kind);
  }
  // Not state[store]: one keyed load seeing both names went megamorphic, a generic lookup on every hit.
  const kinds = store === 'entries' ? state.entries : state.entities;
  let entries = kinds.get(kind);
  if (entries === undefined) kinds.set(kind, (entries = new Map()));
  const key = typeof id === 'object' ? id[id.length - 1] : id;
  const values = typeof id === 'object' ? partsMap(entries, id, false) : entries;
  const known = values?.get(key);
  if (known !== undefined || values?.has(key)) return known as T | undefined;
  const value = load(arg as A, id);
  if (value && typeof value === 'object') {
    Object.freeze(value);
    // An entity unchangedEntity handed out again keeps the text it already has.
    if (store === 'entities' && !entityJson.has(value)) entityJson.set(value, null);
  }
  // `load` may have let the store go (a write, or the bound reached by lookups it made): then
  // `entries` is no longer the store's, and the value is not kept.
  if (kinds.get(kind) !== entries) return value;
  if (state.sizes[store] >= limit) {
    kinds.clear();
    kinds.set(kind, entries);
    entries.clear();
    state.sizes[store] = 0;
  }
  (typeof id === 'object' ? partsMap(entries, id, true)! : entries).set(key, value);
  state.sizes[store]++;
  return value;
}

/** The map that holds a composite key's value under its last part: one level per part before it (`create`: make the missing ones). */
function partsMap(entries: Map<unknown, unknown>, parts: readonly KeyPart[], create: boolean): Map<unknown, unknown> | undefined {
  let map = entries;
  for (let i = 0; i < parts.length - 1; i++) {
    let next = map.get(parts[i]) as Map<unknown, unknown> | undefined;
    if (next === undefined) {
      if (!create) return undefined;
      map.set(parts[i], (next = new Map()));
    }
    map = next;
  }
  return map;
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

/**
 * Asked before every write statement (guardWrites): throws when the running request may write
 * nothing (a refusal the HTTP layer has decided but not yet answered), so nothing is half-written.
 */
let writeGuard: (() => void) | null = null;

export function guardWrites(guard: (() => void) | null): void {
  writeGuard = guard;
}

/** Runs `work` as one SQLite transaction (nested calls become savepoints). */
export function inTransaction<T>(db: Db, work: () => T): T {
  return db.transaction(work)();
}
