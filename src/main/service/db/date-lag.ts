import type { Db } from './connection';
import { countUpTo, limitSql } from '../http/pagination';
import { type WriteLog, rowsByIds } from './written-rows';
import { MEMORY_BUDGET } from '../memory';

/**
 * Lists ordered by one date column and filtered by the other (created_after/before by updated_at,
 * updated_after/before by created_at), for issues, merge requests and epics, at every scope.
 *
 * No index orders by one date and bounds the other. A record's lag, updated_at - created_at, does
 * bound one by the other: with the lag between L and H, updated_at >= C implies created_at >=
 * C - H, updated_at <= D implies created_at <= D - L (and the mirror for an order by updated_at).
 * So records are split by the magnitude of their lag (dateLag: a bucket, powers of 8 seconds,
 * in an index on expressions between the scope's columns and the order's), and each bucket is
 * walked in list order from where its lag bounds it, checking the list's own conditions as they
 * stand: a bucket holds few records that its bound admits and the filter rejects (a date the
 * order walks past before the first match was 100-350 ms at a million). The buckets' walks are
 * merged in list order by SQLite (UNION ALL with ORDER BY). Buckets with no record in their
 * range are left out (one index probe each). A range of the other column holding few records of
 * the scope is read from that column's index and sorted instead.
 *
 * Only canonical timestamps (what the service writes, `YYYY-MM-DDTHH:MM:SS.sssZ`: text order is
 * time order) get a bucket; a record with another text in either column has none (NULL) and is
 * checked in a walk of its own, with the list's conditions alone.
 */

/** Canonical timestamps, as Date#toISOString writes them (years 0000-9999). */
const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const CANONICAL_GLOB = '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z';

/** The highest bucket: lags of 8^12 seconds (~2,200 years) and more. */
const TOP_BUCKET = 13;

/**
 * A record's lag bucket, on alias `a` (as `x.`; '' in an index): NULL unless both dates are
 * canonical (and their own round trip through strftime, so no 30 February); -1 updated before it
 * was created; 0 the same instant; else 1 + floor(log8(seconds)), at least 1 and at most
 * TOP_BUCKET. The migrations' indexes (core/071, epics/013) hold this text exactly.
 */
export function dateLag(a: string): string {
  const c = `${a}created_at`;
  const u = `${a}updated_at`;
  const canonical = (v: string): string => `${v} GLOB '${CANONICAL_GLOB}' AND strftime('%Y-%m-%dT%H:%M:%fZ', ${v}) = ${v}`;
  return (
    `(CASE WHEN ${canonical(c)} AND ${canonical(u)} THEN CASE WHEN ${u} < ${c} THEN -1 WHEN ${u} = ${c} THEN 0 ` +
    `ELSE min(${TOP_BUCKET}, 1 + max(0, CAST(log(8, (julianday(${u}) - julianday(${c})) * 86400) AS INTEGER))) END END)`
  );
}

/** A bucket's lag in seconds, widened by a second each way (floating point), as [low, high]. */
function lagRange(bucket: number): [number, number] {
  if (bucket === -1) return [-Infinity, 1];
  if (bucket === 0) return [-1, 1];
  if (bucket === 1) return [-1, 8 + 1];
  if (bucket === TOP_BUCKET) return [8 ** (TOP_BUCKET - 1) - 1, Infinity];
  return [8 ** (bucket - 1) - 1, 8 ** bucket + 1];
}

export type DateColumn = 'created_at' | 'updated_at';

/**
 * How a count through another index (DateLagTable.counts) walks it when the dates bound none of
 * its columns: records are mostly updated after their creation, so an updated_before list's
 * matches lie among the oldest created, an updated_after list's among the newest. Only the
 * count's speed depends on it (it walks until 10,001 match).
 */
export function countDirection(bounds: DateBounds): 'ASC' | 'DESC' {
  return bounds.updated_before ? 'ASC' : 'DESC';
}

