import { scopeArmsRows } from '../order-scope-arms';
import { issuableCountPastLimit, issuableCountToPage } from '../count-versions';
import { addFilter } from '../../../db/filter';
import type { RequestContext, Router } from '../../../http/route';
import { declared, requireAtLeastOne, requireMutuallyExclusive, t } from '../../../http/params';
import { apiError, forbidden, unauthorized, validationError } from '../../../http/errors';
import { isValidMergeRequestBranch } from '../../../git/names';
import { type SqlList, paginateSql } from '../../../http/pagination';
import { labelRowsList } from '../label-rows-list';
import { complementWalk } from '../complement-walk';
import { priorityOrderRows } from '../order-label-priority';
import { featureAvailable } from '../feature-access';
import { inTransaction } from '../../../db/connection';
import { Access, effectiveProjectAccess, loadProject } from '../access';
import { type MergeRequestRow, mergeRequestDetail, mergeRequests } from '../entities';
import { recordEvent } from '../events';
import { afterIssuableWrite, keepUpdatedAtUnlessChanged, touchesRecord } from '../issuable_events';
import { isoTime } from '../time';
import { applyLabels, applyStateEvent, complementBoundCount, computedOrderRows, existingUserIds, leavesArchivedOut, fakeSha, findMergeRequest, nextIid, resolveMilestone, setIssuableMilestone, workItemFilters, groupScope, globalScope, idSetLists, labelBoundCount, labelTitlesList, labelPairCount, dateLagList, validateIssuable, countersCount, milestoneNoneCount, indexedScopeCount, issuableListAnchors, labelRowsCount, labelRowsPage, projectScope, scopeCondition, searchAfterSets, searchCheckedRows, searchCountsFromSets, searchRowsCount, searchWalkKept, searchWalkRows, scopePageKept, type Scope, type WorkItemFilters, MERGE_REQUEST_WRITES } from '../workitems';
import { withLabelsDetails } from '../../labels/entities';
import { addMergeRequestFilters } from '../merge_request_filters';
import { checkUnmodifiedSince } from '../../../http/conditional';
import { keptProjectPage, keptScopePage } from '../kept-answers';
import type { Project } from '../projects';
import { mergedAtNullCondition } from '../order-merged-at';
import { checkSpam, checkSpamOnUpdate } from '../../spam/spam';
import { divergedCommitsCount, syncMergeRequestWithBranches } from '../../repositories/merge_requests';

const MR_STATES = ['opened', 'closed', 'merged', 'locked'] as const;

/** Grape's `at_least_one_of(*MergeRequests.update_params_at_least_one_of)`. */
const MR_UPDATE_AT_LEAST_ONE_OF = [
  'assignee_id',
  'assignee_ids',
  'reviewer_ids',
  'description',
  'labels',
  'add_labels',
  'remove_labels',
  'milestone_id',
  'milestone',
  'remove_source_branch',
  'allow_collaboration',
  'allow_maintainer_to_push',
  'squash',
  'target_branch',
  'title',
  'state_event',
  'discussion_locked',
  'merge_after',
];

const MR_LIST_PARAMS = {
  source_branch: t.string(),
  target_branch: t.string(),
  view: t.string().values(['simple']),
  with_labels_details: t.boolean().default(false),
};

/** A list of merge requests (a project's kept whole by its request when `project` is given: keptProjectPage). */
export function listMergeRequests(rc: RequestContext, scope: Scope, project?: Project): Record<string, unknown>[] {
  const read = (): MergeRequestRow[] => mergeRequestRows(rc, scope);
  return mergeRequestsAnswer(rc, project ? keptProjectPage(rc, 'MergeRequest', project, read) : read());
}

/** A group's or the instance's merge requests, kept whole by the request (keptScopePage): `scope` is read only for a page not kept. */
function listScopeMergeRequests(rc: RequestContext, scope: () => Scope): Record<string, unknown>[] {
  return mergeRequestsAnswer(rc, keptScopePage(rc, 'MergeRequest', scope, (read) => mergeRequestRows(rc, read)));
}

