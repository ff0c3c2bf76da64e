import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { notModified } from '../../../http/errors';
import { paginate, paginateArray, limitSql } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { Access, effectiveProjectAccess, loadProject } from '../access';
import { canReadFeature, featureAvailable } from '../feature-access';
import {
  type IssueRow,
  type MergeRequestRow,
  issueBasics,
  issueDetail,
  mergeRequests,
  mergeRequestDetail,
  userBasicById,
} from '../entities';
import { referencedIssueIds } from '../closing';
import { isSubscribed, participantIds, setSubscribed } from '../participants';
import type { Project } from '../projects';
import { findProjectById } from '../projects';
import { markTodo } from '../todos';
import { todo } from '../todo_entity';
import { findMergeRequest } from '../workitems';
import { issueReadable, loadIssue } from './issues';

const mrById = (rc: RequestContext, id: number) => rc.svc.db.prepare('SELECT * FROM merge_requests WHERE id = ?').get(id) as MergeRequestRow;
const issueById = (rc: RequestContext, id: number) => rc.svc.db.prepare('SELECT * FROM issues WHERE id = ?').get(id) as IssueRow;

function iidOf(rc: RequestContext, name: 'issue_iid' | 'merge_request_iid'): string {
  declared({ [name]: rc.path[name] }, { [name]: t.integer() });
  return rc.path[name];
}

function loadIssueRoute(rc: RequestContext): { project: Project; issue: IssueRow } {
  const project = loadProject(rc);
  return { project, issue: loadIssue(rc, project, iidOf(rc, 'issue_iid')) };
}

function loadMergeRequestRoute(rc: RequestContext): { project: Project; mr: MergeRequestRow } {
  const project = loadProject(rc);
  return { project, mr: findMergeRequest(rc, project, iidOf(rc, 'merge_request_iid')) };
}

const planner = (rc: RequestContext, project: Project) => effectiveProjectAccess(rc.svc, rc.user, project) >= Access.PLANNER;

/** Issue and merge request sub-resources: participants, closing and related merge requests, subscriptions, to-dos. */
/**
 * A merge request's comments whose references count: not its system notes ("changed title from ..."), for which
 * Notes::PostProcessService makes no cross references.
 */
const commentBodies = (rc: RequestContext, mergeRequestId: number): string[] =>
  (rc.svc.db.prepare("SELECT body FROM notes WHERE noteable_type = 'MergeRequest' AND noteable_id = ? AND system = 0 ORDER BY id").all(mergeRequestId) as { body: string }[]).map(
    (n) => n.body,
  );