export interface DateBounds {
  created_after?: string | null;
  created_before?: string | null;
  updated_after?: string | null;
  updated_before?: string | null;
}

/**
 * Where a list's records are, as the date-lag walk reads them: the table and alias, the scope's
 * condition on them (`scope`, for the probes of each bucket and range; '1 = 1' for all), and the
 * indexes that hold the scope's columns first, then the lag and a date (`lagIndex`) or a date alone
 * (`dateIndex`).
 */
export interface DateLagTable {
  table: string;
  alias: string;
  scope: string;
  scopeArgs: unknown[];
  lagIndex: Record<DateColumn, string>;
  dateIndex: Record<DateColumn, string>;
  /**
   * Other ways to count the list, each over the candidates of one of its filters (an author's
   * records by the author's index, a label's by its rows), with how many candidates it walks at
   * most: a count walks its candidates until 10,001 match, so it goes the way of the fewest (an
   * author's or a label's when the dates are wide, the buckets' when they are narrow). `from`
   * writes the FROM with the list's conditions (on `alias`) in it, its own `args` before theirs;
   * `alone`: the way asks every condition itself (a label's rows, which carry them), its `args` all.
   */
  counts?: { from: (conditions: string) => string; args: unknown[]; candidates: number; alone?: true }[];
  /** The table's write log: a page's rows are read by id (from memory while unwritten), the walk reads ids alone. */
  log: WriteLog;
  /**
   * When the list's conditions read only the table (and what their SQL and arguments hold): a
   * version that moves on every write to the scope's records. Deep pages then start from a row an
   * earlier page read at that version (bucketAnchors) instead of merging every bucket's walk from
   * the start again.
   */
  version?: () => number;
  /** What else the conditions' answer depends on at a version (a group's projects: count-versions.ts recordsVersion), part of the anchors' key. */
  versionKey?: unknown;
}

/** A range of the other column holding at most this many of the scope's records is read from its index and sorted. */
export const SORTED_RANGE = 1_000;

/** [lowest, highest] of a column from a list's bounds (null: unbounded). */
function columnRange(bounds: DateBounds, column: DateColumn): [string | null, string | null] {
  return column === 'created_at' ? [bounds.created_after ?? null, bounds.created_before ?? null] : [bounds.updated_after ?? null, bounds.updated_before ?? null];
}

/** Whether `bounds` bound the other date column than `order`: the lists otherDateList serves (none else). */
export function boundsOtherDate(bounds: DateBounds, order: DateColumn): boolean {
  const [low, high] = columnRange(bounds, order === 'created_at' ? 'updated_at' : 'created_at');
  return low !== null || high !== null;
}

/** A time in ms as a canonical timestamp, or null outside the years 0000-9999 (then the side is unbounded). */
function timestamp(ms: number): string | null {
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return null;
  const s = d.toISOString();
  return CANONICAL.test(s) ? s : null;
}

/** The larger of two lower bounds (null: none). */
const maxLow = (a: string | null, b: string | null): string | null => (a === null ? b : b === null ? a : a > b ? a : b);
/** The smaller of two upper bounds (null: none). */
const minHigh = (a: string | null, b: string | null): string | null => (a === null ? b : b === null ? a : a < b ? a : b);

export interface DateLagList<T> {
  /** The page's rows in list order. */
  rows: (limit: number, offset: number) => T[];
  /** The list's records (for a capped count). */
  count: { from: string; args: unknown[] };
  /** How the page is read: the other column's range sorted, or the buckets' walks (for tests and notes). */
  plan: 'sorted' | 'buckets';
}

/** One bucket's walk in otherDateList: its SELECT (`head` + `rest`), the order's range in it, and the probe that finds a record in it. */
interface BucketArm {
  head: string;
  rest: string;
  sql: string;
  rangeArgs: string[];
  /** FROM and WHERE of the bucket's records in the scope and range (the scope's arguments, then rangeArgs). */
  probe: string;
}

