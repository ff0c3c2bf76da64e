import type { RequestContext } from '../../http/route';
import { COUNT_LIMIT, type SqlList, countInHand, limitSql } from '../../http/pagination';
import { rowsByIds } from '../../db/written-rows';
import { ISSUE_WRITES, MERGE_REQUEST_WRITES, type Scope, type WorkItemFilters } from './workitems';

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

/** Projects with records at most, each an arm (SQLite merges them in one ordered UNION ALL). */
const SCOPE_ARMS = 16;

/** `sortedUpTo`: a list counted as this many or fewer is sorted by its SQL (tests lower it, to read small lists by the arms). */
export const SCOPE_ARMS_LIMITS = { sortedUpTo: COUNT_LIMIT };

/**
 * The page reader, or undefined: not a scope of projects (a project's list has its own index; the
 * instance's many projects), another order, other sets of records to read (labels, a milestone,
 * a search: their own readers), an author (the author's index reads fewer), or a list counted as
 * few (COUNT_LIMIT at most): its matches read and sorted, fewer than the arms may walk to find them.
 */
export function scopeArmsRows<T>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  countFrom?: SqlList<unknown>['countFrom'],
): ((limit: number, offset: number) => T[]) | undefined {
  const index = ARM_INDEXES[type][filters.orderColumn];
  if (!index || !scope.projects || scope.projectId !== undefined || scope.instance || scope.idSets?.length) return undefined;
  if (filters.empty || filters.priority || filters.search || filters.idSets.length || filters.authorId !== null) return undefined;
  const db = rc.svc.db;
  const state = filters.state;
  const counts = db
    .prepare(
      `SELECT project_id, coalesce(sum(n) FILTER (WHERE ${state ? 'state = ?' : '1'}), 0) AS inState FROM issuable_state_counts
        WHERE issuable_type = ? AND +project_id IN (${scope.projects}) GROUP BY project_id HAVING sum(n) > 0 LIMIT ${SCOPE_ARMS + 1}`,
    )
    .all(...(state ? [state] : []), type, ...scope.args) as { project_id: number; inState: number }[];
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
    const arms = projects.map(() => `SELECT x.id AS id, x.${col} AS k FROM ${table} x INDEXED BY ${index} WHERE x.project_id = ? AND ${conditions}`);
    const armArgs = projects.flatMap((p) => [p, ...args]);
    const sql = arms.length === 1 ? `${arms[0]} ORDER BY x.${col} ${dir}, x.id ${dir}` : `${arms.join(' UNION ALL ')} ORDER BY k ${dir}, id ${dir}`;
    const ids = (db.prepare(`${sql} ${limitSql(limit)} OFFSET ?`).all(...armArgs, offset) as { id: number }[]).map((r) => r.id);
    return rowsByIds<T>(db, log, ids);
  };
}
