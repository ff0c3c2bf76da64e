import { addFilter } from '../../db/filter';
import { declared, requireMutuallyExclusive, t } from '../../http/params';
import type { RequestContext } from '../../http/route';
import { draftTitleSql090 } from './schema';
import { type IdSet, type Scope, noneInScope, userIdByUsername } from './workitems';
import type { Complement } from './issue_filters';

/**
 * Merge request list filters on the records' own columns that Sandlab ignored (MergeRequestsFinder):
 * `wip` (yes: drafts, no: the others; else a 400), `source_project_id`, `merge_user_id` /
 * `merge_user_username` (who merged it: the merged ones), the deployment filters (`environment`,
 * `deployed_after`, `deployed_before`: Sandlab deploys nothing, so no merge request was deployed),
 * and `approved`'s values (yes, no; GitLab filters by it only behind a feature flag). Each few-record
 * filter also comes as a set of records (idSetLists) read by core/090's indexes, and is counted by
 * them (`indexed`: no record looked up); walked, the condition is kept out of index choice (`+`: not
 * every merge request of a user read by the index and sorted for a page). `wip=no` and a project's
 * own source project, the usual case, walk the list. Returns wip=no's complement (its drafts' rows in
 * a project), null without it.
 */
export function addMergeRequestFilters(rc: RequestContext, scope: Scope, where: string[], args: unknown[], idSets: IdSet[]): Complement | null {
  const q = declared(rc.params, {
    wip: t.string().values(['yes', 'no']),
    source_project_id: t.integer(),
    merge_user_id: t.integer(),
    merge_user_username: t.string(),
    approved: t.string().values(['yes', 'no']),
    environment: t.string(),
    deployed_after: t.string(),
    deployed_before: t.string(),
  });
  requireMutuallyExclusive(rc.params, ['merge_user_id', 'merge_user_username']);
  // INDEXED BY: for a project's drafts SQLite took (project_id, title), which holds the titles, and read every title of the project.
  const drafts = `FROM merge_requests dr INDEXED BY merge_requests_drafts WHERE ${draftTitleSql090('dr.title')}`;
  // wip=no where no record of the scope is a draft: every one meets it, no filter (noneInScope).
  const wipNo = q.wip === 'no' && !noneInScope(rc, drafts, [], 'dr.project_id', scope);
  if (q.wip === 'yes') {
    const probe = draftTitleSql090('x.title');
    where.push(probe);
    idSets.push({
      probe,
      id: 'dr.id',
      rows: drafts,
      args: [],
      projectColumn: 'dr.project_id',
      covering: `FROM merge_requests c INDEXED BY merge_requests_drafts_order WHERE ${draftTitleSql090('c.title')}`,
    });
  } else if (wipNo) {
    where.push(`NOT ${draftTitleSql090('x.title')}`);
  }
  // wip=no's complement: a project's drafts (complementBoundCount).
  const complement = wipNo ? {
          rows: `${drafts} AND dr.project_id = ?`,
          walk: `FROM merge_requests c INDEXED BY merge_requests_drafts_order WHERE ${draftTitleSql090('c.title')} AND c.project_id = ?`,
        } : null;
  if (q.source_project_id != null) {
    const probe = '(+x.source_project_id = ?)';
    addFilter(where, args, probe, q.source_project_id);
    idSets.push({ probe, id: 'sp.id', rows: 'FROM merge_requests sp WHERE sp.source_project_id = ?', args: [q.source_project_id], projectColumn: 'sp.project_id', indexed: '(x.source_project_id = ?)' });
  }
  const mergeUser = q.merge_user_id ?? (q.merge_user_username != null ? userIdByUsername(rc, q.merge_user_username) : undefined);
  if (mergeUser != null) {
    const probe = '(+x.merged_by_id = ?)';
    addFilter(where, args, probe, mergeUser);
    idSets.push({ probe, id: 'mu.id', rows: 'FROM merge_requests mu WHERE mu.merged_by_id = ?', args: [mergeUser], projectColumn: 'mu.project_id', indexed: '(x.merged_by_id = ?)' });
  }
  // MergeRequestsFinder#by_deployments: merge requests deployed (to that environment, in that
  // window); Sandlab has no deployments, so none.
  if (q.environment != null || q.deployed_after != null || q.deployed_before != null) where.push('0');
  return complement;
}
