import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { apiError, conflict, notFound } from '../../../http/errors';
import { inTransaction } from '../../../db/connection';
import { Access, PROJECT_MEMBER_ACCESS_LEVELS, canReadGroup, effectiveGroupAccess, effectiveProjectAccess, loadGroup, loadProject, memberGroupsSql } from '../access';
import { group as groupEntity, groupDetail } from '../entities';
import { type SqlList, paginate, paginateArray, paginateSql } from '../../../http/pagination';
import { addFilter } from '../../../db/filter';
import { likeEscape } from './users';
import { VISIBILITIES } from '../namespaces';
import { insertGroupGroupLink, insertProjectGroupLink, projectGroupLinks, shareWithGroupLocked, type ProjectGroupLink } from '../group-links';
import { type Namespace, findGroupByRef, findNamespaceById, namespaceSettings, rootOf, selfAndAncestorIds, selfAndDescendantIds } from '../namespaces';

/** Grape's params of both shares: `group_access` among Gitlab::Access.all_values. */
const shareParams = () => ({
  group_id: t.integer().required(),
  group_access: t.integer().required().values(PROJECT_MEMBER_ACCESS_LEVELS),
  expires_at: t.date(),
});

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const invitedParams = () => ({
  relation: t.commaList().values(['direct', 'inherited']),
  search: t.string(),
  min_access_level: t.integer().values(PROJECT_MEMBER_ACCESS_LEVELS),
});

/** The groups invited to any of `groupIds` (their shared_with_group_links). */
function linksIntoGroups(rc: RequestContext, groupIds: number[]): number[] {
  if (!groupIds.length) return [];
  return (
    rc.svc.db
      .prepare(`SELECT shared_with_group_id AS id FROM group_group_links WHERE shared_group_id IN (${groupIds.map(() => '?').join(',')})`)
      .all(...groupIds) as { id: number }[]
  ).map((r) => r.id);
}

/**
 * InvitedGroupsFinder: the invited groups of a relation (direct, inherited, or both), those the caller
 * can read, by search (name, path or full path) and the caller's min_access_level, newest first.
 */
function invitedGroups(
  rc: RequestContext,
  q: { relation?: string[] | null; search?: string | null; min_access_level?: number | null },
  direct: () => number[],
  inherited: () => number[],
): Record<string, unknown>[] {
  const relation = [...new Set(q.relation ?? [])];
  const ids = new Set([...(relation.length === 1 && relation[0] === 'inherited' ? [] : direct()), ...(relation.length === 1 && relation[0] === 'direct' ? [] : inherited())]);
  const search = q.search?.toLowerCase();
  const shown = [...ids]
    .map((id) => findNamespaceById(rc.svc, id)!)
    .filter((g) => canReadGroup(rc.svc, rc.user, g))
    .filter((g) => !search || [g.name, g.path, g.full_path].some((x) => x.toLowerCase().includes(search)))
    .filter((g) => q.min_access_level == null || !rc.user || effectiveGroupAccess(rc.svc, rc.user, g) >= q.min_access_level)
    .sort((a, b) => b.id - a.id);
  return paginateArray(rc, shown).map((g) => groupEntity(rc, g));
}

/** Entities::ProjectGroupLink. */
function projectGroupLink(l: ProjectGroupLink): Record<string, unknown> {
  return { id: l.id, project_id: l.project_id, group_id: l.group_id, group_access: l.group_access, expires_at: l.expires_at };
}

/**
 * GroupLinkable#sharing_allowed?: the invited group is inside the shared record's top-level group,
 * unless that group lets its records be shared outside (prevent_sharing_groups_outside_hierarchy).
 */
function sharingAllowed(rc: RequestContext, home: Namespace, invited: Namespace): boolean {
  const root = rootOf(rc.svc, home);
  if (root.kind !== 'group' || namespaceSettings(root).prevent_sharing_groups_outside_hierarchy !== true) return true;
  return selfAndDescendantIds(rc.svc, root.id).includes(invited.id);
}

/**
 * POST and DELETE /projects/:id/share, GET /projects/:id/share_locations and invited_groups, POST and DELETE
 * /groups/:id/share, GET /groups/:id/groups/shared and invited_groups (API::Projects, API::Groups).
 */
