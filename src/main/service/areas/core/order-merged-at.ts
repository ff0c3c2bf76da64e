import type { RequestContext } from '../../http/route';
import { idRangeOfDates } from './id-date-zones';
import type { Scope, WorkItemFilters } from './workitems';

/**
 * `order_by=merged_at` on a project's merge request list none of whose records has a merge date:
 * all of them sort at the NULL end, in id order. SQLite walked the (project_id, merged_at, id)
 * index from its merged end, asking each of the 50,000 merged records the list's conditions
 * before the first NULL one (milestone=None, page 500: 100-120 ms), or core/298's opened entries
 * newest first past every one a date bound leaves out (labels=label-2&created_before: 130-400 ms).
 */

/**
 * Whether no record of the project's list can have a merge date: each state the project's records
 * are in either has none with one (core/298's index, one probe), or the list's filters leave that
 * state's records out: its state filter, a required label title no record in the state carries
 * (label_counts), or an author or milestone=None the filter counters count none of in the state.
 * Other filters only narrow the list, so the answer holds for it whole.
 */
export function mergedAtAllNull(rc: RequestContext, scope: Scope, filters: WorkItemFilters): boolean {
  const projectId = scope.projectId;
  if (projectId === undefined || filters.orderColumn !== 'merged_at' || filters.priority) return false;
  const db = rc.svc.db;
  const states = (db.prepare("SELECT state FROM issuable_state_counts WHERE issuable_type = 'MergeRequest' AND project_id = ? AND n > 0").all(projectId) as { state: string }[]).map((r) => r.state);
  const dated = db.prepare('SELECT 1 FROM merge_requests INDEXED BY merge_requests_project_state_merged WHERE project_id = ? AND state = ? AND merged_at IS NOT NULL LIMIT 1');
  const titleHeld = db.prepare("SELECT 1 FROM label_counts WHERE issuable_type = 'MergeRequest' AND project_id = ? AND title = ? COLLATE NOCASE AND state = ? AND n > 0 LIMIT 1");
  const author = filters.authorId ?? scope.authorId ?? scope.ownRecords ?? null;
  const noMilestone = filters.milestoneHeld?.held === 'none';
  const counted = [...(author !== null ? ['author = ?'] : []), ...(noMilestone ? ['milestone = 0'] : [])];
  const counters = counted.length ? db.prepare(`SELECT 1 FROM merge_request_filter_counts WHERE project_id = ? AND state = ? AND ${counted.join(' AND ')} AND n > 0 LIMIT 1`) : undefined;
  const leftOut = (state: string): boolean =>
    (filters.state !== null && filters.state !== state) ||
    filters.requiredLabels.some((title) => !titleHeld.get(projectId, title, state)) ||
    (counters !== undefined && !counters.get(projectId, state, ...(author !== null ? [author] : [])));
  return states.every((state) => !dated.get(projectId, state) || leftOut(state));
}

/**
 * What mergedAtAllNull proves, as a condition on `x` for the list's readers to add: `x.merged_at IS
 * NULL`, and the ids its dates leave (id-date-zones.ts), so SQLite seeks the merge date's indexes
 * ((project_id, merged_at, id), core/298's, core/319's) at their NULL end and walks from there in
 * the list's order. Undefined when not proven. The same records: every one of the list's meets it.
 */
export function mergedAtNullCondition(rc: RequestContext, scope: Scope, filters: WorkItemFilters): { sql: string; args: unknown[] } | undefined {
  if (!mergedAtAllNull(rc, scope, filters)) return undefined;
  const range = idRangeOfDates(rc.svc.db, 'MergeRequest', scope, filters.dates);
  return range ? { sql: `x.merged_at IS NULL AND ${range.sql}`, args: range.args } : { sql: 'x.merged_at IS NULL', args: [] };
}
