import { readTableRows, tableVersion, type Db } from './connection';
import { MEMORY_BUDGET, deleteOldest } from '../memory';

/**
 * A table's write log: a table its triggers append to on every insert, update and delete of its
 * rows, in one sequence (core/041 for issues and merge requests, epics/011 for epics), keeping
 * the latest entries. Whatever writes the rows (the API, SQL, another connection), the log names
 * them.
 */
export interface WriteLog {
  /** The table whose rows are remembered: read as `SELECT * FROM <table> WHERE id IN (...)`. */
  table: string;
  /** The log's last entry (0 when empty). */
  last: (db: Db) => number;
  /** The ids of the table's rows written after entry `seq` (up to the last), or null when the log no longer holds them all. */
  writtenSince: (db: Db, seq: number) => number[] | null;
}

type Row = Record<string, unknown>;

/** Rows a store keeps per table (beyond, the oldest go first): a few pages of 100. */
const REMEMBERED_ROWS = MEMORY_BUDGET.rowsById;

interface RowStore {
  /** The log's last entry when the rows were last checked against it: none of them was written up to it. */
  seq: number;
  rows: Map<number, Row>;
}
const stores = new WeakMap<Db, Map<WriteLog, RowStore>>();

/** The rows of ids read `IN` one JSON array: the primary key seeks each (one statement for any number of ids). */
const byIds = (db: Db, table: string, ids: number[]): Row[] => readTableRows<Row>(db, table, 'id IN (SELECT value FROM json_each(?))', JSON.stringify(ids));

/**
 * The rows of `ids` (in that order; an id without a row is left out), each read from the table
 * only when its remembered row may be out of date: rows are kept by id, and a row the log names
 * as written since is read again. A list page then reads its ids from the order's index (a
 * covering read, no row visited) and its rows from memory: a page of 100 issues after a write
 * elsewhere read 20 columns of 100 rows again (~0.25 ms) only to find them the same.
 * Rows come back frozen and shared, as the same object for as long as they are unchanged (an
 * entity built from one compares it by identity: unchangedEntity). Inside a transaction
 * everything is read (a rollback would leave rows that never were).
 */
export function rowsByIds<T>(db: Db, log: WriteLog, ids: number[]): T[] {
  if (!ids.length) return [];
  if (db.inTransaction) return inOrder(ids, byIds(db, log.table, ids)) as T[];
  let tables = stores.get(db);
  if (!tables) stores.set(db, (tables = new Map()));
  let store = tables.get(log);
  // The log is read before the rows: a row written after this (another connection) is newer
  // than `seq` says, and its entry, after `seq`, has it read again next time.
  const now = log.last(db);
  if (!store) tables.set(log, (store = { seq: now, rows: new Map() }));
  else if (store.seq !== now) {
    const written = now > store.seq && store.rows.size ? log.writtenSince(db, store.seq) : null;
    if (written) for (const id of written) store.rows.delete(id);
    else store.rows.clear();
    store.seq = now;
  }
  const { rows } = store;
  let missing: number[] | undefined;
  for (const id of ids) if (!rows.has(id)) (missing ??= []).push(id);
  if (missing) {
    for (const row of byIds(db, log.table, missing)) {
      if (rows.size >= REMEMBERED_ROWS) deleteOldest(rows);
      rows.set(row.id as number, Object.freeze(row));
    }
  }
  const out: T[] = [];
  for (const id of ids) {
    const row = rows.get(id);
    if (row) out.push(row as T);
  }
  // A store smaller than the page (the bound) let some of this page's rows go: they were read above.
  return out.length === ids.length || !missing ? out : (inOrder(ids, byIds(db, log.table, ids)) as T[]);
}

function inOrder(ids: number[], rows: Row[]): Row[] {
  const byId = new Map<number, Row>();
  for (const r of rows) byId.set(r.id as number, r);
  const out: Row[] = [];
  for (const id of ids) {
    const r = byId.get(id);
    if (r) out.push(r);
  }
  return out;
}

/**
 * A table with a version (core/099's table_versions) and no log of its own: its rows are kept
 * until any of them is next written (writtenSince names none, so all are read again).
 */
export function versionLog(table: string): WriteLog {
  return { table, last: (db) => tableVersion(db, table)!, writtenSince: () => null };
}

/**
 * A write log kept as core/041 and epics/011 keep theirs: `seq INTEGER PRIMARY KEY` moved on by
 * every write, the oldest entries dropped (so the entries after any kept one run on unbroken);
 * `idColumn` names the row written, `where` narrows a log shared by tables (`issuable_type = 'Issue'`).
 */
export function sequenceLog(table: string, log: string, idColumn: string, where = '1 = 1'): WriteLog {
  return {
    table,
    last: (db) => (db.prepare(`SELECT coalesce(max(seq), 0) AS seq FROM ${log}`).get() as { seq: number }).seq,
    writtenSince: (db, seq) => {
      const { oldest } = db.prepare(`SELECT min(seq) AS oldest FROM ${log}`).get() as { oldest: number | null };
      if (oldest === null || oldest > seq + 1) return null;
      // `+(...)`: the entries after `seq` by the sequence (a few), not every entry of the type by an
      // index on it (a plan from the query's shape: up to the log's 1,000, ~100 us a page after a write).
      return (db.prepare(`SELECT ${idColumn} AS id FROM ${log} WHERE seq > ? AND +(${where})`).all(seq) as { id: number }[]).map((r) => r.id);
    },
  };
}
