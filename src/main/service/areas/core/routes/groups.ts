import { ListWhere, addFilter } from '../../../db/filter';
import { indexVersion, rareTermCandidates } from '../../../db/trigram';
import { instanceListAnchors } from '../instance_lists';
import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { apiError, forbidden, notFound } from '../../../http/errors';
import { type Keyset, type SqlList, OFFSET_PAGINATION_LIMIT, fewRowsByIds, paginate, paginateSql } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { Access, canReadGroup, effectiveGroupAccess, groupsFinderSql, loadGroup, visibleProjectsSql } from '../access';
import { group, groupDetail, project, withFieldsAfter } from '../entities';
import { type Namespace, VISIBILITIES, findGroupByRef, findNamespaceById, insertGroup, namespaceSettings, selfAndDescendantIds, visibilityLevel } from '../namespaces';
import { ADMIN_ONLY_GROUP_SETTINGS, applyGroupSettings, groupSetting, groupSettingsErrors, groupSettingsSpec } from '../group_settings';
import type { Project } from '../projects';
import { isoTime } from '../time';
import { applicationSettings, restrictedVisibilityErrors } from '../../application_settings/settings';
import { capVisibility } from '../namespaces';
import { likeEscape } from './users';
import { projectListFilters, projectSqlList, projectsAnswer, starCountRows } from './projects';
import { customAttributesFilter, withCustomAttributes } from './custom_attributes';
import { groupStatistics } from '../project_statistics';
import { checkUnmodifiedSince } from '../../../http/conditional';
import { readAvatarParam, writeAvatar } from '../avatars';
import { projectsSharedWith } from '../group-links';

const PATH_RE = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/;
const RESERVED_TOP_LEVEL = new Set(['api', 'admin', 'groups', 'projects', 'users', 'uploads', 'help', 'dashboard', 'explore', 'search', '-']);

/** Entities::Group's last CE field before its optional custom_attributes and statistics. */
const GROUP_EXTRAS_AFTER = 'max_artifacts_size';