export function registerIssuableRelationRoutes(r: Router): void {
  const issue = '/projects/:id/issues/:issue_iid';
  const mr = '/projects/:id/merge_requests/:merge_request_iid';

  r.get(
    `${issue}/participants`,
    (rc) => {
      const { project, issue: i } = loadIssueRoute(rc);
      const ids = participantIds(rc.svc, { type: 'Issue', ...i }, planner(rc, project));
      return paginateArray(rc, ids).map((id) => userBasicById(rc, id));
    },
    { auth: 'optional' },
  );

  r.get(
    `${mr}/participants`,
    (rc) => {
      const { project, mr: m } = loadMergeRequestRoute(rc);
      const ids = participantIds(rc.svc, { type: 'MergeRequest', ...m }, planner(rc, project));
      return paginateArray(rc, ids).map((id) => userBasicById(rc, id));
    },
    { auth: 'optional' },
  );

  // Merge requests of this project that close the issue when merged.
  r.get(
    `${issue}/closed_by`,
    (rc) => {
      const { project, issue: i } = loadIssueRoute(rc);
      // Read through MergeRequestsFinder for the project: none where the caller may not use its merge requests.
      if (!featureAvailable(rc.svc, rc.user, project, 'MergeRequest')) return mergeRequests(rc, paginateArray(rc, [] as MergeRequestRow[]));
      // The issue's closing rows pick the merge requests (`+` keeps the project's index, every merge request of the project, out of SQLite's choice).
      const where = '+m.project_id = ? AND m.id IN (SELECT merge_request_id FROM merge_requests_closing_issues WHERE issue_id = ?)';
      const page = paginate(rc, {
        count: () => (rc.svc.db.prepare(`SELECT count(*) AS n FROM merge_requests m WHERE ${where}`).get(project.id, i.id) as { n: number }).n,
        rows: (limit, offset) =>
          rc.svc.db.prepare(`SELECT m.* FROM merge_requests m WHERE ${where} ORDER BY m.id DESC ${limitSql(limit)} OFFSET ?`).all(project.id, i.id, offset) as MergeRequestRow[],
      });
      return mergeRequests(rc, page);
    },
    { auth: 'optional' },
  );

  // Issues::ReferencedMergeRequestsService#related_merge_requests: visible merge requests that mention or close the issue.
  r.get(
    `${issue}/related_merge_requests`,
    (rc) => {
      const { issue: i } = loadIssueRoute(rc);
      const closing = new Set(
        (rc.svc.db.prepare('SELECT merge_request_id AS id FROM merge_requests_closing_issues WHERE issue_id = ?').all(i.id) as { id: number }[]).map((x) => x.id),
      );
      // Those closing it, and those whose title, description or a comment holds `#<iid>` (the
      // numbers mentioned that start with its digits: core/062's rows, not every merge request's text).
      const candidates = rc.svc.db
        .prepare(
          `SELECT m.* FROM merge_requests m WHERE m.id IN (SELECT merge_request_id FROM merge_requests_closing_issues WHERE issue_id = ?
             UNION SELECT merge_request_id FROM merge_request_mentions WHERE number >= ? AND number < ?)
           ORDER BY m.id`,
        )
        .all(i.id, String(i.iid), `${i.iid}:`) as MergeRequestRow[];
      const related = candidates.filter((m) => {
        if (!canReadFeature(rc.svc, rc.user, findProjectById(rc.svc, m.project_id)!, 'MergeRequest')) return false;
        if (closing.has(m.id)) return true;
        const notes = commentBodies(rc, m.id);
        return [m.title, m.description, ...notes].some((text) => referencedIssueIds(rc.svc, m.project_id, text).includes(i.id));
      });
      return paginateArray(rc, related).map((m) => {
        const detail = mergeRequestDetail(rc, m);
        delete detail.subscribed;
        return detail;
      });
    },
    { auth: 'optional' },
  );

  // MergeRequest#visible_closing_issues_for: Entities::IssueBasic.
  r.get(
    `${mr}/closes_issues`,
    (rc) => {
      const { mr: m } = loadMergeRequestRoute(rc);
      const issues = (
        rc.svc.db
          .prepare('SELECT i.* FROM issues i JOIN merge_requests_closing_issues c ON c.issue_id = i.id WHERE c.merge_request_id = ? ORDER BY i.id')
          .all(m.id) as IssueRow[]
      ).filter((i) => issueReadable(rc, findProjectById(rc.svc, i.project_id)!, i));
      return issueBasics(rc, paginateArray(rc, issues));
    },
    { auth: 'optional' },
  );

  // Merge requests' related issues: those their title, description or comments mention.
  r.get(
    `${mr}/related_issues`,
    (rc) => {
      const { mr: m } = loadMergeRequestRoute(rc);
      const notes = commentBodies(rc, m.id);
      const ids = [...new Set([m.title, m.description, ...notes].flatMap((text) => referencedIssueIds(rc.svc, m.project_id, text)))];
      const issues = ids.map((id) => issueById(rc, id)).filter((i) => issueReadable(rc, findProjectById(rc.svc, i.project_id)!, i));
      return issueBasics(rc, paginateArray(rc, issues));
    },
    { auth: 'optional' },
  );

  // Subscriptions (lib/api/subscriptions.rb): 201 with the item, 304 when nothing changes.
  for (const [path, type] of [
    [issue, 'Issue'],
    [mr, 'MergeRequest'],
  ] as const) {
    for (const action of ['subscribe', 'unsubscribe'] as const) {
      r.post(`${path}/${action}`, (rc) => {
        const user = rc.requireUser();
        const row = type === 'Issue' ? loadIssueRoute(rc).issue : loadMergeRequestRoute(rc).mr;
        const want = action === 'subscribe';
        if (isSubscribed(rc.svc, { type, ...row }, user) === want) throw notModified();
        inTransaction(rc.svc.db, () => setSubscribed(rc.svc, type, row.id, user.id, want));
        return type === 'Issue' ? issueDetail(rc, issueById(rc, row.id)) : mergeRequestDetail(rc, mrById(rc, row.id));
      });
    }

    // POST .../todo (lib/api/todos.rb): the caller's own "marked" to-do; 304 when one is pending.
    r.post(`${path}/todo`, (rc) => {
      const user = rc.requireUser();
      const { project, row } =
        type === 'Issue'
          ? (({ project: p, issue: i }) => ({ project: p, row: i as IssueRow | MergeRequestRow }))(loadIssueRoute(rc))
          : (({ project: p, mr: m }) => ({ project: p, row: m as IssueRow | MergeRequestRow }))(loadMergeRequestRoute(rc));
      const created = inTransaction(rc.svc.db, () => markTodo(rc.svc, { type, id: row.id, projectId: project.id, groupId: null }, user.id));
      if (!created) throw notModified();
      return todo(rc, created);
    });
  }
}
