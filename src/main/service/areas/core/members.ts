import type { ServiceContext } from '../../context';
import type { RequestContext } from '../../http/route';
import { conflict, forbidden, notFound, recordNotFound, validationError } from '../../http/errors';
import { Access, canReadGroup, effectiveGroupAccess, effectiveProjectAccess, groupAccessLevel, loadGroup, loadProject } from './access';
import type { MemberRow } from './entities';
import { recordEvent } from './events';
import { type Namespace, findNamespaceById, selfAndAncestorIds, selfAndDescendantIds } from './namespaces';
import type { User } from './users';
import type { Project } from './projects';
import { isoTime, today } from './time';
import { ACTIVE_LINK_SQL, shareWithGroupLocked, sharesExist } from './group-links';

/** A group or a project as the owner of memberships (members, access requests, invitations). */
export interface MemberSource {
  type: 'Namespace' | 'Project';
  id: number;
  name: string;
  group: Namespace | null;
  project: Project | null;
  /** The group that memberships are inherited from (a project's group, a group's parent). */
  parentGroupId: number | null;
}

export const ACCESS_LEVEL_NAMES: Record<number, string> = {
  0: 'No access',
  5: 'Minimal Access',
  10: 'Guest',
  15: 'Planner',
  20: 'Reporter',
  30: 'Developer',
  40: 'Maintainer',
  50: 'Owner',
};

/** `/groups/:id/...` or `/projects/:id/...`: the source named by the route, with visibility checks. */
export function loadSource(rc: RequestContext, kind: 'groups' | 'projects', minLevel: number = Access.NO_ACCESS): MemberSource {
  if (kind === 'groups') {
    const g = loadGroup(rc, minLevel);
    return { type: 'Namespace', id: g.id, name: g.name, group: g, project: null, parentGroupId: g.parent_id };
  }
  const p = loadProject(rc, minLevel);
  const ns = findNamespaceById(rc.svc, p.namespace_id)!;
  return { type: 'Project', id: p.id, name: p.name, group: null, project: p, parentGroupId: ns.kind === 'group' ? ns.id : null };
}

/** The caller's effective level on the source (admins count as owners). */
export function sourceAccess(rc: RequestContext, source: MemberSource): number {
  return source.group ? effectiveGroupAccess(rc.svc, rc.user, source.group) : effectiveProjectAccess(rc.svc, rc.user, source.project!);
}

/** Level needed to manage members: Owner of a group, Maintainer of a project (GitLab's admin_*_member). */
export const manageMembersLevel = (source: MemberSource): number => (source.type === 'Namespace' ? Access.OWNER : Access.MAINTAINER);

export function directMember(svc: ServiceContext, source: MemberSource, userId: number): MemberRow | undefined {
  return svc.db
    .prepare(
      `SELECT * FROM members WHERE source_type = ? AND source_id = ? AND user_id = ? AND requested_at IS NULL`,
    )
    .get(source.type, source.id, userId) as MemberRow | undefined;
}

/** Direct members, active ones only (no requests, no pending invitations). */
export function directMembers(svc: ServiceContext, source: MemberSource): MemberRow[] {
  return svc.db
    .prepare(
      `SELECT * FROM members WHERE source_type = ? AND source_id = ? AND user_id IS NOT NULL AND requested_at IS NULL ORDER BY id`,
    )
    .all(source.type, source.id) as MemberRow[];
}

/** Direct plus inherited members; a user appears once, with the highest level. */
export function allMembers(svc: ServiceContext, source: MemberSource): MemberRow[] {
  const list = memberListSql(svc, source, true);
  return svc.db.prepare(`SELECT m.* ${list.from} ORDER BY ${list.order}`).all(...list.args) as MemberRow[];
}

/** memberListSql(source, inherited = true)'s row for one user, if they are in it. */
export function inheritedMember(svc: ServiceContext, source: MemberSource, userId: number): MemberRow | undefined {
  if (!listedThroughPicks(svc, source)) return allMembers(svc, source).find((x) => x.user_id === userId);
  const picks = inheritedPicks(svc, source);
  const at = picks.userIds.indexOf(userId);
  return at < 0 ? undefined : withShareLevels(picks, [svc.db.prepare('SELECT * FROM members WHERE id = ?').get(picks.ids[at]) as MemberRow])[0];
}

/** Whether members/all of the source is its inherited picks: under a group, or reached by a share (core/172). */
export function listedThroughPicks(svc: ServiceContext, source: MemberSource): boolean {
  return !!source.parentGroupId || shareSources(svc, source).length > 0;
}