export function registerGroupRoutes(r: Router): void {
  r.get(
    '/groups',
    (rc) => {
      const q = declared(rc.params, {
        search: t.string(),
        owned: t.boolean(),
        min_access_level: t.integer(),
        top_level_only: t.boolean(),
        all_available: t.boolean(),
        skip_groups: t.array(t.integer()),
        visibility: t.string().values(VISIBILITIES),
        statistics: t.boolean(),
        order_by: t.string().values(['name', 'path', 'id', 'similarity']).default('name'),
        sort: t.string().values(['asc', 'desc']).default('asc'),
      });
      // A term few groups hold: those the search index finds, checked with the same LIKE below.
      const few = q.search ? rareTermCandidates(rc.svc.db, 'groups_search', 'g.id', q.search, ['name', 'path'], indexVersion(rc.svc.db, 'groups_search')) : null;
      // kind stays indexable in both forms (the order indexes lead with it), unless the search's
      // candidates are read by id: SQLite then walked every group by name to find them.
      const where = new ListWhere();
      where.add(few ? "+g.kind = 'group'" : "g.kind = 'group'");
      const user = rc.user;
      const memberOnly = user && !user.admin && !q.all_available;
      // GroupsFinder: owned or min_access_level (signed in) list those sets; else what the user is
      // authorized for, with the groups public to them unless all_available is false; an
      // administrator's all_available (their default) lists every group.
      if (q.owned && !user) return paginate(rc, { count: () => 0, rows: () => [] });
      if (user && (q.owned || q.min_access_level != null || memberOnly)) {
        const mine = groupsFinderSql(rc.svc, user, { owned: !!q.owned, minLevel: q.min_access_level ?? undefined });
        where.add(mine.sql, ...mine.args);
      } else if (!user) {
        where.add("g.visibility = 'public'");
      } else if (!user.admin) {
        const mine = groupsFinderSql(rc.svc, user, {});
        where.add(`(g.visibility IN (${user.external ? "'public'" : "'public', 'internal'"}) OR ${mine.sql})`, ...mine.args);
      }
      /** At most COUNT_LIMIT groups can match (the search index's candidates). */
      const fewRows = !!few;
      if (q.search) {
        if (few) where.add(few.sql, ...few.args);
        where.add("(g.name LIKE ? ESCAPE '\\' OR g.path LIKE ? ESCAPE '\\')", `%${likeEscape(q.search)}%`, `%${likeEscape(q.search)}%`);
      }
      if (q.top_level_only) where.on('g.parent_id', 'IS NULL');
      const custom = customAttributesFilter(rc, 'groups', 'g');
      where.addAll(custom.sql, custom.args);
      if (q.visibility) where.add('g.visibility = ?', q.visibility);
      if (q.skip_groups?.length) where.add(`g.id NOT IN (${q.skip_groups.map(() => '?').join(',')})`, ...q.skip_groups);
      const order = q.order_by === 'similarity' ? 'name' : q.order_by;
      // present_groups_with_pagination_strategies: keyset (and the offset limit) for anonymous callers only.
      const keyset: Keyset<Namespace> | undefined = user
        ? undefined
        : {
            style: 'cursor',
            type: 'Group',
            orderBy: q.order_by,
            sort: q.sort,
            orders: { name: { column: 'g.name', sorts: ['asc'], value: (g) => g.name } },
            idColumn: 'g.id',
            id: (g) => g.id,
            offsetLimit: OFFSET_PAGINATION_LIMIT,
          };
      const list: SqlList<Namespace> = {
        select: 'g.*',
        from: `FROM namespaces g WHERE ${where.walk.join(' AND ')}`,
        narrow: `FROM namespaces g WHERE ${where.narrow.join(' AND ')}`,
        args: where.args,
        order: `g.${order} ${q.sort}, g.id ${q.sort}`,
        keyset,
      };
      // Deep pages anchored while no namespace is written (core/052): an administrator's or anonymous
      // list, whose conditions read the groups' own columns only.
      if ((!user || user.admin) && !memberOnly && !q.owned && q.min_access_level === undefined && !custom.sql.length) {
        const by = order as 'name' | 'path' | 'id';
        list.anchors = instanceListAnchors(rc.svc.db, 'namespaces', list, `g.${by}`, 'g.id', q.sort, (g) => g[by]);
      }
      const page = paginateSql<Namespace>(rc, rc.svc.db, fewRows ? fewRowsByIds(rc.svc.db, list, 'namespaces g', 'g.id') : list).map((g) => group(rc, g));
      const withAttributes = withCustomAttributes(rc, 'groups', page, GROUP_EXTRAS_AFTER);
      // present_groups: `statistics` for those who read all resources (administrators), after custom_attributes.
      if (!q.statistics || !user?.admin) return withAttributes;
      return (async () => {
        const out = [];
        for (const g of withAttributes) {
          out.push(withFieldsAfter(g, 'custom_attributes' in g ? 'custom_attributes' : GROUP_EXTRAS_AFTER, { statistics: await groupStatistics(rc.svc, g.id as number) }));
        }
        return out;
      })();
    },
    { auth: 'optional' },
  );

  r.get(
    '/groups/:id',
    (rc) => {
      const g = loadGroup(rc);
      const q = declared(rc.params, { with_projects: t.boolean().default(true) });
      const out = withCustomAttributes(rc, 'groups', [groupDetail(rc, g)], GROUP_EXTRAS_AFTER)[0];
      if (q.with_projects) {
        const vis = visibleProjectsSql(rc.svc, rc.user);
        const projects = rc.svc.db
          .prepare(`SELECT p.* FROM projects p WHERE p.namespace_id = ? AND ${vis.sql} ORDER BY p.id LIMIT 100`)
          .all(g.id, ...vis.args) as Project[];
        out.projects = projects.map((p) => project(rc, p));
        if (projectsSharedWith(rc.svc, g.id)) {
          // GroupDetail's shared_projects: GroupProjectsFinder only_shared.
          const shared = rc.svc.db
            .prepare(`SELECT p.* FROM projects p WHERE p.id IN (SELECT project_id FROM project_group_links WHERE group_id = ?) AND ${vis.sql} ORDER BY p.id LIMIT 100`)
            .all(g.id, ...vis.args) as Project[];
          out.shared_projects = shared.map((p) => project(rc, p));
        }
      }
      return out;
    },
    { auth: 'optional' },
  );

  r.post('/groups', (rc) => {
    const user = rc.requireUser();
    const p = declared(rc.params, {
      name: t.string().required(),
      path: t.string().required(),
      parent_id: t.integer(),
      description: t.string(),
      visibility: t.string().values(VISIBILITIES),
      request_access_enabled: t.boolean(),
      avatar: t.any(),
      ...groupSettingsSpec(),
    });
    const avatar = readAvatarParam(p.avatar);
    requireAdminFor(rc, p);
    let parent: Namespace | undefined;
    if (p.parent_id != null) {
      parent = findGroupByRef(rc.svc, String(p.parent_id));
      if (!parent || !canReadGroup(rc.svc, user, parent)) throw notFound('Group');
      // Group#subgroup_creation_level: Maintainers by default, or Owners only.
      const min = groupSetting(namespaceSettings(parent), 'subgroup_creation_level') === 'owner' ? Access.OWNER : Access.MAINTAINER;
      if (effectiveGroupAccess(rc.svc, user, parent) < min) throw forbidden();
    } else if (!user.admin && !user.can_create_group) {
      throw forbidden();
    }
    const errors = validateNamespacePath(p.path, !parent);
    if (!p.name.trim()) errors.name = ["can't be blank"];
    const fullPath = parent ? `${parent.full_path}/${p.path}` : p.path;
    if (rc.svc.db.prepare('SELECT 1 FROM namespaces WHERE lower(full_path) = lower(?)').get(fullPath)) {
      errors.path = ['has already been taken'];
    }
    // ApplicationSetting#default_group_visibility, never more open than the parent group.
    const visibility = p.visibility ?? capVisibility(applicationSettings(rc.svc).default_group_visibility, parent?.visibility ?? null);
    Object.assign(errors, restrictedVisibilityErrors(rc.svc, !!user.admin, visibility));
    const settings: Record<string, unknown> = {};
    applyGroupSettings(settings, p);
    Object.assign(errors, groupSettingsErrors(settings));
    if (Object.keys(errors).length) throw apiError(400, `Failed to save group ${rubyHash(errors)}`);
    const created = inTransaction(rc.svc.db, () => {
      const row = insertGroup(rc.svc, {
      name: p.name,
      path: p.path,
      parent: parent ?? null,
      description: p.description ?? undefined,
      visibility,
      requestAccessEnabled: p.request_access_enabled ?? undefined,
      settings,
      ownerId: user.id,
      });
      if (avatar) writeAvatar(rc.svc, 'group', row.id, avatar);
      return row;
    });
    return groupDetail(rc, findNamespaceById(rc.svc, created.id)!);
  });

  r.put('/groups/:id', (rc) => {
    const g = loadGroup(rc, Access.OWNER);
    const p = declared(rc.params, {
      name: t.string(),
      path: t.string(),
      description: t.string(),
      visibility: t.string().values(VISIBILITIES),
      request_access_enabled: t.boolean(),
      avatar: t.any(),
      ...groupSettingsSpec(),
    });
    const avatar = readAvatarParam(p.avatar);
    requireAdminFor(rc, p);
    const errors: Record<string, string[]> = p.path !== undefined ? validateNamespacePath(p.path ?? '', !g.parent_id) : {};
    const parent = g.parent_id ? findNamespaceById(rc.svc, g.parent_id)! : undefined;
    const newFullPath = p.path ? (parent ? `${parent.full_path}/${p.path}` : p.path) : g.full_path;
    if (newFullPath.toLowerCase() !== g.full_path.toLowerCase() && rc.svc.db.prepare('SELECT 1 FROM namespaces WHERE lower(full_path) = lower(?)').get(newFullPath)) {
      errors.path = ['has already been taken'];
    }
    if (p.visibility && p.visibility !== g.visibility) Object.assign(errors, restrictedVisibilityErrors(rc.svc, !!rc.user!.admin, p.visibility));
    const settings = namespaceSettings(g);
    applyGroupSettings(settings, p);
    Object.assign(errors, groupSettingsErrors(settings));
    if (Object.keys(errors).length) throw apiError(400, { ...errors });
    inTransaction(rc.svc.db, () => {
      rc.svc.db
        .prepare(
          `UPDATE namespaces SET name = ?, path = ?, description = ?, visibility = ?, request_access_enabled = ?, settings = ?, updated_at = ? WHERE id = ?`,
        )
        .run(
          p.name ?? g.name,
          p.path ?? g.path,
          p.description ?? g.description,
          p.visibility ?? g.visibility,
          p.request_access_enabled === undefined ? g.request_access_enabled : Number(p.request_access_enabled),
          JSON.stringify(settings),
          isoTime(rc.svc.now()),
          g.id,
        );
      if (newFullPath !== g.full_path) renameFullPaths(rc, g, newFullPath);
      if (avatar !== undefined) writeAvatar(rc.svc, 'group', g.id, avatar);
    });
    return groupDetail(rc, findNamespaceById(rc.svc, g.id)!);
  });

  // POST /groups/:id/transfer: under another group (group_id), or to the top level without one.
  r.post('/groups/:id/transfer', (rc) => {
    const g = loadGroup(rc, Access.OWNER);
    const p = declared(rc.params, { group_id: t.integer() });
    let parent: Namespace | null = null;
    if (p.group_id != null) {
      parent = findGroupByRef(rc.svc, String(p.group_id)) ?? null;
      if (!parent || !canReadGroup(rc.svc, rc.user, parent)) throw notFound('Group');
    }
    transferGroup(rc, g, parent);
    return groupDetail(rc, findNamespaceById(rc.svc, g.id)!);
  });

  r.delete('/groups/:id', (rc) => {
    const g = loadGroup(rc, Access.OWNER);
    checkUnmodifiedSince(rc, g.updated_at);
    inTransaction(rc.svc.db, () => deleteGroupTree(rc, g.id));
    rc.status = 202;
    return { message: '202 Accepted' };
  });

  r.get(
    '/groups/:id/subgroups',
    (rc) => listChildGroups(rc, loadGroup(rc), false),
    { auth: 'optional' },
  );
  r.get(
    '/groups/:id/descendant_groups',
    (rc) => listChildGroups(rc, loadGroup(rc), true),
    { auth: 'optional' },
  );

  r.get(
    '/groups/:id/projects',
    (rc) => {
      const g = loadGroup(rc);
      const q = declared(rc.params, { include_subgroups: t.boolean(), simple: t.boolean(), with_shared: t.boolean().default(true) });
      const ids = q.include_subgroups ? selfAndDescendantIds(rc.svc, g.id) : [g.id];
      const { where, order, orderBy, sort, fewRows } = projectListFilters(rc);
      const inGroups = `IN (${ids.map(() => '?').join(',')})`;
      // GroupProjectsFinder: with_shared (the default) adds the projects shared with the group itself.
      if (q.with_shared && projectsSharedWith(rc.svc, g.id)) where.add(`(p.namespace_id ${inGroups} OR p.id IN (SELECT project_id FROM project_group_links WHERE group_id = ?))`, ...ids, g.id);
      else where.on('p.namespace_id', inGroups, ...ids);
      const list = projectSqlList(where, order);
      if (!fewRows && orderBy === 'star_count') list.rows = starCountRows(rc.svc.db, list, sort);
      return projectsAnswer(rc, paginateSql<Project>(rc, rc.svc.db, fewRows ? fewRowsByIds(rc.svc.db, list, 'projects p', 'p.id') : list), !!q.simple);
    },
    { auth: 'optional' },
  );
}

