import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { apiError, recordNotFound } from '../../../http/errors';
import { inTransaction } from '../../../db/connection';
import { Access, effectiveProjectAccess, loadProject } from '../access';
import { type EntityContext, type IssueRow, issueBasic, issues, withFields } from '../entities';
import { createNote } from '../notes';
import { findProjectById } from '../projects';
import { findIssue } from '../workitems';
import { isoTime } from '../time';
import { canReadIssue, issueReadable } from './issues';

interface IssueLinkRow {
  id: number;
  source_id: number;
  target_id: number;
  link_type: 'relates_to' | 'blocks';
  created_at: string;
  updated_at: string;
}

const LINK_TYPES = ['relates_to', 'blocks', 'is_blocked_by'] as const;

/** find_project_issue(iid, project_id): an issue the caller can see, else 404 Not found. */
function findVisibleIssue(rc: RequestContext, iid: string, projectRef = rc.path.id): IssueRow {
  const project = loadProject(rc, undefined, projectRef);
  const i = findIssue(rc, project, iid);
  if (!canReadIssue(rc, project, i)) throw recordNotFound();
  return i;
}

const issueById = (rc: RequestContext, id: number): IssueRow => rc.svc.db.prepare('SELECT * FROM issues WHERE id = ?').get(id) as IssueRow;

/** Entities::IssueLink. */
function issueLink(ec: EntityContext, l: IssueLinkRow, svcIssue: (id: number) => IssueRow): Record<string, unknown> {
  return { source_issue: issueBasic(ec, svcIssue(l.source_id)), target_issue: issueBasic(ec, svcIssue(l.target_id)), link_type: l.link_type };
}

/** The relation as seen from `issueId`: a "blocks" link pointing at it reads "is_blocked_by". */
function linkTypeFrom(l: IssueLinkRow, issueId: number): string {
  return l.link_type === 'blocks' && l.target_id === issueId ? 'is_blocked_by' : l.link_type;
}

/** A reference to an issue as seen from another issue: `#1` in the same project, `group/project#1` elsewhere. */
function referenceFrom(rc: RequestContext, target: IssueRow, from: IssueRow): string {
  if (target.project_id === from.project_id) return `#${target.iid}`;
  const row = rc.svc.db
    .prepare("SELECT n.full_path || '/' || p.path AS path FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE p.id = ?")
    .get(target.project_id) as { path: string };
  return `${row.path}#${target.iid}`;
}

/** SystemNoteService.relate_issuable / unrelate_issuable on one side of a link. */
function linkNote(rc: RequestContext, on: IssueRow, other: IssueRow, body: string): void {
  createNote(rc, { type: 'Issue', id: on.id, iid: on.iid, title: on.title, projectId: on.project_id }, {
    body: body.replace('%REF%', referenceFrom(rc, other, on)),
    authorId: rc.requireUser().id,
    system: true,
  });
}

/** admin_issue_link: Guests and up of the issue's project. */
const canLink = (rc: RequestContext, i: IssueRow): boolean =>
  effectiveProjectAccess(rc.svc, rc.user, findProjectById(rc.svc, i.project_id)!) >= Access.GUEST;