/** The buckets holding records, merged: the walk from the start, from an anchor, and the count. */
interface BucketWalk {
  arms: BucketArm[];
  ordered: string;
  after: string;
  count: string;
  /** `ordered` and `after` with each LIMIT a page asked. */
  limited: Map<number, string>;
  afterLimited: Map<number, string>;
}

/**
 * What otherDateList makes of a list's shape (its SQL and dates, not its arguments nor the data):
 * the other column's range, the sorted read, every bucket's walk and probe, and the merged walk
 * of each set of buckets found holding records. Kept per database, so a list asked again hands
 * db.prepare the very strings it holds (found by identity), where the same SQL built again (15
 * buckets, 8-15 KB of text) was written and hashed whole at each lookup: an issue list by
 * updated_at with created_before spent ~150 us of its 350 building and looking up its SQL.
 */
interface OtherDatePlan {
  otherRange: { sql: string; args: string[] };
  inRange: string;
  sortedFrom: string;
  sortedLimited: Map<number, string>;
  sortedOrder: string;
  buckets: BucketArm[];
  /**
   * Which buckets hold records of the scope in their range, as one statement (each bucket's
   * index probe an EXISTS, its position the answer): the scope's arguments, then the bucket's
   * rangeArgs, bucket after bucket (heldArgs).
   */
  heldSql: string;
  walks: Map<string, BucketWalk>;
}

/** Plans kept per database (beyond, all are dropped and made again). */
const OTHER_DATE_PLANS = MEMORY_BUDGET.otherDatePlans;
const otherDatePlans = new WeakMap<Db, Map<string, OtherDatePlan | null>>();

/** `sql` with ` LIMIT n OFFSET ?`, one string per limit. */
function withLimit(known: Map<number, string>, sql: string, limit: number): string {
  let out = known.get(limit);
  if (out === undefined) known.set(limit, (out = `${sql} ${limitSql(limit)} OFFSET ?`));
  return out;
}

/** The plan of a list's shape (see OtherDatePlan), or null when a bound is not canonical. */
function otherDatePlan(t: DateLagTable, bounds: DateBounds, order: DateColumn, sort: 'asc' | 'desc', conditions: string): OtherDatePlan | null {
  const other: DateColumn = order === 'created_at' ? 'updated_at' : 'created_at';
  const [otherLow, otherHigh] = columnRange(bounds, other);
  const all = [...columnRange(bounds, order), otherLow, otherHigh];
  if (all.some((v) => v !== null && !CANONICAL.test(v))) return null;
  const x = t.alias;
  const dir = sort === 'asc' ? 'ASC' : 'DESC';
  const orderBy = (prefix: string): string => `${prefix}${order} ${dir}, ${prefix}id ${dir}`;
  // A narrow range of the other column: its records read from its own index and sorted.
  const range = (column: string, low: string | null, high: string | null): { sql: string; args: string[] } => ({
    sql: `${low === null ? '' : ` AND ${x}.${column} >= ?`}${high === null ? '' : ` AND ${x}.${column} <= ?`}`,
    args: [...(low === null ? [] : [low]), ...(high === null ? [] : [high])],
  });
  const otherRange = range(other, otherLow, otherHigh);
  const sortedFrom = `FROM ${t.table} ${x} INDEXED BY ${t.dateIndex[other]} WHERE ${conditions}`;
  // The buckets whose lag leaves some of the order's column in range, each with that range.
  const [orderLow, orderHigh] = columnRange(bounds, order);
  const toMs = (v: string | null): number | null => (v === null ? null : Date.parse(v));
  const buckets: BucketArm[] = [];
  const lag = dateLag(`${x}.`);
  for (const bucket of [null, -1, ...Array.from({ length: TOP_BUCKET + 1 }, (_, i) => i)]) {
    let low = orderLow;
    let high = orderHigh;
    if (bucket !== null) {
      const [l, h] = lagRange(bucket);
      // created_at = updated_at - lag; updated_at = created_at + lag.
      const sign = order === 'created_at' ? -1 : 1;
      const [lowLag, highLag] = sign < 0 ? [h, l] : [l, h];
      const oLow = toMs(otherLow);
      const oHigh = toMs(otherHigh);
      if (oLow !== null) low = maxLow(low, timestamp(oLow + sign * lowLag * 1000));
      if (oHigh !== null) high = minHigh(high, timestamp(oHigh + sign * highLag * 1000));
      if (low !== null && high !== null && low > high) continue;
    }
    const inBucket = bucket === null ? `${lag} IS NULL` : `${lag} = ${bucket}`;
    const orderRange = range(order, low, high);
    const probe = `FROM ${t.table} ${x} INDEXED BY ${t.lagIndex[order]} WHERE ${t.scope} AND ${inBucket}${orderRange.sql}`;
    const head = `SELECT ${x}.id AS id, ${x}.${order} AS ${order} FROM ${t.table} ${x} INDEXED BY ${t.lagIndex[order]} WHERE `;
    const rest = `${conditions} AND ${inBucket}${orderRange.sql}`;
    buckets.push({ head, rest, sql: `${head}${rest}`, rangeArgs: orderRange.args, probe });
  }
  return {
    otherRange,
    inRange: `FROM ${t.table} ${x} INDEXED BY ${t.dateIndex[other]} WHERE ${t.scope}${otherRange.sql}`,
    sortedFrom,
    sortedOrder: `SELECT ${x}.id AS id ${sortedFrom} ORDER BY ${orderBy(`${x}.`)}`,
    sortedLimited: new Map(),
    buckets,
    heldSql: buckets.map((b, i) => `SELECT ${i} AS i WHERE EXISTS (SELECT 1 ${b.probe})`).join(' UNION ALL '),
    walks: new Map(),
  };
}

