import type { ServiceContext } from '../../context';
import type { RequestContext } from '../../http/route';
import { type ApiError, forbidden, notFound } from '../../http/errors';
import { readUnremembered } from '../../db/connection';
import type { User } from './users';
import { type Namespace, findGroupByRef, findNamespaceById } from './namespaces';
import { type Project, findProjectById, findProjectByRef } from './projects';
import { today } from './time';
import { groupShareLevel, projectShareLevel, sharedGroupRoots, sharedProjectIds } from './group-links';

/** GitLab's access levels. */
export const Access = {
  NO_ACCESS: 0,
  MINIMAL_ACCESS: 5,
  GUEST: 10,
  PLANNER: 15,
  REPORTER: 20,
  DEVELOPER: 30,
  MAINTAINER: 40,
  OWNER: 50,
} as const;

export const ACCESS_LEVEL_VALUES = [0, 5, 10, 15, 20, 30, 40, 50] as const;
/** Levels a member can hold (no "no access"). */
export const MEMBER_ACCESS_LEVELS = [5, 10, 15, 20, 30, 40, 50] as const;
export const PROJECT_MEMBER_ACCESS_LEVELS = [10, 15, 20, 30, 40, 50] as const;

/** SQL condition for a member row that grants access today (not a request, not an invite, not expired). */
export const ACTIVE_MEMBER_SQL = `m.user_id IS NOT NULL AND m.requested_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > ?)`;

/**
 * The user's own level in a group, inherited down from ancestor groups (max wins). The ancestors
 * come first (CROSS JOIN keeps SQLite to that order) and each is looked up by (group, user): left
 * to itself SQLite read all of the user's memberships by user_id (12,000 for an administrator who
 * created the projects: ~2 ms for every project entity of a group after each write).
 */
export function groupAccessLevel(svc: ServiceContext, userId: number, groupId: number): number {
  const row = svc.db
    .prepare(
      `WITH RECURSIVE anc(id, parent_id) AS (
         SELECT id, parent_id FROM namespaces WHERE id = ?
         UNION ALL SELECT n.id, n.parent_id FROM namespaces n JOIN anc ON n.id = anc.parent_id)
       SELECT max(m.access_level) AS level FROM anc CROSS JOIN members m ON m.source_type = 'Namespace' AND m.source_id = anc.id
       WHERE m.user_id = ? AND ${ACTIVE_MEMBER_SQL}`,
    )
    .get(groupId, userId, today(svc)) as { level: number | null };
  // A group shared with a group the user belongs to (core/172): none read without shares.
  return Math.max(row.level ?? Access.NO_ACCESS, groupShareLevel(svc, userId, groupId));
}

/** The user's own level in a project: its membership, or the group's (inherited). */
export function projectAccessLevel(svc: ServiceContext, userId: number, project: Project): number {
  const own = svc.db
    .prepare(
      `SELECT max(m.access_level) AS level FROM members m
       WHERE m.source_type = 'Project' AND m.source_id = ? AND m.user_id = ? AND ${ACTIVE_MEMBER_SQL}`,
    )
    .get(project.id, userId, today(svc)) as { level: number | null };
  const ns = findNamespaceById(svc, project.namespace_id);
  let inherited: number = Access.NO_ACCESS;
  if (ns?.kind === 'group') inherited = groupAccessLevel(svc, userId, ns.id);
  else if (ns?.owner_id === userId) inherited = Access.OWNER;
  const shared = ns ? projectShareLevel(svc, project.id, ns, (groupId) => groupAccessLevel(svc, userId, groupId)) : Access.NO_ACCESS;
  return Math.max(own.level ?? Access.NO_ACCESS, inherited, shared);
}

/** Level used for permission checks: admins act as owners everywhere. */
export function effectiveProjectAccess(svc: ServiceContext, user: User | null, project: Project): number {
  if (!user) return Access.NO_ACCESS;
  if (user.admin) return Access.OWNER;
  return projectAccessLevel(svc, user.id, project);
}