/** Rows of picks with the level a share caps them at (members/all shows an invited member at min(their level, the link's)). */
export function withShareLevels(picks: InheritedPicks, rows: MemberRow[]): MemberRow[] {
  if (!picks.capped.size) return rows;
  return rows.map((m) => (picks.capped.has(m.id) ? { ...m, access_level: picks.capped.get(m.id)! } : m));
}

/**
 * The groups whose members reach a source through shares (core/172), each with the link's level:
 * for a project, the groups it is shared with and the groups above them (MembersFinder's
 * invited_groups) unless its group locks sharing, and the groups shared with a group above it; for
 * a group, the groups shared with it or a group above it (direct members only). Expired links
 * give none.
 */
export function shareSources(svc: ServiceContext, source: MemberSource): { groupId: number; access: number }[] {
  const exist = sharesExist(svc);
  if (!exist.projects && !exist.groups) return [];
  const out: { groupId: number; access: number }[] = [];
  const day = today(svc);
  if (source.project && exist.projects) {
    const ns = findNamespaceById(svc, source.project.namespace_id)!;
    if (!shareWithGroupLocked(svc, ns)) {
      const links = svc.db
        .prepare(`SELECT l.group_id, l.group_access FROM project_group_links l WHERE l.project_id = ? AND ${ACTIVE_LINK_SQL} ORDER BY l.id`)
        .all(source.id, day) as { group_id: number; group_access: number }[];
      for (const l of links) {
        for (const id of selfAndAncestorIds(svc, findNamespaceById(svc, l.group_id)!)) out.push({ groupId: id, access: l.group_access });
      }
    }
  }
  const groups = source.group
    ? selfAndAncestorIds(svc, source.group)
    : source.parentGroupId
      ? selfAndAncestorIds(svc, findNamespaceById(svc, source.parentGroupId)!)
      : [];
  if (groups.length && exist.groups) {
    const links = svc.db
      .prepare(
        `SELECT l.shared_with_group_id, l.group_access FROM group_group_links l
         WHERE l.shared_group_id IN (${groups.map(() => '?').join(',')}) AND ${ACTIVE_LINK_SQL} ORDER BY l.id`,
      )
      .all(...groups, day) as { shared_with_group_id: number; group_access: number }[];
    for (const l of links) out.push({ groupId: l.shared_with_group_id, access: l.group_access });
  }
  return out;
}

/**
 * A source's active members as SQL over `m`: direct ones (oldest first), or with `inherited` each
 * user once, at their highest level among the source and the groups above it (on a tie the
 * source's own membership, then the oldest), by user id.
 */
export function memberListSql(svc: ServiceContext, source: MemberSource, inherited: boolean): { from: string; args: unknown[]; order: string } {
  if (!inherited || !listedThroughPicks(svc, source)) {
    // In id order, `+` keeps SQLite from taking members_source_user for the user_id IS NOT NULL
    // term (then sorting every member by id): members_source_order (core/048) reads them in order.
    const user = inherited ? 'm.user_id' : '+m.user_id';
    return {
      from: `FROM members m WHERE m.source_type = ? AND m.source_id = ? AND ${user} IS NOT NULL AND m.requested_at IS NULL`,
      args: [source.type, source.id],
      order: inherited ? 'm.user_id' : 'm.id',
    };
  }
  return { from: 'FROM members m WHERE m.id IN (SELECT value FROM json_each(?))', args: [inheritedPicks(svc, source).json], order: 'm.user_id' };
}

/** Each user's membership in an inherited list (memberListSql), in user id order. */
export interface InheritedPicks {
  ids: number[];
  userIds: number[];
  /** `ids` as a JSON array (a statement's argument). */
  json: string;
  /** Memberships picked through a share, by id: the level the share caps them at (withShareLevels). */
  capped: Map<number, number>;
}

/** Inherited lists remembered per database: source and its groups -> the member lists' versions and the picks. */
const rememberedPicks = new WeakMap<object, Map<string, { versions: string; picks: InheritedPicks }>>();
/** Inherited lists remembered per database (beyond, all are let go): ~2,000 members are ~40 KB. */
const REMEMBERED_PICKS = 32;

/**
 * The memberships of an inherited list of a source under a group: each user's highest among the
 * source's and its groups' (every member of them ranked, ~2,000 for a project in a big group:
 * ~3 ms a page and as much to count). Remembered while the versions of those sources' member
 * lists (core/061, moved by every write to their members) stay; the groups are in the key, so a
 * transfer names another list. Not kept inside a transaction (it may roll back its versions).
 */
