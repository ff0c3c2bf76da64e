import type Database from 'better-sqlite3';
import type { Db } from '../db/connection';
import { type WriteLog, rowsByIds } from '../db/written-rows';
import type { RequestContext } from './route';
import { grapeError } from './errors';
import { MEMORY_BUDGET, deleteOldest } from '../memory';

export interface Page {
  page: number;
  perPage: number;
  offset: number;
}

/**
 * Kaminari's MAX_COUNT_LIMIT: past this many rows GitLab stops counting (`without_count`) and omits
 * X-Total, X-Total-Pages and the `rel="last"` link.
 */
export const COUNT_LIMIT = 10_000;

/** Plan.default's offset_pagination_limit: the deepest offset a keyset-enforced list serves. */
export const OFFSET_PAGINATION_LIMIT = 50_000;

/** `page`/`per_page` as GitLab reads them: default 20, clamped at 100, per_page=0 refused. */
export function readPage(params: Record<string, unknown>, defaultPerPage = 20): Page {
  const parse = (name: string, fallback: number): number => {
    const raw = params[name];
    if (raw === undefined || raw === null || raw === '') return fallback;
    const s = String(raw).trim();
    if (!/^-?\d+$/.test(s)) throw grapeError(400, `${name} is invalid`);
    return Number.parseInt(s, 10);
  };
  let page = parse('page', 1);
  let perPage = parse('per_page', defaultPerPage);
  if (perPage === 0) throw grapeError(400, 'per_page has a value not allowed');
  if (perPage < 0) perPage = defaultPerPage;
  if (perPage > 100) perPage = 100;
  if (page < 1) page = 1;
  return { page, perPage, offset: (page - 1) * perPage };
}

/**
 * Sets X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page and Link. A page past
 * the last is out of range (Kaminari's out_of_range?): no previous page, as no next one.
 */
export function setPaginationHeaders(rc: RequestContext, page: Page, total: number): void {
  const totalPages = Math.max(1, Math.ceil(total / page.perPage));
  const next = page.page < totalPages ? page.page + 1 : null;
  const prev = page.page > 1 && page.page <= totalPages ? page.page - 1 : null;
  const links: string[] = [];
  if (prev) links.push(pageLink(rc, page, prev, 'prev'));
  if (next) links.push(pageLink(rc, page, next, 'next'));
  links.push(pageLink(rc, page, 1, 'first'));
  links.push(pageLink(rc, page, totalPages, 'last'));
  sendPageHeaders(rc, {
    'x-total': String(total),
    'x-total-pages': String(totalPages),
    'x-per-page': String(page.perPage),
    'x-page': String(page.page),
    'x-next-page': next ? String(next) : '',
    'x-prev-page': prev ? String(prev) : '',
    link: links.join(', '),
  });
}

/**
 * Past COUNT_LIMIT rows: no X-Total, no X-Total-Pages, no `rel="last"` (OffsetHeaderBuilder, data_without_counts).
 * An empty page is out of range there (PaginatableWithoutCount#out_of_range?): no previous page either.
 */
function setUncountedPaginationHeaders(rc: RequestContext, page: Page, found: number, hasNext: boolean): void {
  const next = hasNext ? page.page + 1 : null;
  const prev = page.page > 1 && found > 0 ? page.page - 1 : null;
  const links: string[] = [];
  if (prev) links.push(pageLink(rc, page, prev, 'prev'));
  if (next) links.push(pageLink(rc, page, next, 'next'));
  links.push(pageLink(rc, page, 1, 'first'));
  sendPageHeaders(rc, {
    'x-per-page': String(page.perPage),
    'x-page': String(page.page),
    'x-next-page': next ? String(next) : '',
    'x-prev-page': prev ? String(prev) : '',
    link: links.join(', '),
  });
}

/** The pagination headers a request's page sent (sendPageHeaders), for an answer kept whole (kept-answers.ts). */
const sentPageHeaders = new WeakMap<RequestContext, Record<string, string>>();
/** Requests whose SQL list kept its rows at a version (SqlList.keptRows): every table it reads has one. */
const keptListPages = new WeakMap<RequestContext, NonNullable<SqlList<unknown>['keptRows']>>();

function sendPageHeaders(rc: RequestContext, headers: Record<string, string>): void {
  sentPageHeaders.set(rc, headers);
  rc.reply.headers(headers);
}

/**
 * What a request's page said besides its rows, when its list was a SQL list whose rows were kept at
 * a version (paginateSql with keptRows): the pagination headers it sent, the records' version it
 * was kept at and the other tables its SQL reads (SqlList.keptRows); else undefined.
 */
export function keptListPage(rc: RequestContext): { headers: Readonly<Record<string, string>>; version: () => number; tables: readonly string[] } | undefined {
  const kept = keptListPages.get(rc);
  const headers = kept && sentPageHeaders.get(rc);
  return headers && { headers, version: kept.version, tables: kept.tables };
}

/** The pagination headers a request's page sent, whatever its list. */
export function pageHeadersSent(rc: RequestContext): Readonly<Record<string, string>> | undefined {
  return sentPageHeaders.get(rc);
}

const pageLink = (rc: RequestContext, page: Page, to: number, rel: string): string => `<${pageUrl(rc, to, page.perPage)}>; rel="${rel}"`;

/** A request's query without `page` and `per_page`, each pair encoded, sorted by name: made once for a page's two to four links. */
const otherParams = new WeakMap<RequestContext, { names: string[]; pairs: string[] }>();

/**
 * requestUrlWith(rc, ['page', 'per_page'], [['page', to], ['per_page', perPage]]): the other
 * parameters sorted and encoded once per request (the same for each of its links), the two
 * numbers put in their places (no other parameter has their names; 'page' sorts before 'per_page').
 */