export function effectiveGroupAccess(svc: ServiceContext, user: User | null, group: Namespace): number {
  if (!user) return Access.NO_ACCESS;
  if (user.admin) return Access.OWNER;
  return groupAccessLevel(svc, user.id, group.id);
}

export function canReadProject(svc: ServiceContext, user: User | null, project: Project): boolean {
  if (project.visibility === 'public') return true;
  if (!user) return false;
  if (user.admin) return true;
  if (project.visibility === 'internal' && !user.external) return true;
  return projectAccessLevel(svc, user.id, project) >= Access.GUEST;
}

export function canReadGroup(svc: ServiceContext, user: User | null, group: Namespace): boolean {
  if (group.visibility === 'public') return true;
  if (!user) return false;
  if (user.admin) return true;
  if (group.visibility === 'internal' && !user.external) return true;
  if (groupAccessLevel(svc, user.id, group.id) >= Access.MINIMAL_ACCESS) return true;
  // Members of a subgroup or project below can see the path down to it.
  const below = svc.db
    .prepare(
      `WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT n.id FROM namespaces n JOIN tree ON n.parent_id = tree.id)
       SELECT 1 FROM members m WHERE ${ACTIVE_MEMBER_SQL} AND m.user_id = ? AND (
         (m.source_type = 'Namespace' AND m.source_id IN (SELECT id FROM tree)) OR
         (m.source_type = 'Project' AND m.source_id IN (SELECT id FROM projects WHERE namespace_id IN (SELECT id FROM tree))))
       LIMIT 1`,
    )
    .get(group.id, today(svc), user.id);
  return !!below || sharedBelow(svc, user, group);
}

/** Whether a group or project shared with the user's groups (core/172) is in the group or below it. */
function sharedBelow(svc: ServiceContext, user: User, group: Namespace): boolean {
  const roots = sharedGroupRoots(svc, user.id, Access.GUEST);
  const projects = sharedProjectIds(svc, user.id, Access.GUEST, (groupId) => groupAccessLevel(svc, user.id, groupId));
  if (!roots.length && !projects.length) return false;
  const found = svc.db
    .prepare(
      `WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT n.id FROM namespaces n JOIN tree ON n.parent_id = tree.id)
       SELECT 1 WHERE EXISTS (SELECT 1 FROM tree WHERE id IN (SELECT value FROM json_each(?)))
         OR EXISTS (SELECT 1 FROM projects WHERE id IN (SELECT value FROM json_each(?)) AND namespace_id IN (SELECT id FROM tree))`,
    )
    .get(group.id, JSON.stringify(roots), JSON.stringify(projects));
  return !!found;
}

/**
 * SQL condition on `p` (a projects row) for "the user can see this project", with its arguments.
 * Used by every list that must hide private projects.
 */
export function visibleProjectsSql(svc: ServiceContext, user: User | null, alias = 'p'): { sql: string; args: unknown[] } {
  // `+visibility`: no list is planned through projects_visibility (core/050), which serves the
  // counts of /projects?visibility= only (see ListWhere).
  if (!user) return { sql: `+${alias}.visibility = 'public'`, args: [] };
  if (user.admin) return { sql: '1 = 1', args: [] };
  const levels = user.external ? `('public')` : `('public', 'internal')`;
  const shared = sharedProjectsSql(svc, user, alias, Access.GUEST);
  return {
    sql: `(+${alias}.visibility IN ${levels}
      OR ${alias}.id IN (SELECT m.source_id FROM members m WHERE m.source_type = 'Project' AND m.user_id = ? AND ${ACTIVE_MEMBER_SQL})
      OR ${alias}.namespace_id IN (
        WITH RECURSIVE ug(id) AS (
          SELECT m.source_id FROM members m WHERE m.source_type = 'Namespace' AND m.user_id = ? AND ${ACTIVE_MEMBER_SQL}
          UNION SELECT n.id FROM namespaces n JOIN ug ON n.parent_id = ug.id)
        SELECT id FROM ug)
      OR ${alias}.namespace_id IN (SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = ?)${shared.sql})`,
    args: [user.id, today(svc), user.id, today(svc), user.id, ...shared.args],
  };
}