function mergeRequestsAnswer(rc: RequestContext, rows: MergeRequestRow[]): Record<string, unknown>[] {
  const page = mergeRequests(rc, rows);
  const q = declared(rc.params, MR_LIST_PARAMS);
  if (q.view === 'simple') return page.map(simple);
  return q.with_labels_details ? withLabelsDetails(rc.svc, page) : page;
}

/** A page of merge requests, its pagination headers set. */
function mergeRequestRows(rc: RequestContext, scope: Scope): MergeRequestRow[] {
  const filters = workItemFilters(rc, MR_STATES, 'MergeRequest', scope);
  const { where, args, order } = filters;
  const q = declared(rc.params, MR_LIST_PARAMS);
  const filtered = where.length;
  if (q.source_branch) addFilter(where, args, 'x.source_branch = ?', q.source_branch);
  if (q.target_branch) addFilter(where, args, 'x.target_branch = ?', q.target_branch);
  const complement = addMergeRequestFilters(rc, scope, where, args, filters.idSets);
  const noMoreFilters = where.length === filtered;
  // wip=no and perhaps a state, nothing else: counted by its few drafts (complementBoundCount).
  const wipOnly = complement !== null && where.length === filtered + 1 && filters.counted !== null && filters.counted.authorId === null && filters.counted.milestone === null;
  const byWip = wipOnly ? { ...filters, complement: { ...complement, state: filters.counted!.state } } : undefined;
  const byComplement = byWip ? complementBoundCount(rc, 'MergeRequest', scope, byWip, true) : undefined;
  const labelCount = noMoreFilters ? labelRowsCount(rc, 'MergeRequest', scope, filters, { sql: '1 = 1', args: [] }) : undefined;
  const onlySearch = where.length === 1 && filtered === 1;
  const scopeSql = scopeCondition(rc, 'merge_requests', scope, filters);
  where.push(scopeSql);
  args.push(...scope.args);
  const sets = idSetLists(rc, 'MergeRequest', scope, filters, where, args);
  const byDates = dateLagList<MergeRequestRow>(rc, 'merge_requests', scope, filters, where, args, scopeSql);
  const onlyTargetBranch = q.target_branch && where.length === filtered + 2 ? q.target_branch : null;
  const byTitles = noMoreFilters ? labelTitlesList<MergeRequestRow>(rc, 'MergeRequest', scope, filters) : undefined;
  // A list its label rows answer (label-rows-list.ts), where no reader of one label's or titles' rows serves it.
  const byLabelRows = byTitles || (filters.labelOnly && scope.projectId !== undefined) ? undefined : labelRowsList<MergeRequestRow>(rc, 'MergeRequest', scope, filters, where, args, sets, byDates?.plan === 'buckets');
  // A search whose other filters' sets are smaller: read from them (searchAfterSets).
  const setsFirst = searchAfterSets(filters, sets);
  // Counted from the sets when they are the fewer reads (searchCountsFromSets); the page may still walk.
  const countsFromSets = !setsFirst && searchCountsFromSets(rc, 'MergeRequest', scope, filters, sets);
  // A combination no record can meet (filter-plan.ts): counted as none, no page read.
  // Counts past COUNT_LIMIT (and through the full-text index) kept across writes that cannot move them.
  const countKnown = issuableCountPastLimit(rc, 'MergeRequest', scope);
  const countFrom = filters.empty ? { counted: 0 } :
    labelCount ?? (noMoreFilters ? labelPairCount(rc, 'MergeRequest', scope, filters, true) : undefined) ?? byTitles?.count ?? (setsFirst || countsFromSets ? undefined : searchRowsCount(rc, 'MergeRequest', filters, where, args, onlySearch, filters.searchAlone, countKnown)) ?? (noMoreFilters ? countersCount(rc, 'MergeRequest', scope, filters, true) : undefined) ??
    (noMoreFilters ? milestoneNoneCount(rc, 'MergeRequest', scope, filters, true) : undefined) ??
    (noMoreFilters ? labelBoundCount(rc, 'MergeRequest', scope, filters, true) : undefined) ??
    byComplement ??
    (onlyTargetBranch !== null ? targetBranchCount(rc, scope, filters, onlyTargetBranch) : undefined) ??
    byLabelRows?.count ??
    sets?.count ??
    byDates?.count ??
    indexedScopeCount('merge_requests', scope, where, args, scopeSql);
  // By merged_at with no record merged: the NULL end's condition for the statements that walk the merge date's indexes (order-merged-at.ts).
  const nullEnd = mergedAtNullCondition(rc, scope, filters);
  const plainSource = sets?.page ?? { from: `FROM merge_requests x WHERE ${where.join(' AND ')}`, args };
  const source = nullEnd && plainSource.from.startsWith('FROM merge_requests x WHERE ') ? { from: `${plainSource.from} AND ${nullEnd.sql}`, args: [...plainSource.args, ...nullEnd.args] } : plainSource;
  const anchors = noMoreFilters && !filters.priority ? issuableListAnchors<MergeRequestRow>(rc, 'MergeRequest', scope, filters, source, true) : undefined;
  // The walk may be remembered: besides the search and a state, a merge request list filters only on its records' own columns (branches, reviewers).
  const rows = filters.priority ? priorityOrderRows<MergeRequestRow>(rc, 'MergeRequest', scope, filters, { where: where.join(' AND '), args }, source, { seesAll: true, ownFilters: noMoreFilters, countFrom }) :
    computedOrderRows<MergeRequestRow>(rc, 'MergeRequest', scope, filters, where, args, noMoreFilters, true, source, countFrom) ??
    (setsFirst ? undefined : searchWalkRows<MergeRequestRow>(rc, 'merge_requests', filters, where, args, searchWalkKept(rc, 'MergeRequest', scope, filters, where)) ?? searchCheckedRows<MergeRequestRow>(rc, 'merge_requests', filters, where, args, scope)) ?? (noMoreFilters ? labelRowsPage<MergeRequestRow>(rc, 'MergeRequest', scope, filters) : undefined) ?? byTitles?.rows ?? byLabelRows?.rows ?? byDates?.rows ?? sets?.rows;
  const list: SqlList<MergeRequestRow> = { select: 'x.*', from: source.from, args: source.args, order, countFrom, anchors, countKnown, countToPage: issuableCountToPage(rc, 'MergeRequest', scope, filters.state), keptRows: scopePageKept(rc, 'MergeRequest', scope, filters, source, order, true), byId: { log: MERGE_REQUEST_WRITES, idColumn: 'x.id' } };
  // wip=no's deep page: the project's list less its few drafts.
  const aroundComplement = !rows && byWip ? complementWalk<MergeRequestRow>(rc, 'MergeRequest', scope, byWip, true, list) : undefined;
  return paginateSql<MergeRequestRow>(rc, rc.svc.db, { ...list, rows: rows ?? aroundComplement ?? scopeArmsRows<MergeRequestRow>(rc, 'MergeRequest', scope, filters, nullEnd ? [...where, nullEnd.sql] : where, nullEnd ? [...args, ...nullEnd.args] : args, countFrom, noMoreFilters) });
}