/**
 * `before` then each of `parts` in turn, as one array, by plain loops: arms.flatMap((a) => [...args,
 * ...a.rangeArgs]) was a third of otherDateList's own time (V8's generic flatMap and spreads).
 */
function concatArgs(parts: readonly (readonly unknown[])[], before: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const part of parts) {
    for (let i = 0; i < before.length; i++) out.push(before[i]);
    for (let i = 0; i < part.length; i++) out.push(part[i]);
  }
  return out;
}

/** The merged walk of the buckets at `held` (the plan's buckets holding records), made once per plan. */
function bucketWalk(plan: OtherDatePlan, held: number[], x: string, order: DateColumn, sort: 'asc' | 'desc'): BucketWalk {
  const key = held.join(',');
  let walk = plan.walks.get(key);
  if (walk) return walk;
  const arms = held.map((i) => plan.buckets[i]);
  const dir = sort === 'asc' ? 'ASC' : 'DESC';
  const orderBy = (prefix: string): string => `${prefix}${order} ${dir}, ${prefix}id ${dir}`;
  const compound = arms.map((a) => a.sql).join(' UNION ALL ');
  // One arm orders by its alias; a compound by its result columns.
  const ordered = arms.length === 1 ? `${compound} ORDER BY ${orderBy(`${x}.`)}` : `${compound} ORDER BY ${orderBy('')}`;
  // From a row an earlier page read: every arm starts after it, in list order (its index's (date, id) order).
  // First in the WHERE: SQLite seeks the index by the first usable bound, and the bucket's own (before the anchor) would walk to it.
  const past = `(${x}.${order}, ${x}.id) ${sort === 'asc' ? '>' : '<'} (?, ?) AND `;
  const afterSql = arms.map((a) => `${a.head}${past}${a.rest}`).join(' UNION ALL ');
  const after = arms.length === 1 ? `${afterSql} ORDER BY ${orderBy(`${x}.`)}` : `${afterSql} ORDER BY ${orderBy('')}`;
  walk = { arms, ordered, after, count: `FROM (${compound}) ${x}`, limited: new Map(), afterLimited: new Map() };
  plan.walks.set(key, walk);
  return walk;
}