/**
 * SQL condition on `p` for "the user's effective level here is at least `minLevel`" (direct,
 * through any ancestor group, or as owner of the personal namespace). Effective level is the max
 * over these sources, so a source qualifies on its own. Admins qualify everywhere.
 */
export function memberProjectsSql(svc: ServiceContext, user: User, alias = 'p', minLevel: number = Access.MINIMAL_ACCESS): { sql: string; args: unknown[] } {
  if (user.admin) return { sql: '1 = 1', args: [] };
  const shared = sharedProjectsSql(svc, user, alias, minLevel);
  return {
    sql: `(${alias}.id IN (SELECT m.source_id FROM members m WHERE m.source_type = 'Project' AND m.user_id = ? AND m.access_level >= ? AND ${ACTIVE_MEMBER_SQL})
      OR ${alias}.namespace_id IN (
        WITH RECURSIVE ug(id) AS (
          SELECT m.source_id FROM members m WHERE m.source_type = 'Namespace' AND m.user_id = ? AND m.access_level >= ? AND ${ACTIVE_MEMBER_SQL}
          UNION SELECT n.id FROM namespaces n JOIN ug ON n.parent_id = ug.id)
        SELECT id FROM ug)
      OR ${alias}.namespace_id IN (SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = ?)${shared.sql})`,
    args: [user.id, minLevel, today(svc), user.id, minLevel, today(svc), user.id, ...shared.args],
  };
}

/**
 * The projects a user reaches at `minLevel` through shares (core/172), as more alternatives of the
 * conditions above (` OR ...`): those in a group shared with one of their groups (and its
 * subgroups), and those shared with a group they reach. Nothing where no share reaches the user,
 * so their lists read as before.
 */
function sharedProjectsSql(svc: ServiceContext, user: User, alias: string, minLevel: number): { sql: string; args: unknown[] } {
  const roots = sharedGroupRoots(svc, user.id, minLevel);
  const projects = sharedProjectIds(svc, user.id, minLevel, (groupId) => groupAccessLevel(svc, user.id, groupId));
  let sql = '';
  const args: unknown[] = [];
  if (roots.length) {
    sql += `
      OR ${alias}.namespace_id IN (
        WITH RECURSIVE sg(id) AS (SELECT value FROM json_each(?) UNION SELECT n.id FROM namespaces n JOIN sg ON n.parent_id = sg.id)
        SELECT id FROM sg)`;
    args.push(JSON.stringify(roots));
  }
  if (projects.length) {
    sql += `
      OR ${alias}.id IN (SELECT value FROM json_each(?))`;
    args.push(JSON.stringify(projects));
  }
  return { sql, args };
}

/**
 * SQL condition on `g` (a namespaces row) for "the user's level in this group is at least
 * `minLevel`": a membership of it or a group above it, or a share of it or a group above it with
 * one of their groups (core/172). The groups lists' membership condition.
 */
export function memberGroupsSql(svc: ServiceContext, user: User, minLevel: number, alias = 'g'): { sql: string; args: unknown[] } {
  const roots = sharedGroupRoots(svc, user.id, minLevel);
  const shared = roots.length ? ' UNION SELECT value FROM json_each(?)' : '';
  return {
    sql: `${alias}.id IN (
          WITH RECURSIVE ug(id) AS (
            SELECT m.source_id FROM members m WHERE m.source_type = 'Namespace' AND m.user_id = ? AND m.access_level >= ? AND ${ACTIVE_MEMBER_SQL}${shared}
            UNION SELECT n.id FROM namespaces n JOIN ug ON n.parent_id = ug.id)
          SELECT id FROM ug)`,
    args: roots.length ? [user.id, minLevel, today(svc), JSON.stringify(roots)] : [user.id, minLevel, today(svc)],
  };
}

/**
 * GroupsFinder's sets as SQL conditions on `g` (a namespaces row), for GET /groups and the like.
 * owned=true: the groups the user is a direct Owner of (User#owned_groups, no subgroups).
 * min_access_level: the user's direct memberships at that level or above and the groups below
 * them (groups_with_min_access_level: no shares). Otherwise, what the user is authorized for
 * (User#authorized_groups) and every group above it: member groups and the groups below them, the
 * groups shared with their groups (core/172) and below, and the groups of the projects they are
 * members of or reach through a project share.
 */
