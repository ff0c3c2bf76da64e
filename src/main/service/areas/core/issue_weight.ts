import { declared, t, type Params } from '../../http/params';
import { countInHand, limitSql, type SortDirection, type SqlList } from '../../http/pagination';
import type { RequestContext } from '../../http/route';
import { rowsByIds } from '../../db/written-rows';
import { integerNoneAnyParam } from './integer_none_any';
import type { Complement, OwnCondition } from './issue_filters';
import { ISSUE_WRITES, listVersion, type Scope, type WorkItemFilters } from './workitems';
import { anchoredSegment, filteredWalk, segmentedRows } from './order-walk';

/**
 * The few issues of a project failing a dense weight filter (a Complement: see complementBoundCount,
 * complement-walk.ts), by core/106's (project, weight, id) index: `w` to count them, `c` to place
 * them in the list's order (each record read: no index holds the order columns with the weight).
 */
const weightComplement = (weights: string): Complement => ({
  rows: `FROM issues w INDEXED BY issues_project_weight WHERE w.project_id = ? AND ${weights.replaceAll('$', 'w')}`,
  walk: `FROM issues c INDEXED BY issues_project_weight WHERE c.project_id = ? AND ${weights.replaceAll('$', 'c')}`,
});

/**
 * The issues lists' `weight=` and `not[weight]=` (EE IssuesHelpers: weight an integer, None or Any;
 * not[weight] an integer) as conditions on `x`, as EE IssuesFinder#by_weight and
 * #by_negated_weight read them: None is no weight or -1 (`where(weight: [-1, nil])`), Any the
 * others, an integer that weight; not[weight] keeps the issues without a weight
 * (`without_weights`: `weight IS NULL OR weight != ?`).
 *
 * A weight, and Any, are few as a rule: the set of their records (see idSetLists) read by core/106's
 * indexes (a project's, a group's projects', or the instance's weighted issues), counted as a
 * condition the project's index reads. None and not[weight] hold for most: walked in
 * the list's order, counted from their complement, the project's issues of some weight, or of
 * that weight (see complementBoundCount).
 */
export function weightConditions(params: Params): OwnCondition[] {
  const conditions: OwnCondition[] = [];
  const value = integerNoneAnyParam(params, 'weight');
  if (value === 'none') {
    conditions.push({ sql: '(x.weight IS NULL OR x.weight = -1)', args: [], complement: weightComplement('$.weight IS NOT NULL AND $.weight != -1') });
  } else if (value === 'any') {
    const probe = '(x.weight IS NOT NULL AND x.weight != -1)';
    conditions.push({ sql: probe, args: [], set: { probe, id: 'w.id', rows: 'FROM issues w WHERE w.weight IS NOT NULL AND w.weight != -1', args: [], projectColumn: 'w.project_id', indexed: probe } });
  } else if (value !== undefined) {
    const probe = 'x.weight = ?';
    conditions.push({ sql: probe, args: [value], set: { probe, id: 'w.id', rows: 'FROM issues w WHERE w.weight = ?', args: [value], projectColumn: 'w.project_id', indexed: probe } });
  }
  const not = params.not;
  if (not && typeof not === 'object' && !Array.isArray(not)) {
    const negated = declared(not as Params, { weight: t.integer() }, 'not').weight;
    if (negated != null) conditions.push({ sql: '(x.weight IS NULL OR x.weight != ?)', args: [negated], complement: weightComplement(`$.weight = ${Number(negated)}`) });
  }
  return conditions;
}

/**
 * EE Issue.sort_by_attribute('weight_asc' / 'weight_desc'): the weight with no weight last either
 * way (`nulls_last`), ties broken by the newest id first (`with_order_id_desc`) whatever the sort.
 */
export function weightOrder(sort: SortDirection): string {
  return `x.weight IS NULL, x.weight ${sort}, x.id DESC`;
}

/**
 * A project's page in weightOrder, as its two walks of core/106's (project, weight, id) index: the
 * issues with a weight in the weight's order (ties by id descending: SQLite sorts one weight's
 * issues at a time), then those without one by id descending, the index walked backwards. The
 * order's first term is an expression no index holds: SQLite sorted the project's million issues
 * for every page (200-700 ms). Undefined for other lists (several projects, a search, sets of
 * records read: see idSetLists), which sort as before.
 */
