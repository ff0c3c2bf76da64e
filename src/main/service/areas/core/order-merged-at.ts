import type { RequestContext } from '../../http/route';
import { idRangeOfDates } from './id-date-zones';
import { type Scope, type WorkItemFilters, countersInScope } from './workitems';

/**
 * `order_by=merged_at` on a merge request list none of whose records has a merge date: all of
 * them sort at the NULL end, in id order. SQLite walked the (project_id, merged_at, id) index (a
 * project's, or each project's arm of a group: order-scope-arms.ts) from its merged end, asking
 * each of the 50,000 merged records the list's conditions before the first NULL one (a project's
 * milestone=None, page 500: 100-120 ms; a group's 500), or core/298's opened entries newest first
 * past every one a date bound leaves out (labels=label-2&created_before: 130-400 ms).
 */

/**
 * Whether no record of the list can have a merge date: each state the scope's records are in
 * (the state counters of its project or projects; the instance's every one) either has none with
 * one in any of the scope's projects holding that state (core/298's index, one probe a project),
 * or the list's filters leave that state's records out: its state filter, a required label title
 * no record of the scope in the state carries (label_counts), or an author or milestone=None the
 * filter counters count none of in the state. Other filters only narrow the list, so the answer
 * holds for it whole.
 */
export function mergedAtAllNull(rc: RequestContext, scope: Scope, filters: WorkItemFilters): boolean {
  if (filters.orderColumn !== 'merged_at' || filters.priority) return false;
  const db = rc.svc.db;
  const [inScope, scopeArgs] = countersInScope(scope);
  const states = (db.prepare(`SELECT DISTINCT state FROM issuable_state_counts WHERE issuable_type = 'MergeRequest'${inScope} AND n > 0`).all(...scopeArgs) as { state: string }[]).map((r) => r.state);
  const dated = db.prepare(
    `SELECT 1 FROM issuable_state_counts c WHERE c.issuable_type = 'MergeRequest' AND c.state = ?${inScope} AND c.n > 0
      AND EXISTS (SELECT 1 FROM merge_requests m INDEXED BY merge_requests_project_state_merged WHERE m.project_id = c.project_id AND m.state = c.state AND m.merged_at IS NOT NULL) LIMIT 1`,
  );
  const titleHeld = db.prepare(`SELECT 1 FROM label_counts WHERE issuable_type = 'MergeRequest' AND title = ? COLLATE NOCASE AND state = ?${inScope} AND n > 0 LIMIT 1`);
  const author = filters.authorId ?? scope.authorId ?? scope.ownRecords ?? null;
  const noMilestone = filters.milestoneHeld?.held === 'none';
  const counted = [...(author !== null ? ['author = ?'] : []), ...(noMilestone ? ['milestone = 0'] : [])];
  const counters = counted.length ? db.prepare(`SELECT 1 FROM merge_request_filter_counts WHERE state = ? AND ${counted.join(' AND ')}${inScope} AND n > 0 LIMIT 1`) : undefined;
  const leftOut = (state: string): boolean =>
    (filters.state !== null && filters.state !== state) ||
    filters.requiredLabels.some((title) => !titleHeld.get(title, state, ...scopeArgs)) ||
    (counters !== undefined && !counters.get(state, ...(author !== null ? [author] : []), ...scopeArgs));
  return states.every((state) => leftOut(state) || !dated.get(state, ...scopeArgs));
}

/**
 * What mergedAtAllNull proves, as a condition on `x` for the list's readers to add: `x.merged_at IS
 * NULL`, so SQLite seeks the merge date's indexes ((project_id, merged_at, id), core/298's,
 * core/319's; a project's or each project's arm) at their NULL end and walks from there in the
 * list's order; and in a project's list the ids its dates leave (id-date-zones.ts), where the walk
 * starts. Not over many projects: there SQLite carried the id range into a label's EXISTS, which
 * then scanned the range of the label rows' key for each record (the instance's own merge requests
 * labels=label-2&created_before, counted by authorArms: minutes). Undefined when not proven. The
 * same records: every one of the list's meets it.
 */
export function mergedAtNullCondition(rc: RequestContext, scope: Scope, filters: WorkItemFilters): { sql: string; args: unknown[] } | undefined {
  if (!mergedAtAllNull(rc, scope, filters)) return undefined;
  const range = scope.projectId !== undefined ? idRangeOfDates(rc.svc.db, 'MergeRequest', scope, filters.dates) : undefined;
  return range ? { sql: `x.merged_at IS NULL AND ${range.sql}`, args: range.args } : { sql: 'x.merged_at IS NULL', args: [] };
}