export function groupsFinderSql(svc: ServiceContext, user: User, set: { owned?: boolean; minLevel?: number }, alias = 'g'): { sql: string; args: unknown[] } {
  const direct = `SELECT m.source_id FROM members m WHERE m.source_type = 'Namespace' AND m.user_id = ? AND m.access_level >= ? AND ${ACTIVE_MEMBER_SQL}`;
  const day = today(svc);
  if (set.owned) return { sql: `${alias}.id IN (${direct})`, args: [user.id, Access.OWNER, day] };
  /** `down`: the direct memberships (and `shared` roots) and every group below them. */
  const below = (shared: string) => `WITH RECURSIVE down(id) AS (${direct}${shared} UNION SELECT n.id FROM namespaces n JOIN down ON n.parent_id = down.id)`;
  if (set.minLevel !== undefined) {
    return { sql: `${alias}.id IN (${below('')} SELECT id FROM down)`, args: [user.id, set.minLevel, day] };
  }
  const roots = sharedGroupRoots(svc, user.id, Access.MINIMAL_ACCESS);
  const projects = sharedProjectIds(svc, user.id, Access.GUEST, (groupId) => groupAccessLevel(svc, user.id, groupId));
  return {
    sql: `${alias}.id IN (${below(roots.length ? ' UNION SELECT value FROM json_each(?)' : '')},
          up(id) AS (SELECT id FROM down
            UNION SELECT p.namespace_id FROM members m JOIN projects p ON p.id = m.source_id WHERE m.source_type = 'Project' AND m.user_id = ? AND ${ACTIVE_MEMBER_SQL}
            ${projects.length ? 'UNION SELECT p.namespace_id FROM projects p WHERE p.id IN (SELECT value FROM json_each(?))' : ''}
            UNION SELECT n.parent_id FROM namespaces n JOIN up ON n.id = up.id WHERE n.parent_id IS NOT NULL)
          SELECT id FROM up)`,
    args: [
      user.id,
      Access.MINIMAL_ACCESS,
      day,
      ...(roots.length ? [JSON.stringify(roots)] : []),
      user.id,
      day,
      ...(projects.length ? [JSON.stringify(projects)] : []),
    ],
  };
}

/**
 * `:id` of /projects/:id: the project if the caller can see it (404 otherwise), and 403 when the
 * caller's role is below `minLevel`.
 */
export function loadProject(rc: RequestContext, minLevel: number = Access.NO_ACCESS, ref = rc.path.id): Project {
  const project = findProjectByRef(rc.svc, ref);
  if (!project) throw notFound('Project');
  // A CI job token reaches another project only through that project's inbound allowlist.
  const jobProject = rc.auth?.jobTokenProjectId;
  const readable = canReadProject(rc.svc, rc.user, project) && (jobProject == null || !rc.svc.jobTokenCanAccess || rc.svc.jobTokenCanAccess(jobProject, project));
  if (!readable) throw jobProject == null ? notFound('Project') : jobTokenRefused(rc.svc, jobProject, project);
  if (minLevel > Access.NO_ACCESS) {
    if (!rc.user) throw notFound('Project');
    if (effectiveProjectAccess(rc.svc, rc.user, project) < minLevel) throw forbidden();
  }
  if (rc.user && writesReadOnlyFeature(rc) && archivedNow(rc.svc, project)) rc.refuseAfterChecks(forbidden(), findsRecordFirst(rc));
  return project;
}

/**
 * find_project!'s handle_job_token_failure!: a project a job token's user may not read (not a member,
 * or the job's project not on its allowlist) is named, with the job's project, in a 403.
 */
function jobTokenRefused(svc: ServiceContext, sourceProjectId: number, target: Project): ApiError {
  const source = findProjectById(svc, sourceProjectId);
  return forbidden(`Authentication by CI/CD job token not allowed from ${source?.path ?? ''} to ${target.path}.`);
}

