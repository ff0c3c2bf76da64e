import type { RequestContext } from '../../http/route';
import { COUNT_LIMIT, limitSql, readPage } from '../../http/pagination';
import { rowsByIds } from '../../db/written-rows';
import type { Db } from '../../db/connection';
import { MEMORY_BUDGET } from '../../memory';
import { SCOPE_ARMS_LIMITS } from './order-scope-arms';
import { ISSUE_WRITES, MERGE_REQUEST_WRITES, RECORD_CHECK_PER_MATCH, countersInScope, issueOrderVersion, listVersion, type Scope, type WorkItemFilters } from './workitems';
import { lowestSpelling } from './label-row-mirrors';

/**
 * Lists in an order computed from other tables (popularity, milestone_due) or in id order
 * (relative_position) read as segments, each a part of the list in id order: a segment is a
 * condition on the records walked by an index in id order (IdWalk), or a few ids already in
 * their order (upvoted records). A page counts the segments before it (each only up to the
 * page's end) and reads its rows from the segments it falls in, instead of sorting every record
 * of the list by the computed key (a million issues: 250-330 ms a page).
 */
export interface Segment {
  /** The segment's records, up to `cap`. */
  count(cap: number): number;
  /** `limit` of its records' ids from `offset`, in the list's order. */
  ids(limit: number, offset: number): number[];
}

export type IdDirection = 'ASC' | 'DESC';

/** The list's records that also hold a condition, in id order: one segment. */
export interface IdWalk {
  /**
   * `counted`: the segment's size when known without walking it (else counted by its walk).
   * `ownColumns`: `cond` reads no column of the record but its id and state (so an issue write that
   * keeps the issueOrderVersion keeps its deep pages' anchors).
   */
  segment(cond: string, condArgs: unknown[], dir: IdDirection, counted?: () => number | undefined, ownColumns?: boolean): Segment;
  /** The same over the records of some milestones (by the milestone index, in id order), counted by the filter counters. */
  milestones(ids: number[], dir: IdDirection): Segment;
  /** The list's size from the state counters (core/017) when the caller sees every record counted; else undefined. */
  total(): number | undefined;
  /** Walks the list with its filters (filteredWalk): segments are best few (each is counted by its walk). */
  filtered?: true;
}

/** (project, state) pairs walked as arms of one ordered UNION ALL at most (SQLite merges them, no sort). */
const WALK_ARMS = 16;

/**
 * The list's records (`where` and `args`: every filter, the scope and what the caller may see, on
 * alias `x`) walked in id order, when that is a walk of the records it keeps and not a search
 * for them: a list filtered by a state at most (`plain`: nothing else), of one project or of a
 * group's projects with few (project, state) pairs, each pair an arm read by core/103's (project,
 * state, id) index; or an administrator's whole instance, by the table's own order. Undefined
 * otherwise (the list is sorted by its ORDER BY, as before).
 */
