import type { RequestContext } from '../../http/route';
import { COUNT_LIMIT, type SqlList, countInHand, countUpTo, limitSql, readPage } from '../../http/pagination';
import { rowsByIds } from '../../db/written-rows';
import { ISSUE_WRITES, MERGE_REQUEST_WRITES, type Scope, type WorkItemFilters, authorFiltered } from './workitems';
import { listCountAtLeast } from './count-versions';

/**
 * A group's issue or merge request list (a scope of a few projects) in the order of a column no
 * index of the whole table holds (title, due_date, merged_at) read as arms: each project of the
 * scope with records (in the list's state) an arm read in its (project_id, column, id) index's
 * order, checked against the list's conditions, and the arms merged by SQLite (UNION ALL with
 * ORDER BY: no sort). The list's SQL read every record of the scope that meets its conditions and
 * sorted them by the column (a group's 900,000 opened issues less a label's, by due date: 750 ms
 * for page 1). The same ORDER BY (the column, ties by id, in the asked direction; NULL lowest, as
 * in the index), so the same rows in the same order.
 */

/** Per type, the order columns read this way and each one's (project_id, column, id) index. */
const ARM_INDEXES: Record<'Issue' | 'MergeRequest', Record<string, string>> = {
  Issue: { title: 'issues_project_title', due_date: 'issues_project_due' },
  MergeRequest: { title: 'merge_requests_project_title', merged_at: 'merge_requests_project_merged' },
};

/**
 * Per type, the order columns with a (project_id, state, column, id) index too (core/298): a list in
 * one state walks that state's entries alone (a group's opened merge requests by merged_at walked
 * every merged one first, the opened all at the NULL end: 80 ms for page 1).
 */
const STATE_ARM_INDEXES: Partial<Record<'Issue' | 'MergeRequest', Record<string, string>>> = {
  MergeRequest: { merged_at: 'merge_requests_project_state_merged' },
};

/**
 * Per type, the order columns with a (project_id, author_id, column, id) index too (core/319): one
 * author's list walks that author's entries alone.
 */
const AUTHOR_ARM_INDEXES: Partial<Record<'Issue' | 'MergeRequest', Record<string, string>>> = {
  MergeRequest: { title: 'merge_requests_project_author_title', merged_at: 'merge_requests_project_author_merged' },
};

/** The index a list's arms walk: its entries are `state`'s (null: every state's) or `author`'s (null: everyone's). */
interface ArmIndex {
  name: string;
  state: string | null;
  author: number | null;
}

function armIndex(type: 'Issue' | 'MergeRequest', filters: WorkItemFilters): ArmIndex | undefined {
  const inState = filters.state ? STATE_ARM_INDEXES[type]?.[filters.orderColumn] : undefined;
  if (inState) return { name: inState, state: filters.state, author: null };
  const name = ARM_INDEXES[type][filters.orderColumn];
  return name ? { name, state: null, author: null } : undefined;
}

/** The entries an arm walks in a project's index: the project's records (the index's state's, or its author's in every state). */
function armEntries(rc: RequestContext, type: 'Issue' | 'MergeRequest', projectId: number, index: ArmIndex): number {
  const db = rc.svc.db;
  if (index.author !== null) {
    const counters = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
    return (db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM ${counters} WHERE project_id = ? AND author = ?`).get(projectId, index.author) as { n: number }).n;
  }
  const inState = index.state ? ' AND state = ?' : '';
  return (db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ? AND project_id = ?${inState}`).get(type, projectId, ...(index.state ? [index.state] : [])) as { n: number }).n;
}

/** Projects with records at most, each an arm (SQLite merges them in one ordered UNION ALL). */
const SCOPE_ARMS = 16;

/**
 * `sortedUpTo`: a list counted as this many or fewer is sorted by its SQL (tests lower it, to read
 * small lists by the arms). `walkPerRead`: a label set's arms are walked when they read at most this
 * many index entries (each label probed) for each of the set's records that reading and sorting
 * the set would read (a walked entry cost ~1/3 of a record read and sorted).
 */
export const SCOPE_ARMS_LIMITS = { sortedUpTo: COUNT_LIMIT, walkPerRead: 2 };

/**
 * The page reader, or undefined: not a scope of projects (a project's list has its own index; a
 * non-administrator's instance of many projects, but those holding a label or milestone set:
 * setArms; an administrator's instance is its projects with records, when few), another order,
 * other sets of records to read (a search, sets setArms does not walk: their own readers), an
 * author with other filters or whose arms would walk more than sorting reads (authorArms), or a list counted as few (COUNT_LIMIT at most): its
 * matches read and sorted, fewer than the arms may walk to find them. `ownFilters`: false when the
 * list has conditions besides the filters' (a merge request's branches): no set's arms.
 */