/**
 * Whether the project is archived as the database says now, for a write it may refuse: the row a
 * lookup kept can be older than another connection's archive (a second Sandlab on the data dir, the
 * sqlite3 shell), which this connection's caches learn of only at its own next write, the one asked.
 */
export function archivedNow(svc: ServiceContext, project: Project): boolean {
  return readUnremembered<{ archived: number }>(svc.db, 'SELECT archived FROM projects WHERE id = ?', project.id)[0]?.archived === 1;
}

/**
 * A write to a feature an archived project keeps read-only: ProjectPolicy's `rule { archived }`
 * prevents create_/update_/admin_/destroy_ of its archived_features (issue, merge_request, label,
 * milestone, snippet, note, commit_status; EE's feature_flag) and its archived_abilities
 * (upload_file, request_access, resolve_note, award_emoji, push_code, admin_tag), and a prevent
 * beats even an administrator's enable. Subscribing and to-dos ask only read_; award_emoji keeps
 * its own check (canAward), the repository its push_code (canPushCode), an issue's move and clone
 * can_move? (a 400, issue_move.ts). A merge asks no policy
 * first: `unauthorized! unless can_be_merged_by?`, and push_code is prevented too, so its own
 * check answers 401. What these rules leave out stays writable: badges, variables, members,
 * feature flag user lists (admin_feature_flags_user_lists), deleting an upload (destroy_upload),
 * approving access requests, commit comments (POST .../comments asks no ability), the project.
 */
const READ_ONLY_WHEN_ARCHIVED =
  /^\/api\/v4\/projects\/[^/]+\/(?:issues|merge_requests|labels|milestones|snippets|statuses|feature_flags|repository\/commits\/[^/]+\/discussions)(?:\/|$)/;
const OWN_CHECK_WHEN_ARCHIVED = /\/(?:subscribe|unsubscribe|todo|award_emoji|merge|move|clone)(?:\/|$)/;
/** Created only: upload_file and request_access (an upload's delete, a request's approval ask other abilities). */
const CREATE_ONLY_WHEN_ARCHIVED = /^\/api\/v4\/projects\/[^/]+\/(?:uploads|access_requests)\/?$/;

/**
 * Writes whose endpoint finds its record before authorize! (find_by!, find_noteable,
 * find_merge_request_with_access, feature_flag, delete_label): a missing record answers 404 there
 * even when archived. The rest authorize on the project first (creates, milestones'
 * authorize! :admin_milestone, a label's update, statuses), so the refusal beats their 404.
 */
const RECORD_FOUND_FIRST = /^\/api\/v4\/projects\/[^/]+\/(?:issues|merge_requests|snippets|feature_flags|repository\/commits)\/[^/]+/;

function findsRecordFirst(rc: RequestContext): boolean {
  return RECORD_FOUND_FIRST.test(rc.pathname) || (rc.req.method === 'DELETE' && /^\/api\/v4\/projects\/[^/]+\/labels(?:\/|$)/.test(rc.pathname));
}

function writesReadOnlyFeature(rc: RequestContext): boolean {
  const method = rc.req.method;
  if (method === 'GET' || method === 'HEAD') return false;
  const path = rc.pathname;
  if (method === 'POST' && CREATE_ONLY_WHEN_ARCHIVED.test(path)) return true;
  return READ_ONLY_WHEN_ARCHIVED.test(path) && !OWN_CHECK_WHEN_ARCHIVED.test(path);
}

/** `:id` of /groups/:id, with the same 404/403 rules as loadProject. */
export function loadGroup(rc: RequestContext, minLevel: number = Access.NO_ACCESS, ref = rc.path.id): Namespace {
  const group = findGroupByRef(rc.svc, ref);
  if (!group || !canReadGroup(rc.svc, rc.user, group)) throw notFound('Group');
  if (minLevel > Access.NO_ACCESS) {
    if (!rc.user) throw notFound('Group');
    if (effectiveGroupAccess(rc.svc, rc.user, group) < minLevel) throw forbidden();
  }
  return group;
}