/**
 * A project's merge requests by target branch, perhaps in one state, and nothing else: counted
 * from the branch counters (core/036) instead of reading the branch's index entries up to 10,001.
 */
function targetBranchCount(rc: RequestContext, scope: Scope, filters: WorkItemFilters, branch: string): { counted: number } | undefined {
  if (scope.projectId === undefined || !filters.counted || filters.counted.authorId !== null || filters.counted.milestone !== null) return undefined;
  const { state } = filters.counted;
  const row = rc.svc.db
    .prepare(`SELECT coalesce(sum(n), 0) AS n FROM merge_request_branch_counts WHERE project_id = ? AND target_branch = ?${state ? ' AND state = ?' : ''}`)
    .get(scope.projectId, branch, ...(state ? [state] : [])) as { n: number };
  return { counted: row.n };
}

/** Entities::MergeRequestSimple, for `view=simple`. */
function simple(full: Record<string, unknown>): Record<string, unknown> {
  const keys = ['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'web_url'];
  return Object.fromEntries(keys.map((k) => [k, full[k]]));
}

function reload(rc: RequestContext, id: number): MergeRequestRow {
  return rc.svc.db.prepare('SELECT * FROM merge_requests WHERE id = ?').get(id) as MergeRequestRow;
}

/**
 * MergeRequest#validate_branches as the API answers it (handle_merge_request_errors!): the same
 * branch for source and target -> 422 (:branch_conflict); another open merge request of the same
 * branches -> 409 (:validate_branches); then a branch name that was set and is not a valid ref ->
 * 400 "is invalid" per field (the branch itself need not exist).
 */
function validateBranches(rc: RequestContext, projectId: number, mr: { source: string; target: string; state: string; id?: number }, changed: ('source_branch' | 'target_branch')[]): void {
  if (mr.source === mr.target) throw apiError(422, ["You can't use same project/branch for source and target"]);
  if (mr.state === 'opened') {
    // By the source branch's index: the target (mostly the default branch) and the state match most of a project's merge requests.
    const open = rc.svc.db
      .prepare("SELECT iid FROM merge_requests WHERE project_id = ? AND source_branch = ? AND +target_branch = ? AND +state = 'opened' AND id IS NOT ? ORDER BY id LIMIT 1")
      .get(projectId, mr.source, mr.target, mr.id ?? null) as { iid: number } | undefined;
    if (open) throw apiError(409, [`Another open merge request already exists for this source branch: !${open.iid}`]);
  }
  const invalid = changed.filter((field) => !isValidMergeRequestBranch(field === 'source_branch' ? mr.source : mr.target));
  if (invalid.length) throw validationError(Object.fromEntries(invalid.map((field) => [field, ['is invalid']])));
}

export function registerMergeRequestRoutes(r: Router): void {
  r.get(
    '/projects/:id/merge_requests',
    (rc) => {
      const project = loadProject(rc);
      // `authorize! :read_merge_request, user_project` (feature-access.ts).
      if (!featureAvailable(rc.svc, rc.user, project, 'MergeRequest')) throw forbidden();
      return listMergeRequests(rc, projectScope(project), project);
    },
    { auth: 'optional', jobToken: true },
  );

  r.get('/groups/:id/merge_requests', (rc) => listScopeMergeRequests(rc, () => groupScope(rc, leavesArchivedOut(rc), 'MergeRequest')), { auth: 'optional' });

  r.get(
    '/merge_requests',
    (rc) => {
      // GitLab: `authenticate! unless params[:scope] == 'all'`.
      if (!rc.user && rc.params.scope !== 'all') throw unauthorized();
      return listScopeMergeRequests(rc, () => globalScope(rc, 'MergeRequest'));
    },
    { auth: 'optional' },
  );

  r.get(
    '/projects/:id/merge_requests/:merge_request_iid',
    async (rc) => {
      const q = declared(rc.params, { render_html: t.boolean(), include_diverged_commits_count: t.boolean(), include_rebase_in_progress: t.boolean() });
      const project = loadProject(rc);
      const mr = findMergeRequest(rc, project, rc.path.merge_request_iid);
      return {
        ...mergeRequestDetail(rc, mr),
        ...(q.include_diverged_commits_count ? { diverged_commits_count: await divergedCommitsCount(rc.svc, project, mr) } : {}),
        // Sandlab rebases within the request (PUT .../rebase), so none is ever in progress.
        ...(q.include_rebase_in_progress ? { rebase_in_progress: false } : {}),
      };
    },
    { auth: 'optional', jobToken: true },
  );

  r.post('/projects/:id/merge_requests', async (rc) => {
    const user = rc.requireUser();
    const project = loadProject(rc);
    const p = declared(rc.params, {
      source_branch: t.string().required(),
      target_branch: t.string().required(),
      title: t.string().required(),
      description: t.string(),
      assignee_id: t.integer(),
      assignee_ids: t.array(t.integer()),
      reviewer_ids: t.array(t.integer()),
      labels: t.commaList(),
      remove_source_branch: t.boolean(),
      squash: t.boolean(),
      target_project_id: t.integer(),
      milestone_id: t.integer(),
      milestone: t.string(),
    });
    requireMutuallyExclusive(rc.params, ['milestone_id', 'milestone']);
    if (effectiveProjectAccess(rc.svc, user, project) < Access.DEVELOPER || !featureAvailable(rc.svc, user, project, 'MergeRequest')) throw forbidden();
    validateIssuable(p.title, p.description);
    validateBranches(rc, project.id, { source: p.source_branch, target: p.target_branch, state: 'opened' }, ['source_branch', 'target_branch']);
    checkSpam(rc, { type: 'MergeRequest', title: p.title, description: p.description });
    const created = inTransaction(rc.svc.db, () => {
      const now = isoTime(rc.svc.now());
      const iid = nextIid(rc, 'merge_requests', project.id);
      const base = fakeSha(project.id, p.target_branch);
      const info = rc.svc.db
        .prepare(
          `INSERT INTO merge_requests (project_id, iid, title, description, author_id, assignee_ids, reviewer_ids, labels, source_branch, target_branch,
             source_project_id, target_project_id, squash, remove_source_branch, base_sha, start_sha, head_sha, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          project.id,
          iid,
          p.title,
          p.description ?? null,
          user.id,
          JSON.stringify(existingUserIds(rc, p.assignee_ids ?? (p.assignee_id ? [p.assignee_id] : [])) ?? []),
          JSON.stringify(existingUserIds(rc, p.reviewer_ids ?? []) ?? []),
          JSON.stringify(applyLabels([], { labels: p.labels })),
          p.source_branch,
          p.target_branch,
          project.id,
          project.id,
          p.squash ? 1 : 0,
          p.remove_source_branch === undefined ? null : Number(p.remove_source_branch),
          base,
          base,
          fakeSha(project.id, p.source_branch, iid, now),
          now,
          now,
        );
      const row = reload(rc, Number(info.lastInsertRowid));
      recordEvent(rc.svc, { action: 'created', authorId: user.id, projectId: project.id, targetType: 'MergeRequest', targetId: row.id, targetIid: row.iid, targetTitle: row.title });
      const milestoneId = resolveMilestone(rc, project, p);
      if (milestoneId) setIssuableMilestone(rc, 'MergeRequest', row, milestoneId, user.id);
      afterIssuableWrite(rc.svc, project, 'MergeRequest', null, row, user.id);
      return reload(rc, row.id);
    });
    await syncMergeRequestWithBranches(rc.svc, project, created.id);
    return mergeRequestDetail(rc, reload(rc, created.id));
  });

  r.put('/projects/:id/merge_requests/:merge_request_iid', async (rc) => {
    const user = rc.requireUser();
    requireAtLeastOne(rc.params, MR_UPDATE_AT_LEAST_ONE_OF);
    const project = loadProject(rc);
    const current = findMergeRequest(rc, project, rc.path.merge_request_iid);
    const p = declared(rc.params, {
      title: t.string(),
      description: t.string(),
      target_branch: t.string(),
      state_event: t.string().values(['close', 'reopen']),
      labels: t.commaList(),
      add_labels: t.commaList(),
      remove_labels: t.commaList(),
      assignee_id: t.integer(),
      assignee_ids: t.array(t.integer()),
      reviewer_ids: t.array(t.integer()),
      discussion_locked: t.boolean(),
      squash: t.boolean(),
      remove_source_branch: t.boolean(),
      milestone_id: t.integer(),
      milestone: t.string(),
    });
    requireMutuallyExclusive(rc.params, ['milestone_id', 'milestone']);
    if (effectiveProjectAccess(rc.svc, user, project) < Access.DEVELOPER && current.author_id !== user.id) throw forbidden();
    if (p.title !== undefined || p.description !== undefined) validateIssuable(p.title === undefined ? current.title : (p.title ?? ''), p.description);
    // A merged one stays merged (applyStateEvent moves only opened and closed): GitLab's close and
    // reopen services return it as it is, and the answer is 200.
    if (p.target_branch != null && p.target_branch !== current.target_branch) {
      const state = p.state_event === 'reopen' ? 'opened' : p.state_event === 'close' ? 'closed' : current.state;
      validateBranches(rc, project.id, { source: current.source_branch, target: p.target_branch, state, id: current.id }, ['target_branch']);
    }
    checkSpamOnUpdate(rc, 'MergeRequest', current, p);
    const updated = inTransaction(rc.svc.db, () => {
      const now = isoTime(rc.svc.now());
      const { state, closedAt, closedBy } = applyStateEvent(current, p.state_event, now, user.id);
      const assignees = existingUserIds(rc, p.assignee_ids ?? (p.assignee_id !== undefined ? (p.assignee_id ? [p.assignee_id] : []) : undefined));
      const reviewers = existingUserIds(rc, p.reviewer_ids);
      const target = p.target_branch ?? current.target_branch;
      rc.svc.db
        .prepare(
          `UPDATE merge_requests SET title = ?, description = ?, target_branch = ?, state = ?, closed_at = ?, closed_by_id = ?, labels = ?,
             assignee_ids = ?, reviewer_ids = ?, discussion_locked = ?, squash = ?, remove_source_branch = ?, base_sha = ?, start_sha = ?, updated_at = ?
           WHERE id = ?`,
        )
        .run(
          p.title ?? current.title,
          p.description === undefined ? current.description : p.description,
          target,
          state,
          closedAt,
          closedBy,
          JSON.stringify(applyLabels(JSON.parse(current.labels) as string[], p)),
          assignees ? JSON.stringify(assignees) : current.assignee_ids,
          reviewers ? JSON.stringify(reviewers) : current.reviewer_ids,
          p.discussion_locked === undefined ? current.discussion_locked : Number(p.discussion_locked),
          p.squash === undefined ? current.squash : Number(p.squash),
          p.remove_source_branch === undefined ? current.remove_source_branch : Number(p.remove_source_branch),
          target === current.target_branch ? current.base_sha : fakeSha(project.id, target),
          target === current.target_branch ? current.start_sha : fakeSha(project.id, target),
          now,
          current.id,
        );
      const milestoneId = resolveMilestone(rc, project, p);
      if (milestoneId !== undefined) setIssuableMilestone(rc, 'MergeRequest', { ...current, state }, milestoneId, user.id);
      keepUpdatedAtUnlessChanged(rc.svc, 'merge_requests', current, user.id, touchesRecord(p));
      if (state !== current.state) {
        recordEvent(rc.svc, {
          action: state === 'closed' ? 'closed' : 'reopened',
          authorId: user.id,
          projectId: project.id,
          targetType: 'MergeRequest',
          targetId: current.id,
          targetIid: current.iid,
          targetTitle: p.title ?? current.title,
        });
      }
      afterIssuableWrite(rc.svc, project, 'MergeRequest', current, reload(rc, current.id), user.id);
      return reload(rc, current.id);
    });
    // A new target branch, or a reopened merge request, gets a version of the branches as they are now.
    if (updated.target_branch !== current.target_branch || updated.state !== current.state) await syncMergeRequestWithBranches(rc.svc, project, updated.id);
    return mergeRequestDetail(rc, reload(rc, updated.id));
  });

  // PUT .../merge, .../rebase and the diff endpoints live in the repositories area (they need git).

  r.delete('/projects/:id/merge_requests/:merge_request_iid', (rc) => {
    const user = rc.requireUser();
    const project = loadProject(rc);
    const current = findMergeRequest(rc, project, rc.path.merge_request_iid);
    if (effectiveProjectAccess(rc.svc, user, project) < Access.OWNER) throw forbidden();
    checkUnmodifiedSince(rc, current.updated_at);
    inTransaction(rc.svc.db, () => {
      rc.svc.db.prepare("DELETE FROM notes WHERE noteable_type = 'MergeRequest' AND noteable_id = ?").run(current.id);
      rc.svc.db.prepare('DELETE FROM merge_requests WHERE id = ?').run(current.id);
      recordEvent(rc.svc, { action: 'destroyed', authorId: user.id, projectId: project.id, targetType: 'MergeRequest', targetId: current.id, targetIid: current.iid, targetTitle: current.title });
    });
    return undefined;
  });
}