export function registerGroupLinkRoutes(r: Router): void {
  r.post('/projects/:id/share', (rc) => {
    const p = declared(rc.params, shareParams());
    const project = loadProject(rc, Access.MAINTAINER); // authorize! :admin_project
    const home = findNamespaceById(rc.svc, project.namespace_id)!;
    if (shareWithGroupLocked(rc.svc, home)) throw apiError(400, 'The project sharing with group is disabled');
    // Projects::GroupLinks::CreateService: only those who manage owners may invite a group as Owner.
    if (p.group_access === Access.OWNER && effectiveProjectAccess(rc.svc, rc.user, project) < Access.OWNER) throw apiError(403, '403 Forbidden');
    const invited = findNamespaceById(rc.svc, p.group_id);
    // GroupLinkable#valid_to_create?: read_namespace_via_membership (a member of the group, or an administrator).
    const valid =
      invited?.kind === 'group' && effectiveGroupAccess(rc.svc, rc.user, invited) >= Access.MINIMAL_ACCESS && sharingAllowed(rc, home, invited);
    if (!valid || !invited) throw apiError(404, 'Not Found');
    return inTransaction(rc.svc.db, () => {
      // ProjectGroupLink's validations, in order (the first two as full messages, 409).
      if (rc.svc.db.prepare('SELECT 1 FROM project_group_links WHERE project_id = ? AND group_id = ?').get(project.id, invited.id)) {
        throw conflict('Group already shared with this group');
      }
      if (home.kind === 'group' && selfAndAncestorIds(rc.svc, home).includes(invited.id)) {
        throw conflict('Project cannot be shared with the group it is in or one of its ancestors.');
      }
      return projectGroupLink(insertProjectGroupLink(rc.svc, project.id, invited.id, p.group_access, p.expires_at ?? null));
    });
  });

  // GET /projects/:id/share_locations: the groups the caller may share the project with (Groups::AcceptingProjectSharesFinder).
  r.get('/projects/:id/share_locations', (rc) => {
    const q = declared(rc.params, { search: t.string() });
    const project = loadProject(rc);
    const user = rc.requireUser();
    const home = findNamespaceById(rc.svc, project.namespace_id)!;
    if (effectiveProjectAccess(rc.svc, user, project) < Access.MAINTAINER || shareWithGroupLocked(rc.svc, home)) return paginate(rc, { count: () => 0, rows: () => [] });
    const where: string[] = ["g.kind = 'group'"];
    const args: unknown[] = [];
    if (!user.admin) {
      const mine = memberGroupsSql(rc.svc, user, Access.GUEST);
      addFilter(where, args, mine.sql, ...mine.args);
    }
    // by_hierarchy: inside the top-level group when it keeps its records from being shared outside.
    const root = rootOf(rc.svc, home);
    if (root.kind === 'group' && namespaceSettings(root).prevent_sharing_groups_outside_hierarchy === true) {
      const inside = selfAndDescendantIds(rc.svc, root.id);
      addFilter(where, args, `g.id IN (SELECT value FROM json_each(?))`, JSON.stringify(inside));
    }
    // by_ignorable: the groups above the project and those it is already shared with.
    const related = [...(home.kind === 'group' ? selfAndAncestorIds(rc.svc, home) : []), ...projectGroupLinks(rc.svc, project.id).map((l) => l.group_id)];
    if (related.length) addFilter(where, args, `g.id NOT IN (SELECT value FROM json_each(?))`, JSON.stringify(related));
    if (q.search) {
      // Group.search(include_parents: true): the name, the path or the full path.
      const like = `%${likeEscape(q.search)}%`;
      addFilter(where, args, `(g.name LIKE ? ESCAPE '\\' OR g.path LIKE ? ESCAPE '\\' OR g.full_path LIKE ? ESCAPE '\\')`, like, like, like);
    }
    const list: SqlList<Namespace> = { select: 'g.*', from: `FROM namespaces g WHERE ${where.join(' AND ')}`, args, order: 'g.path ASC, g.id ASC' };
    return paginateSql<Namespace>(rc, rc.svc.db, list).map((g) => groupEntity(rc, g));
  });

  r.delete('/projects/:id/share/:group_id', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const link = rc.svc.db.prepare('SELECT id FROM project_group_links WHERE project_id = ? AND group_id = ?').get(project.id, Number(rc.path.group_id)) as
      | { id: number }
      | undefined;
    if (!link) throw notFound('Group Link');
    inTransaction(rc.svc.db, () => rc.svc.db.prepare('DELETE FROM project_group_links WHERE id = ?').run(link.id));
    return undefined;
  });

  r.post('/groups/:id/share', (rc) => {
    const p = declared(rc.params, shareParams());
    const group = loadGroup(rc);
    // find_group!(params[:group_id]): a group the caller can read.
    const invited = findGroupByRef(rc.svc, String(p.group_id));
    if (!invited || !canReadGroup(rc.svc, rc.user, invited)) throw notFound('Group');
    // Groups::GroupLinks::CreateService#valid_to_create?: admin_group_member (Owner) and sharing_allowed?.
    if (effectiveGroupAccess(rc.svc, rc.user, group) < Access.OWNER || !sharingAllowed(rc, group, invited)) throw apiError(404, 'Not Found');
    inTransaction(rc.svc.db, () => {
      if (rc.svc.db.prepare('SELECT 1 FROM group_group_links WHERE shared_group_id = ? AND shared_with_group_id = ?').get(group.id, invited.id)) {
        throw conflict('Shared group The group has already been shared with this group');
      }
      insertGroupGroupLink(rc.svc, group.id, invited.id, p.group_access, p.expires_at ?? null);
    });
    return groupDetail(rc, group);
  });

  // GET /groups/:id/groups/shared: the groups this group was invited to (Namespaces::Groups::SharedGroupsFinder), those the caller can read.
  r.get(
    '/groups/:id/groups/shared',
    (rc) => {
      const group = loadGroup(rc);
      const q = declared(rc.params, {
        skip_groups: t.array(t.integer()),
        visibility: t.string().values(VISIBILITIES),
        search: t.string(),
        min_access_level: t.integer().values(PROJECT_MEMBER_ACCESS_LEVELS),
        order_by: t.string().values(['name', 'path', 'id', 'similarity']).default('name'),
        sort: t.string().values(['asc', 'desc']).default('asc'),
      });
      const ids = (rc.svc.db.prepare('SELECT shared_group_id AS id FROM group_group_links WHERE shared_with_group_id = ?').all(group.id) as { id: number }[]).map((r) => r.id);
      const search = q.search?.toLowerCase();
      const by = (q.order_by === 'similarity' ? 'name' : q.order_by) as 'name' | 'path' | 'id';
      const dir = q.sort === 'asc' ? 1 : -1;
      const shown = ids
        .map((id) => findNamespaceById(rc.svc, id)!)
        .filter((g) => canReadGroup(rc.svc, rc.user, g))
        .filter((g) => !q.skip_groups?.includes(g.id))
        .filter((g) => !q.visibility || g.visibility === q.visibility)
        .filter((g) => !search || g.name.toLowerCase().includes(search) || g.path.toLowerCase().includes(search))
        .filter((g) => q.min_access_level == null || (!!rc.user && effectiveGroupAccess(rc.svc, rc.user, g) >= q.min_access_level))
        .sort((a, b) => dir * (by === 'id' ? a.id - b.id : compareText(a[by], b[by]) || a.id - b.id));
      return paginateArray(rc, shown).map((g) => groupEntity(rc, g));
    },
    { auth: 'optional' },
  );

  // GET /projects/:id/invited_groups and /groups/:id/invited_groups (Namespaces::{Projects,Groups}::InvitedGroupsFinder).
  r.get('/projects/:id/invited_groups', (rc) => {
    const q = declared(rc.params, invitedParams());
    const project = loadProject(rc);
    const home = findNamespaceById(rc.svc, project.namespace_id)!;
    const direct = () => projectGroupLinks(rc.svc, project.id).map((l) => l.group_id);
    const inherited = () => (home.kind === 'group' ? linksIntoGroups(rc, selfAndAncestorIds(rc.svc, home)) : []);
    return invitedGroups(rc, q, direct, inherited);
  }, { auth: 'optional' });

  r.get('/groups/:id/invited_groups', (rc) => {
    const q = declared(rc.params, invitedParams());
    const group = loadGroup(rc);
    const direct = () => linksIntoGroups(rc, [group.id]);
    const inherited = () => linksIntoGroups(rc, selfAndAncestorIds(rc.svc, group).slice(1));
    return invitedGroups(rc, q, direct, inherited);
  }, { auth: 'optional' });

  r.delete('/groups/:id/share/:group_id', (rc) => {
    const group = loadGroup(rc);
    const link = rc.svc.db
      .prepare('SELECT id FROM group_group_links WHERE shared_group_id = ? AND shared_with_group_id = ?')
      .get(group.id, Number(rc.path.group_id)) as { id: number } | undefined;
    if (!link) throw notFound('Group Link');
    // Groups::GroupLinks::DestroyService deletes only for Owners (admin_group_member); API::Groups
    // ignores its refusal and answers 204 either way, as here.
    if (effectiveGroupAccess(rc.svc, rc.user, group) >= Access.OWNER) {
      inTransaction(rc.svc.db, () => rc.svc.db.prepare('DELETE FROM group_group_links WHERE id = ?').run(link.id));
    }
    return undefined;
  });
}
