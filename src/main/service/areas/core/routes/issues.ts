import { scopeArmsRows } from '../order-scope-arms';
import type { RequestContext, Router } from '../../../http/route';
import { issuableCountPastLimit, issuableCountToPage } from '../count-versions';
import { withLabelsDetails } from '../../labels/entities';
import { declared, requireAtLeastOne, requireMutuallyExclusive, t } from '../../../http/params';
import { forbidden, notFound, recordNotFound, unauthorized } from '../../../http/errors';
import { findIssueUserAgentDetail, recordIssueUserAgent } from '../user-agent-details';
import { userAgentDetail } from '../../snippets/entities';
import { type SqlList, paginateArray, paginateSql } from '../../../http/pagination';
import { canReadFeature, featureAvailable } from '../feature-access';
import { labelRowsList } from '../label-rows-list';
import { complementWalk } from '../complement-walk';
import { inTransaction } from '../../../db/connection';
import { Access, effectiveProjectAccess, loadProject, memberProjectsSql } from '../access';
import { type IssueRow, issueDetail, issues } from '../entities';
import { recordEvent } from '../events';
import { afterIssuableWrite, keepUpdatedAtUnlessChanged, touchesRecord } from '../issuable_events';
import { type Project, findProjectById } from '../projects';
import { checkCopy, copyIssue } from '../issue_move';
import { isoTime } from '../time';
import { weightOrderRows } from '../issue_weight';
import { applyLabels, applyStateEvent, complementBoundCount, computedOrderRows, existingUserIds, leavesArchivedOut, findIssue, nextIid, resolveMilestone, setIssuableMilestone, workItemFilters, groupScope, globalScope, idSetLists, labelBoundCount, labelTitlesList, labelPairCount, dateLagList, userRowsSet, validateIssuable, countersCount, milestoneNoneCount, indexedScopeCount, issuableListAnchors, labelRowsCount, labelRowsPage, projectScope, scopeCondition, searchAfterSets, searchCheckedRows, searchCountsFromSets, searchRowsCount, searchWalkKept, searchWalkRows, scopePageKept, type Scope, ISSUE_WRITES } from '../workitems';
import { checkUnmodifiedSince } from '../../../http/conditional';
import { keptProjectPage, keptScopePage } from '../kept-answers';
import { priorityOrderRows } from '../order-label-priority';
import { checkSpam, checkSpamOnUpdate } from '../../spam/spam';

const ISSUE_STATES = ['opened', 'closed'] as const;

/** Grape's `at_least_one_of(*IssuesHelpers.update_params_at_least_one_of)` (CE list + EE weight/epic). */
const ISSUE_UPDATE_AT_LEAST_ONE_OF = [
  'assignee_id',
  'assignee_ids',
  'confidential',
  'created_at',
  'description',
  'discussion_locked',
  'due_date',
  'labels',
  'add_labels',
  'remove_labels',
  'milestone_id',
  'state_event',
  'title',
  'issue_type',
  'weight',
  'epic_id',
  'epic_iid',
];

/** SQL that hides confidential issues from those below Planner who are neither author nor assignee. */
export function confidentialSql(rc: RequestContext): { sql: string; args: unknown[] } {
  const user = rc.user;
  if (user?.admin) return { sql: '1 = 1', args: [] };
  if (!user) return { sql: 'x.confidential = 0', args: [] };
  const planner = memberProjectsSql(rc.svc, user, 'p', Access.PLANNER);
  return {
    sql: `(x.confidential = 0 OR x.author_id = ? OR ${userRowsSet('Issue', 'assignee', user.id).sql}
      OR x.project_id IN (SELECT p.id FROM projects p WHERE ${planner.sql}))`,
    args: [user.id, user.id, ...planner.args],
  };
}

/**
 * The caller sees every confidential issue of the scope (confidentialSql's rule: an administrator
 * anywhere, or Planner and above in the scope's project).
 */