/**
 * Groups::TransferService: the group and everything below it move under a group whose subgroups
 * the caller may create (or to the top level), as long as the path is free there; groups and
 * projects below become no more open than their new parent.
 */
function transferGroup(rc: RequestContext, g: Namespace, parent: Namespace | null): void {
  const fail = (reason: string) => apiError(400, `Transfer failed: ${reason}`);
  if (!parent && !g.parent_id) throw fail('Group is already a root group.');
  if (parent && parent.id === g.parent_id) throw fail('Group is already associated to the parent group.');
  if (parent && selfAndDescendantIds(rc.svc, g.id).includes(parent.id)) throw fail('Cannot transfer group to one of its subgroup.');
  const user = rc.user!;
  if (parent) {
    const min = groupSetting(namespaceSettings(parent), 'subgroup_creation_level') === 'owner' ? Access.OWNER : Access.MAINTAINER;
    if (!user.admin && effectiveGroupAccess(rc.svc, user, parent) < min) throw fail('You don\'t have enough permissions.');
  } else if (!user.admin && !user.can_create_group) {
    throw fail('You don\'t have enough permissions.');
  }
  const newFullPath = parent ? `${parent.full_path}/${g.path}` : g.path;
  const pathTaken =
    rc.svc.db.prepare('SELECT 1 FROM namespaces WHERE lower(full_path) = lower(?) AND id != ?').get(newFullPath, g.id) ||
    (parent && rc.svc.db.prepare('SELECT 1 FROM projects WHERE namespace_id = ? AND lower(path) = lower(?)').get(parent.id, g.path));
  if (pathTaken) throw fail('The parent group already has a subgroup or a project with the same path.');
  inTransaction(rc.svc.db, () => {
    rc.svc.db.prepare('UPDATE namespaces SET parent_id = ?, updated_at = ? WHERE id = ?').run(parent?.id ?? null, isoTime(rc.svc.now()), g.id);
    renameFullPaths(rc, g, newFullPath);
    if (parent) {
      const ids = selfAndDescendantIds(rc.svc, g.id);
      const marks = ids.map(() => '?').join(',');
      const allowed = VISIBILITIES.filter((v) => visibilityLevel(v) <= visibilityLevel(parent.visibility)).map((v) => `'${v}'`).join(',');
      rc.svc.db.prepare(`UPDATE namespaces SET visibility = ? WHERE id IN (${marks}) AND visibility NOT IN (${allowed})`).run(parent.visibility, ...ids);
      rc.svc.db.prepare(`UPDATE projects SET visibility = ? WHERE namespace_id IN (${marks}) AND visibility NOT IN (${allowed})`).run(parent.visibility, ...ids);
    }
  });
}