function pageUrl(rc: RequestContext, to: number, perPage: number): string {
  let rest = otherParams.get(rc);
  if (!rest) {
    const query = rc.queryPairs.filter(([k]) => k !== 'page' && k !== 'per_page').sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    rest = { names: query.map(([k]) => k), pairs: query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`) };
    otherParams.set(rc, rest);
  }
  const { names, pairs } = rest;
  let qs = '';
  let placed = 0;
  const added = [`page=${to}`, `per_page=${perPage}`];
  for (let i = 0; i < names.length; i++) {
    while (placed < 2 && names[i] > (placed === 0 ? 'page' : 'per_page')) qs += (qs ? '&' : '') + added[placed++];
    qs += (qs ? '&' : '') + pairs[i];
  }
  while (placed < 2) qs += (qs ? '&' : '') + added[placed++];
  return `${rc.baseUrl}${rc.pathname}?${qs}`;
}

/**
 * The request's own URL (same scheme, host and port the client used) with the `drop` parameters
 * replaced by `add`, parameters sorted by name as Rails' `to_query` sorts them.
 */
function requestUrlWith(rc: RequestContext, drop: string[], add: [string, string][]): string {
  const query: [string, string][] = [];
  for (const [k, v] of rc.queryPairs) if (!drop.includes(k)) query.push([k, v]);
  query.push(...add);
  query.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const qs = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return `${rc.baseUrl}${rc.pathname}?${qs}`;
}

/** Where a page's rows come from. */
export interface PageSource<T> {
  /**
   * How many rows the list has. Counting may stop at `cap`: any answer of `cap` or more reads as
   * "more than COUNT_LIMIT", which is all the paginator needs to know.
   */
  count: (cap: number) => number;
  rows: (limit: number, offset: number) => T[];
  /** The list's exact length, when counters hold it: a page past the end is then answered without reading. */
  total?: () => number;
  /** At least the list's length (counters that count a row once or more): a page past it and past COUNT_LIMIT is answered without reading. */
  atMost?: () => number;
  /**
   * The list's exact length, already known (at most COUNT_LIMIT): a page reads no more rows than
   * the list has left from its offset, so a walk stops at the list's last row instead of looking
   * past it for one more (a filter few records match walked every record of its index), and a page
   * at or past the end is not read at the list's beginning either.
   */
  known?: number;
}

/**
 * One page of a list: sets the headers and returns the rows. Up to COUNT_LIMIT rows the total is
 * counted and sent; past it (GitLab's `without_count`) one extra row says whether a next page
 * exists, so a list of a million rows is never counted. The page is read first (with that extra
 * row): a row past COUNT_LIMIT already says "uncounted" and a short page ends the list, so only
 * a full page within the first COUNT_LIMIT rows (or an empty page past the end) pays for a count.
 * GitLab counts the list (up to COUNT_LIMIT + 1) whatever the page: an empty page past an offset
 * of COUNT_LIMIT is counted too when the list is no longer (page 600 of 3 rows: X-Total 3).
 */
export function paginate<T>(rc: RequestContext, source: PageSource<T>, defaultPerPage = 20): T[] {
  const page = readPage(rc.params, defaultPerPage);
  if (source.total && page.offset > 0 && page.offset >= source.total()) {
    // Past the end: the empty page's headers without walking the list to find nothing.
    setListPageHeaders(rc, page, source.total(), 0, false);
    return [];
  }
  // Past COUNT_LIMIT and past the counters' bound: nothing to read, only whether the list is counted.
  if (source.atMost && page.offset > COUNT_LIMIT && page.offset >= source.atMost()) {
    setListPageHeaders(rc, page, source.known ?? source.count(COUNT_LIMIT + 1), 0, false);
    return [];
  }
  // With the length known, the rows left from the offset: the answer is the same, headers included.
  const left = source.known === undefined ? page.perPage + 1 : Math.min(page.perPage + 1, source.known - page.offset);
  const fetched = left > 0 ? source.rows(left, page.offset) : [];
  const hasNext = fetched.length > page.perPage;
  const rows = fetched.slice(0, page.perPage);
  // An empty page past the first says neither: the list's length decides (known, or counted).
  const pageSettlesTotal = fetched.length > 0 ? page.offset + fetched.length > COUNT_LIMIT || !hasNext : page.offset === 0;
  const total = pageSettlesTotal ? page.offset + fetched.length : source.known ?? source.count(COUNT_LIMIT + 1);
  setListPageHeaders(rc, page, total, rows.length, hasNext);
  return rows;
}

/** A page's headers by its list's length (counted up to COUNT_LIMIT + 1): counted up to COUNT_LIMIT, uncounted past it. */
function setListPageHeaders(rc: RequestContext, page: Page, total: number, found: number, hasNext: boolean): void {
  if (total <= COUNT_LIMIT) setPaginationHeaders(rc, page, total);
  else setUncountedPaginationHeaders(rc, page, found, hasNext);
}

/** The count a list's countFrom holds in hand (capped at COUNT_LIMIT + 1 unless marked exact), if it holds one. */
export function countInHand(countFrom: SqlList<unknown>['countFrom']): number | undefined {
  return countFrom && 'counted' in countFrom ? countFrom.counted : undefined;
}

/** Pagination of a list already in memory. */
export function paginateArray<T>(rc: RequestContext, items: T[], defaultPerPage = 20): T[] {
  return paginate(rc, { count: () => items.length, rows: (limit, offset) => items.slice(offset, offset + limit) }, defaultPerPage);
}

/**
 * A list as SQL: `SELECT <select> <from> ORDER BY <order>`, `from` holding the FROM and WHERE clauses
 * (a WHERE always: keyset pagination appends its conditions with AND).
 */
export interface SqlList<T> {
  select: string;
  from: string;
  args: unknown[];
  order: string;
  /** Lists that offer GitLab's keyset pagination (`pagination=keyset`). */
  keyset?: Keyset<T>;
  /**
   * FROM and WHERE clauses with exactly one row per row of `from`, read from a narrower index
   * (a label's rows instead of the records in list order): the capped count then reads index
   * entries only. Or the count itself, when the list already counted (capped at COUNT_LIMIT + 1),
   * or how to count it (up to a cap, as PageSource.count), when counting is the list's own matter,
   * or its exact length from counters (PageSource.total: pages past it are not read). A count
   * marked `exact` is the list's length even past COUNT_LIMIT (not capped): pages past it are not read either.
   */
  countFrom?: { from: string; args: unknown[] } | { counted: number; exact?: true } | { count: (cap: number) => number } | { total: () => number };
  /** At least the list's length, from counters (PageSource.atMost: deep pages past it are not read). */
  atMost?: () => number;
  /** Deep offset pages start from a row an earlier page of the same list read (see PageAnchors). */
  anchors?: PageAnchors<T>;
  /**
   * Without anchors: a capped count of `from` the list knows another way (remembered), or undefined
   * to count it here; `counter`, when given, counts it (the list's ids read once: countsItsOwnPage).
   */
  countKnown?: (from: string, args: unknown[], cap: number, counter?: (cap: number) => number) => number | undefined;
  /**
   * A page past COUNT_LIMIT (not counted first): `from`'s length up to `cap` (the page's end and
   * one more), where counting it costs less than walking the list to the page; undefined where it
   * does not. A list that ends before the page then reads nothing, a shorter last page stops at its end.
   */
  countToPage?: (from: string, args: unknown[], cap: number, walk: { sql: string; args: unknown[] }) => number | undefined;
  /** The rows of an offset page read another way than from `from` by LIMIT and OFFSET: the same rows in the same order. */
  rows?: (limit: number, offset: number) => T[];
  /**
   * The same rows as `from` (same arguments) with the conditions written so their own indexes may
   * serve them (ListWhere.narrow; `from` is then ListWhere.walk, read in the order's index). The
   * list is counted from here first, and the count decides where a page is read: here, sorting the
   * matches, when they are few against the rows a walk would read to reach the page; from `from`
   * otherwise. Keyset pages and id lists (fewRowsByIds) read from here, as the list is written.
   */
  narrow?: string;
  /**
   * `select` is the whole row of a table whose writes a log names (`x.*` of `FROM issues x`): a
   * page reads its ids (`idColumn`) in the list's order, and its rows by id, from memory while
   * the log shows them unwritten (db/written-rows.ts). The same rows in the same order.
   * `columns`: more of the list's columns the ids' read selects: SQLite merges a FROM of UNION ALL
   * legs in their indexes' order only when the order's terms are among the result columns.
   */
  byId?: { log: WriteLog; idColumn: string; columns?: string };
  /**
   * A page's rows stay while `version` holds, `key` naming what else decides them (the list's SQL,
   * arguments and order, the versions of the other tables it reads), however they are read (`rows`
   * or the list's SQL): remembered (rememberedPage) as anchors' rowsAtVersion, for lists in an
   * order no anchors serve. `tables`: those other tables (their versions in `key`).
   */
  keptRows?: { key: string; version: () => number; tables: readonly string[] };
}

/**
 * Where a deep offset page may start reading instead of walking the list from its first row: just
 * after a row an earlier page of the same list read (a client reading every page in turn, a deep
 * page asked again), found by its place in the order. `version` must change whenever a row may
 * have entered, left or moved in the list; anchors of another version are forgotten. The order
 * must be `column` then `idColumn`, both in `sort`'s direction, on columns that are never NULL.
 */
export interface PageAnchors<T> {
  /** What decides the list's rows besides `version` (its SQL, arguments and order, the caller's view). */
  key: string;
  /** Read only when a page is deep enough to use anchors. */
  version: () => number;
  column: string;
  idColumn: string;
  sort: SortDirection;
  value: (row: T) => string | number;
  id: (row: T) => number;
  /**
   * The rows written between two versions (after `since`, up to `now`) when every write is known,
   * or null (OrderMoves). With it, the anchors of an earlier version move along by the new rows of
   * their list that sort before them, and back by the rows that left it from before them, instead
   * of being forgotten. Only for orders whose values compare in JavaScript as in SQLite (numbers,
   * ASCII text).
   */
  moves?: (since: number, now: number) => OrderMoves | null;
  /**
   * The list's first row may lie far into its order (a filter the order's index cannot check,
   * such as a common search term none of the newest rows hold): its early pages start at that
   * row, remembered when page 1 read it, instead of walking to it again (see startedRows).
   */
  startBound?: boolean;
  /**
   * The ids of the rows written (inserted, updated or deleted) between two versions, each write
   * once (a row may repeat), or null when they are no longer known. With it, a remembered first
   * row (startBound) moves to the first written row that now sorts before it instead of being
   * found again: at the earlier version no row of the list sorted before it, so one that does now
   * was written since.
   */
  written?: (since: number, now: number) => number[] | null;
  /**
   * `version` moves on every write to a row of the list's table in its scope, whatever the column
   * (core/022's notes version, snippets/003's), and the list's conditions read only that table's
   * columns and what `key` holds: a page read at a version is that page, rows and all, while the
   * version holds. Its rows are then remembered (rememberedPage) instead of read again after
   * every write elsewhere.
   */
  rowsAtVersion?: boolean;
  /**
   * `version` moves on every write that may add a row to the list or drop one, with nothing else
   * deciding its rows besides `key` (no date, no other table): its count, exact up to COUNT_LIMIT,
   * is remembered at the version too (countAtVersion), not only "more than COUNT_LIMIT".
   */
  countsAtVersion?: boolean;
}

/** The rows written between two versions of a list (PageAnchors.moves). */
export interface OrderMoves {
  /** The rows inserted: none was in the list at the earlier version. */
  inserted: number[];
  /** The other rows written (deleted, or changed in what the list reads), each once. */
  left: number[];
  /**
   * A WITH clause naming the list's table (its `from` reads it by that name) as `left`'s rows
   * were at the earlier version, those rows alone, and its arguments: the list's conditions then
   * say which of them were in it, and where. Unused when `left` is empty.
   */
  was: { sql: string; args: unknown[] };
}

/** Pages within this many rows of the start read from the start: the walk costs less than remembering. */
const ANCHORED_FROM_OFFSET = 1_000;
/** Lists remembered per database, and anchors per list (beyond either, all are dropped and built again). */
const ANCHORED_LISTS = MEMORY_BUDGET.anchoredLists;
const ANCHORS_PER_LIST = MEMORY_BUDGET.anchorsPerList;

interface Anchor {
  value: string | number;
  id: number;
}
/**
 * A list's anchors by offset (offset -> the row just before it), each held at its offset less
 * `shift`: rows inserted before every anchor (new records at the front of a newest-first list)
 * move them all along by adding to `shift` instead of each anchor being set again.
 */
class OffsetAnchors {
  private readonly held = new Map<number, Anchor>();
  private shift = 0;

  get size(): number {
    return this.held.size;
  }
  get(offset: number): Anchor | undefined {
    return this.held.get(offset - this.shift);
  }
  set(offset: number, anchor: Anchor): void {
    this.held.set(offset - this.shift, anchor);
  }
  delete(offset: number): void {
    this.held.delete(offset - this.shift);
  }
  clear(): void {
    this.held.clear();
  }
  /** Every anchor `n` rows further along. */
  moveAlong(n: number): void {
    this.shift += n;
  }
  *offsets(): IterableIterator<number> {
    for (const held of this.held.keys()) yield held + this.shift;
  }
  *[Symbol.iterator](): IterableIterator<[number, Anchor]> {
    for (const [held, anchor] of this.held) yield [held + this.shift, anchor];
  }
}

/**
 * A list's anchors at a version (OffsetAnchors); `start`: the list's first row
 * (PageAnchors.startBound); `endsBy`: an offset the list has no row at, when a read found its end.
 */
interface ListAnchors {
  version: number;
  at: OffsetAnchors;
  start?: Anchor;
  endsBy?: number;
  /** movedAnchors' statement (is this row in the list, and where), prepared at the list's first move and carried to its later versions. */
  inList?: Database.Statement;
}
const anchorStores = new WeakMap<Db, Map<string, ListAnchors>>();
/** Anchors set again one by one at new offsets (movedAnchors), per database: for tests. */
const anchorsRewrittenBy = new WeakMap<Db, number>();

/** Anchors held across every list (anchoredRows), for tests of their bound. */
export function anchorsHeld(db: Db): number {
  let n = 0;
  for (const known of anchorStores.get(db)?.values() ?? []) n += known.at.size;
  return n;
}

/** Anchors movedAnchors has set again one by one at new offsets (rather than moved all at once or left), for tests. */
export function anchorsRewritten(db: Db): number {
  return anchorsRewrittenBy.get(db) ?? 0;
}

/** The anchors of a list at its current version. */
function anchorsOf<T>(db: Db, list: SqlList<T>, a: PageAnchors<T>): ListAnchors {
  const version = a.version();
  let store = anchorStores.get(db);
  if (!store) anchorStores.set(db, (store = new Map()));
  let known = store.get(a.key);
  if (!known || known.version !== version) {
    const later = known && known.version < version && !db.inTransaction ? known : undefined;
    const moved = later?.at.size ? movedAnchors(db, list, a, later, version) : null;
    const start = later?.start ? movedStart(db, list, a, later.start, later.version, version) : undefined;
    if (!known && store.size >= ANCHORED_LISTS) store.clear();
    known = moved ?? { version, at: new OffsetAnchors() };
    if (start) known.start = start;
    store.set(a.key, known);
  }
  if (known.at.size >= ANCHORS_PER_LIST) known.at.clear();
  return known;
}

/**
 * The anchors of an earlier version of the list, moved by the rows written since
 * (PageAnchors.moves): each along by the rows now in the list at or before its row, and back by
 * those that were in it at or before its row then (a row deleted, closed out of the list, or
 * moved within it, counts once each way; an anchor's own row gone leaves it a bound still, the
 * rows up to it one fewer). Rows that all sort at or before the first anchor (new records in a
 * newest-first list, or the newest deleted) move every anchor at once, rows that sort after the
 * last leave them; only rows among the anchors set each again (a poll of a deep page after each
 * new record set every anchor of the list anew). Null when the writes are not known.
 */
function movedAnchors<T>(db: Db, list: SqlList<T>, a: PageAnchors<T>, from: ListAnchors, version: number): ListAnchors | null {
  const moves = a.moves?.(from.version, version);
  if (!moves) return null;
  const ids = moves.left.length ? [...new Set([...moves.inserted, ...moves.left])] : moves.inserted;
  if (ids.length === 0) return { version, at: from.at, inList: from.inList };
  // One id at a time: SQLite reads `id = ?` by the primary key, where `id IN (...)` walked the
  // list's own index (a million rows) to check each against the list. Prepared once for the list
  // (its key names its SQL), not made and looked up in the statement cache at every move.
  const inList = (from.inList ??= db.prepare(`SELECT ${a.column} AS value, ${a.idColumn} AS id ${list.from} AND ${a.idColumn} = ?`));
  const added: Anchor[] = [];
  for (const id of ids) {
    const row = inList.get(...list.args, id) as Anchor | undefined;
    if (row) added.push(row);
  }
  // The rows that left, as they were, that the list held then: its conditions on them (a condition
  // its table's rows as they were cannot answer fails to prepare, and the anchors go).
  let gone: Anchor[] = [];
  if (moves.left.length) {
    try {
      gone = db.prepare(`${moves.was.sql} SELECT ${a.column} AS value, ${a.idColumn} AS id ${list.from}`).all(...moves.was.args, ...list.args) as Anchor[];
    } catch {
      return null;
    }
  }
  const first = a.sort === 'desc' ? 1 : -1;
  const atOrBefore = (x: Anchor, y: Anchor): boolean =>
    x.value === y.value ? (x.id - y.id) * first >= 0 : (x.value > y.value ? 1 : -1) * first > 0;
  // The first row is forgotten: page 1 finds it again.
  let head: [number, Anchor] | undefined;
  let tail: [number, Anchor] | undefined;
  for (const held of from.at) {
    if (!head || held[0] < head[0]) head = held;
    if (!tail || held[0] > tail[0]) tail = held;
  }
  const moved = [...added, ...gone];
  if (!moved.some((x) => atOrBefore(x, tail![1]))) return { version, at: from.at, inList };
  if (moved.every((x) => atOrBefore(x, head![1]))) {
    from.at.moveAlong(added.length - gone.length);
    return { version, at: from.at, inList };
  }
  const at = new OffsetAnchors();
  for (const [offset, anchor] of from.at) {
    let by = 0;
    for (const x of added) if (atOrBefore(x, anchor)) by++;
    for (const x of gone) if (atOrBefore(x, anchor)) by--;
    at.set(offset + by, anchor);
  }
  anchorsRewrittenBy.set(db, anchorsRewritten(db) + at.size);
  return { version, at, inList };
}

/**
 * A list's first row at `version`, from its first row at `since` and the rows written between
 * (PageAnchors.written): the first of those now in the list that sorts before it, else the same
 * row (a bound still, even when that row itself has left the list: the rows from it on are read
 * with the list's conditions). Undefined when the writes are not known.
 */
function movedStart<T>(db: Db, list: SqlList<T>, a: PageAnchors<T>, start: Anchor, since: number, version: number): Anchor | undefined {
  const ids = a.written?.(since, version);
  if (!ids) return undefined;
  // One id at a time by the primary key (see movedAnchors); SQLite compares the order values, as
  // the list's ORDER BY does (titles of any text).
  const before = db.prepare(
    `SELECT ${a.column} AS value, ${a.idColumn} AS id ${list.from} AND ${a.idColumn} = ? AND (${a.column}, ${a.idColumn}) ${a.sort === 'desc' ? '>' : '<'} (?, ?)`,
  );
  let first = start;
  for (const id of new Set(ids)) first = (before.get(...list.args, id, first.value, first.id) as Anchor | undefined) ?? first;
  return first;
}

/** As a condition to append: `<` the rows after an anchor's row in the list's order, `>=` that row and the rows before it (read in reverse). */
function pastAnchor<T>(a: PageAnchors<T>, an: Anchor, op: '<' | '>='): { sql: string; args: unknown[] } {
  return {
    sql: ` AND (${a.column}, ${a.idColumn}) ${(a.sort === 'desc') === (op === '<') ? '<' : '>'}${op === '>=' ? '=' : ''} (?, ?)`,
    args: [an.value, an.id],
  };
}

/** The list's rows from its first row on (PageAnchors.startBound), as a condition to append. */
function fromStart<T>(a: PageAnchors<T>, start: Anchor): { sql: string; args: unknown[] } {
  return { sql: ` AND (${a.column}, ${a.idColumn}) ${a.sort === 'desc' ? '<=' : '>='} (?, ?)`, args: [start.value, start.id] };
}

/** `n` rows of the list in `order` after skipping `skip`, with a condition appended. */
function readList<T>(db: Db, list: SqlList<T>, where: { sql: string; args: unknown[] } | null, order: string, n: number, skip: number): T[] {
  return selectRows(db, list, `${list.from}${where?.sql ?? ''} ORDER BY ${order} ${limitSql(n)} OFFSET ?`, [...list.args, ...(where?.args ?? []), skip]);
}

/** `SELECT <the list's rows> <tail>`: the rows themselves, or their ids and then the rows by id (SqlList.byId). */
function selectRows<T>(db: Db, list: SqlList<T>, tail: string, args: unknown[]): T[] {
  if (!list.byId) return db.prepare(`SELECT ${list.select} ${tail}`).all(...args) as T[];
  const ids = db.prepare(`SELECT ${selected(list)} ${tail}`).all(...args) as { id: number }[];
  return rowsByIds<T>(db, list.byId.log, ids.map((r) => r.id));
}

/** What selectRows reads of each row: the list's rows, or their ids (and `columns`) to read the rows by id after. */
function selected<T>(list: SqlList<T>): string {
  return list.byId ? `${list.byId.idColumn} AS id${list.byId.columns ? `, ${list.byId.columns}` : ''}` : list.select;
}

/**
 * An early page of a list with a start bound (PageAnchors.startBound): read from the list's first
 * row on, once page 1 has found it at this version, instead of walking every row of the order's
 * index before it again.
 */
function startedRows<T>(db: Db, list: SqlList<T>, a: PageAnchors<T>, limit: number, offset: number): T[] {
  const known = anchorsOf(db, list, a);
  const rows = readList(db, list, known.start ? fromStart(a, known.start) : null, list.order, limit, offset);
  // Inside a transaction the version may yet roll back under rows it no longer describes.
  if (!known.start && offset === 0 && rows.length && !db.inTransaction) known.start = { value: a.value(rows[0]), id: a.id(rows[0]) };
  return rows;
}

/**
 * `limit` rows from `offset`, read from the nearest anchor at or before it (skipping only the rows
 * between), or from one a few rows past it (an anchor that new rows moved along: the rows up to
 * it are read backwards from it). Short of an anchor at this very offset, the row before the page
 * is read too, to anchor it; the row before the last one read anchors the next page. With the
 * list's exact `length` (counters), a page nearer the end than any anchor before it is read back
 * from the end.
 */
function anchoredRows<T>(db: Db, list: SqlList<T>, a: PageAnchors<T>, limit: number, offset: number, length?: number): T[] {
  const known = anchorsOf(db, list, a);
  // Past the list's end, found by an earlier read at this version: no row to read (a page past the
  // end walked the whole list again after every unrelated write: closed MRs labels=Any p500, 75 ms).
  if (known.endsBy !== undefined && offset >= known.endsBy) return [];
  const { at } = known;
  let from = 0;
  let anchor = at.get(offset);
  let ahead: { offset: number; anchor: Anchor } | undefined;
  // An anchor at the page itself (a page read in turn, or asked again): no other is nearer.
  if (anchor) from = offset;
  else
    for (const [o, an] of at) {
      if (o <= offset && o > from) {
        from = o;
        anchor = an;
      } else if (o > offset && o <= offset + limit && (!ahead || o < ahead.offset)) ahead = { offset: o, anchor: an };
    }
  const beyond = (an: Anchor, op: '<' | '>='): { sql: string; args: unknown[] } => pastAnchor(a, an, op);
  const read = (where: { sql: string; args: unknown[] } | null, order: string, n: number, skip: number): T[] => readList(db, list, where, order, n, skip);
  // Inside a transaction the version may yet roll back under rows it no longer describes.
  const remember = (o: number, row: T): void => {
    if (db.inTransaction) return;
    // The anchors a few rows either side (closer than pages read in turn are: `limit` is a page
    // and the row past it) go: a deep page polled while records are added found its anchors moved
    // along by one, remembered new ones beside them, and they piled up (two more a read, each
    // moved by every insert and scanned by every read).
    const near = limit - 1;
    if (at.size < 2 * near) {
      for (const x of at.offsets()) if (x !== o && Math.abs(x - o) < near) at.delete(x);
    } else
      for (let d = 1; d < near; d++) {
        at.delete(o - d);
        at.delete(o + d);
      }
    at.set(o, { value: a.value(row), id: a.id(row) });
  };

  let page: T[] | undefined;
  if (ahead && ahead.offset - offset < offset - from) {
    // The anchor's row (at ahead.offset - 1) and the rows before it down to offset - 1, newest last.
    const back = ahead.offset - offset + 1;
    const before = read(beyond(ahead.anchor, '>='), reversedOrder(list.order), back, 0).reverse();
    if (before.length === back) {
      remember(offset, before[0]);
      const rest = limit - (back - 1);
      page = [...before.slice(1), ...(rest > 0 ? read(beyond(ahead.anchor, '<'), list.order, rest, 0) : [])];
    }
  }
  if (!page && length !== undefined && offset < length && length - offset < offset - from) {
    // The page's rows and the one before them (its anchor), read in the reversed order from the
    // list's last row: a first read of page 50,000 of a million labels walked 999,980 entries to it.
    const n = Math.min(limit, length - offset);
    const back = read(null, reversedOrder(list.order), n + 1, length - offset - n).reverse();
    if (back.length === n + 1) {
      remember(offset, back[0]);
      page = back.slice(1);
    }
  }
  if (!page) {
    const lead = from === offset ? 0 : 1;
    // Short of an anchor, from the list's first row when known (startBound).
    const rows = read(anchor ? beyond(anchor, '<') : known.start ? fromStart(a, known.start) : null, list.order, limit + lead, offset - lead - from);
    if (lead && rows.length) remember(offset, rows[0]);
    // Short of what was asked: the list ends at most this many rows in (exactly, when a row was read).
    if (rows.length < limit + lead && !db.inTransaction) known.endsBy = Math.min(known.endsBy ?? Infinity, offset - lead + rows.length);
    page = rows.slice(lead);
  }
  // The paginator reads one row past the page (is there a next one?): the next page in turn
  // starts at that last row, so the row before it is the next page's anchor. A short page has no
  // next page: an anchor inside it would only let go of this page's own (remember's neighbours).
  if (page.length === limit && limit > 1) remember(offset + page.length - 1, page[page.length - 2]);
  return page;
}

/**
 * An ORDER BY read the other way: each term's direction flipped, a term without one (ascending,
 * as `m.id` in the member lists) made descending, NULLS FIRST and LAST swapped with it. Flipping
 * only the words asc and desc read such a list forwards where it meant backwards.
 */
export function reversedOrder(order: string): string {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < order.length; i++) {
    const c = order[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      terms.push(order.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(order.slice(start));
  return terms
    .map((term) => {
      const m = /^(.*?)\s+(asc|desc)(\s+nulls\s+(first|last))?\s*$/is.exec(term);
      if (!m) return `${term.trim()} desc`;
      const nulls = m[4] ? ` NULLS ${m[4].toLowerCase() === 'first' ? 'LAST' : 'FIRST'}` : '';
      return `${m[1].trim()} ${m[2].toLowerCase() === 'asc' ? 'desc' : 'asc'}${nulls}`;
    })
    .join(', ');
}

/**
 * `LIMIT n` with the number written into the SQL. A bound `LIMIT ?` is a value SQLite's planner
 * reads, so binding it (better-sqlite3 binds on every run) expires the statement and every run
 * prepares it again: 30-100 us a list query. The planner sees the same number either way.
 */
export function limitSql(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`LIMIT ${n}`);
  return `LIMIT ${n}`;
}

/**
 * The count and the pages of a list of few rows (at most COUNT_LIMIT: those a search index found)
 * from its ids, read once in the list's order: a sort of ids, where the list's own read sorts its
 * whole rows to find a page and its count reads them all again. A page then reads its rows by id
 * from `table` (the list's table and alias; the ids already passed the list's conditions).
 */
export function fewRowsByIds<T>(db: Db, list: SqlList<T>, table: string, idColumn: string): SqlList<T> {
  let ids: readonly number[] | undefined;
  const read = (): number[] =>
    (db.prepare(`SELECT ${idColumn} AS id ${list.narrow ?? list.from} ORDER BY ${list.order} ${limitSql(COUNT_LIMIT + 1)}`).all(...list.args) as { id: number }[]).map((r) => r.id);
  // A list whose version pins its rows (countsAtVersion: its count is kept by it) keeps its ids by it too.
  const all = (): readonly number[] => (ids ??= list.anchors?.countsAtVersion ? idsAtVersion(db, list.anchors.key, list.anchors.version, read) : read());
  return {
    ...list,
    countFrom: { count: () => all().length },
    rows: (limit, offset) => {
      // More rows than that after all, and the page past those read: the list reads itself.
      if (all().length > COUNT_LIMIT && offset + limit > all().length) return db.prepare(`SELECT ${list.select} ${list.narrow ?? list.from} ORDER BY ${list.order} ${limitSql(limit)} OFFSET ?`).all(...list.args, offset) as T[];
      const page = all().slice(offset, offset + limit);
      if (!page.length) return [];
      // Rows kept by id until their write log names them (SqlList.byId), as the list's own pages read theirs.
      if (list.byId) return rowsByIds<T>(db, list.byId.log, page);
      return db.prepare(`SELECT ${list.select} FROM ${table} WHERE ${idColumn} IN (SELECT value FROM json_each(?)) ORDER BY ${list.order}`).all(JSON.stringify(page)) as T[];
    },
  };
}

/** fewRowsByIds' id lists per database (PageAnchors.countsAtVersion): the list's key -> the version and the ids in order read at it. */
const idLists = new WeakMap<Db, Map<string, { version: number; value: readonly number[] }>>();

/**
 * The ids `read` gives for a list of few rows whose version pins them (as its count), kept while
 * the version holds (keptAtVersion): a users search by a term some thousand users hold sorted its
 * ids again after every write elsewhere (~1-2 ms).
 */
function idsAtVersion(db: Db, key: string, version: () => number, read: () => number[]): readonly number[] {
  return keptAtVersion(idLists, db, key, version(), MEMORY_BUDGET.idListsAtVersion, () => Object.freeze(read()));
}

/**
 * What `read` gives for `key`, kept per database in `store` while `version` stays the key's: the
 * most recently asked last, so at `bound` the least recently asked goes (deleteOldest). Nothing is
 * kept inside a transaction (it may roll back).
 */
function keptAtVersion<V>(store: WeakMap<Db, Map<string, { version: number; value: V }>>, db: Db, key: string, version: number, bound: number, read: () => V): V {
  let kept = store.get(db);
  if (!kept) store.set(db, (kept = new Map()));
  const known = kept.get(key);
  if (known && known.version === version) {
    kept.delete(key);
    kept.set(key, known);
    return known.value;
  }
  const value = read();
  if (db.inTransaction) return value;
  if (known) kept.delete(key);
  else if (kept.size >= bound) deleteOldest(kept);
  kept.set(key, { version, value });
  return value;
}

/** A whole table, as lists write "no condition" (an administrator's unfiltered list; membership=true adds another). */
const WHOLE_TABLE = /^FROM (\w+)(?: \w+)? WHERE 1 = 1(?: AND 1 = 1)*$/;

/**
 * Counts the rows of `from`, stopping at `cap` (a LIMIT probe instead of a full count). A whole
 * table is counted as such: SQLite counts a table's rows from its smallest index's pages without
 * stepping through them (10,000 projects: ~15 us instead of ~500).
 */
export function countUpTo(db: Db, from: string, args: unknown[], cap: number): number {
  const table = args.length === 0 ? WHOLE_TABLE.exec(from)?.[1] : undefined;
  if (table) return Math.min(cap, (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);
  return (db.prepare(countSql(from, cap)).get(...args) as { n: number }).n;
}

/** countUpTo's SQL by FROM and cap (beyond this many FROMs, or caps of one FROM, all are let go). */
const COUNT_SQL = MEMORY_BUDGET.countSqls;
const COUNT_SQL_CAPS = 16;
const countSqls = new Map<string, Map<number, string>>();

/**
 * `SELECT count(*) ... LIMIT cap` of `from`, the same string each time: db.prepare finds the
 * string it holds by identity, where one built again is hashed and compared whole (a list of
 * date-lag buckets counts 8-15 KB of SQL), and a FROM a list keeps (date-lag.ts's plans) is
 * found here the same way.
 */
function countSql(from: string, cap: number): string {
  let byCap = countSqls.get(from);
  if (!byCap) {
    if (countSqls.size >= COUNT_SQL) countSqls.clear();
    countSqls.set(from, (byCap = new Map()));
  }
  let sql = byCap.get(cap);
  if (sql === undefined && byCap.size >= COUNT_SQL_CAPS) byCap.clear();
  if (sql === undefined) byCap.set(cap, (sql = `SELECT count(*) AS n FROM (SELECT 1 ${from} ${limitSql(cap)})`));
  return sql;
}

/** Per database: a walk's statement and its count's FROM -> whether SQLite reads both alike (walkReadsAsCount). */
const walksAsCounts = new WeakMap<Db, Map<string, boolean>>();

/**
 * Whether SQLite reads `walk` (a list's statement with its ORDER BY) in order (no sort) through
 * the same range as the count of `from`: the same constraints on an index (perhaps another index
 * of the same columns' values: (project_id, state, id) for the count, (project_id, state,
 * created_at, id) for the walk), covering or not alike. Both then read the range's entries to
 * the cap's row, or all of them for a list that ends before it, so counting first doubles the
 * reads. The plans change only with the schema.
 */
export function walkReadsAsCount(db: Db, walk: { sql: string; args: unknown[] }, count: { from: string; args: unknown[] }): boolean {
  let known = walksAsCounts.get(db);
  if (!known) walksAsCounts.set(db, (known = new Map()));
  const key = `${walk.sql}\u0000${count.from}`;
  let alike = known.get(key);
  if (alike === undefined) {
    const plan = (sql: string, args: unknown[]): string[] => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);
    // The outer loop's reads of the list's table: the index, and its kind and constraints.
    const outer = (details: string[]): { index: string; read: string }[] =>
      details.flatMap((d) => {
        const m = /^SEARCH x USING (COVERING )?INDEX (\S+) (\(.*)$/.exec(d);
        return m ? [{ index: m[2], read: `${m[1] ?? ''}${m[3]}` }] : [];
      });
    // A partial index holds fewer entries than another of the same constraints.
    const partial = (index: string): boolean => /\bWHERE\b/i.test((db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(index) as { sql: string | null } | undefined)?.sql ?? '');
    const walked = plan(walk.sql, walk.args);
    const [w, ...more] = outer(walked);
    const counted = outer(plan(`SELECT 1 ${count.from}`, count.args));
    const c = counted.length === 1 ? counted[0] : undefined;
    alike = !walked.some((d) => d.includes('TEMP B-TREE')) && !!w && !more.length && !!c && w.read === c.read && (w.index === c.index || (!partial(w.index) && !partial(c.index)));
    if (known.size >= MEMORY_BUDGET.countSqls) known.clear();
    known.set(key, alike);
  }
  return alike;
}

/** Lists of more than COUNT_LIMIT rows per database: their key -> the version they were counted at. */
const largeLists = new WeakMap<Db, Map<string, number>>();
/** Lists remembered per database (beyond, all are let go and counted again). */
const LARGE_LISTS = MEMORY_BUDGET.largeLists;

/**
 * A list's count up to `cap`, where a list found to hold more than COUNT_LIMIT rows (the
 * paginator's cap, COUNT_LIMIT + 1) is not walked again while its version stays: `version` moves
 * whenever a row may enter or leave the list, and `key` names everything else that decides its
 * rows (PageAnchors' key and version). A record's 200,000 notes or threads were walked 10,001
 * rows deep on every page after any write elsewhere. Only "more than COUNT_LIMIT" is kept: the
 * answer's headers then say no more than that. Not kept inside a transaction (it may roll back).
 */
export function countPastLimit(db: Db, key: string, version: () => number, cap: number, count: (cap: number) => number): number {
  if (cap !== COUNT_LIMIT + 1) return count(cap);
  let lists = largeLists.get(db);
  if (!lists) largeLists.set(db, (lists = new Map()));
  const now = version();
  if (lists.get(key) === now) return cap;
  const n = count(cap);
  if (n < cap) lists.delete(key);
  else if (!db.inTransaction) {
    if (lists.size >= LARGE_LISTS && !lists.has(key)) lists.clear();
    lists.set(key, now);
  }
  return n;
}

/** Lists counted per database (PageAnchors.countsAtVersion): their key -> the version and the count (up to the cap) at it. */
const countedLists = new WeakMap<Db, Map<string, { version: number; n: number }>>();

/**
 * countPastLimit for a list whose version pins its count as well (PageAnchors.countsAtVersion):
 * any count up to COUNT_LIMIT + 1 is kept while the version stays (2,002 groups, 3,334 public
 * projects counted on every page). Not kept inside a transaction (it may roll back).
 */
export function countAtVersion(db: Db, key: string, version: () => number, cap: number, count: (cap: number) => number): number {
  if (cap !== COUNT_LIMIT + 1) return count(cap);
  let lists = countedLists.get(db);
  if (!lists) countedLists.set(db, (lists = new Map()));
  const now = version();
  const known = lists.get(key);
  if (known?.version === now) return known.n;
  const n = count(cap);
  if (!db.inTransaction) {
    if (lists.size >= LARGE_LISTS && !known) lists.clear();
    lists.set(key, { version: now, n });
  }
  return n;
}

/** The count countAtVersion keeps for the list `key` at its version now, if it keeps one (nothing is counted). */
function countKeptAtVersion(db: Db, key: string, version: () => number): number | undefined {
  const known = countedLists.get(db)?.get(key);
  return known && known.version === version() ? known.n : undefined;
}

/** Pages remembered per database: the list's key, offset and length -> the version and the rows read at it. */
const rememberedPages = new WeakMap<Db, Map<string, { version: number; value: unknown[] }>>();
/** Pages remembered per database (beyond, the least recently asked goes): each holds up to a page of 100 rows. */
const REMEMBERED_PAGES = MEMORY_BUDGET.rememberedPages;

/**
 * The rows `read` gives for a page of a list whose anchors say its rows stay while its version
 * holds (PageAnchors.rowsAtVersion), remembered by the list's key, the offset and the length, and
 * read again once the version moved. Rows come back frozen and shared, the same objects while
 * remembered (an entity built from one compares it by identity: unchangedEntity). A page of 100
 * notes read 100 rows again after any write elsewhere (~2 us a row). Not kept inside a
 * transaction (it may roll back). At the bound the page asked least recently goes (the Map's
 * order is the order of asking): clearing them all dropped a page polled between reads of
 * twenty others.
 */
function rememberedPage<T>(db: Db, a: { key: string; version: () => number }, offset: number, limit: number, read: () => T[]): T[] {
  const rows = (): T[] => {
    const page = read();
    if (!db.inTransaction) for (const row of page) Object.freeze(row);
    return page;
  };
  return keptAtVersion(rememberedPages, db, `${a.key}\u0000${offset}\u0000${limit}`, a.version(), REMEMBERED_PAGES, rows) as T[];
}

/**
 * One page of a SQL list: keyset pagination when asked for (`pagination=keyset`) and the list
 * offers it, offset pagination otherwise, counting no further than COUNT_LIMIT.
 */
export function paginateSql<T>(rc: RequestContext, db: Db, list: SqlList<T>, defaultPerPage = 20): T[] {
  if (list.keyset && rc.params.pagination === 'keyset') return paginateKeyset(rc, db, list, list.keyset);
  if (list.keyset?.offsetLimit) {
    const page = readPage(rc.params, defaultPerPage);
    if (page.page * page.perPage > list.keyset.offsetLimit) {
      throw grapeError(
        405,
        `Offset pagination has a maximum allowed offset of ${list.keyset.offsetLimit} for requests that return objects of type ${list.keyset.type}. ` +
          'Remaining records can be retrieved using keyset pagination.',
      );
    }
  }
  if (countsItsOwnPage(rc, list, defaultPerPage)) {
    const few = fewRowsByIds(db, list, '', list.byId!.idColumn);
    const ids = few.countFrom as { count: () => number };
    // An exact count (within COUNT_LIMIT) is remembered as the list's own count would have been (countKnown).
    const count = (): number => {
      const n = ids.count();
      if (n <= COUNT_LIMIT) list.countKnown?.(list.from, list.args, COUNT_LIMIT + 1, () => n);
      return n;
    };
    return paginateSql(rc, db, { ...few, countFrom: { count } }, defaultPerPage);
  }
  let total: number | undefined;
  const countFrom = list.countFrom;
  const exact = countFrom && 'total' in countFrom ? countFrom.total : countFrom && 'counted' in countFrom && countFrom.exact ? () => countFrom.counted : undefined;
  // A count in hand up to COUNT_LIMIT is the list's length (past it, only "more than").
  const known = list.countFrom && 'counted' in list.countFrom && list.countFrom.counted <= COUNT_LIMIT ? list.countFrom.counted : undefined;
  // Written the same both ways (no condition an index of its own may serve): nothing to choose.
  const narrow = !list.countFrom && !list.rows && list.narrow !== list.from ? list.narrow : undefined;
  let counted: number | undefined;
  // A list with anchors names its rows by their key and version: a long one is not walked again while they hold.
  // A count past the limit kept across writes that cannot bring it under (countKnown) goes first.
  const countOf = (from: string, args: unknown[], cap: number): number => {
    if (list.anchors?.countsAtVersion) return countAtVersion(db, list.anchors.key, list.anchors.version, cap, (c) => countUpTo(db, from, args, c));
    const known = list.countKnown?.(from, args, cap);
    if (known !== undefined) return known;
    if (list.anchors) return countPastLimit(db, list.anchors.key, list.anchors.version, cap, (c) => countUpTo(db, from, args, c));
    return countUpTo(db, from, args, cap);
  };
  const matches = narrow ? () => (counted ??= countOf(narrow, list.args, COUNT_LIMIT + 1)) : undefined;
  const count = (cap: number): number => {
    if (matches) return Math.min(matches(), cap);
    const from = list.countFrom ?? { from: list.from, args: list.args };
    if ('total' in from) return (total ??= from.total());
    if ('count' in from) return from.count(cap);
    return 'counted' in from ? Math.min(from.counted, cap) : countOf(from.from, from.args, cap);
  };
  // A page past the first, within COUNT_LIMIT, whose length is not in hand: the list is counted
  // first. A full page there needs its count anyway (X-Total), and a count up to COUNT_LIMIT is the
  // list's length (paginate's `known`): a page at or past it reads nothing, a shorter one stops at
  // the list's last row. Walked in its order, a filter few records meet read every record to find
  // no row on page 2, then was counted anyway (merge requests merged&milestone=None by title: 363 +
  // 97 ms). A page ending exactly at COUNT_LIMIT (page 500 of 20) is counted first too: a list
  // shorter than its offset then reads nothing (project MRs bug,label-1&milestone=None&updated_before
  // page 500 walked a million records for none: 328 -> 63 ms), where a long list's count is its
  // index or a count remembered past the limit. Past COUNT_LIMIT a full page needs no count (its
  // extra row says "uncounted"): not counted first there.
  const { offset, perPage } = readPage(rc.params, defaultPerPage);
  const first = known === undefined && !exact && offset > 0 && offset + perPage <= COUNT_LIMIT ? count(COUNT_LIMIT + 1) : undefined;
  // Past COUNT_LIMIT, a list whose walk to the page costs more than its count (SqlList.countToPage)
  // is counted to the page's end first: one that ends before it reads nothing (a project's closed
  // issues labels=Any by due_date page 500 walked the due-date index's million entries for none).
  const deepFrom = narrow ? { from: narrow, args: list.args } : list.countFrom && 'from' in list.countFrom ? list.countFrom : !list.countFrom || 'counted' in list.countFrom ? list : undefined;
  const countsToPage = known === undefined && !exact && first === undefined && offset > 0 && !list.rows && deepFrom && list.countToPage;
  // Not where the anchors already know the list ends before the page (a read or a count at this version).
  const anchored = countsToPage && list.anchors && offset >= ANCHORED_FROM_OFFSET ? anchorsOf(db, list, list.anchors) : undefined;
  const endKnown = anchored?.endsBy !== undefined && offset >= anchored.endsBy;
  const toPage = countsToPage && !endKnown ? countsToPage(deepFrom.from, deepFrom.args, offset + perPage + 1, { sql: `SELECT ${selected(list)} ${list.from} ORDER BY ${list.order}`, args: list.args }) : undefined;
  // Up to the page's end it is the list's length; past it, more than the paginator asks of a count.
  const ends = toPage !== undefined && toPage <= offset + perPage ? toPage : undefined;
  // Inside a transaction the version may yet roll back under the count.
  if (anchored && ends !== undefined && !db.inTransaction) anchored.endsBy = Math.min(anchored.endsBy ?? Infinity, ends);
  // Past COUNT_LIMIT, a count kept at the list's version (countsAtVersion) of at most COUNT_LIMIT is
  // its length: a page past its end reads nothing (a caller's 10,000 owned projects, page 400 of
  // 100, read 10,000 index entries by LIMIT and OFFSET for none after every write elsewhere).
  const keptCount = known === undefined && !exact && first === undefined && ends === undefined && offset > COUNT_LIMIT && list.anchors?.countsAtVersion ? countKeptAtVersion(db, list.anchors.key, list.anchors.version) : undefined;
  if (list.keptRows) keptListPages.set(rc, list.keptRows);
  return paginate(
    rc,
    {
      total: exact && (() => (total ??= exact())),
      atMost: list.atMost,
      known: known ?? (first !== undefined && first <= COUNT_LIMIT ? first : ends ?? (keptCount !== undefined && keptCount <= COUNT_LIMIT ? keptCount : undefined)),
      count: (cap) => (first !== undefined ? Math.min(first, cap) : toPage !== undefined ? Math.min(toPage, cap) : count(cap)),
      rows: (limit, offset) => {
        const read = (): T[] =>
          list.rows
            ? list.rows(limit, offset)
            : narrow && matches && sortsFewer(db, narrow, matches(), offset + limit)
            ? selectRows<T>(db, list, `${narrow} ORDER BY ${list.order} ${limitSql(limit)} OFFSET ?`, [...list.args, offset])
            : listRows(db, list, limit, offset, exact?.());
        const kept = list.anchors?.rowsAtVersion ? list.anchors : list.keptRows;
        return kept ? rememberedPage(db, kept, offset, limit, read) : read();
      },
    },
    defaultPerPage,
  );
}

/**
 * A page counted first (paginateSql: past the first, within COUNT_LIMIT) whose count reads the
 * list's own statement (countFrom the same FROM and arguments: a label set read and sorted,
 * idSetLists' page and count), no count of it remembered, no anchors: read as
 * fewRowsByIds, its first COUNT_LIMIT + 1 ids in order once, the count their number and the page a
 * slice of them. The count read the set and the page read it again to sort it (mr17, a project's
 * merge requests labels=bug,label-1&wip=no page 500: label-1's 111,000 rows probed for bug twice).
 */
function countsItsOwnPage<T>(rc: RequestContext, list: SqlList<T>, defaultPerPage: number): boolean {
  const { offset, perPage } = readPage(rc.params, defaultPerPage);
  // A list with no count of its own counts its statement unordered: reading COUNT_LIMIT + 1 ids in
  // order instead costs more than the page's read only by the rows past the page, so only a page
  // ending in the last tenth before COUNT_LIMIT (project MRs labels=label-1&wip=no page 500: two walks
  // of ~90,000 records; an author's wip=no page 300 read 10,001 ordered ids for 6,000: 31 -> 45 ms).
  const from = list.countFrom ?? (offset + perPage >= COUNT_LIMIT * 0.9 ? { from: list.from, args: list.args } : undefined);
  if (!from || !('from' in from) || from.from !== list.from || !list.byId || list.rows || list.anchors) return false;
  if ((list.narrow ?? list.from) !== list.from || from.args.length !== list.args.length || from.args.some((a, i) => a !== list.args[i])) return false;
  // A remembered count answers a cap within COUNT_LIMIT without counting (count-versions.ts).
  return offset > 0 && offset + perPage <= COUNT_LIMIT && list.countKnown?.(list.from, list.args, COUNT_LIMIT) === undefined;
}

/**
 * `limit` rows of a SQL list from `offset`: from an anchor (list.anchors) on a deep page, from the
 * list's first row (startBound) on an early one, else by LIMIT and OFFSET. For a list's own pages,
 * and for lists whose pages read another way (SqlList.rows) and anchor a list of their own.
 * `length`: the list's exact length from counters, if known (a page near the end reads back from it).
 */
export function listRows<T>(db: Db, list: SqlList<T>, limit: number, offset: number, length?: number): T[] {
  if (list.anchors && offset >= ANCHORED_FROM_OFFSET) return anchoredRows(db, list, list.anchors, limit, offset, length);
  if (list.anchors?.startBound) return startedRows(db, list, list.anchors, limit, offset);
  return selectRows<T>(db, list, `${list.from} ORDER BY ${list.order} ${limitSql(limit)} OFFSET ?`, [...list.args, offset]);
}

/**
 * Whether a page that ends `reach` rows into a list of `matches` rows (counted up to
 * COUNT_LIMIT + 1) costs less read from the conditions' own indexes and sorted (every match)
 * than walked in the order's index, which reads about reach * tableRows / matches rows to find it.
 */
export function sortsFewer(db: Db, narrow: string, matches: number, reach: number): boolean {
  if (matches <= reach) return true;
  if (matches > COUNT_LIMIT) return false;
  const table = /^FROM (\w+)/.exec(narrow)?.[1];
  if (!table) return false;
  const rows = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return matches * matches <= reach * rows;
}

// ---------------------------------------------------------------------------------------------
// Keyset pagination (GitLab's Gitlab::Pagination::Keyset and CursorBasedKeyset)
// ---------------------------------------------------------------------------------------------

export type SortDirection = 'asc' | 'desc';

/** An `order_by` value keyset pagination accepts: its SQL column, the sorts allowed, the row's value. */
export interface KeysetOrder<T> {
  column: string;
  sorts: readonly SortDirection[];
  value: (row: T) => string | number;
}

export interface Keyset<T> {
  /**
   * 'id': the next page's Link carries `id_after`/`id_before` (Projects, ordered by id only; the
   * list applies those filters itself). 'cursor': it carries an opaque `cursor` (Users, Groups).
   */
  style: 'id' | 'cursor';
  /** The model's name in GitLab's messages (`Project`, `Group`, `User`). */
  type: string;
  /** The request's order, as the list resolved it (with its defaults). */
  orderBy: string;
  sort: SortDirection;
  orders: Record<string, KeysetOrder<T>>;
  /** The primary key column (SQL) and its value; the tie-breaker of every order. */
  idColumn: string;
  id: (row: T) => number;
  /** Enforced types refuse offsets past this (405), as GitLab does for Group. */
  offsetLimit?: number;
}

const keysetUnavailable = () => grapeError(405, 'Keyset pagination is not yet available for this type of request');

function paginateKeyset<T>(rc: RequestContext, db: Db, list: SqlList<T>, ks: Keyset<T>): T[] {
  const order = ks.orders[ks.orderBy];
  if (!order?.sorts.includes(ks.sort)) throw keysetUnavailable();
  const { perPage } = readPage(rc.params);
  const orderSql = ks.orderBy === 'id' || order.column === ks.idColumn ? `${ks.idColumn} ${ks.sort}` : `${order.column} ${ks.sort}, ${ks.idColumn} ${ks.sort}`;
  // As the list is written: a keyset page is not counted, so nothing tells a walk from a sort.
  const from = list.narrow ?? list.from;
  const rowsWhere = (extra: string, extraArgs: unknown[], limit: number): T[] =>
    db.prepare(`SELECT ${list.select} ${from}${extra} ORDER BY ${orderSql} ${limitSql(limit)}`).all(...list.args, ...extraArgs) as T[];

  if (ks.style === 'id') {
    // Gitlab::Pagination::Keyset::Pager: a page of `per_page`, and a next link whenever it has a last row.
    const rows = rowsWhere('', [], perPage);
    const last = rows[rows.length - 1];
    if (last) {
      const filter = ks.sort === 'desc' ? 'id_before' : 'id_after';
      rc.reply.header('link', `<${requestUrlWith(rc, [filter], [[filter, String(ks.id(last))]])}>; rel="next"`);
    }
    return rows;
  }

  // Gitlab::Pagination::Keyset::Paginator: one row more than the page says whether a next page exists.
  const cursor = decodeCursor(rc.params.cursor);
  const backward = cursor?._kd === 'p';
  const values = cursor ? cursorValues(cursor, ks) : null;
  let extra = '';
  const extraArgs: unknown[] = [];
  if (values) {
    const after = (ks.sort === 'asc') !== backward ? '>' : '<';
    if (ks.orderBy === 'id' || order.column === ks.idColumn) {
      extra = ` AND ${ks.idColumn} ${after} ?`;
      extraArgs.push(values.id);
    } else {
      extra = ` AND (${order.column} ${after} ? OR (${order.column} = ? AND ${ks.idColumn} ${after} ?))`;
      extraArgs.push(values.value, values.value, values.id);
    }
  }
  const reversed = backward ? reversedOrder(orderSql) : orderSql;
  const fetched = db
    .prepare(`SELECT ${list.select} ${from}${extra} ORDER BY ${reversed} ${limitSql(perPage + 1)}`)
    .all(...list.args, ...extraArgs) as T[];
  const hasMore = fetched.length > perPage;
  const rows = fetched.slice(0, perPage);
  if (backward) rows.reverse();
  // Going backward from a row there is always a next page (the one the cursor came from).
  const hasNext = backward ? values !== null && rows.length > 0 : hasMore;
  const last = rows[rows.length - 1];
  if (hasNext && last) {
    const next = encodeCursor({ ...cursorAttributes(ks, order, last), _kd: 'n' });
    rc.reply.header('link', `<${requestUrlWith(rc, ['cursor'], [['cursor', next]])}>; rel="next"`);
  }
  return rows;
}

type Cursor = Record<string, unknown>;

/** GitLab's cursor: URL-safe Base64 of JSON, every value a string (`{"name":"x","id":"26","_kd":"n"}`). */
function encodeCursor(attributes: Record<string, string>): string {
  return Buffer.from(JSON.stringify(attributes)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

function decodeCursor(raw: unknown): Cursor | null {
  if (raw === undefined || raw === null || raw === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(String(raw), 'base64url').toString('utf8'));
  } catch {
    throw grapeError(400, 'cursor is invalid');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw grapeError(400, 'cursor is invalid');
  return parsed as Cursor;
}

function cursorAttributes<T>(ks: Keyset<T>, order: KeysetOrder<T>, row: T): Record<string, string> {
  if (ks.orderBy === 'id') return { id: String(ks.id(row)) };
  return { [ks.orderBy]: String(order.value(row)), id: String(ks.id(row)) };
}

/** The cursor's position, or null for a cursor that names none (the first or last page). */
function cursorValues<T>(cursor: Cursor, ks: Keyset<T>): { value: string | number; id: number } | null {
  const id = cursor.id;
  if (id === undefined || id === null) return null;
  if (!/^\d+$/.test(String(id))) throw grapeError(400, 'cursor is invalid');
  if (ks.orderBy === 'id') return { value: Number(id), id: Number(id) };
  const value = cursor[ks.orderBy];
  if (value === undefined || value === null) throw grapeError(400, 'cursor is invalid');
  return { value: String(value), id: Number(id) };
}
