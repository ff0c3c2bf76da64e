import type { RequestContext, Router } from '../../../http/route';
import { paginate, limitSql } from '../../../http/pagination';
import { notFound, recordNotFound } from '../../../http/errors';
import { canReadGroup, canReadProject } from '../access';
import { issuablesAvailable } from '../feature-access';
import { type EntityContext, milestone, userBasicById } from '../entities';
import { type MilestoneRow, findMilestoneById } from '../milestones';
import { findNamespaceById } from '../namespaces';
import { findProjectById } from '../projects';
import { loadNoteable } from './notes';
import { findLabelById } from '../../labels/labels';
import { labelBasic } from '../../labels/entities';

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

interface LabelEventRow {
  id: number;
  issuable_type: 'Issue' | 'MergeRequest';
  issuable_id: number;
  user_id: number | null;
  label_id: number | null;
  action: 'add' | 'remove';
  created_at: string;
}

interface StateEventRow {
  id: number;
  issuable_type: 'Issue' | 'MergeRequest';
  issuable_id: number;
  user_id: number | null;
  state: string;
  source_commit: string | null;
  source_merge_request_id: number | null;
  created_at: string;
}

interface WeightEventRow {
  id: number;
  issue_id: number;
  user_id: number | null;
  weight: number | null;
  created_at: string;
}

/**
 * ResourceLabelEventPolicy's can_read_label: a label gone, or one the caller may read (its group's
 * read_group; its project's with issues or merge requests available). A moved or cloned issue
 * carries events of the old project's labels, which a reader of the new one may not see; an epic
 * of a group moved elsewhere, events of its old ancestors' labels.
 */
export function labelEventReadable(rc: RequestContext, e: { label_id: number | null }): boolean {
  const l = e.label_id === null ? undefined : findLabelById(rc.svc, e.label_id);
  if (!l) return true;
  if (l.project_id !== null) {
    const project = findProjectById(rc.svc, l.project_id);
    return !!project && canReadProject(rc.svc, rc.user, project) && issuablesAvailable(rc.svc, rc.user, project);
  }
  const group = findNamespaceById(rc.svc, l.group_id!);
  return !!group && canReadGroup(rc.svc, rc.user, group);
}

/** Entities::ResourceLabelEvent: `label` is null once the label is gone. */
function labelEvent(ec: EntityContext, e: LabelEventRow): Record<string, unknown> {
  const l = e.label_id === null ? undefined : findLabelById(ec.svc, e.label_id);
  return {
    id: e.id,
    user: userBasicById(ec, e.user_id),
    created_at: e.created_at,
    resource_type: e.issuable_type,
    resource_id: e.issuable_id,
    label: l ? labelBasic(l) : null,
    action: e.action,
  };
}

/** Entities::ResourceStateEvent. */
function stateEvent(ec: EntityContext, e: StateEventRow): Record<string, unknown> {
  return {
    id: e.id,
    user: userBasicById(ec, e.user_id),
    created_at: e.created_at,
    resource_type: e.issuable_type,
    resource_id: e.issuable_id,
    source_commit: e.source_commit,
    source_merge_request_id: e.source_merge_request_id,
    state: e.state,
  };
}

/** EE Entities::ResourceWeightEvent. */
function weightEvent(ec: EntityContext, e: WeightEventRow): Record<string, unknown> {
  return { id: e.id, user: userBasicById(ec, e.user_id), created_at: e.created_at, issue_id: e.issue_id, weight: e.weight };
}

/** GET list and GET one for an event table of one issuable (by the issuable's column). */
function eventRoutes<Row extends { id: number }>(
  r: Router,
  base: string,
  kind: 'issues' | 'merge_requests',
  table: string,
  where: (type: string) => { sql: string; args: (id: number) => unknown[] },
  render: (ec: EntityContext, row: Row) => Record<string, unknown>,
  /** Events the caller may not read though the issuable is readable (the entity's name for the 404). */
  hidden?: { name: string; readable: (rc: RequestContext, row: Row) => boolean },
): void {
  const load = (rc: RequestContext) => {
    rc.requireUser();
    const noteable = loadNoteable(rc, kind, rc.path.eventable_id);
    return { cond: where(noteable.type), id: noteable.id };
  };
  r.get(base, (rc) => {
    const { cond, id } = load(rc);
    return paginate(rc, {
      count: () => (rc.svc.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${cond.sql}`).get(...cond.args(id)) as { n: number }).n,
      rows: (limit, offset) => rc.svc.db.prepare(`SELECT * FROM ${table} WHERE ${cond.sql} ORDER BY id ${limitSql(limit)} OFFSET ?`).all(...cond.args(id), offset) as Row[],
    })
      // The page is cut and counted first, then what the caller may not read is left out of it (as the API's visible_to_user?).
      .filter((e) => !hidden || hidden.readable(rc, e))
      .map((e) => render(rc, e));
  });
  r.get(`${base}/:event_id`, (rc) => {
    const { cond, id } = load(rc);
    const row = rc.svc.db.prepare(`SELECT * FROM ${table} WHERE ${cond.sql} AND id = ?`).get(...cond.args(id), Number(rc.path.event_id) || 0) as Row | undefined;
    if (!row) throw recordNotFound();
    if (hidden && !hidden.readable(rc, row)) throw notFound(hidden.name);
    return render(rc, row);
  });
}

/** Resource events of issues and merge requests (lib/api/resource_*_events.rb); all need a signed-in caller. */
export function registerResourceEventRoutes(r: Router): void {
  for (const kind of ['issues', 'merge_requests'] as const) {
    const base = `/projects/:id/${kind}/:eventable_id`;
    const byIssuable = (type: string) => ({ sql: 'issuable_type = ? AND issuable_id = ?', args: (id: number) => [type, id] });
    eventRoutes<LabelEventRow>(r, `${base}/resource_label_events`, kind, 'resource_label_events', byIssuable, labelEvent, { name: 'ResourceLabelEvent', readable: labelEventReadable });
    eventRoutes<StateEventRow>(r, `${base}/resource_state_events`, kind, 'resource_state_events', byIssuable, stateEvent);
    if (kind === 'issues') {
      eventRoutes<WeightEventRow>(r, `${base}/resource_weight_events`, kind, 'resource_weight_events', () => ({ sql: 'issue_id = ?', args: (id: number) => [id] }), weightEvent);
    }

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