export function inheritedPicks(svc: ServiceContext, source: MemberSource): InheritedPicks {
  const db = svc.db;
  const groups = source.parentGroupId ? selfAndAncestorIds(svc, findNamespaceById(svc, source.parentGroupId)!) : [];
  const shares = shareSources(svc, source);
  const inGroups = groups.length ? `source_type = 'Namespace' AND source_id IN (${groups.map(() => '?').join(',')})` : '0';
  const inShares = shares.map((s) => s.groupId);
  const own = 'source_type = ? AND source_id = ?';
  const key = `${source.type} ${source.id} ${groups.join(',')} ${JSON.stringify(shares)}`;
  const versionsOf = [...groups, ...inShares];
  const { versions } = db
    .prepare(
      `SELECT coalesce(group_concat(source_type || source_id || ':' || version), '') AS versions FROM member_list_counts
       WHERE (${own}) OR (source_type = 'Namespace' AND source_id IN (${versionsOf.map(() => '?').join(',')}))`,
    )
    .get(source.type, source.id, ...versionsOf) as { versions: string };
  let lists = rememberedPicks.get(db);
  if (!lists) rememberedPicks.set(db, (lists = new Map()));
  const known = lists.get(key);
  if (known && known.versions === versions) return known.picks;
  // A share's members at min(their level, the link's), never above what the share gives (GitLab's LEAST).
  const shared = shares
    .map(() => `UNION ALL SELECT id, user_id, min(access_level, ?) AS level, 0 AS mine FROM members
      WHERE source_type = 'Namespace' AND source_id = ? AND user_id IS NOT NULL AND requested_at IS NULL AND access_level > 5`)
    .join('\n');
  const rows = (
    shares.length
      ? db
          .prepare(
            `SELECT id, user_id, level FROM (SELECT id, user_id, level, row_number() OVER (PARTITION BY user_id ORDER BY level DESC, mine DESC, id) AS pick
               FROM (SELECT id, user_id, access_level AS level, (${own}) AS mine FROM members
                 WHERE ((${own}) OR (${inGroups})) AND user_id IS NOT NULL AND requested_at IS NULL ${shared}))
             WHERE pick = 1 ORDER BY user_id`,
          )
          .all(source.type, source.id, source.type, source.id, ...groups, ...shares.flatMap((s) => [s.access, s.groupId]))
      : db
          .prepare(
            `SELECT id, user_id FROM (SELECT id, user_id, row_number() OVER (PARTITION BY user_id ORDER BY access_level DESC, (${own}) DESC, id) AS pick
               FROM members WHERE ((${own}) OR (${inGroups})) AND user_id IS NOT NULL AND requested_at IS NULL)
             WHERE pick = 1 ORDER BY user_id`,
          )
          .all(source.type, source.id, source.type, source.id, ...groups)
  ) as { id: number; user_id: number; level?: number }[];
  const ids = rows.map((r) => r.id);
  const capped = new Map<number, number>();
  if (shares.length) {
    const levels = new Map(
      (db.prepare('SELECT id, access_level FROM members WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as { id: number; access_level: number }[]).map(
        (m) => [m.id, m.access_level],
      ),
    );
    for (const r of rows) if (levels.get(r.id) !== r.level) capped.set(r.id, r.level!);
  }
  const picks: InheritedPicks = { ids, userIds: rows.map((r) => r.user_id), json: JSON.stringify(ids), capped };
  if (!db.inTransaction) {
    if (lists.size >= REMEMBERED_PICKS && !known) lists.clear();
    lists.set(key, { versions, picks });
  }
  return picks;
}

/**
 * The Search API's users scope as a condition on `userColumn` (Gitlab::ProjectSearchResults and
 * GroupSearchResults#users). A project: its team, members/all's users (members of the project and
 * the groups above it, and those a share reaches, core/172). A group: the members of its hierarchy
 * (the groups above it, itself, and the subgroups below) in the groups the caller can read, no
 * shares. Each user's own rows (members_user), instead of every member ranked to one row per user.
 */
export function isMemberSql(svc: ServiceContext, user: User | null, source: MemberSource, userColumn: string): { sql: string; args: unknown[] } {
  if (source.project && shareSources(svc, source).length) {
    return { sql: `${userColumn} IN (SELECT value FROM json_each(?))`, args: [JSON.stringify(inheritedPicks(svc, source).userIds)] };
  }
  const groups = source.group
    ? [...selfAndAncestorIds(svc, source.group), ...selfAndDescendantIds(svc, source.id).slice(1)].filter((id) => canReadGroup(svc, user, findNamespaceById(svc, id)!))
    : source.parentGroupId
      ? selfAndAncestorIds(svc, findNamespaceById(svc, source.parentGroupId)!)
      : [];
  const own = source.group ? '' : '(m.source_type = ? AND m.source_id = ?)';
  const inGroups = groups.length ? `(m.source_type = 'Namespace' AND m.source_id IN (SELECT value FROM json_each(?)))` : '';
  return {
    sql: `EXISTS (SELECT 1 FROM members m WHERE m.user_id = ${userColumn} AND (${[own, inGroups].filter(Boolean).join(' OR ') || '0'}) AND m.requested_at IS NULL)`,
    args: [...(own ? [source.type, source.id] : []), ...(groups.length ? [JSON.stringify(groups)] : [])],
  };
}

/** The level a user inherits on the source from groups above it. */
export function inheritedLevel(svc: ServiceContext, source: MemberSource, userId: number): number {
  return source.parentGroupId ? groupAccessLevel(svc, userId, source.parentGroupId) : Access.NO_ACCESS;
}

export interface MemberChange {
  accessLevel: number;
  expiresAt?: string | null;
  memberRoleId?: number | null;
}

/**
 * Validates a level against the actor's rights and the inherited level (GitLab refuses a direct
 * membership below what the user already inherits).
 */
export function checkGrant(rc: RequestContext, source: MemberSource, userId: number, change: MemberChange): void {
  if (change.accessLevel === Access.OWNER && sourceAccess(rc, source) < Access.OWNER) throw forbidden();
  const inherited = inheritedLevel(rc.svc, source, userId);
  if (inherited > change.accessLevel) {
    const parent = findNamespaceById(rc.svc, source.parentGroupId!)!;
    throw validationError({
      access_level: [`should be greater than or equal to ${ACCESS_LEVEL_NAMES[inherited]} inherited membership from group ${parent.name}`],
    });
  }
  if (change.expiresAt && change.expiresAt <= today(rc.svc)) {
    throw validationError({ expires_at: ['cannot be a date in the past'] });
  }
}

/** Adds a member and records the "joined" event. Call inside a transaction. */
export function addMember(rc: RequestContext, source: MemberSource, userId: number, change: MemberChange): MemberRow {
  if (directMember(rc.svc, source, userId)) throw conflict('Member already exists');
  const now = isoTime(rc.svc.now());
  // An access request by the same user becomes the membership.
  rc.svc.db.prepare('DELETE FROM members WHERE source_type = ? AND source_id = ? AND user_id = ? AND requested_at IS NOT NULL').run(source.type, source.id, userId);
  const info = rc.svc.db
    .prepare(
      `INSERT INTO members (source_type, source_id, user_id, access_level, expires_at, created_by_id, member_role_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(source.type, source.id, userId, change.accessLevel, change.expiresAt ?? null, rc.user?.id ?? null, change.memberRoleId ?? null, now, now);
  recordMembershipEvent(rc.svc, source, userId, 'joined');
  return rc.svc.db.prepare('SELECT * FROM members WHERE id = ?').get(Number(info.lastInsertRowid)) as MemberRow;
}

export function updateMember(rc: RequestContext, m: MemberRow, change: Partial<MemberChange>): MemberRow {
  rc.svc.db
    .prepare('UPDATE members SET access_level = ?, expires_at = ?, member_role_id = ?, updated_at = ? WHERE id = ?')
    .run(
      change.accessLevel ?? m.access_level,
      change.expiresAt === undefined ? m.expires_at : change.expiresAt,
      change.memberRoleId === undefined ? m.member_role_id : change.memberRoleId,
      isoTime(rc.svc.now()),
      m.id,
    );
  return rc.svc.db.prepare('SELECT * FROM members WHERE id = ?').get(m.id) as MemberRow;
}

/** Removes a membership and records "left". Refuses to remove a group's last owner. */
export function removeMember(rc: RequestContext, source: MemberSource, m: MemberRow): void {
  if (source.type === 'Namespace' && m.access_level === Access.OWNER) {
    const owners = rc.svc.db
      .prepare("SELECT count(*) AS n FROM members WHERE source_type = 'Namespace' AND source_id = ? AND access_level = 50 AND user_id IS NOT NULL AND requested_at IS NULL")
      .get(source.id) as { n: number };
    if (owners.n <= 1 && !source.group?.parent_id) throw forbidden();
  }
  rc.svc.db.prepare('DELETE FROM members WHERE id = ?').run(m.id);
  recordMembershipEvent(rc.svc, source, m.user_id!, 'left');
}

function recordMembershipEvent(svc: ServiceContext, source: MemberSource, userId: number, action: 'joined' | 'left'): void {
  recordEvent(svc, {
    action,
    authorId: userId,
    projectId: source.type === 'Project' ? source.id : null,
    groupId: source.type === 'Namespace' ? source.id : null,
  });
}

export function findMemberOr404(rc: RequestContext, source: MemberSource, userId: number): MemberRow {
  const m = directMember(rc.svc, source, userId);
  if (!m) throw recordNotFound();
  return m;
}

export { notFound };