export function seesConfidential(rc: RequestContext, scope: Scope): boolean {
  const user = rc.user;
  if (user?.admin) return true;
  if (!user || scope.projectId === undefined) return false;
  const planner = memberProjectsSql(rc.svc, user, 'p', Access.PLANNER);
  return !!rc.svc.db.prepare(`SELECT 1 FROM projects p WHERE p.id = ? AND ${planner.sql}`).get(scope.projectId, ...planner.args);
}

/** A list of issues (a project's kept whole by its request when `project` is given: keptProjectPage). */
export function listIssues(rc: RequestContext, scope: Scope, project?: Project): Record<string, unknown>[] {
  const read = (): IssueRow[] => issueRows(rc, scope);
  return issuesAnswer(rc, project ? keptProjectPage(rc, 'Issue', project, read) : read());
}

/** A group's or the instance's issues, kept whole by the request (keptScopePage): `scope` is read only for a page not kept. */
function listScopeIssues(rc: RequestContext, scope: () => Scope): Record<string, unknown>[] {
  return issuesAnswer(rc, keptScopePage(rc, 'Issue', scope, (read) => issueRows(rc, read)));
}

function issuesAnswer(rc: RequestContext, rows: IssueRow[]): Record<string, unknown>[] {
  const page = issues(rc, rows);
  return declared(rc.params, { with_labels_details: t.boolean().default(false) }).with_labels_details ? withLabelsDetails(rc.svc, page) : page;
}

