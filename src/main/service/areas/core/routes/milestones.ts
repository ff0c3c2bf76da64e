import { type FeatureType, featureAvailable, featureHiddenProjectIds, featureHiddenSql, issuablesAvailable } from '../feature-access';
import type { RequestContext, Router } from '../../../http/route';
import { declared, requireAtLeastOne, requireMutuallyExclusive, t } from '../../../http/params';
import { forbidden } from '../../../http/errors';
import { limitSql, paginate, paginateSql, paginateArray } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { addFilter } from '../../../db/filter';
import { Access, canReadGroup, effectiveGroupAccess, effectiveProjectAccess, loadGroup, loadProject, visibleProjectsSql } from '../access';
import { type IssueRow, type MergeRequestRow, issueBasics, mergeRequests, milestone } from '../entities';
import {
  type MilestoneParent,
  type MilestoneRow,
  createMilestone,
  findMilestoneById,
  findParentMilestone,
  recordMilestoneDestroyed,
  updateMilestone,
} from '../milestones';
import { type Namespace, ancestorsOf, findNamespaceById, selfAndDescendantIds } from '../namespaces';
import { ISSUE_WRITES, MERGE_REQUEST_WRITES, idOrderAnchors, labelPriorityRows, milestoneRecordsCount, projectScope, setIssuableMilestone } from '../workitems';
import { confidentialSql, seesConfidential } from './issues';
import { likeEscape } from './users';

/** GitLab 17.7+: Planners and up manage milestones (admin_milestone). */
const ADMIN_MILESTONE = Access.PLANNER;
const MIN_CHARS_FOR_PARTIAL_MATCHING = 3;

const listParams = () => ({
  state: t.string().values(['active', 'closed', 'all']).default('all'),
  iids: t.commaIntegers(),
  title: t.string(),
  search: t.string(),
  include_parent_milestones: t.boolean(),
  include_ancestors: t.boolean(),
  include_descendants: t.boolean(),
  updated_before: t.dateTime(),
  updated_after: t.dateTime(),
});

const milestoneFields = () => ({ description: t.string(), due_date: t.string(), start_date: t.string() });