/** EE's groups API: CI minutes limits are the instance administrator's to set. */
function requireAdminFor(rc: RequestContext, p: Record<string, unknown>): void {
  if (!rc.user?.admin && ADMIN_ONLY_GROUP_SETTINGS.some((name) => p[name] !== undefined)) throw forbidden();
}

function listChildGroups(rc: RequestContext, g: Namespace, allDescendants: boolean) {
  const q = declared(rc.params, { search: t.string() });
  const ids = allDescendants ? selfAndDescendantIds(rc.svc, g.id).filter((id) => id !== g.id) : [];
  const where = allDescendants ? [`id IN (${ids.map(() => '?').join(',') || 'NULL'})`] : ['parent_id = ?'];
  const args: unknown[] = allDescendants ? [...ids] : [g.id];
  if (q.search) addFilter(where, args, "(name LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\')", `%${likeEscape(q.search)}%`, `%${likeEscape(q.search)}%`);
  const children = (rc.svc.db.prepare(`SELECT * FROM namespaces WHERE ${where.join(' AND ')} ORDER BY name, id`).all(...args) as Namespace[]).filter(
    (c) => canReadGroup(rc.svc, rc.user, c),
  );
  return paginate(rc, { count: () => children.length, rows: (l, o) => children.slice(o, o + l) }).map((c) => group(rc, c));
}