/**
 * The page and count of a list ordered by `order` (created_at or updated_at) whose `where`
 * (conditions on `t.alias`, with `args`; the date filters among them as the list has them)
 * includes a bound on the other date column; undefined otherwise (or for a bound that is not
 * canonical), when the list reads as it always did.
 */
export function otherDateList<T>(db: Db, t: DateLagTable, bounds: DateBounds, order: DateColumn, sort: 'asc' | 'desc', where: string[], args: unknown[]): DateLagList<T> | undefined {
  if (!boundsOtherDate(bounds, order)) return undefined;
  const other: DateColumn = order === 'created_at' ? 'updated_at' : 'created_at';
  const x = t.alias;
  const conditions = where.join(' AND ');
  let plans = otherDatePlans.get(db);
  if (!plans) otherDatePlans.set(db, (plans = new Map()));
  const planKey = `${t.table}\u0000${x}\u0000${t.scope}\u0000${t.lagIndex[order]}\u0000${t.dateIndex[other]}\u0000${order}\u0000${sort}\u0000${bounds.created_after ?? ''}\u0000${bounds.created_before ?? ''}\u0000${bounds.updated_after ?? ''}\u0000${bounds.updated_before ?? ''}\u0000${conditions}`;
  let plan = plans.get(planKey);
  if (plan === undefined) {
    plan = otherDatePlan(t, bounds, order, sort, conditions);
    if (plans.size >= OTHER_DATE_PLANS) plans.clear();
    plans.set(planKey, plan);
  }
  if (plan === null) return undefined;
  const p = plan;
  // The walk reads ids (and the order's date), from the index when the conditions are its columns; the page's rows by id.
  const byIds = (rows: unknown[]): T[] => rowsByIds<T>(db, t.log, (rows as { id: number }[]).map((r) => r.id));
  // A narrow range of the other column: its records read from its own index and sorted.
  const inRange = countUpTo(db, p.inRange, [...t.scopeArgs, ...p.otherRange.args], SORTED_RANGE + 1);
  if (inRange <= SORTED_RANGE) {
    return {
      rows: (limit, offset) => byIds(db.prepare(withLimit(p.sortedLimited, p.sortedOrder, limit)).all(...args, offset)),
      count: { from: p.sortedFrom, args },
      plan: 'sorted',
    };
  }
  // The buckets holding records of the scope in their range (one index probe each), read by one
  // statement: its answer is one remembered read after a write elsewhere, where a statement per
  // bucket (16) cost ~40 us of a big project's page (mr17 /issues?updated_before).
  const heldArgs = concatArgs(p.buckets.map((b) => b.rangeArgs), t.scopeArgs);
  const held = (db.prepare(p.heldSql).all(...heldArgs) as { i: number }[]).map((r) => r.i).sort((a, b) => a - b);
  if (!held.length) {
    return { rows: () => [], count: { from: `FROM ${t.table} ${x} WHERE 0`, args: [] }, plan: 'buckets' };
  }
  const w = bucketWalk(p, held, x, order, sort);
  const arms = w.arms;
  const compoundArgs = concatArgs(arms.map((a) => a.rangeArgs), args);
  const anchorOf = (rows: unknown[]): BucketAnchor[] => (rows as Record<string, string | number>[]).map((r) => ({ id: r.id as number, at: r[order] as string }));
  const walk = (limit: number, offset: number): BucketAnchor[] => anchorOf(db.prepare(withLimit(w.limited, w.ordered, limit)).all(...compoundArgs, offset));
  // From a row an earlier page read: every arm starts after it, in list order.
  const after = (an: BucketAnchor, limit: number, skip: number): BucketAnchor[] =>
    anchorOf(db.prepare(withLimit(w.afterLimited, w.after, limit)).all(...arms.flatMap((a) => [an.at, an.id, ...args, ...a.rangeArgs]), skip));
  const rows = (limit: number, offset: number): T[] =>
    byIds(
      t.version && offset >= ANCHORED_FROM
        ? bucketAnchoredWalk(db, JSON.stringify([w.ordered, compoundArgs, t.versionKey ?? null]), t.version, walk, after, limit, offset)
        : walk(limit, offset),
    );
  let count = { from: w.count, args: compoundArgs };
  // Filtered by the other date alone (and the scope): every entry of its range is a match, counted from that index alone.
  const [orderLow, orderHigh] = columnRange(bounds, order);
  const otherTerms = [`${x}.${other} >= ?`, `${x}.${other} <= ?`];
  if (orderLow === null && orderHigh === null && where.every((w) => w === t.scope || w === '1 = 1' || otherTerms.includes(w))) {
    return { rows, count: { from: p.sortedFrom, args }, plan: 'buckets' };
  }
  const fewest = [...(t.counts ?? [])].sort((a, b) => a.candidates - b.candidates)[0];
  if (fewest) {
    // The buckets' candidates (their ranges, from the index alone), up to the other way's.
    const cap = fewest.candidates + 1;
    let candidates = 0;
    for (const arm of arms) {
      candidates += countUpTo(db, arm.probe, [...t.scopeArgs, ...arm.rangeArgs], cap - candidates);
      if (candidates >= cap) break;
    }
    if (candidates >= cap) count = { from: fewest.from(conditions), args: fewest.alone ? fewest.args : [...fewest.args, ...args] };
  }
  return { rows, count, plan: 'buckets' };
}