export function scopeArmsRows<T>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  countFrom?: SqlList<unknown>['countFrom'],
  ownFilters = true,
): ((limit: number, offset: number) => T[]) | undefined {
  const index = armIndex(type, filters);
  if (!index || scope.idSets?.length) return undefined;
  if (filters.empty || filters.priority || filters.search) return undefined;
  if (scope.projectId !== undefined) return projectDateWalk<T>(rc, type, scope.projectId, filters, where, args, index);
  const db = rc.svc.db;
  const state = filters.state;
  const authored = filters.authorId !== null || scope.authorId !== undefined;
  const byAuthor = ownFilters && authored ? authorArms(rc, type, scope, filters, where, args, countFrom, index) : undefined;
  const labelled = !ownFilters ? undefined : authored ? byAuthor?.arms : filters.idSets.length ? setArms(rc, type, scope, filters, where, index) : undefined;
  const walked = byAuthor?.index ?? index;
  if ((filters.idSets.length || authored) && !labelled) return undefined;
  if (!labelled && !scope.projects && !scope.instance) return undefined;
  // An administrator's instance (every project, no project condition): its projects with records,
  // when few (an offline instance of a handful of projects; the LIMIT stops at SCOPE_ARMS + 1 of many).
  const inScope = scope.projects ? ` AND +project_id IN (${scope.projects})` : '';
  const counts =
    labelled ??
    (db
      .prepare(
        `SELECT project_id, coalesce(sum(n) FILTER (WHERE ${state ? 'state = ?' : '1'}), 0) AS inState FROM issuable_state_counts
          WHERE issuable_type = ?${inScope} GROUP BY project_id HAVING sum(n) > 0 LIMIT ${SCOPE_ARMS + 1}`,
      )
      .all(...(state ? [state] : []), type, ...(scope.projects ? scope.args : [])) as { project_id: number; inState: number }[]);
  if (counts.length > SCOPE_ARMS) return undefined;
  // Counted as few (up to COUNT_LIMIT): the list's SQL reads and sorts them, fewer than the arms may walk to find them.
  const matches = countInHand(countFrom);
  if (matches !== undefined && matches <= SCOPE_ARMS_LIMITS.sortedUpTo) return undefined;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const conditions = where.join(' AND ');
  // A date range may keep few of the scope's records, scattered in the column's order: counted (as
  // the paginator would) to choose, when nothing counted it.
  if (matches === undefined && Object.values(filters.dates).some(Boolean)) {
    const cap = SCOPE_ARMS_LIMITS.sortedUpTo + 1;
    const n = (db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM ${table} x WHERE ${conditions} LIMIT ?)`).get(...args, cap) as { n: number }).n;
    if (n < cap) return undefined;
  }
  const projects = counts.filter((c) => c.inState > 0).map((c) => c.project_id);
  const col = filters.orderColumn;
  const dir = filters.sort === 'asc' ? 'ASC' : 'DESC';
  const log = type === 'Issue' ? ISSUE_WRITES : MERGE_REQUEST_WRITES;
  return (limit, offset) => {
    if (!projects.length) return [];
    const arms = projects.map(() => `SELECT x.id AS id, x.${col} AS k FROM ${table} x INDEXED BY ${walked.name} WHERE x.project_id = ? AND ${conditions}`);
    const armArgs = projects.flatMap((p) => [p, ...args]);
    const sql = arms.length === 1 ? `${arms[0]} ORDER BY x.${col} ${dir}, x.id ${dir}` : `${arms.join(' UNION ALL ')} ORDER BY k ${dir}, id ${dir}`;
    const ids = (db.prepare(`${sql} ${limitSql(limit)} OFFSET ?`).all(...armArgs, offset) as { id: number }[]).map((r) => r.id);
    return rowsByIds<T>(db, log, ids);
  };
}

/**
 * A project's list in the order of its (project_id, column, id) index with a created or updated
 * date bound: SQLite reads the bound's range by the date's index and sorts it (the big project's
 * merge requests updated before 2024-06-01 by merged_at, page 2 of 100: 472,000 read and sorted,
 * 80 ms). Walked in the order's index instead, each entry asked the list's conditions, when the walk
 * reads at most walkPerRead entries for each match the sort reads: it reads `records / matches`
 * entries a row, so the list is counted up to the matches that needs (by the date's index; at most
 * what the sort would read). Undefined without a date (SQLite walks the order's index itself) or
 * with sets of records (their own readers).
 */
function projectDateWalk<T>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  projectId: number,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  index: ArmIndex,
): ((limit: number, offset: number) => T[]) | undefined {
  if (filters.idSets.length || !Object.values(filters.dates).some(Boolean)) return undefined;
  const db = rc.svc.db;
  const records = armEntries(rc, type, projectId, index);
  const page = readPage(rc.params);
  const needed = Math.ceil(Math.sqrt(((page.offset + page.perPage) * records) / SCOPE_ARMS_LIMITS.walkPerRead));
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const conditions = where.join(' AND ');
  if (countUpTo(db, `FROM ${table} x WHERE ${conditions}`, args, needed) < needed) return undefined;
  const log = type === 'Issue' ? ISSUE_WRITES : MERGE_REQUEST_WRITES;
  const sql = `SELECT x.id AS id FROM ${table} x INDEXED BY ${index.name} WHERE ${conditions} ORDER BY ${filters.order}`;
  return (limit, offset) => rowsByIds<T>(db, log, (db.prepare(`${sql} ${limitSql(limit)} OFFSET ?`).all(...args, offset) as { id: number }[]).map((r) => r.id));
}

/**
 * The arms of a list whose only filters are one or two label titles, or one milestone set
 * (milestone=Any, a title several milestones hold), perhaps with a state: the projects of the scope
 * where the set's records show (label_counts, label_pair_counts, the filter counters), when few
 * (the instance's 10,000 projects, but one with label-1's merge requests), and when walking their
 * order's index, each entry asked the set's condition, reads fewer than the set's records read and
 * sorted (the walk asks about `records / matches` entries, every state's, for each row of the
 * page: the group's merge requests with label-1 by title, page 500, walked 92,000 entries where
 * the set's 111,000 records were read and sorted). `inState` each arm's matches. Undefined
 * otherwise; `where` the list's whole condition.
 */
function setArms(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  where: string[],
  index: ArmIndex,
): { project_id: number; inState: number }[] | undefined {
  if (Object.values(filters.dates).some(Boolean)) return undefined;
  // The caller's own records (created_by_me): fewer than the set's, so the walk would read more than counted.
  if (authorFiltered(where)) return undefined;
  const rows = labelTitleRows(rc, type, scope, filters) ?? (filters.oneSet?.inProjects && !filters.requiredLabels.length ? filters.oneSet.inProjects(filters.state, SCOPE_ARMS) ?? null : undefined);
  if (!rows || rows.length > SCOPE_ARMS) return undefined;
  const matches = rows.reduce((a, r) => a + r.n, 0);
  if (!matches) return [];
  // Every entry of an arm's index is walked (each of its state's, when it has one).
  const records = rows.reduce((a, r) => a + armEntries(rc, type, r.project_id, index), 0);
  // The set read and sorted instead: its smallest set's records in the scope.
  const setRows = Math.min(...filters.idSets.map((set) => set.size?.() ?? Infinity));
  const page = readPage(rc.params);
  const walked = ((page.offset + page.perPage) * records) / matches;
  if (walked > SCOPE_ARMS_LIMITS.walkPerRead * setRows) return undefined;
  return rows.map((r) => ({ project_id: r.project_id, inState: r.n }));
}

/**
 * The arms of a list of one author's records (author_id, or the caller's own: created_by_me, the
 * instance's default), perhaps in a state, perhaps with other filters: the projects of the scope
 * where the author's records show in the state (the filter counters), when few, and when walking
 * their order's index (every entry, any author's and state's, asked the list's conditions; only
 * the author's where the type has an author's index of the order, core/319, and fewer) reads at
 * most SCOPE_ARMS_LIMITS.walkPerRead entries for each of the author's records in the state that
 * reading and sorting them would read (an administrator's merged merge requests by title, page 2
 * of 100: 50,000 read and sorted where the arm walks ~4,000 entries). The walk reads `records /
 * matches` entries a row: matches exact from the counters for an author and a state alone; with
 * other filters (a milestone, not[labels]) at least the list's count, capped at COUNT_LIMIT + 1 (in
 * hand, or counted as the paginator counts it): the root's opened issues with milestone=Any by
 * title, page 2 of 100, sorted 200,000 (130 ms). Undefined otherwise; with the arms, the index they walk.
 */
function authorArms(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  countFrom: SqlList<unknown>['countFrom'],
  index: ArmIndex,
): { arms: { project_id: number; inState: number }[]; index: ArmIndex } | undefined {
  const only = filters.counted && filters.counted.milestone === null ? filters.counted : null;
  const author = only ? only.authorId ?? scope.authorId : filters.authorId ?? scope.authorId;
  if (author == null || (scope.authorId !== undefined && author !== scope.authorId)) return undefined;
  const db = rc.svc.db;
  const table = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  const state = filters.state;
  const inScope = scope.projects ? ` AND project_id IN (${scope.projects})` : '';
  const rows = db
    .prepare(`SELECT project_id, sum(n) AS n FROM ${table} WHERE author = ?${state ? ' AND state = ?' : ''}${inScope} GROUP BY project_id HAVING sum(n) > 0 LIMIT ${SCOPE_ARMS + 1}`)
    .all(author, ...(state ? [state] : []), ...(scope.projects ? scope.args : [])) as { project_id: number; n: number }[];
  if (rows.length > SCOPE_ARMS) return undefined;
  const authored = rows.reduce((a, r) => a + r.n, 0);
  if (!authored) return { arms: [], index };
  const list = { from: `FROM ${type === 'Issue' ? 'issues' : 'merge_requests'} x WHERE ${where.join(' AND ')}`, args };
  // The author's own index (core/319) where it walks fewer entries: the author's records in every state against `index`'s.
  const own = AUTHOR_ARM_INDEXES[type]?.[filters.orderColumn];
  const [walked, records] = [index, ...(own ? [{ name: own, state: null, author }] : [])]
    .map((i): [ArmIndex, number] => [i, rows.reduce((a, r) => a + armEntries(rc, type, r.project_id, i), 0)])
    .reduce((a, b) => (b[1] < a[1] ? b : a));
  const page = readPage(rc.params);
  // The matches that keep the walk within walkPerRead entries per authored record: counted up to
  // them (past COUNT_LIMIT + 1 too, remembered as the paginator's count), as no fewer can do.
  const needed = Math.ceil(((page.offset + page.perPage) * records) / (SCOPE_ARMS_LIMITS.walkPerRead * authored));
  if (needed > authored) return undefined;
  const matches = only ? authored : Math.min(authored, listCountAtLeast(rc, type, scope, list, countFrom, Math.max(COUNT_LIMIT + 1, needed)));
  if (!matches || matches < needed) return undefined;
  return { arms: rows.map((r) => ({ project_id: r.project_id, inState: r.n })), index: walked };
}

/** One or two label titles (perhaps a state) and nothing else: each project's rows of them in the state (a pair's from its counters), up to SCOPE_ARMS + 1 projects; undefined for other filters. */
function labelTitleRows(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters): { project_id: number; n: number }[] | undefined {
  const titles = filters.labelOnly && filters.labelOnly.milestone === null && filters.labelOnly.authorId === null
    ? [filters.labelOnly.title]
    : filters.labelTitles && !filters.labelTitles.without.length && filters.labelTitles.all.length === 2 ? filters.labelTitles.all : undefined;
  if (!titles || filters.idSets.length !== titles.length) return undefined;
  const db = rc.svc.db;
  const state = filters.state;
  const inScope = scope.projects ? ` AND +project_id IN (${scope.projects})` : '';
  const inScopeArgs = scope.projects ? scope.args : [];
  return (titles.length === 1
    ? db.prepare(`SELECT project_id, sum(n) AS n FROM label_counts INDEXED BY label_counts_title WHERE issuable_type = ? AND title = ? COLLATE NOCASE${state ? ' AND state = ?' : ''}${inScope} GROUP BY project_id HAVING sum(n) > 0 LIMIT ${SCOPE_ARMS + 1}`)
        .all(type, titles[0], ...(state ? [state] : []), ...inScopeArgs)
    : db.prepare(`SELECT project_id, sum(n) AS n FROM label_pair_counts WHERE issuable_type = ? AND ((a = ? COLLATE NOCASE AND b = ? COLLATE NOCASE) OR (a = ? COLLATE NOCASE AND b = ? COLLATE NOCASE))${state ? ' AND state = ?' : ''}${inScope} GROUP BY project_id HAVING sum(n) > 0 LIMIT ${SCOPE_ARMS + 1}`)
        .all(type, titles[0], titles[1], titles[1], titles[0], ...(state ? [state] : []), ...inScopeArgs)) as { project_id: number; n: number }[];
}