/** Namespace path rules shared by groups (and checked for projects). */
export function validateNamespacePath(path: string, topLevel: boolean): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!path) errors.path = ["can't be blank"];
  else if (!PATH_RE.test(path) || /\.(git|atom)$/.test(path) || path.endsWith('.')) {
    errors.path = ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"];
  } else if (topLevel && RESERVED_TOP_LEVEL.has(path.toLowerCase())) {
    errors.path = [`${path} is a reserved name`];
  }
  return errors;
}

/** Ruby's Hash#inspect of an errors hash, as GitLab interpolates it into messages. */
export function rubyHash(errors: Record<string, string[]>): string {
  return `{${Object.entries(errors)
    .map(([k, v]) => `:${k}=>[${v.map((m) => JSON.stringify(m)).join(', ')}]`)
    .join(', ')}}`;
}

function renameFullPaths(rc: RequestContext, g: Namespace, newFullPath: string): void {
  const old = g.full_path;
  rc.svc.db
    .prepare(
      `UPDATE namespaces SET full_path = ? || substr(full_path, ?) WHERE id IN (
         WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT n.id FROM namespaces n JOIN tree ON n.parent_id = tree.id) SELECT id FROM tree)`,
    )
    .run(newFullPath, old.length + 1, g.id);
}

/** Deletes a group, its subgroups, their projects and memberships. */
export function deleteGroupTree(rc: RequestContext, groupId: number): void {
  const ids = selfAndDescendantIds(rc.svc, groupId);
  const marks = ids.map(() => '?').join(',');
  const projectIds = (rc.svc.db.prepare(`SELECT id FROM projects WHERE namespace_id IN (${marks})`).all(...ids) as { id: number }[]).map((r) => r.id);
  if (projectIds.length) {
    rc.svc.db.prepare(`DELETE FROM members WHERE source_type = 'Project' AND source_id IN (${projectIds.map(() => '?').join(',')})`).run(...projectIds);
  }
  rc.svc.db.prepare(`DELETE FROM members WHERE source_type = 'Namespace' AND source_id IN (${marks})`).run(...ids);
  rc.svc.db.prepare('DELETE FROM namespaces WHERE id = ?').run(groupId);
}

export { effectiveGroupAccess };