/** /projects/:id/milestones and /groups/:id/milestones (lib/api/project_milestones.rb, group_milestones.rb). */
export function registerMilestoneRoutes(r: Router): void {
  for (const kind of ['projects', 'groups'] as const) {
    const base = `/${kind}/:id/milestones`;
    const load = (rc: RequestContext, minLevel: number = Access.NO_ACCESS): MilestoneParent => loadParent(rc, kind, minLevel);

    // before { authenticate! }: every route, public parents included.
    r.get(base, (rc) => {
      rc.requireUser();
      const parent = load(rc);
      requireMutuallyExclusive(rc.params, ['include_ancestors', 'include_parent_milestones']);
      const q = declared(rc.params, listParams());
      const owners = ownersSql(rc, parent, (q.include_ancestors ?? q.include_parent_milestones) === true, kind === 'groups' && q.include_descendants === true);
      const where = [owners.sql];
      const args = [...owners.args];
      if (q.state !== 'all') addFilter(where, args, 'm.state = ?', q.state);
      if (q.iids?.length) addFilter(where, args, `m.iid IN (${q.iids.map(() => '?').join(',')})`, ...q.iids);
      if (q.title !== undefined && q.title !== null) addFilter(where, args, 'm.title = ?', q.title);
      if (q.search) {
        const partial = q.search.length >= MIN_CHARS_FOR_PARTIAL_MATCHING;
        const value = partial ? `%${likeEscape(q.search)}%` : likeEscape(q.search);
        addFilter(where, args, "(m.title LIKE ? ESCAPE '\\' OR m.description LIKE ? ESCAPE '\\')", value, value);
      }
      if (q.updated_before) addFilter(where, args, 'm.updated_at <= ?', q.updated_before);
      if (q.updated_after) addFilter(where, args, 'm.updated_at >= ?', q.updated_after);
      const sql = `FROM milestones m WHERE ${where.join(' AND ')}`;
      // MilestonesFinder's default order: due date ascending (none last), then newest first.
      return paginate(rc, {
        count: () => (rc.svc.db.prepare(`SELECT count(*) AS n ${sql}`).get(...args) as { n: number }).n,
        rows: (limit, offset) =>
          rc.svc.db.prepare(`SELECT m.* ${sql} ORDER BY m.due_date IS NULL, m.due_date, m.id DESC ${limitSql(limit)} OFFSET ?`).all(...args, offset) as MilestoneRow[],
      }).map((m) => milestone(rc, m));
    });

    r.get(`${base}/:milestone_id`, (rc) => {
      rc.requireUser();
      return milestone(rc, findParentMilestone(rc.svc, load(rc), milestoneId(rc)));
    });

    r.post(base, (rc) => {
      rc.requireUser();
      const p = declared(rc.params, { title: t.string().required(), ...milestoneFields() });
      const parent = load(rc, ADMIN_MILESTONE);
      return milestone(rc, inTransaction(rc.svc.db, () => createMilestone(rc, parent, p)));
    });

    r.put(`${base}/:milestone_id`, (rc) => {
      rc.requireUser();
      const id = milestoneId(rc);
      const p = declared(rc.params, { title: t.string(), state_event: t.string().values(['close', 'activate']), ...milestoneFields() });
      requireAtLeastOne(rc.params, ['title', 'description', 'start_date', 'due_date', 'state_event']);
      const parent = load(rc, ADMIN_MILESTONE);
      const current = findParentMilestone(rc.svc, parent, id);
      const input = {
        title: p.title ?? undefined,
        description: p.description,
        start_date: p.start_date,
        due_date: p.due_date,
        state_event: p.state_event ?? undefined,
      };
      return milestone(rc, inTransaction(rc.svc.db, () => updateMilestone(rc, parent, current, input)));
    });

    r.delete(`${base}/:milestone_id`, (rc) => {
      const user = rc.requireUser();
      const parent = load(rc, ADMIN_MILESTONE);
      const current = findParentMilestone(rc.svc, parent, milestoneId(rc));
      inTransaction(rc.svc.db, () => {
        // Milestones::DestroyService: its issues and merge requests lose it first (with their events).
        for (const table of ['issues', 'merge_requests'] as const) {
          const rows = rc.svc.db.prepare(`SELECT * FROM ${table} WHERE milestone_id = ?`).all(current.id) as (IssueRow | MergeRequestRow)[];
          for (const row of rows) setIssuableMilestone(rc, table === 'issues' ? 'Issue' : 'MergeRequest', row, null, user.id);
        }
        recordMilestoneDestroyed(rc, parent, current);
        rc.svc.db.prepare('DELETE FROM milestones WHERE id = ?').run(current.id);
      });
      return undefined;
    });

    // A project milestone's records are counted from the project's counters, and its deep pages
    // start after a row an earlier page read; a group milestone's (many projects) are counted up
    // to COUNT_LIMIT + 1, as every list is.
    r.get(`${base}/:milestone_id/issues`, (rc) => {
      rc.requireUser();
      const parent = load(rc);
      const m = findParentMilestone(rc.svc, parent, milestoneId(rc));
      // IssuesFinder with the project: none where the caller may not use its issues.
      if (parent.kind === 'project' && !featureAvailable(rc.svc, rc.user, parent.project, 'Issue')) return issueBasics(rc, paginateArray(rc, [] as IssueRow[]));
      const scope = issuableScope(rc, parent, 'Issue');
      const conf = confidentialSql(rc);
      const from = `FROM issues x WHERE x.milestone_id = ? AND ${scope.sql} AND ${conf.sql}`;
      const args = [m.id, ...scope.args, ...conf.args];
      const seesAll = parent.kind === 'project' && seesConfidential(rc, projectScope(parent.project));
      const countFrom = parent.kind === 'project' ? milestoneRecordsCount(rc, 'Issue', parent.project.id, m.id, seesAll) : undefined;
      // GitLab's order for a milestone's records (label priority, then id), when any carries a prioritized label.
      const rows = labelPriorityRows<IssueRow>(rc, 'Issue', scope.projects(), m.id, { from, args });
      const anchors = parent.kind === 'project' && !rows ? idOrderAnchors<IssueRow>(rc, 'Issue', parent.project.id, { from, args }, seesAll) : undefined;
      return issueBasics(rc, paginateSql<IssueRow>(rc, rc.svc.db, { select: 'x.*', from, args, order: 'x.id DESC', countFrom, anchors, rows, byId: { log: ISSUE_WRITES, idColumn: 'x.id' } }));
    });

    r.get(`${base}/:milestone_id/merge_requests`, (rc) => {
      rc.requireUser();
      const parent = load(rc);
      const m = findParentMilestone(rc.svc, parent, milestoneId(rc));
      if (parent.kind === 'project' && !featureAvailable(rc.svc, rc.user, parent.project, 'MergeRequest')) return mergeRequests(rc, paginateArray(rc, [] as MergeRequestRow[]));
      const scope = issuableScope(rc, parent, 'MergeRequest');
      const from = `FROM merge_requests x WHERE x.milestone_id = ? AND ${scope.sql}`;
      const args = [m.id, ...scope.args];
      const countFrom = parent.kind === 'project' ? milestoneRecordsCount(rc, 'MergeRequest', parent.project.id, m.id, true) : undefined;
      const rows = labelPriorityRows<MergeRequestRow>(rc, 'MergeRequest', scope.projects(), m.id, { from, args });
      const anchors = parent.kind === 'project' && !rows ? idOrderAnchors<MergeRequestRow>(rc, 'MergeRequest', parent.project.id, { from, args }, true) : undefined;
      return mergeRequests(rc, paginateSql<MergeRequestRow>(rc, rc.svc.db, { select: 'x.*', from, args, order: 'x.id DESC', countFrom, anchors, rows, byId: { log: MERGE_REQUEST_WRITES, idColumn: 'x.id' } }));
    });
  }

  // Milestones::PromoteService: the project milestone becomes a milestone of the project's group;
  // every project milestone of that group with the same title merges into it.
  r.post('/projects/:id/milestones/:milestone_id/promote', (rc) => {
    const user = rc.requireUser();
    const project = loadProject(rc, ADMIN_MILESTONE);
    if (!issuablesAvailable(rc.svc, rc.user, project)) throw forbidden();
    const ns = findNamespaceById(rc.svc, project.namespace_id)!;
    if (ns.kind !== 'group' || effectiveGroupAccess(rc.svc, user, ns) < ADMIN_MILESTONE) throw forbidden();
    const current = findParentMilestone(rc.svc, { kind: 'project', project }, milestoneId(rc));
    inTransaction(rc.svc.db, () => {
      const siblings = rc.svc.db
        .prepare('SELECT * FROM milestones WHERE title = ? AND project_id IN (SELECT id FROM projects WHERE namespace_id = ?) ORDER BY id')
        .all(current.title, ns.id) as MilestoneRow[];
      const iid = (rc.svc.db.prepare('SELECT coalesce(max(iid), 0) + 1 AS n FROM milestones WHERE group_id = ?').get(ns.id) as { n: number }).n;
      const info = rc.svc.db
        .prepare(
          `INSERT INTO milestones (iid, group_id, title, description, state, start_date, due_date, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(iid, ns.id, current.title, current.description, current.state, current.start_date, current.due_date, current.created_at, rc.svc.now().toISOString());
      const promoted = findMilestoneById(rc.svc, Number(info.lastInsertRowid))!;
      for (const s of siblings) {
        rc.svc.db.prepare('UPDATE issues SET milestone_id = ? WHERE milestone_id = ?').run(promoted.id, s.id);
        rc.svc.db.prepare('UPDATE merge_requests SET milestone_id = ? WHERE milestone_id = ?').run(promoted.id, s.id);
        rc.svc.db.prepare('UPDATE resource_milestone_events SET milestone_id = ? WHERE milestone_id = ?').run(promoted.id, s.id);
        rc.svc.db.prepare('DELETE FROM milestones WHERE id = ?').run(s.id);
      }
    });
    rc.status = 200;
    return 200;
  });
}

/** `:milestone_id` is declared Integer: anything else is Grape's 400. */
function milestoneId(rc: RequestContext): string {
  declared({ milestone_id: rc.path.milestone_id }, { milestone_id: t.integer() });
  return rc.path.milestone_id;
}

function loadParent(rc: RequestContext, kind: 'projects' | 'groups', minLevel: number): MilestoneParent {
  if (kind === 'projects') {
    const project = loadProject(rc);
    // `authorize! :read_milestone` (and admin_milestone): neither issues nor merge requests available is a 403.
    if (!issuablesAvailable(rc.svc, rc.user, project)) throw forbidden();
    if (minLevel > Access.NO_ACCESS && effectiveProjectAccess(rc.svc, rc.user, project) < minLevel) throw forbidden();
    return { kind: 'project', project };
  }
  const group = loadGroup(rc);
  if (minLevel > Access.NO_ACCESS && effectiveGroupAccess(rc.svc, rc.user, group) < minLevel) throw forbidden();
  return { kind: 'group', group };
}

/**
 * Which milestones a list covers (on alias `m`): the parent's own, plus its groups above
 * (`include_ancestors`) and, for a group, the groups and projects below (`include_descendants`).
 */
function ownersSql(rc: RequestContext, parent: MilestoneParent, ancestors: boolean, descendants: boolean): { sql: string; args: unknown[] } {
  const readable = (groups: Namespace[]) => groups.filter((g) => canReadGroup(rc.svc, rc.user, g)).map((g) => g.id);
  if (parent.kind === 'project') {
    const ns = findNamespaceById(rc.svc, parent.project.namespace_id)!;
    if (!ancestors || ns.kind !== 'group') return { sql: 'm.project_id = ?', args: [parent.project.id] };
    const groups = [ns, ...ancestorsOf(rc.svc, ns)].map((g) => g.id);
    return { sql: `(m.project_id = ? OR m.group_id IN (${groups.map(() => '?').join(',')}))`, args: [parent.project.id, ...groups] };
  }
  const group = parent.group;
  if (!ancestors && !descendants) return { sql: 'm.group_id = ?', args: [group.id] };
  const ids = new Set<number>([group.id]);
  if (ancestors) for (const id of readable(ancestorsOf(rc.svc, group))) ids.add(id);
  const below = descendants ? selfAndDescendantIds(rc.svc, group.id) : [];
  if (descendants) {
    for (const id of below) if (canReadGroup(rc.svc, rc.user, findNamespaceById(rc.svc, id)!)) ids.add(id);
  }
  const groupIds = [...ids];
  let sql = `m.group_id IN (${groupIds.map(() => '?').join(',')})`;
  const args: unknown[] = [...groupIds];
  if (descendants) {
    const vis = visibleProjectsSql(rc.svc, rc.user);
    sql = `(${sql} OR m.project_id IN (SELECT p.id FROM projects p WHERE p.namespace_id IN (${below.map(() => '?').join(',')}) AND ${vis.sql}))`;
    args.push(...below, ...vis.args);
  }
  return { sql, args };
}

/** The issues or merge requests a milestone's lists may show: the project's, or the visible ones below the group (`projects`: theirs). */
/** The milestone's records' projects: the project, or the group tree's projects the caller sees (those whose `type` they may not use left out: feature-access.ts). */
function issuableScope(rc: RequestContext, parent: MilestoneParent, type: FeatureType): { sql: string; args: unknown[]; projects: () => number[] } {
  if (parent.kind === 'project') return { sql: 'x.project_id = ?', args: [parent.project.id], projects: () => [parent.project.id] };
  const ids = selfAndDescendantIds(rc.svc, parent.group.id);
  const vis = visibleProjectsSql(rc.svc, rc.user);
  const hidden = featureHiddenSql(featureHiddenProjectIds(rc.svc, rc.user, type));
  const projects = `SELECT p.id FROM projects p WHERE p.namespace_id IN (${ids.map(() => '?').join(',')}) AND ${vis.sql}${hidden}`;
  const args = [...ids, ...vis.args];
  return {
    sql: `x.project_id IN (${projects})`,
    args,
    projects: () => (rc.svc.db.prepare(projects).all(...args) as { id: number }[]).map((r) => r.id),
  };
}