/** /projects/:id/issues/:issue_iid/links (lib/api/issue_links.rb); every route needs a signed-in caller. */
export function registerIssueLinkRoutes(r: Router): void {
  const base = '/projects/:id/issues/:issue_iid/links';
  const iidParam = (rc: RequestContext) => {
    declared({ issue_iid: rc.path.issue_iid }, { issue_iid: t.integer() });
    return rc.path.issue_iid;
  };

  r.get(base, (rc) => {
    rc.requireUser();
    const source = findVisibleIssue(rc, iidParam(rc));
    const links = rc.svc.db
      .prepare('SELECT * FROM issue_links WHERE source_id = ? OR target_id = ? ORDER BY created_at, id')
      .all(source.id, source.id) as IssueLinkRow[];
    const visible: { l: IssueLinkRow; other: IssueRow }[] = [];
    for (const l of links) {
      const other = issueById(rc, l.source_id === source.id ? l.target_id : l.source_id);
      if (issueReadable(rc, findProjectById(rc.svc, other.project_id)!, other)) visible.push({ l, other });
    }
    // The linked issues' entities built at once (one batch of counts, not one per link).
    const entities = issues(rc, visible.map((x) => x.other));
    return visible.map(({ l }, k) =>
      withFields(entities[k], {
        issue_link_id: l.id,
        link_type: linkTypeFrom(l, source.id),
        link_created_at: l.created_at,
        link_updated_at: l.updated_at,
      }),
    );
  });

  r.post(base, (rc) => {
    rc.requireUser();
    const p = declared(rc.params, {
      target_project_id: t.idOrPath().required(),
      target_issue_iid: t.idOrPath().required(),
      link_type: t.string().values(LINK_TYPES),
    });
    const source = findVisibleIssue(rc, iidParam(rc));
    const target = findVisibleIssue(rc, p.target_issue_iid, p.target_project_id);
    const linked = rc.svc.db
      .prepare('SELECT * FROM issue_links WHERE (source_id = ? AND target_id = ?) OR (source_id = ? AND target_id = ?)')
      .get(source.id, target.id, target.id, source.id) as IssueLinkRow | undefined;
    if (linked || target.id === source.id) throw apiError(409, 'Issue(s) already assigned');
    if (!canLink(rc, target)) throw apiError(403, "Couldn't link issue. You must have at least the Guest role in both projects.");
    const type = p.link_type ?? 'relates_to';
    // IssueLinks::CreateService: "is_blocked_by" is kept as the target blocking the source.
    const [from, to] = type === 'is_blocked_by' ? [target, source] : [source, target];
    const row = inTransaction(rc.svc.db, () => {
      const now = isoTime(rc.svc.now());
      const info = rc.svc.db
        .prepare('INSERT INTO issue_links (source_id, target_id, link_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
        .run(from.id, to.id, type === 'relates_to' ? 'relates_to' : 'blocks', now, now);
      const verb = type === 'relates_to' ? ['marked this issue as related to %REF%', 'marked this issue as related to %REF%'] : ['marked this issue as blocking %REF%', 'marked this issue as blocked by %REF%'];
      linkNote(rc, from, to, verb[0]);
      linkNote(rc, to, from, verb[1]);
      return rc.svc.db.prepare('SELECT * FROM issue_links WHERE id = ?').get(Number(info.lastInsertRowid)) as IssueLinkRow;
    });
    return issueLink(rc, row, (id) => issueById(rc, id));
  });

  const loadLink = (rc: RequestContext): { source: IssueRow; link: IssueLinkRow } => {
    rc.requireUser();
    const source = findVisibleIssue(rc, iidParam(rc));
    const link = /^\d+$/.test(rc.path.issue_link_id)
      ? (rc.svc.db
          .prepare('SELECT * FROM issue_links WHERE id = ? AND (source_id = ? OR target_id = ?)')
          .get(Number(rc.path.issue_link_id), source.id, source.id) as IssueLinkRow | undefined)
      : undefined;
    if (!link) throw recordNotFound();
    // find_project_issue on the link's target: it must be visible too.
    const target = issueById(rc, link.target_id);
    if (!issueReadable(rc, findProjectById(rc.svc, target.project_id)!, target)) throw recordNotFound();
    return { source, link };
  };

  r.get(`${base}/:issue_link_id`, (rc) => issueLink(rc, loadLink(rc).link, (id) => issueById(rc, id)));

  r.delete(`${base}/:issue_link_id`, (rc) => {
    const { link } = loadLink(rc);
    const from = issueById(rc, link.source_id);
    const to = issueById(rc, link.target_id);
    if (!canLink(rc, from) && !canLink(rc, to)) throw apiError(404, 'No Issue Link found');
    const entity = issueLink(rc, link, (id) => issueById(rc, id));
    inTransaction(rc.svc.db, () => {
      rc.svc.db.prepare('DELETE FROM issue_links WHERE id = ?').run(link.id);
      linkNote(rc, from, to, 'removed the relation with %REF%');
      linkNote(rc, to, from, 'removed the relation with %REF%');
    });
    rc.status = 200;
    return entity;
  });
}
