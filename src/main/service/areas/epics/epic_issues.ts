import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { ApiError, forbidden, grapeError, notFound } from '../../http/errors';
import { paginate } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { effectiveGroupAccess, loadGroup } from '../core/access';
import { type IssueRow, issue, issues, withFields } from '../core/entities';
import { findProjectById } from '../core/projects';
import { type Namespace, selfAndDescendantIds } from '../core/namespaces';
import { issueReadable } from '../core/routes/issues';
import { isoTime } from '../core/time';
import { epic } from './entities';
import { ADMIN_EPIC, type EpicRow, canReadEpic, findEpicByIid } from './epics';

interface EpicIssueRow {
  id: number;
  epic_id: number;
  issue_id: number;
  relative_position: number;
  created_at: string;
}

/** Room between positions, so a move rarely has to renumber. */
const GAP = 1000;

function loadEpicFor(rc: RequestContext, group: Namespace): EpicRow {
  if (!/^\d+$/.test(rc.path.epic_iid)) throw grapeError(400, 'epic_iid is invalid');
  const e = findEpicByIid(rc.svc, group, Number(rc.path.epic_iid));
  if (!e || !canReadEpic(rc.svc, rc.user, e)) throw notFound('Epic');
  return e;
}

function requireAdmin(rc: RequestContext, group: Namespace): void {
  if (effectiveGroupAccess(rc.svc, rc.user, group) < ADMIN_EPIC) throw forbidden();
}

function issueOf(rc: RequestContext, id: number): IssueRow | undefined {
  return rc.svc.db.prepare('SELECT * FROM issues WHERE id = ?').get(id) as IssueRow | undefined;
}

/** EpicIssue of each link: the issue (Entities::Issue, built for the page at once) with its link id and position. */
function epicIssues(rc: RequestContext, page: { l: EpicIssueRow; row: IssueRow }[]): Record<string, unknown>[] {
  const entities = issues(rc, page.map((x) => x.row));
  return page.map(({ l }, k) => withFields(entities[k], { epic_issue_id: l.id, relative_position: l.relative_position }));
}

/** EpicIssueLink: the link with both ends. */
function epicIssueLink(rc: RequestContext, link: EpicIssueRow, e: EpicRow, group: Namespace): Record<string, unknown> {
  return { id: link.id, relative_position: link.relative_position, epic: epic(rc, e, { from: group }), issue: issue(rc, issueOf(rc, link.issue_id)!) };
}

function links(rc: RequestContext, e: EpicRow): EpicIssueRow[] {
  return rc.svc.db.prepare('SELECT * FROM epic_issues WHERE epic_id = ? ORDER BY relative_position, id').all(e.id) as EpicIssueRow[];
}

function loadLink(rc: RequestContext, e: EpicRow): EpicIssueRow {
  const link = /^\d+$/.test(rc.path.epic_issue_id)
    ? (rc.svc.db.prepare('SELECT * FROM epic_issues WHERE id = ? AND epic_id = ?').get(Number(rc.path.epic_issue_id), e.id) as EpicIssueRow | undefined)
    : undefined;
  if (!link) throw notFound('EpicIssue');
  return link;
}

/** Issues of an epic (`_links.epic_issues`), assigning and unassigning, and reordering. */
export function registerEpicIssueRoutes(r: Router): void {
  for (const prefix of ['/groups/:id/epics', '/groups/:id/-/epics']) {
    const base = `${prefix}/:epic_iid/issues`;

    r.get(
      base,
      (rc) => {
        const group = loadGroup(rc);
        const e = loadEpicFor(rc, group);
        const visible = links(rc, e)
          .map((l) => ({ l, row: issueOf(rc, l.issue_id)! }))
          .filter(({ row }) => {
            const project = findProjectById(rc.svc, row.project_id);
            return !!project && issueReadable(rc, project, row);
          });
        return epicIssues(
          rc,
          paginate(rc, { count: () => visible.length, rows: (limit, offset) => visible.slice(offset, offset + limit) }),
        );
      },
      { auth: 'optional' },
    );

    r.post(`${base}/:issue_id`, (rc) => {
      rc.requireUser();
      const group = loadGroup(rc);
      const e = loadEpicFor(rc, group);
      requireAdmin(rc, group);
      const row = /^\d+$/.test(rc.path.issue_id) ? issueOf(rc, Number(rc.path.issue_id)) : undefined;
      const project = row ? findProjectById(rc.svc, row.project_id) : undefined;
      if (!row || !project || !issueReadable(rc, project, row)) throw notFound('Issue');
      if (!selfAndDescendantIds(rc.svc, e.group_id).includes(project.namespace_id)) {
        throw new ApiError(404, { message: 'No matching issue found. Make sure that you are adding a valid issue URL.' });
      }
      const existing = rc.svc.db.prepare('SELECT * FROM epic_issues WHERE issue_id = ?').get(row.id) as EpicIssueRow | undefined;
      if (existing?.epic_id === e.id) throw new ApiError(409, { message: 'Issue(s) already assigned' });
      const link = inTransaction(rc.svc.db, () => {
        // An issue has one epic: assigning it elsewhere moves it.
        if (existing) rc.svc.db.prepare('DELETE FROM epic_issues WHERE id = ?').run(existing.id);
        const last = rc.svc.db.prepare('SELECT max(relative_position) AS p FROM epic_issues WHERE epic_id = ?').get(e.id) as { p: number | null };
        const info = rc.svc.db
          .prepare('INSERT INTO epic_issues (epic_id, issue_id, relative_position, created_at) VALUES (?, ?, ?, ?)')
          .run(e.id, row.id, (last.p ?? 0) + GAP, isoTime(rc.svc.now()));
        return rc.svc.db.prepare('SELECT * FROM epic_issues WHERE id = ?').get(Number(info.lastInsertRowid)) as EpicIssueRow;
      });
      return epicIssueLink(rc, link, e, group);
    });

    r.delete(`${base}/:epic_issue_id`, (rc) => {
      rc.requireUser();
      const group = loadGroup(rc);
      const e = loadEpicFor(rc, group);
      requireAdmin(rc, group);
      const link = loadLink(rc, e);
      const out = epicIssueLink(rc, link, e, group);
      rc.svc.db.prepare('DELETE FROM epic_issues WHERE id = ?').run(link.id);
      rc.status = 200;
      return out;
    });

    r.put(`${base}/:epic_issue_id`, (rc) => {
      rc.requireUser();
      const group = loadGroup(rc);
      const e = loadEpicFor(rc, group);
      requireAdmin(rc, group);
      const link = loadLink(rc, e);
      const p = declared(rc.params, { move_before_id: t.integer(), move_after_id: t.integer() });
      inTransaction(rc.svc.db, () => {
        const order = links(rc, e).filter((l) => l.id !== link.id);
        // move_before_id: the link that should come before this one; move_after_id: the one after.
        let index = order.length;
        if (p.move_before_id != null) {
          const i = order.findIndex((l) => l.id === p.move_before_id);
          if (i >= 0) index = i + 1;
        } else if (p.move_after_id != null) {
          const i = order.findIndex((l) => l.id === p.move_after_id);
          if (i >= 0) index = i;
        }
        order.splice(index, 0, link);
        const update = rc.svc.db.prepare('UPDATE epic_issues SET relative_position = ? WHERE id = ?');
        order.forEach((l, i) => update.run((i + 1) * GAP, l.id));
      });
      return epicIssues(rc, links(rc, e).map((l) => ({ l, row: issueOf(rc, l.issue_id)! })));
    });
  }
}