/** A page of issues, its pagination headers set. */
function issueRows(rc: RequestContext, scope: Scope): IssueRow[] {
  const filters = workItemFilters(rc, ISSUE_STATES, 'Issue', scope);
  const { where, args, order } = filters;
  const q = declared(rc.params, { confidential: t.boolean() });
  const conf = confidentialSql(rc);
  // confidential=false: the label rows' readers check it on each record read, as the caller's view
  // (a rare label walked a million issues: 760 ms); confidential=true reads the few confidential ones (a set).
  const labelView = q.confidential == null ? conf : q.confidential === false ? { sql: `${conf.sql} AND x.confidential = 0`, args: conf.args } : undefined;
  const labelCount = labelView ? labelRowsCount(rc, 'Issue', scope, filters, labelView) : undefined;
  const onlySearch = where.length === 1 && q.confidential === undefined && conf.args.length === 0 && conf.sql === '1 = 1';
  if (q.confidential === false) where.push('x.confidential = 0');
  if (q.confidential === true) {
    // The few confidential issues, read by core/067's partial indexes (the value in the SQL, which
    // implies their WHERE): the project's, or the instance's for a scope of many.
    where.push('x.confidential = 1');
    const inProject = scope.projectId !== undefined ? ` AND c.project_id = ${Number(scope.projectId)}` : '';
    filters.idSets.push({ probe: 'x.confidential = 1', id: 'c.id', rows: `FROM issues c WHERE c.confidential = 1${inProject}`, args: [], projectColumn: 'c.project_id' });
  }
  const scopeSql = scopeCondition(rc, 'issues', scope, filters);
  where.push(scopeSql, conf.sql);
  args.push(...scope.args, ...conf.args);
  if (conf.sql !== '1 = 1') filters.view = conf.sql;
  // Part of the anchors' key (a role change shows or hides rows without an issue write).
  const seesAll = filters.counted || filters.milestoneNone || filters.labelBound || filters.labelOnly || filters.labelTitles || filters.complement || filters.priority ? seesConfidential(rc, scope) : false;
  const sets = idSetLists(rc, 'Issue', scope, filters, where, args);
  const byDates = dateLagList<IssueRow>(rc, 'issues', scope, filters, where, args, scopeSql);
  const byTitles = labelView ? labelTitlesList<IssueRow>(rc, 'Issue', scope, filters, labelView) : undefined;
  // A list its label rows answer (label-rows-list.ts), where no reader of one label's or titles' rows serves it.
  const byLabelRows = byTitles || (filters.labelOnly && scope.projectId !== undefined) ? undefined : labelRowsList<IssueRow>(rc, 'Issue', scope, filters, where, args, sets, byDates?.plan === 'buckets');
  // A search whose other filters' sets are smaller: read from them (searchAfterSets).
  const setsFirst = searchAfterSets(filters, sets);
  // Counted from the sets when they are the fewer reads (searchCountsFromSets); the page may still walk.
  const countsFromSets = !setsFirst && searchCountsFromSets(rc, 'Issue', scope, filters, sets);
  // A combination no record can meet (filter-plan.ts): counted as none, no page read.
  // Counts past COUNT_LIMIT (and through the full-text index) kept across writes that cannot move them.
  const countKnown = issuableCountPastLimit(rc, 'Issue', scope);
  const countFrom = filters.empty ? { counted: 0 } :
    labelCount ??
    labelPairCount(rc, 'Issue', scope, filters, seesAll, q.confidential ?? undefined) ??
    byTitles?.count ??
    (setsFirst || countsFromSets ? undefined : searchRowsCount(rc, 'Issue', filters, where, args, onlySearch, filters.searchAlone && q.confidential === undefined && conf.args.length === 0, countKnown)) ??
    (q.confidential === undefined && filters.counted ? countersCount(rc, 'Issue', scope, filters, seesAll) : undefined) ??
    (q.confidential === undefined ? milestoneNoneCount(rc, 'Issue', scope, filters, seesAll) : undefined) ??
    (q.confidential === undefined ? labelBoundCount(rc, 'Issue', scope, filters, seesAll) : undefined) ??
    (q.confidential === undefined ? complementBoundCount(rc, 'Issue', scope, filters, seesAll) : undefined) ??
    byLabelRows?.count ??
    sets?.count ??
    byDates?.count ??
    indexedScopeCount('issues', scope, where, args, scopeSql);
  const source = sets?.page ?? { from: `FROM issues x WHERE ${where.join(' AND ')}`, args };
  const anchors = filters.priority ? undefined : issuableListAnchors<IssueRow>(rc, 'Issue', scope, filters, source, seesAll);
  // The walk may be remembered when what the caller sees of the issues is no matter of memberships (an administrator, an anonymous caller).
  const rows = filters.priority ? priorityOrderRows<IssueRow>(rc, 'Issue', scope, filters, { where: where.join(' AND '), args }, source, { seesAll, ownFilters: q.confidential === undefined, countFrom }) :
    computedOrderRows<IssueRow>(rc, 'Issue', scope, filters, where, args, q.confidential === undefined, seesAll, source, countFrom) ??
    (setsFirst ? undefined : searchWalkRows<IssueRow>(rc, 'issues', filters, where, args, conf.args.length === 0 && searchWalkKept(rc, 'Issue', scope, filters, where)) ?? searchCheckedRows<IssueRow>(rc, 'issues', filters, where, args, scope)) ??
    (labelView ? labelRowsPage<IssueRow>(rc, 'Issue', scope, filters, labelView) : undefined) ??
    byTitles?.rows ??
    byLabelRows?.rows ??
    byDates?.rows ??
    sets?.rows ??
    weightOrderRows<IssueRow>(rc, scope, filters, where, args, { source, countFrom });
  const list: SqlList<IssueRow> = { select: 'x.*', from: source.from, args: source.args, order, countFrom, anchors, countKnown, countToPage: issuableCountToPage(rc, 'Issue', scope, filters.state), keptRows: scopePageKept(rc, 'Issue', scope, filters, source, order, seesAll), byId: { log: ISSUE_WRITES, idColumn: 'x.id' } };
  // A dense filter's deep page: the project's list less the few records that fail it.
  const aroundComplement = !rows && q.confidential === undefined ? complementWalk<IssueRow>(rc, 'Issue', scope, filters, seesAll, list) : undefined;
  return paginateSql<IssueRow>(rc, rc.svc.db, { ...list, rows: rows ?? aroundComplement ?? scopeArmsRows<IssueRow>(rc, 'Issue', scope, filters, where, args, countFrom) });
}

