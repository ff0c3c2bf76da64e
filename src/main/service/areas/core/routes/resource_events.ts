import type { RequestContext, Router } from '../../../http/route';
import { paginate } from '../../../http/pagination';
import { notFound, recordNotFound } from '../../../http/errors';
import { canReadGroup, canReadProject } from '../access';
import { type EntityContext, milestone, userBasicById } from '../entities';
import { type MilestoneRow, findMilestoneById } from '../milestones';
import { findNamespaceById } from '../namespaces';
import { findProjectById } from '../projects';
import { loadNoteable } from './notes';

interface MilestoneEventRow {
  id: number;
  issuable_type: 'Issue' | 'MergeRequest';
  issuable_id: number;
  user_id: number | null;
  milestone_id: number;
  action: 'add' | 'remove';
  state: string;
  created_at: string;
}

/** Entities::ResourceMilestoneEvent. */
function milestoneEvent(ec: EntityContext, e: MilestoneEventRow, m: MilestoneRow): Record<string, unknown> {
  return {
    id: e.id,
    user: userBasicById(ec, e.user_id),
    created_at: e.created_at,
    resource_type: e.issuable_type,
    resource_id: e.issuable_id,
    milestone: milestone(ec, m),
    action: e.action,
    state: e.state,
  };
}

/** ResourceMilestoneEventFinder: only events whose milestone the caller can read. */
function readableMilestone(rc: RequestContext, e: MilestoneEventRow): MilestoneRow | null {
  const m = findMilestoneById(rc.svc, e.milestone_id);
  if (!m) return null;
  if (m.project_id !== null) return canReadProject(rc.svc, rc.user, findProjectById(rc.svc, m.project_id)!) ? m : null;
  return canReadGroup(rc.svc, rc.user, findNamespaceById(rc.svc, m.group_id!)!) ? m : null;
}

/** Resource events of issues and merge requests (lib/api/resource_*_events.rb); all need a signed-in caller. */
export function registerResourceEventRoutes(r: Router): void {
  for (const kind of ['issues', 'merge_requests'] as const) {
    const base = `/projects/:id/${kind}/:eventable_id`;

    r.get(`${base}/resource_milestone_events`, (rc) => {
      rc.requireUser();
      const noteable = loadNoteable(rc, kind, rc.path.eventable_id);
      const events = (
        rc.svc.db
          .prepare('SELECT * FROM resource_milestone_events WHERE issuable_type = ? AND issuable_id = ? ORDER BY id')
          .all(noteable.type, noteable.id) as MilestoneEventRow[]
      )
        .map((e) => [e, readableMilestone(rc, e)] as const)
        .filter((pair): pair is readonly [MilestoneEventRow, MilestoneRow] => pair[1] !== null);
      return paginate(rc, { count: () => events.length, rows: (limit, offset) => events.slice(offset, offset + limit) }).map(([e, m]) =>
        milestoneEvent(rc, e, m),
      );
    });

    r.get(`${base}/resource_milestone_events/:event_id`, (rc) => {
      rc.requireUser();
      const noteable = loadNoteable(rc, kind, rc.path.eventable_id);
      const e = rc.svc.db
        .prepare('SELECT * FROM resource_milestone_events WHERE id = ? AND issuable_type = ? AND issuable_id = ?')
        .get(Number(rc.path.event_id) || 0, noteable.type, noteable.id) as MilestoneEventRow | undefined;
      if (!e) throw recordNotFound();
      const m = readableMilestone(rc, e);
      if (!m) throw notFound('ResourceMilestoneEvent');
      return milestoneEvent(rc, e, m);
    });
  }
}