export function idWalk(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  plain: boolean,
  seesAll: boolean,
): IdWalk | undefined {
  const counted = filters.counted;
  if (!plain || !counted || counted.milestone !== null) return undefined;
  // An author's records: author_id, or the caller's own (created_by_me, /issues' default), not both unless the same.
  if (counted.authorId !== null && scope.authorId !== undefined && counted.authorId !== scope.authorId) return undefined;
  const author = counted.authorId ?? scope.authorId;
  const db = rc.svc.db;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const conditions = where.join(' AND ');
  let arms: { sql: string; args: unknown[] }[];
  // Every record: the table's own order (NOT INDEXED: no index chosen for a condition and sorted).
  const wholeTable = [{ sql: `FROM ${table} x NOT INDEXED WHERE ${conditions}`, args }];
  if (author !== undefined) {
    const pairs = authorPairs(rc, type, scope, author, counted.state);
    if (!pairs) return undefined;
    arms = pairs.map((p) => ({
      sql: `FROM ${table} x INDEXED BY ${table}_project_state_id WHERE x.project_id = ? AND x.state = ? AND ${conditions}`,
      args: [p.project_id, p.state, ...args],
    }));
  } else if (scope.instance && !counted.state) {
    arms = wholeTable;
  } else {
    // The instance's records in one state: its projects' arms too, while few (the table's walk crossed
    // every record of the other states: closed issues' page 500 of 100 read 500,000 rows, 176 ms).
    const inScope = scope.projectId !== undefined ? 'project_id = ?' : scope.projects ? `project_id IN (${scope.projects})` : scope.instance ? '1 = 1' : null;
    if (inScope === null) return undefined;
    const scopeArgs = scope.projectId !== undefined ? [scope.projectId] : scope.instance ? [] : scope.args;
    const pairs = db
      .prepare(`SELECT project_id, state FROM issuable_state_counts WHERE issuable_type = ? AND ${inScope}${counted.state ? ' AND state = ?' : ''} AND n > 0 LIMIT ${WALK_ARMS + 1}`)
      .all(type, ...scopeArgs, ...(counted.state ? [counted.state] : [])) as { project_id: number; state: string }[];
    if (pairs.length > WALK_ARMS && !scope.instance) return undefined;
    arms = pairs.length > WALK_ARMS
      ? wholeTable
      : pairs.map((p) => ({
          sql: `FROM ${table} x INDEXED BY ${table}_project_state_id WHERE x.project_id = ? AND x.state = ? AND ${conditions}`,
          args: [p.project_id, p.state, ...args],
        }));
  }
  // The version that moves whenever a record may enter, leave or move in a segment (see
  // anchoredSegment): the project's, or the sum of the group's walked projects' (each only grows).
  // `own`: issues' conditions on id, state and the caller's view only (issueOrderVersion). None for
  // the instance's walk (no version of the whole table): its deep pages walk.
  const walkedProjects = scope.projectId !== undefined ? [scope.projectId] : scope.instance ? null : [...new Set(arms.map((a) => a.args[0] as number))];
  const versionOf = (own: boolean): (() => number) | undefined => {
    if (!walkedProjects) return undefined;
    const one = (id: number): number => (own && type === 'Issue' ? issueOrderVersion(rc, id) : listVersion(rc, type, id));
    return () => walkedProjects.reduce((n, id) => n + one(id), 0);
  };
  // Sizes from the counters: exact for a caller who sees every record counted (merge requests have
  // no confidential ones), or when none counted is confidential; a deep page then counts no walk.
  const state = counted.state;
  const [inScope, scopeArgs] = countersInScope(scope);
  // `ids` null: every milestone's and none's (an author's whole list).
  const milestonesCounted = (ids: number[] | null): number | undefined => {
    // The caller's own records (created_by_me) over the projects they see: no counters of just those.
    if (scope.authorId !== undefined && !scope.everyProject) return undefined;
    const table = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
    const confidential = type === 'Issue' ? 'coalesce(sum(n) FILTER (WHERE confidential != 0), 0)' : '0';
    const conds = [ids ? 'milestone IN (SELECT value FROM json_each(?))' : '1', ...(state ? ['state = ?'] : []), ...(author !== undefined ? ['author = ?'] : [])];
    const row = db
      .prepare(`SELECT coalesce(sum(n), 0) AS n, ${confidential} AS c FROM ${table} WHERE ${conds.join(' AND ')}${inScope}`)
      .get(...(ids ? [JSON.stringify(ids)] : []), ...(state ? [state] : []), ...(author !== undefined ? [author] : []), ...scopeArgs) as { n: number; c: number };
    return seesAll || row.c === 0 ? row.n : undefined;
  };
  const total = (): number | undefined => {
    if (!seesAll && type === 'Issue') return undefined;
    // An author's: their filter counters', below.
    if (author !== undefined) return milestonesCounted(null);
    return (db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ?${state ? ' AND state = ?' : ''}${inScope}`).get(type, ...(state ? [state] : []), ...scopeArgs) as { n: number }).n;
  };
  // A milestone's records of each (project, state) the counters count in the scope, each an arm
  // read by core/105's (milestone, project, state) index in id order, the index alone answering
  // the scope and the state; past WALK_ARMS of them, the milestone's own index (each record read
  // to check them: 40 ms for page 2500 of a milestone of 250,000).
  const countersTable = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  const milestoneArms = (ids: number[]): { sql: string; args: unknown[] }[] => {
    const triples = db
      .prepare(
        `SELECT milestone, project_id, state FROM ${countersTable} WHERE milestone IN (SELECT value FROM json_each(?))${state ? ' AND state = ?' : ''}${author !== undefined ? ' AND author = ?' : ''}${inScope}
          GROUP BY milestone, project_id, state HAVING sum(n) > 0 LIMIT ${WALK_ARMS + 1}`,
      )
      .all(JSON.stringify(ids), ...(state ? [state] : []), ...(author !== undefined ? [author] : []), ...scopeArgs) as { milestone: number; project_id: number; state: string }[];
    if (triples.length <= WALK_ARMS) {
      return triples.map((t) => ({
        sql: `FROM ${table} x INDEXED BY ${table}_milestone_project_state WHERE x.milestone_id > 0 AND x.milestone_id = ? AND x.project_id = ? AND x.state = ? AND ${conditions}`,
        args: [t.milestone, t.project_id, t.state, ...args],
      }));
    }
    return ids.map((id) => ({ sql: `FROM ${table} x INDEXED BY ${table}_milestone WHERE x.milestone_id = ? AND ${conditions}`, args: [id, ...args] }));
  };
  const of = (parts: { sql: string; args: unknown[] }[], cond: string, condArgs: unknown[], dir: IdDirection, counted: (() => number | undefined) | undefined, version: (() => number) | undefined): Segment =>
    anchoredSegment(
      db,
      type,
      parts.map((p) => ({ sql: `${p.sql} AND ${cond}`, args: [...p.args, ...condArgs] })),
      dir,
      counted,
      version,
    );
  return {
    segment: (cond, condArgs, dir, counted, ownColumns) => of(arms, cond, condArgs, dir, counted, versionOf(!!ownColumns)),
    // A milestone's records by the milestone index (milestone, id): each milestone an arm.
    milestones: (ids, dir) => of(milestoneArms(ids), '1', [], dir, () => milestonesCounted(ids), versionOf(false)),
    total,
  };
}

/**
 * The (project, state) pairs of an author's records in the scope and the state (the filter
 * counters), each an arm of the (project_id, state, id) index in idWalk, the author checked on each
 * record walked: /issues' closed ones of an administrator (created_by_me) by relative_position,
 * page 500 of 100, read all 950,000 of the author's issues by the author's index to sort 50,000 by
 * id. Undefined past WALK_ARMS pairs, or when the walk to the page's end would read more than
 * SCOPE_ARMS_LIMITS.walkPerRead index entries for each of the author's records (every state's) that
 * the author's index reads to sort them: an author of few records among many.
 */
function authorPairs(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, author: number, state: string | null): { project_id: number; state: string }[] | undefined {
  const db = rc.svc.db;
  const counters = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  const [inScope, scopeArgs] = countersInScope(scope);
  const rows = db
    .prepare(`SELECT project_id, state, sum(n) AS n FROM ${counters} WHERE author = ?${inScope} GROUP BY project_id, state HAVING sum(n) > 0 LIMIT ${4 * WALK_ARMS + 1}`)
    .all(author, ...scopeArgs) as { project_id: number; state: string; n: number }[];
  if (rows.length > 4 * WALK_ARMS) return undefined;
  const pairs = rows.filter((r) => !state || r.state === state);
  if (pairs.length > WALK_ARMS) return undefined;
  const matches = pairs.reduce((a, r) => a + r.n, 0);
  if (!matches) return [];
  const authored = rows.reduce((a, r) => a + r.n, 0);
  const records = pairs.reduce(
    (a, r) => a + (db.prepare('SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ? AND project_id = ? AND state = ?').get(type, r.project_id, r.state) as { n: number }).n,
    0,
  );
  const page = readPage(rc.params);
  if (((page.offset + page.perPage) * records) / matches > SCOPE_ARMS_LIMITS.walkPerRead * authored) return undefined;
  return pairs;
}

/** `anchoredFrom`: pages within this many rows of a segment's start read from it, the walk costing less than remembering (tests lower it). */
export const ORDER_WALK_LIMITS = { anchoredFrom: 1_000 };

/** A segment's anchors and size at a version: offset -> the id just before it. */
interface SegmentMemory {
  version: number;
  at: Map<number, number>;
  /** Its size when counted whole; else at least this many. */
  size?: number;
  atLeast: number;
}
const segmentMemories = new WeakMap<Db, Map<string, SegmentMemory>>();
/** Segments remembered per database (a list has a few: popularity's rest up to 33 ranges); beyond, all are let go. */
const SEGMENTS_REMEMBERED = MEMORY_BUDGET.anchoredLists * 4;

/**
 * A segment of records in id order, `arms` (each `FROM <table> x ... WHERE ...` on alias `x`, read
 * in id order by its index) merged as one ordered UNION ALL. With `version` (moving whenever a
 * record may enter or leave the arms), a deep page starts after the id just before it that an
 * earlier page read at the same version (a client reading every page in turn, a deep page asked
 * again: `x.id < anchor`, by the same index from there) instead of stepping over every record
 * before it (page 2500: 50,000 index entries, 4-6 ms), and the segment's size, once counted, is
 * not counted again (idsOf counts the segments before a page's). Nothing is remembered inside a
 * transaction (the version may yet roll back).
 */
export function anchoredSegment(
  db: Db,
  type: 'Issue' | 'MergeRequest',
  arms: { sql: string; args: unknown[]; id?: string }[],
  dir: IdDirection,
  counted?: () => number | undefined,
  version?: () => number,
  sorted = false,
  versionKey?: unknown,
): Segment {
  if (!arms.length) return { count: () => 0, ids: () => [] };
  const past = dir === 'DESC' ? '<' : '>';
  // An arm's `id`: the column its rows come in id order by (a label row's issuable_id), x.id else.
  const selects = (after: boolean): string[] => arms.map((p) => `SELECT ${p.id ?? 'x.id'} AS id ${p.sql}${after ? ` AND ${p.id ?? 'x.id'} ${past} ?` : ''}`);
  const argsOf = (after: number | null): unknown[] => arms.flatMap((p) => (after === null ? p.args : [...p.args, after]));
  // One arm orders by its alias; a compound by its result column.
  const ordered = (after: boolean): string => {
    const s = selects(after);
    // `sorted`: the arm's matches read by its conditions' indexes and sorted (`+`: not the ids walked).
    return s.length === 1 ? `${s[0]} ORDER BY ${sorted ? '+' : ''}${arms[0].id ?? 'x.id'} ${dir}` : `${s.join(' UNION ALL ')} ORDER BY id ${dir}`;
  };
  const read = (after: number | null, limit: number, offset: number): number[] =>
    (db.prepare(`${ordered(after !== null)} ${limitSql(limit)} OFFSET ?`).all(...argsOf(after), offset) as { id: number }[]).map((r) => r.id);
  // `versionKey`: what `version` is a version of besides the arms' SQL (a group's projects' ids).
  const key = JSON.stringify(versionKey === undefined ? [type, dir, arms] : [type, dir, arms, versionKey]);
  const memory = (): SegmentMemory | undefined => {
    if (!version || db.inTransaction) return undefined;
    const v = version();
    let store = segmentMemories.get(db);
    if (!store) segmentMemories.set(db, (store = new Map()));
    let known = store.get(key);
    if (!known || known.version !== v) {
      if (!known && store.size >= SEGMENTS_REMEMBERED) store.clear();
      store.set(key, (known = { version: v, at: new Map(), atLeast: 0 }));
    }
    if (known.at.size >= MEMORY_BUDGET.anchorsPerList) known.at.clear();
    return known;
  };
  return {
    count: (cap) => {
      const known = counted?.();
      if (known !== undefined) return Math.min(cap, known);
      // A deep page's count only (page 1's costs less than remembering).
      const m = cap > ORDER_WALK_LIMITS.anchoredFrom ? memory() : undefined;
      if (m?.size !== undefined) return Math.min(cap, m.size);
      if (m && m.atLeast >= cap) return cap;
      const n = (db.prepare(`SELECT count(*) AS n FROM (${selects(false).join(' UNION ALL ')} ${limitSql(cap)})`).get(...argsOf(null)) as { n: number }).n;
      if (m) {
        if (n < cap) m.size = n;
        else m.atLeast = Math.max(m.atLeast, cap);
      }
      return n;
    },
    ids: (limit, offset) => {
      const m = offset >= ORDER_WALK_LIMITS.anchoredFrom ? memory() : undefined;
      if (!m) return read(null, limit, offset);
      // The nearest anchor at or before the page.
      let from = 0;
      let anchor: number | null = null;
      for (const [o, id] of m.at) {
        if (o <= offset && o > from) {
          from = o;
          anchor = id;
        }
      }
      // Short of an anchor at this very offset, the id before the page is read too, to anchor it.
      const lead = from === offset ? 0 : 1;
      const got = read(anchor, limit + lead, offset - from - lead);
      if (lead && got.length) m.at.set(offset, got[0]);
      const page = got.slice(lead);
      // The paginator reads one past the page: the next page in turn starts at that last one.
      if (page.length > 1) m.at.set(offset + page.length - 1, page[page.length - 2]);
      if (page.length) m.at.set(offset + page.length, page[page.length - 1]);
      return page;
    },
  };
}

/**
 * A filtered walk of the ids looks for a page among `span` of the table's first ids at least, and
 * `spanPerRow` per row up to the page's end; `filtered: false` sorts such lists by their ORDER BY
 * (tests compare the two).
 */
export const FILTERED_WALK = { span: 20_000, spanPerRow: 8, filtered: true };

/** A label title every record of a list carries, and its rows in the list's scope (from the label counters). */
export interface LabelRows {
  title: string;
  rows: number;
}

/**
 * The list's records (`source`: its FROM and WHERE on alias `x`, every filter, the scope and the
 * caller's view) walked in id order, when idWalk does not (other filters, many projects): each
 * segment the list's statement with the segment's condition, `ORDER BY x.id`, SQLite choosing
 * between walking the ids and checking each record, or reading the filters' indexes and sorting the
 * matches' ids. Either costs less than the computed ORDER BY's sort of every match, which
 * evaluates the order's key (a count of awards, a milestone's date) for each (a million issues:
 * 200-950 ms a page). The sizes are counted by the segments' walks. `version`: as idWalk's, when
 * the list's conditions read only its records' own columns (its deep pages then anchored).
 * `scopeRecords`: how many records the list's scope holds (all states), when known from counters.
 */
export function filteredWalk(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  source: { from: string; args: unknown[]; checked?: { from: string; args: unknown[] } },
  matches?: number,
  version?: () => number,
  scopeRecords?: () => number,
  idRange?: { low: number; high: number },
  versionKey?: unknown,
  labelRows?: () => LabelRows | undefined,
): IdWalk {
  const walkVersion = version;
  const db = rc.svc.db;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  // The table's ids (its rows, about): what a walk of the ids crosses to find the matches. (One
  // min() or max() each: together in one SELECT, SQLite reads the whole table for them.) Within
  // `idRange` when the list's conditions hold it (id-date-zones.ts: the ids its dates leave).
  let bounds: { min: number; max: number } | undefined;
  const tableIds = (): { min: number; max: number } => {
    if (bounds) return bounds;
    const ids = db.prepare(`SELECT coalesce((SELECT min(id) FROM ${table}), 0) AS min, coalesce((SELECT max(id) FROM ${table}), 0) AS max`).get() as { min: number; max: number };
    return (bounds = idRange ? { min: Math.max(ids.min, idRange.low), max: Math.min(ids.max, idRange.high) } : ids);
  };
  const notIndexed = (from: string): string => from.replace(/^FROM (\w+) x WHERE /, 'FROM $1 x NOT INDEXED WHERE ');
  const walkedFrom = notIndexed(source.from);
  // `source.checked`: the same list with a common term's read of every match (`x.id IN (<matches>)`,
  // built whole before the first row: a million for a term every record holds, 400-700 ms) replaced
  // by its check on each record walked (searchRecordChecked), for the walks bounded by the span.
  const checkedFrom = source.checked && { from: notIndexed(source.checked.from), args: source.checked.args };
  // `labelRows`: asked only when a walk falls short, the label title every match carries whose rows
  // (issuable_labels_title, in issuable_id order), each record looked up by id and its filters
  // checked, are read instead of every match sorted, or undefined to sort (computedOrderRows'
  // labelRowsFallback: when the title's rows are fewer than the records the sort reads):
  // /issues?labels=bug&state=all by relative_position, page 50 of 100, sorted the author's 950,000
  // issues to keep bug's (430-470 ms). A record with the title in two spellings has two rows: only
  // its lowest spelling is read. Only for the list's plain statement (FROM <table> x WHERE ...).
  const plainSource = /^FROM (\w+) x WHERE ([\s\S]*)$/.exec(source.from);
  // The title's rows' records checked by the list's checked form when it has one (a common term).
  const labelledSource = source.checked ?? source;
  const labelledWhere = /^FROM (\w+) x WHERE ([\s\S]*)$/.exec(labelledSource.from);
  let labelled: { from: string; args: unknown[]; rows: number } | null | undefined;
  const labelledFrom = (): { from: string; args: unknown[]; rows: number } | null => {
    if (labelled !== undefined) return labelled;
    const label = plainSource && labelRows ? labelRows() : undefined;
    return (labelled =
      label !== undefined && plainSource && labelledWhere
        ? {
            from:
              `FROM issuable_labels il INDEXED BY issuable_labels_title CROSS JOIN ${labelledWhere[1]} x WHERE il.issuable_type = '${type}' AND il.title = ? COLLATE NOCASE AND x.id = il.issuable_id` +
              `${lowestSpelling(type)} AND (${labelledWhere[2]})`,
            args: [label.title, ...labelledSource.args],
            rows: label.rows,
          }
        : null);
  };
  const segment = (cond: string, condArgs: unknown[], dir: IdDirection, counted?: () => number | undefined, ownColumns?: boolean): Segment => {
    const arm = (from: string, more = '', moreArgs: unknown[] = [], fromArgs = source.args) => [{ sql: `${from} AND ${cond}${more}`, args: [...fromArgs, ...condArgs, ...moreArgs] }];
    // A scope's version (versionKey) holds only for segments on the records' own columns.
    const version = versionKey === undefined || ownColumns ? walkVersion : undefined;
    const sorts = anchoredSegment(db, type, arm(source.from), dir, counted, version, true, versionKey);
    // The title's rows for the walk that falls short (see labelledFrom).
    const byLabel = (): Segment | undefined => {
      const from = labelledFrom();
      return from ? anchoredSegment(db, type, [{ sql: `${from.from} AND ${cond}`, args: [...from.args, ...condArgs], id: 'il.issuable_id' }], dir, counted, version, false, versionKey) : undefined;
    };
    const walks = anchoredSegment(db, type, arm(walkedFrom), dir, counted, version, false, versionKey);
    // The walk of the ids from the list's start over `span` ids at most, in id order (`from`: the
    // list's statement or its checked form), anchored as the walk (`version`): its deep pages start
    // at an anchor after unrelated writes.
    const spanned = (from: { from: string; args: unknown[] }, span: number): Segment => {
      const { min, max } = tableIds();
      const edge = dir === 'DESC' ? max - span : min + span;
      return anchoredSegment(db, type, arm(from.from, ` AND x.id ${dir === 'DESC' ? '>' : '<'} ?`, [edge], from.args), dir, undefined, version, false, versionKey);
    };
    const spanWalk = (from: { from: string; args: unknown[] }, span: number, limit: number, offset: number): number[] => spanned(from, span).ids(limit, offset);
    const spanOf = (reach: number): number => Math.max(FILTERED_WALK.span, reach * FILTERED_WALK.spanPerRow);
    return {
      // A common term's segment counted up to `cap` within the span, its records checked (a segment
      // before the page: popularity's rest, ascending); short of it, by the title's rows as the page
      // reads them (labelledFrom), else the list's statement (every match read: milestone_due's
      // segments with bug and search=issue, 1.3 s).
      count: (cap) => (checkedFrom && plainSource && spanned(checkedFrom, spanOf(cap)).count(cap) >= cap ? cap : (byLabel() ?? sorts).count(cap)),
      ids: (limit, offset) => {
        const reach = offset + limit;
        // The list's size known (its count): as the paginator's sortsFewer, the matches sorted when
        // they are few against the rows a walk of the ids reads to reach the page's end.
        if (matches !== undefined) {
          if (matches === 0) return [];
          const { min, max } = tableIds();
          // COUNT_LIMIT + 1 is a capped count ("more than COUNT_LIMIT"), not a size: a deep page's reach
          // past it (page 500 of 20) sorted every match (labels=None by popularity: 666,000 of them, 230 ms).
          const capped = matches === COUNT_LIMIT + 1;
          if ((!capped && matches <= reach) || (matches <= COUNT_LIMIT && matches * matches <= reach * (max - min + 1))) return sorts.ids(limit, offset);
          // A common term's page found within the span, its records checked one by one; else walked as before.
          const found = checkedFrom ? spanWalk(checkedFrom, spanOf(reach), limit, offset) : [];
          return found.length === limit ? found : walks.ids(limit, offset);
        }
        // Else the walk of the ids first, over the first WALK_BUDGET rows per row wanted: a page
        // found there is the page (in id order, from the list's start); short of it (a filter few
        // records meet) the matches are sorted.
        // A set's read (idSetLists' page: not the plain statement) reads the whole set whatever the ids'
        // window, so the window's read cost the sort's, and the sort read the set again when it fell
        // short (a project's merge requests bug,label-1&not[labels]=label-3&milestone=None by
        // popularity, page 500: label-1's 111,000 rows probed twice, 200 ms each).
        if (!plainSource) return sorts.ids(limit, offset);
        const span = spanOf(reach);
        // A scope of no more records than the walk would cross (a small project's among a million):
        // its matches, fewer still, sorted (the small project walked 19,000 ids to find 2: 1.4 ms);
        // but a common term's records checked cost less than its matches read (more than COUNT_LIMIT)
        // while at most RECORD_CHECK_PER_MATCH per match.
        const checks = checkedFrom && scopeRecords && scopeRecords() <= RECORD_CHECK_PER_MATCH * COUNT_LIMIT;
        if (scopeRecords && scopeRecords() <= span && !checks) return sorts.ids(limit, offset);
        // A deep page whose title's rows are too sparse over the table's ids for the span to hold the
        // page's reach (bug's 112,000 rows among a million ids, 80,000 ids walked for page 500 of 20:
        // ~9,000 at most) reads the title's rows at once: the walk would fall short to them anyway
        // (labels=bug&search=issue by relative_position, page 500: a 50 ms walk for nothing).
        if (span > FILTERED_WALK.span && labelRows) {
          const { min, max } = tableIds();
          const byTitle = labelledFrom();
          if (byTitle && byTitle.rows * span < reach * (max - min + 1)) return byLabel()!.ids(limit, offset);
        }
        const found = spanWalk(checkedFrom ?? { from: walkedFrom, args: source.args }, span, limit, offset);
        return found.length === limit ? found : (byLabel() ?? sorts).ids(limit, offset);
      },
    };
  };
  return {
    segment,
    milestones: (ids, dir) => (ids.length ? segment('x.milestone_id IN (SELECT value FROM json_each(?))', [JSON.stringify(ids)], dir, undefined, true) : { count: () => 0, ids: () => [] }),
    total: () => undefined,
    filtered: true,
  };
}

/** A few ids already in the list's order (read whole: the list's upvoted records). */
export function idsSegment(ids: number[]): Segment {
  return { count: (cap) => Math.min(cap, ids.length), ids: (limit, offset) => ids.slice(offset, offset + limit) };
}

/** `limit` ids from `offset` of segments read in turn, each before the last counted only up to the page's end. */
function idsOf(segments: Segment[], limit: number, offset: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < segments.length && limit > 0; i++) {
    const segment = segments[i];
    if (i < segments.length - 1) {
      const n = segment.count(offset + limit);
      if (offset >= n) {
        offset -= n;
        continue;
      }
    }
    const got = segment.ids(limit, offset);
    ids.push(...got);
    limit -= got.length;
    offset = 0;
  }
  return ids;
}

/** Segments read in turn as one (`counted`: its size when known without counting them). */
export function joinedSegments(segments: Segment[], counted?: () => number | undefined): Segment {
  return {
    count: (cap) => {
      const known = counted?.();
      if (known !== undefined) return Math.min(cap, known);
      let n = 0;
      for (const segment of segments) if (n < cap) n += segment.count(cap - n);
      return Math.min(cap, n);
    },
    ids: (limit, offset) => idsOf(segments, limit, offset),
  };
}

/** A page of the list read from its segments in turn, as rows (by id, through the rows remembered since the last write). */
export function segmentedRows<T>(rc: RequestContext, type: 'Issue' | 'MergeRequest', segments: Segment[]): (limit: number, offset: number) => T[] {
  const log = type === 'Issue' ? ISSUE_WRITES : MERGE_REQUEST_WRITES;
  return (limit, offset) => rowsByIds<T>(rc.svc.db, log, idsOf(segments, limit, offset));
}