/** Deep pages from this offset on start from an anchor (nearer pages walk from the start: cheaper than remembering). */
export const ANCHORED_FROM = 1_000;
/** Lists whose anchors are kept per database, and anchors per list (beyond either, all are dropped). */
const ANCHORED_LISTS = 100;
const ANCHORS_PER_LIST = 1_000;

/** A row of a bucket walk: its id and order date. */
export interface BucketAnchor {
  id: number;
  at: string;
}
const bucketAnchors = new WeakMap<Db, Map<string, { version: number; at: Map<number, BucketAnchor> }>>();

/**
 * `limit` rows of a bucket walk from `offset`, read from the nearest row an earlier page read at
 * the same version (the row just before an offset: `after` skips only the rows between), else from
 * the start (`walk`); the row before the page and the page's last rows are remembered as anchors
 * of their offsets. A page of updated_after at page 200 merged 4,000 rows of the buckets' walks.
 */
export function bucketAnchoredWalk(
  db: Db,
  key: string,
  version: () => number,
  walk: (limit: number, offset: number) => BucketAnchor[],
  after: (an: BucketAnchor, limit: number, skip: number) => BucketAnchor[],
  limit: number,
  offset: number,
): BucketAnchor[] {
  let lists = bucketAnchors.get(db);
  if (!lists) bucketAnchors.set(db, (lists = new Map()));
  const now = version();
  let known = lists.get(key);
  if (!known || known.version !== now) {
    if (!known && lists.size >= ANCHORED_LISTS) lists.clear();
    lists.set(key, (known = { version: now, at: new Map() }));
  }
  if (known.at.size >= ANCHORS_PER_LIST) known.at.clear();
  let from = 0;
  let anchor: BucketAnchor | undefined;
  for (const [o, an] of known.at) {
    if (o <= offset && o > from) {
      from = o;
      anchor = an;
    }
  }
  // One row before the page (unless an anchor is at the page itself), to anchor its offset.
  const lead = from === offset ? 0 : 1;
  const got = anchor ? after(anchor, limit + lead, offset - lead - from) : walk(limit + lead, offset - lead);
  // Inside a transaction the version may yet roll back under rows it no longer describes.
  if (!db.inTransaction) {
    if (lead && got.length) known.at.set(offset, got[0]);
    const page = got.slice(lead);
    // The rows before the page's last two: the next page's anchor whether its reader asked one row more or not.
    for (let i = Math.max(0, page.length - 2); i < page.length; i++) known.at.set(offset + i + 1, page[i]);
    return page;
  }
  return got.slice(lead);
}