export function canReadIssue(rc: RequestContext, project: Project, i: IssueRow): boolean {
  if (!i.confidential) return true;
  const user = rc.user;
  if (!user) return false;
  return user.id === i.author_id || (JSON.parse(i.assignee_ids) as number[]).includes(user.id) || effectiveProjectAccess(rc.svc, user, project) >= Access.PLANNER;
}

/**
 * IssuePolicy's read_issue on an issue of any project, reached from another record (links, closing
 * and related lists, epics, to-dos, events, references): its project readable, its issues
 * available to the caller (feature-access.ts), and the confidentiality rule.
 */
export function issueReadable(rc: RequestContext, project: Project, i: IssueRow): boolean {
  return canReadFeature(rc.svc, rc.user, project, 'Issue') && canReadIssue(rc, project, i);
}

/** The issue named by the route, if the caller may see it. */
export function loadIssue(rc: RequestContext, project: Project, iid = rc.path.issue_iid, denied: 'notFound' | 'forbidden' = 'notFound'): IssueRow {
  const i = findIssue(rc, project, iid, denied);
  if (!canReadIssue(rc, project, i)) throw recordNotFound();
  return i;
}

export function registerIssueRoutes(r: Router): void {
  r.get(
    '/projects/:id/issues',
    (rc) => {
      const project = loadProject(rc);
      // A caller who may not use the project's issues reads an empty list (feature-access.ts).
      if (!featureAvailable(rc.svc, rc.user, project, 'Issue')) return issues(rc, paginateArray(rc, [] as IssueRow[]));
      return listIssues(rc, projectScope(project), project);
    },
    { auth: 'optional' },
  );

  r.get('/groups/:id/issues', (rc) => listScopeIssues(rc, () => groupScope(rc, leavesArchivedOut(rc), 'Issue')), { auth: 'optional' });

  r.get(
    '/issues',
    (rc) => {
      // GitLab: `authenticate! unless params[:scope] == 'all'`.
      if (!rc.user && rc.params.scope !== 'all') throw unauthorized();
      return listScopeIssues(rc, () => globalScope(rc, 'Issue', leavesArchivedOut(rc)));
    },
    { auth: 'optional' },
  );

  r.get('/projects/:id/issues/:issue_iid', (rc) => issueDetail(rc, loadIssue(rc, loadProject(rc))), { auth: 'optional' });

  r.post('/projects/:id/issues', (rc) => {
    const user = rc.requireUser();
    const project = loadProject(rc);
    const p = declared(rc.params, {
      title: t.string().required(),
      description: t.string(),
      labels: t.commaList(),
      assignee_ids: t.array(t.integer()),
      assignee_id: t.integer(),
      confidential: t.boolean(),
      due_date: t.date(),
      weight: t.integer(),
      issue_type: t.string().values(['issue', 'incident', 'test_case', 'task']),
      created_at: t.dateTime(),
      discussion_locked: t.boolean(),
      milestone_id: t.integer(),
      milestone: t.string(),
    });
    requireMutuallyExclusive(rc.params, ['milestone_id', 'milestone']);
    if (project.visibility !== 'public' && effectiveProjectAccess(rc.svc, user, project) < Access.GUEST) throw forbidden();
    if (!featureAvailable(rc.svc, user, project, 'Issue')) throw forbidden();
    validateIssuable(p.title, p.description, p.weight);
    checkSpam(rc, { type: 'Issue', title: p.title, description: p.description });
    const created = inTransaction(rc.svc.db, () => {
      const now = isoTime(rc.svc.now());
      const createdAt = p.created_at && (user.admin || effectiveProjectAccess(rc.svc, user, project) >= Access.OWNER) ? p.created_at : now;
      const assignees = existingUserIds(rc, p.assignee_ids ?? (p.assignee_id ? [p.assignee_id] : [])) ?? [];
      const info = rc.svc.db
        .prepare(
          `INSERT INTO issues (project_id, iid, title, description, author_id, assignee_ids, labels, confidential, due_date, weight, issue_type, discussion_locked, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          project.id,
          nextIid(rc, 'issues', project.id),
          p.title,
          p.description ?? null,
          user.id,
          JSON.stringify(assignees),
          JSON.stringify(applyLabels([], { labels: p.labels })),
          p.confidential ? 1 : 0,
          p.due_date ?? null,
          p.weight ?? null,
          p.issue_type ?? 'issue',
          p.discussion_locked === undefined ? null : Number(p.discussion_locked),
          createdAt,
          createdAt,
        );
      const row = rc.svc.db.prepare('SELECT * FROM issues WHERE id = ?').get(Number(info.lastInsertRowid)) as IssueRow;
      recordIssueUserAgent(rc, row.id);
      recordEvent(rc.svc, { action: 'created', authorId: user.id, projectId: project.id, targetType: 'Issue', targetId: row.id, targetIid: row.iid, targetTitle: row.title });
      const milestoneId = resolveMilestone(rc, project, p);
      if (milestoneId) setIssuableMilestone(rc, 'Issue', row, milestoneId, user.id);
      afterIssuableWrite(rc.svc, project, 'Issue', null, row, user.id);
      return rc.svc.db.prepare('SELECT * FROM issues WHERE id = ?').get(row.id) as IssueRow;
    });
    return issueDetail(rc, created);
  });

  // Admins only, checked before the project and issue are looked up (lib/api/issues.rb).
  r.get('/projects/:id/issues/:issue_iid/user_agent_detail', (rc) => {
    rc.requireAdmin();
    const issue = loadIssue(rc, loadProject(rc));
    const detail = findIssueUserAgentDetail(rc.svc, issue.id);
    if (!detail) throw notFound('UserAgentDetail');
    return userAgentDetail(detail);
  });

  r.put('/projects/:id/issues/:issue_iid', (rc) => {
    const user = rc.requireUser();
    requireAtLeastOne(rc.params, ISSUE_UPDATE_AT_LEAST_ONE_OF);
    const project = loadProject(rc);
    const current = loadIssue(rc, project, rc.path.issue_iid, 'forbidden');
    const p = declared(rc.params, {
      title: t.string(),
      description: t.string(),
      labels: t.commaList(),
      add_labels: t.commaList(),
      remove_labels: t.commaList(),
      assignee_ids: t.array(t.integer()),
      assignee_id: t.integer(),
      confidential: t.boolean(),
      due_date: t.date(),
      weight: t.integer(),
      state_event: t.string().values(['close', 'reopen']),
      discussion_locked: t.boolean(),
      issue_type: t.string().values(['issue', 'incident', 'test_case', 'task']),
      updated_at: t.dateTime(),
      milestone_id: t.integer(),
      milestone: t.string(),
    });
    requireMutuallyExclusive(rc.params, ['milestone_id', 'milestone']);
    const level = effectiveProjectAccess(rc.svc, user, project);
    if (level < Access.PLANNER && current.author_id !== user.id) throw forbidden();
    validateIssuable(p.title ?? current.title, p.description ?? null, p.weight);
    checkSpamOnUpdate(rc, 'Issue', current, p);
    const updated = inTransaction(rc.svc.db, () => {
      const now = isoTime(rc.svc.now());
      const assignees = existingUserIds(rc, p.assignee_ids ?? (p.assignee_id !== undefined ? (p.assignee_id ? [p.assignee_id] : []) : undefined));
      const { state, closedAt, closedBy } = applyStateEvent(current, p.state_event, now, user.id);
      rc.svc.db
        .prepare(
          `UPDATE issues SET title = ?, description = ?, labels = ?, assignee_ids = ?, confidential = ?, due_date = ?, weight = ?, state = ?,
             closed_at = ?, closed_by_id = ?, discussion_locked = ?, issue_type = ?, updated_at = ? WHERE id = ?`,
        )
        .run(
          p.title ?? current.title,
          p.description === undefined ? current.description : p.description,
          JSON.stringify(applyLabels(JSON.parse(current.labels) as string[], p)),
          assignees ? JSON.stringify(assignees) : current.assignee_ids,
          p.confidential === undefined ? current.confidential : Number(p.confidential),
          p.due_date === undefined ? current.due_date : p.due_date,
          p.weight === undefined ? current.weight : p.weight,
          state,
          closedAt,
          closedBy,
          p.discussion_locked === undefined ? current.discussion_locked : Number(p.discussion_locked),
          p.issue_type ?? current.issue_type,
          p.updated_at ?? now,
          current.id,
        );
      const milestoneId = resolveMilestone(rc, project, p);
      if (milestoneId !== undefined) setIssuableMilestone(rc, 'Issue', { ...current, state }, milestoneId, user.id);
      // An updated_at given is saved as given.
      if (p.updated_at === undefined) keepUpdatedAtUnlessChanged(rc.svc, 'issues', current, user.id, touchesRecord(p));
      if (state !== current.state) {
        recordEvent(rc.svc, {
          action: state === 'closed' ? 'closed' : 'reopened',
          authorId: user.id,
          projectId: project.id,
          targetType: 'Issue',
          targetId: current.id,
          targetIid: current.iid,
          targetTitle: p.title ?? current.title,
        });
      }
      const saved = rc.svc.db.prepare('SELECT * FROM issues WHERE id = ?').get(current.id) as IssueRow;
      afterIssuableWrite(rc.svc, project, 'Issue', current, saved, user.id);
      return rc.svc.db.prepare('SELECT * FROM issues WHERE id = ?').get(current.id) as IssueRow;
    });
    return issueDetail(rc, updated);
  });

  // The issue (404), then the target project (404: Project.find_by, whoever sees it), then can_move?'s 400s (issue_move.ts).
  for (const kind of ['move', 'clone'] as const) {
    r.post(`/projects/:id/issues/:issue_iid/${kind}`, (rc) => {
      rc.requireUser();
      const p = declared(rc.params, { to_project_id: t.integer().required(), with_notes: t.boolean().default(false) });
      const project = loadProject(rc);
      const issue = loadIssue(rc, project);
      const target = findProjectById(rc.svc, p.to_project_id);
      if (!target) throw notFound('Project');
      checkCopy(rc, kind, project, issue, target);
      return issueDetail(rc, copyIssue(rc, kind, project, issue, target, kind === 'clone' && p.with_notes));
    });
  }

  r.delete('/projects/:id/issues/:issue_iid', (rc) => {
    const user = rc.requireUser();
    const project = loadProject(rc);
    const current = loadIssue(rc, project, rc.path.issue_iid, 'forbidden');
    if (effectiveProjectAccess(rc.svc, user, project) < Access.OWNER) throw forbidden();
    checkUnmodifiedSince(rc, current.updated_at);
    inTransaction(rc.svc.db, () => {
      rc.svc.db.prepare("DELETE FROM notes WHERE noteable_type = 'Issue' AND noteable_id = ?").run(current.id);
      rc.svc.db.prepare('DELETE FROM issues WHERE id = ?').run(current.id);
      recordEvent(rc.svc, { action: 'destroyed', authorId: user.id, projectId: project.id, targetType: 'Issue', targetId: current.id, targetIid: current.iid, targetTitle: current.title });
    });
    return undefined;
  });
}

