import type { Params } from '../../http/params';
import { integerNoneAnyParam } from './integer_none_any';
import type { OwnCondition } from './issue_filters';

/**
 * The issues lists' `epic_id=` (EE IssuesHelpers: an integer, None or Any) as a condition on `x`,
 * as EE IssuesFinder#by_epic reads it: an epic's own issues (`in_epics`; its child epics' issues
 * only with include_subepics, which the REST API does not declare), no epic (`no_epic`), or any
 * (`any_epic`), through the epics area's epic_issues rows (an issue is in at most one epic). An
 * epic's issues, and Any's, are also the set of their rows (see idSetLists). `not[epic_id]` is not
 * among the REST API's negatable parameters (negatable_issue_filter_params_ee): ignored, as there.
 */
export function epicConditions(params: Params): OwnCondition[] {
  const value = integerNoneAnyParam(params, 'epic_id');
  if (value === undefined) return [];
  if (value === 'none') return [{ sql: 'NOT EXISTS (SELECT 1 FROM epic_issues ei WHERE ei.issue_id = x.id)', args: [] }];
  if (value === 'any') {
    const probe = 'EXISTS (SELECT 1 FROM epic_issues ei WHERE ei.issue_id = x.id)';
    return [{ sql: probe, args: [], set: { probe, id: 'ei.issue_id', rows: 'FROM epic_issues ei WHERE 1', args: [], projectColumn: null } }];
  }
  const probe = 'EXISTS (SELECT 1 FROM epic_issues ei WHERE ei.issue_id = x.id AND ei.epic_id = ?)';
  return [{ sql: probe, args: [value], set: { probe, id: 'ei.issue_id', rows: 'FROM epic_issues ei WHERE ei.epic_id = ?', args: [value], projectColumn: null } }];
}