export function weightOrderRows<T>(
  rc: RequestContext,
  scope: Scope,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  list?: { source: { from: string; args: unknown[] }; countFrom?: SqlList<unknown>['countFrom'] },
): ((limit: number, offset: number) => T[]) | undefined {
  if (filters.orderColumn !== 'weight') return undefined;
  if (scope.projectId === undefined || filters.search || filters.idSets.length || scope.idSets?.length) return list && weightSegmentRows<T>(rc, filters.sort, list.source, list.countFrom);
  const db = rc.svc.db;
  const from = `FROM issues x INDEXED BY issues_project_weight WHERE ${where.join(' AND ')}`;
  const weighted = `SELECT x.id AS id ${from} AND x.weight IS NOT NULL ORDER BY x.weight ${filters.sort === 'asc' ? 'ASC' : 'DESC'}, x.id DESC`;
  // The rest by id descending: a deep page starts after the id an earlier page read, while no write
  // to the project's issues (listVersion: a weight set or cleared is one) moves them.
  const projectId = scope.projectId;
  const unweighted = anchoredSegment(db, 'Issue', [{ sql: `${from} AND x.weight IS NULL`, args }], 'DESC', undefined, () => listVersion(rc, 'Issue', projectId));
  const ids = (sql: string, limit: number, offset: number): number[] => (db.prepare(`${sql} ${limitSql(limit)} OFFSET ?`).all(...args, offset) as { id: number }[]).map((r) => r.id);
  return (limit, offset) => {
    const page = ids(weighted, limit, offset);
    if (page.length < limit) {
      // The weighted issues before the rest: counted only when the page starts past them all.
      const before = page.length || !offset ? offset + page.length : (db.prepare(`SELECT count(*) AS n ${from} AND x.weight IS NOT NULL`).get(...args) as { n: number }).n;
      page.push(...unweighted.ids(limit - page.length, Math.max(0, offset - before)));
    }
    return rowsByIds<T>(db, ISSUE_WRITES, page);
  };
}

/** Distinct weights past this many: the list is sorted by its ORDER BY. */
const WEIGHT_SEGMENTS = 64;

/**
 * A page of a list in weightOrder that weightOrderRows does not walk (a group's, the instance's,
 * other filters), read as segments (order-walk.ts) of the list's statement: the issues of each
 * weight the instance holds (core/106's issues_weighted, skipped from one weight to the next), in
 * the weight order, then those without one, each by id descending (filteredWalk). The ORDER BY's
 * first term is an expression no index holds: SQLite sorted every issue of the scope (a group of
 * a million: 190 ms a page).
 */
function weightSegmentRows<T>(rc: RequestContext, sort: SortDirection, source: { from: string; args: unknown[] }, countFrom?: SqlList<unknown>['countFrom']): ((limit: number, offset: number) => T[]) | undefined {
  const weights = (
    rc.svc.db
      .prepare(
        `WITH RECURSIVE w(v) AS (
           SELECT (SELECT min(weight) FROM issues INDEXED BY issues_weighted WHERE weight IS NOT NULL)
           UNION ALL
           SELECT (SELECT min(weight) FROM issues INDEXED BY issues_weighted WHERE weight > w.v) FROM w WHERE w.v IS NOT NULL LIMIT ${WEIGHT_SEGMENTS + 2})
         SELECT v FROM w WHERE v IS NOT NULL`,
      )
      .all() as { v: number }[]
  ).map((r) => r.v);
  if (weights.length > WEIGHT_SEGMENTS) return undefined;
  if (sort === 'desc') weights.reverse();
  const walk = filteredWalk(rc, 'Issue', source, countInHand(countFrom));
  return segmentedRows<T>(rc, 'Issue', [...weights.map((w) => walk.segment('x.weight = ?', [w], 'DESC')), walk.segment('x.weight IS NULL', [], 'DESC')]);
}
