import { ListWhere } from '../../../db/filter';
import { rareTermCandidates } from '../../../db/trigram';
import type { RequestContext, Router } from '../../../http/route';
import { declared, requireAtLeastOne, t } from '../../../http/params';
import { apiError, badRequest, forbidden, notFound, validationError } from '../../../http/errors';
import { COUNT_LIMIT, type Keyset, type SortDirection, type SqlList, countUpTo, fewRowsByIds, limitSql, paginateArray, paginateSql, sortsFewer } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { projectListVersion } from '../project-list-version';
import { Access, PROJECT_MEMBER_ACCESS_LEVELS, canReadGroup, effectiveGroupAccess, effectiveProjectAccess, loadProject, memberProjectsSql, visibleProjectsSql } from '../access';
import { fullName, namespaceWebUrl, project, projectsPage } from '../entities';
import { recordEvent } from '../events';
import { type Namespace, type Visibility, VISIBILITIES, ancestorsOf, findNamespaceById, findNamespaceByFullPath, findNamespaceByRef, userNamespace, visibilityLevel } from '../namespaces';
import { type Project, findProjectById, projectSettings } from '../projects';
import { PROJECT_SETTING_PARAMS, applyProjectSettings, projectSettingsErrors, projectSettingsSpec } from '../project_settings';
import { groupProjectCreationLevel } from '../group_settings';
import { isoTime } from '../time';
import { ensureTopics } from '../topics';
import { STATISTICS_ORDERS, type StatisticsOrder, projectStatistics, statisticsOrderSql, withStatistics } from '../project_statistics';
import { applicationSettings, restrictedVisibilityErrors } from '../../application_settings/settings';
import { capVisibility } from '../namespaces';
import type { User } from '../users';
import type { ServiceContext } from '../../../context';
import { likeEscape, loadUser } from './users';
import { rubyHash, validateNamespacePath } from './groups';
import { customAttributesFilter, withCustomAttributes } from './custom_attributes';
import { GitMissingError } from '../../../git';
import { createProjectRepository, removeDeletedRepositories } from '../../repositories/lifecycle';
import { checkUnmodifiedSince } from '../../../http/conditional';
import { avatarUrl, readAvatarParam, writeAvatar } from '../avatars';
import { PROJECT_WRITES } from '../project-rows';
import { rowsByIds } from '../../../db/written-rows';
import type { Db } from '../../../db/connection';
import { type FeatureType, featureHiddenProjectIds } from '../feature-access';
import { projectGroupLinks } from '../group-links';

/**
 * Filters shared by /projects, /groups/:id/projects and /users/:id/projects, in both of ListWhere's
 * forms (a list of them reads SqlList.from from `walk` and SqlList.narrow from `narrow`).
 * `fewRows`: at most COUNT_LIMIT projects can match (the search index's candidates).
 */
export function projectListFilters(rc: RequestContext): { where: ListWhere; order: string; orderBy: string; sort: SortDirection; fewRows: boolean } {
  const q = declared(rc.params, {
    search: t.string(),
    owned: t.boolean(),
    membership: t.boolean(),
    visibility: t.string().values(VISIBILITIES),
    archived: t.boolean(),
    min_access_level: t.integer(),
    topic: t.string(),
    id_after: t.integer(),
    id_before: t.integer(),
    starred: t.boolean(),
    imported: t.boolean(),
    search_namespaces: t.boolean(),
    with_issues_enabled: t.boolean(),
    with_merge_requests_enabled: t.boolean(),
    topic_id: t.integer(),
    last_activity_after: t.dateTime(),
    last_activity_before: t.dateTime(),
    updated_after: t.dateTime(),
    updated_before: t.dateTime(),
    order_by: t.string().values([...PROJECT_ORDERS, ...STATISTICS_ORDERS]).default('created_at'),
    sort: t.string().values(['asc', 'desc']).default('desc'),
  });
  // The statistics orders are an administrator's; anyone else gets the default order
  // (API::Projects#verify_statistics_order_by_projects!).
  const orderBy = (STATISTICS_ORDERS as readonly string[]).includes(q.order_by) && !rc.user?.admin ? 'created_at' : q.order_by;
  let fewRows = false;
  const where = new ListWhere();
  const user = rc.user;
  // Anonymous callers see public projects: a condition the visibility index can count.
  if (!user) where.on('p.visibility', "= 'public'");
  else {
    const vis = visibleProjectsSql(rc.svc, user);
    where.add(vis.sql, ...vis.args);
  }
  if (q.membership || q.min_access_level !== undefined) {
    if (!user) where.add('0');
    else {
      const mine = memberProjectsSql(rc.svc, user, 'p', q.min_access_level ?? Access.MINIMAL_ACCESS);
      where.add(mine.sql, ...mine.args);
    }
  }
  if (q.owned) {
    if (!user) where.add('0');
    else where.on('p.namespace_id', "IN (SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = ?)", user.id);
  }
  if (q.starred) {
    if (!user) where.add('0');
    else where.on('p.id', 'IN (SELECT project_id FROM project_stars WHERE user_id = ?)', user.id);
  }
  // Projects the caller imported from elsewhere (`created_by(current_user).imported`).
  if (q.imported) {
    if (!user) where.add('0');
    else where.add('p.creator_id = ? AND p.import_type IS NOT NULL', user.id);
  }
  if (q.search) {
    const like = `%${likeEscape(q.search)}%`;
    if (q.search_namespaces) {
      where.add(
        `(p.name LIKE ? ESCAPE '\\' OR p.path LIKE ? ESCAPE '\\' OR p.description LIKE ? ESCAPE '\\' OR (SELECT full_path FROM namespaces WHERE id = p.namespace_id) || '/' || p.path LIKE ? ESCAPE '\\')`,
        like,
        like,
        like,
        like,
      );
    } else {
      // A term few projects hold: those the search index finds, checked with the same LIKE.
      const few = rareTermCandidates(rc.svc.db, 'projects_search', 'p.id', q.search, ['name', 'path', 'description'], PROJECT_WRITES);
      if (few) where.add(few.sql, ...few.args);
      fewRows = !!few;
      where.add(`(p.name LIKE ? ESCAPE '\\' OR p.path LIKE ? ESCAPE '\\' OR p.description LIKE ? ESCAPE '\\')`, like, like, like);
    }
  }
  if (q.visibility) where.on('p.visibility', '= ?', q.visibility);
  if (q.archived !== undefined) where.on('p.archived', '= ?', Number(q.archived));
  if (q.topic) {
    for (const topic of q.topic.split(',').map((s) => s.trim()).filter(Boolean)) {
      where.add('EXISTS (SELECT 1 FROM json_each(p.topics) WHERE lower(value) = lower(?))', topic);
    }
  }
  const custom = customAttributesFilter(rc, 'projects', 'p');
  where.addAll(custom.sql, custom.args);
  if (q.id_after !== undefined) where.add('p.id > ?', q.id_after);
  if (q.id_before !== undefined) where.add('p.id < ?', q.id_before);
  if (q.topic_id !== undefined) {
    // ProjectsFinder#by_topic_id: no such topic, no project.
    where.add('EXISTS (SELECT 1 FROM topics tp, json_each(p.topics) WHERE tp.id = ? AND lower(value) = lower(tp.name))', q.topic_id);
  }
  // ProjectsFinder#by_last_activity_after/before (strict), UpdatedAtFilter (inclusive; none when before < after).
  // Each read by its own index where the range holds few projects (SqlList.narrow), walked in the
  // order's otherwise: written the same both ways, a range none met (order_by=path&last_activity_after
  // a future date) walked the path index's 10,000 projects for no row after every write (~1.1 ms).
  if (q.last_activity_after) where.range('p.last_activity_at', '> ?', q.last_activity_after);
  if (q.last_activity_before) where.range('p.last_activity_at', '< ?', q.last_activity_before);
  if (q.updated_before) where.range('p.updated_at', '<= ?', q.updated_before);
  if (q.updated_after) where.range('p.updated_at', '>= ?', q.updated_after);
  if (q.with_issues_enabled) withFeatureAvailable(rc, where, 'Issue');
  if (q.with_merge_requests_enabled) withFeatureAvailable(rc, where, 'MergeRequest');
  const col =
    orderBy === 'similarity'
      ? 'p.created_at'
      : orderBy === 'star_count'
        ? '(SELECT count(*) FROM project_stars WHERE project_id = p.id)'
        : (STATISTICS_ORDERS as readonly string[]).includes(orderBy)
          ? statisticsOrderSql(orderBy as StatisticsOrder, 'p')
          : `p.${orderBy}`;
  return { where, order: `${col} ${q.sort}, p.id ${q.sort}`, orderBy, sort: q.sort, fewRows };
}

const PROJECT_ORDERS = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity', 'star_count'] as const;

/**
 * ProjectFeature.with_feature_available_for_user: the projects whose feature the caller may not use
 * (disabled; private to members of less than Reporter for merge requests, Guest otherwise; an
 * administrator's, disabled only) left out, read from core/127's partial index as the lists of
 * issues and merge requests do (featureHiddenProjectIds), not each project's settings read: a count
 * of 10,000 projects read as many settings after every write to a project (~1.5 ms, 6x the page).
 */
function withFeatureAvailable(rc: RequestContext, where: ListWhere, type: FeatureType): void {
  const hidden = featureHiddenProjectIds(rc.svc, rc.user, type);
  if (hidden.length) where.add(`p.id NOT IN (${hidden.map(Number).join(', ')})`);
}

/**
 * A page of projects by star_count (then id, the same way), read in two parts instead of every
 * project of the list counted its stars and sorted (10,000 projects, after every write to one:
 * ~1.7 ms a page): the starred ones (those project_stars names, few as a rule) sorted by their
 * count, and the others (a count of 0) in id order, walked by the table's own; descending, the
 * starred first, ascending last. The same rows in the same order as the list's ORDER BY.
 */
export function starCountRows(db: Db, list: SqlList<Project>, sort: SortDirection): SqlList<Project>['rows'] {
  const ids = (rows: unknown[]): number[] => (rows as { id: number }[]).map((r) => r.id);
  return (limit, offset) => {
    // The conditions read by their own indexes where that sorts fewer than the id order walks to the page (paginateSql's choice).
    const narrow = list.narrow ?? list.from;
    const conditions = narrow !== list.from && sortsFewer(db, narrow, countUpTo(db, narrow, list.args, COUNT_LIMIT + 1), offset + limit) ? narrow : list.from;
    const part = (starred: boolean) => `${conditions} AND p.id ${starred ? 'IN' : 'NOT IN'} (SELECT project_id FROM project_stars)`;
    const starred = ids(db.prepare(`SELECT p.id AS id ${part(true)} ORDER BY ${list.order}`).all(...list.args));
    const unstarred = (n: number, skip: number): number[] =>
      n > 0 ? ids(db.prepare(`SELECT p.id AS id ${part(false)} ORDER BY p.id ${sort} ${limitSql(n)} OFFSET ?`).all(...list.args, skip)) : [];
    let page: number[];
    if (sort === 'desc') {
      const first = starred.slice(offset, offset + limit);
      page = [...first, ...unstarred(limit - first.length, Math.max(0, offset - starred.length))];
    } else {
      const first = unstarred(limit, offset);
      // Where the starred part starts: after the last unstarred one read, or (none read) after them all.
      const others = first.length ? offset + first.length : (db.prepare(`SELECT count(*) AS n ${part(false)}`).get(...list.args) as { n: number }).n;
      const from = Math.max(0, offset - others);
      page = [...first, ...starred.slice(from, from + limit - first.length)];
    }
    return rowsByIds<Project>(db, PROJECT_WRITES, page);
  };
}

/** A list of projects from projectListFilters' conditions (alias `p`): walked in the order's index or read from the conditions' own (SqlList.narrow). */
export function projectSqlList(where: ListWhere, order: string, keyset?: Keyset<Project>): SqlList<Project> {
  return {
    select: 'p.*',
    from: `FROM projects p WHERE ${where.walk.join(' AND ')}`,
    narrow: `FROM projects p WHERE ${where.narrow.join(' AND ')}`,
    args: where.args,
    order,
    keyset,
    // A page's ids from the order, its rows kept by id until written (core/146's log).
    byId: { log: PROJECT_WRITES, idColumn: 'p.id' },
  };
}

/** Gitlab::Pagination::Keyset for Project: `order_by=id` only, the next page through `id_after`/`id_before`. */
function projectKeyset(orderBy: string, sort: SortDirection): Keyset<Project> {
  return {
    style: 'id',
    type: 'Project',
    orderBy,
    sort,
    orders: { id: { column: 'p.id', sorts: ['asc', 'desc'], value: (p) => p.id } },
    idColumn: 'p.id',
    id: (p) => p.id,
  };
}

/**
 * Grape's `at_least_one_of(*ProjectsHelpers.update_params_at_least_one_of)` on PUT /projects/:id (CE list;
 * the EE build adds more, so anything else this route understands also counts).
 */
const PROJECT_UPDATE_AT_LEAST_ONE_OF = [
  'allow_merge_on_skipped_pipeline',
  'analytics_access_level',
  'autoclose_referenced_issues',
  'auto_devops_enabled',
  'auto_devops_deploy_strategy',
  'auto_cancel_pending_pipelines',
  'build_git_strategy',
  'build_timeout',
  'builds_access_level',
  'ci_config_path',
  'ci_default_git_depth',
  'ci_allow_fork_pipelines_to_run_in_parent_project',
  'ci_id_token_sub_claim_components',
  'ci_forward_deployment_enabled',
  'ci_forward_deployment_rollback_allowed',
  'ci_separated_caches',
  'container_registry_access_level',
  'container_expiration_policy_attributes',
  'default_branch',
  'description',
  'emails_disabled',
  'emails_enabled',
  'forking_access_level',
  'issues_access_level',
  'lfs_enabled',
  'merge_pipelines_enabled',
  'merge_requests_access_level',
  'merge_requests_template',
  'merge_trains_enabled',
  'merge_method',
  'merge_request_title_regex',
  'merge_request_title_regex_description',
  'name',
  'only_allow_merge_if_all_discussions_are_resolved',
  'only_allow_merge_if_pipeline_succeeds',
  'package_registry_access_level',
  'pages_access_level',
  'path',
  'printing_merge_request_link_enabled',
  'public_builds',
  'public_jobs',
  'remove_source_branch_after_merge',
  'repository_access_level',
  'request_access_enabled',
  'resolve_outdated_diff_discussions',
  'restrict_user_defined_variables',
  'show_diff_preview_in_email',
  'security_and_compliance_access_level',
  'squash_option',
  'shared_runners_enabled',
  'group_runners_enabled',
  'resource_group_default_process_mode',
  'snippets_access_level',
  'tag_list',
  'topics',
  'visibility',
  'wiki_access_level',
  'avatar',
  'suggestion_commit_message',
  'merge_commit_template',
  'squash_commit_template',
  'issue_branch_template',
  'repository_storage',
  'packages_enabled',
  'service_desk_enabled',
  'keep_latest_artifact',
  'mr_default_target_self',
  'enforce_auth_checks_on_uploads',
  'releases_access_level',
  'environments_access_level',
  'feature_flags_access_level',
  'infrastructure_access_level',
  'monitor_access_level',
  'model_experiments_access_level',
  'model_registry_access_level',
  'warn_about_potentially_unwanted_characters',
  'ci_pipeline_variables_minimum_override_role',
  'ci_push_repository_for_job_token_allowed',
  'ci_delete_pipelines_in_seconds',
  'max_artifacts_size',
  'issues_enabled',
  'jobs_enabled',
  'merge_requests_enabled',
  'wiki_enabled',
  'snippets_enabled',
  'container_registry_enabled',
];

/** A page of the projects the caller can see, with GET /projects's filters (and `extra` conditions on alias `p`). */
export async function listProjects(rc: RequestContext, extra?: (where: ListWhere) => void): Promise<Record<string, unknown>[]> {
  const q = declared(rc.params, { simple: t.boolean() });
  const { where, order, orderBy, sort, fewRows } = projectListFilters(rc);
  extra?.(where);
  const list = projectSqlList(where, order, projectKeyset(orderBy, sort));
  if (!fewRows) list.anchors = projectListAnchors(rc.svc, list, orderBy, sort);
  if (!fewRows && orderBy === 'star_count') {
    list.rows = starCountRows(rc.svc.db, list, sort);
    // Counted from the conditions' own indexes, as paginateSql counts a list without rows of its
    // own: the walk form (+column) read all 10,000 projects for a last_activity_after range.
    if (list.narrow && list.narrow !== list.from) list.countFrom = { from: list.narrow, args: list.args };
  }
  return projectsAnswer(rc, paginateSql<Project>(rc, rc.svc.db, fewRows ? fewRowsByIds(rc.svc.db, list, 'projects p', 'p.id') : list), !!q.simple);
}

/** Orders on a column never NULL (then p.id), as PageAnchors needs them. */
const ANCHORED_PROJECT_ORDERS: Record<string, keyof Project> = { id: 'id', name: 'name', path: 'path', created_at: 'created_at', updated_at: 'updated_at', last_activity_at: 'last_activity_at' };
/** The tables a list's conditions may read for core/099's versions of projects and namespaces to say when its rows may have changed. */
const PROJECT_LIST_TABLES = new Set(['projects', 'namespaces', 'json_each']);

/**
 * Anchors for a list of projects whose conditions read only projects and namespaces (an
 * administrator's or an anonymous caller's view; a member's reads members, and the day): core/099
 * moves their versions on every write, so while both hold its count past COUNT_LIMIT is not walked
 * again (owned=true of 10,000 projects) and a deep page starts after a row an earlier read left.
 */
function projectListAnchors(svc: ServiceContext, list: SqlList<Project>, orderBy: string, sort: SortDirection): SqlList<Project>['anchors'] {
  const field = ANCHORED_PROJECT_ORDERS[orderBy];
  if (!field) return undefined;
  for (const sql of [list.from, list.narrow ?? '']) {
    for (const m of sql.matchAll(/\b(?:FROM|JOIN)\s+([A-Za-z_]\w*)/gi)) if (!PROJECT_LIST_TABLES.has(m[1]!.toLowerCase())) return undefined;
  }
  const db = svc.db;
  return {
    key: JSON.stringify(['projects', list.from, list.args, list.order]),
    version: projectListVersion(db, [list.from, list.narrow ?? '', list.order]),
    column: `p.${field}`,
    idColumn: 'p.id',
    sort,
    value: (p) => p[field] as string | number,
    id: (p) => p.id,
    countsAtVersion: true,
  };
}

/** A page of projects as a list answers it: full or `simple` entities, with what the request asks for besides (projectsExtras). */
export function projectsAnswer(rc: RequestContext, rows: Project[], simple: boolean): Promise<Record<string, unknown>[]> {
  return projectsExtras(rc, rows, projectsPage(rc, rows, simple), simple);
}

/**
 * `with_custom_attributes` (after `namespace`, BasicProjectDetails) and `statistics` (not on
 * `simple`'s Entities::BasicProjectDetails) on the entities of `rows`.
 */
async function projectsExtras(rc: RequestContext, rows: Project[], entities: Record<string, unknown>[], simple: boolean): Promise<Record<string, unknown>[]> {
  const out = withCustomAttributes(rc, 'projects', entities, 'namespace');
  if (simple || !declared(rc.params, { statistics: t.boolean() }).statistics) return out;
  const stats = await projectStatistics(rc, rows);
  return out.map((entity, i) => withStatistics(entity, stats.get(rows[i].id)));
}

/** GET /projects's own check (API::Projects#validate_updated_at_order_and_filter!): an updated_at filter needs that order. */
function requireUpdatedAtOrder(rc: RequestContext): void {
  const q = declared(rc.params, { updated_after: t.dateTime(), updated_before: t.dateTime(), order_by: t.string() });
  if ((q.updated_after || q.updated_before) && (q.order_by ?? 'created_at') !== 'updated_at') {
    throw badRequest('`updated_at` filter and `updated_at` sorting must be paired');
  }
}

export function registerProjectRoutes(r: Router): void {
  r.get(
    '/projects',
    (rc) => {
      requireUpdatedAtOrder(rc);
      return listProjects(rc);
    },
    { auth: 'optional' },
  );

  r.get(
    '/users/:user_id/projects',
    (rc) => {
      const user = loadUser(rc, rc.path.user_id);
      return listProjects(rc, (where) => where.on('p.namespace_id', "IN (SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = ?)", user.id));
    },
    { auth: 'optional' },
  );

  r.get(
    '/users/:user_id/starred_projects',
    (rc) => {
      const user = loadUser(rc, rc.path.user_id);
      return listProjects(rc, (where) => where.on('p.id', 'IN (SELECT project_id FROM project_stars WHERE user_id = ?)', user.id));
    },
    { auth: 'optional' },
  );

  r.get(
    '/projects/:id',
    (rc) => {
      const p = loadProject(rc);
      // Answered synchronously unless asked for extras: the hot path stays free of a promise.
      if (rc.params.statistics === undefined && rc.params.with_custom_attributes === undefined) return project(rc, p);
      return projectsExtras(rc, [p], [project(rc, p)], false).then((rows) => rows[0]);
    },
    { auth: 'optional' },
  );

  // GET /projects/:id/groups: the groups above the project, and with_shared those it is shared with (Projects::GroupsFinder).
  r.get(
    '/projects/:id/groups',
    (rc) => {
      const proj = loadProject(rc);
      const q = declared(rc.params, {
        search: t.string(),
        skip_groups: t.array(t.integer()),
        with_shared: t.boolean(),
        shared_visible_only: t.boolean(),
        shared_min_access_level: t.integer().values(PROJECT_MEMBER_ACCESS_LEVELS),
      });
      const ns = findNamespaceById(rc.svc, proj.namespace_id)!;
      const groups = (ns.kind === 'group' ? [ns, ...ancestorsOf(rc.svc, ns)] : []).filter((g) => canReadGroup(rc.svc, rc.user, g));
      if (q.with_shared) {
        // The invited groups (at least shared_min_access_level), the ones the caller can read with shared_visible_only.
        for (const link of projectGroupLinks(rc.svc, proj.id)) {
          const g = findNamespaceById(rc.svc, link.group_id)!;
          if (q.shared_min_access_level != null && link.group_access < q.shared_min_access_level) continue;
          if (q.shared_visible_only && !canReadGroup(rc.svc, rc.user, g)) continue;
          if (!groups.some((x) => x.id === g.id)) groups.push(g);
        }
      }
      const search = q.search?.toLowerCase();
      const shown = groups
        .filter((g) => !q.skip_groups?.includes(g.id))
        .filter((g) => !search || g.name.toLowerCase().includes(search) || g.path.toLowerCase().includes(search))
        .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
      // Entities::PublicGroupDetails
      return paginateArray(rc, shown).map((g) => ({
        id: g.id,
        web_url: namespaceWebUrl(rc, g),
        name: g.name,
        avatar_url: avatarUrl(rc.baseUrl, 'group', g.id, g.avatar),
        full_name: fullName(rc.svc, g),
        full_path: g.full_path,
      }));
    },
    { auth: 'optional' },
  );

  r.put('/projects/:id/transfer', (rc) => {
    const proj = loadProject(rc, Access.OWNER);
    const p = declared(rc.params, { namespace: t.idOrPath().required() });
    const target = findNamespaceByRef(rc.svc, p.namespace);
    // find_namespace!: a namespace the caller cannot read is not found.
    const readable = target && (target.kind === 'group' ? canReadGroup(rc.svc, rc.user, target) : rc.user!.admin || target.owner_id === rc.user!.id);
    if (!target || !readable) throw notFound('Namespace');
    transferProject(rc, proj, target);
    return project(rc, findProjectById(rc.svc, proj.id)!);
  });

  r.post('/projects', async (rc) => {
    const user = rc.requireUser();
    requireAtLeastOne(rc.params, ['name', 'path']);
    const p = declared(rc.params, {
      name: t.string(),
      path: t.string(),
      namespace_id: t.idOrPath(),
      description: t.string(),
      visibility: t.string().values(VISIBILITIES),
      default_branch: t.string(),
      request_access_enabled: t.boolean(),
      topics: t.commaList(),
      tag_list: t.commaList(),
      initialize_with_readme: t.boolean(),
      avatar: t.any(),
      ...projectSettingsSpec(),
    });
    const avatar = readAvatarParam(p.avatar);
    // `at_least_one_of` counts a null as given; a blank name then fails validation, not the slug.
    const name = p.name ?? p.path ?? '';
    const path = p.path ?? slugify(name);
    let ns: Namespace | undefined;
    if (p.namespace_id != null) {
      ns = /^\d+$/.test(p.namespace_id) ? findNamespaceById(rc.svc, Number(p.namespace_id)) : findNamespaceByFullPath(rc.svc, p.namespace_id);
      // Projects::CreateService#allowed_namespace?: an unknown namespace fails the same check (deny_namespace).
      if (!ns || !canCreateProjectIn(rc, ns)) throw apiError(400, { namespace: ['is not valid'] });
    } else {
      ns = userNamespace(rc.svc, user.id)!;
    }
    // ApplicationSetting#default_project_visibility, never more open than the group it lands in.
    const visibility = p.visibility ?? capVisibility(applicationSettings(rc.svc).default_project_visibility, ns.kind === 'group' ? ns.visibility : null);
    const settings = newProjectSettings(rc.svc, visibility);
    applyProjectSettings(settings, p);
    const errors = {
      ...newProjectErrors(rc.svc, ns, name, path, visibility),
      ...restrictedVisibilityErrors(rc.svc, !!user.admin, visibility),
      ...projectSettingsErrors(settings),
    };
    if (Object.keys(errors).length) throw validationError(errors);
    // A README commit needs git: say so before anything is created.
    if (p.initialize_with_readme && !rc.svc.git.available) throw new GitMissingError(rc.svc.git.reason!);
    const created = inTransaction(rc.svc.db, () => {
      const row = insertProject(rc.svc, user, ns!, {
        name,
        path,
        description: p.description ?? null,
        visibility,
        // ApplicationSetting#default_branch_name, else Gitlab::DefaultBranch's "main".
        defaultBranch: p.default_branch ?? (applicationSettings(rc.svc).default_branch_name as string | null) ?? undefined,
        requestAccessEnabled: p.request_access_enabled !== false,
        topics: p.topics ?? p.tag_list ?? [],
        settings,
      });
      if (avatar) writeAvatar(rc.svc, 'project', row.id, avatar);
      return row;
    });
    await createProjectRepository(rc.svc, created, user, !!p.initialize_with_readme);
    return project(rc, findProjectById(rc.svc, created.id)!);
  });

  r.put('/projects/:id', async (rc) => {
    if (!['archived', ...PROJECT_SETTING_PARAMS, ...PROJECT_UPDATE_AT_LEAST_ONE_OF].some((k) => rc.params[k] !== undefined)) {
      requireAtLeastOne(rc.params, PROJECT_UPDATE_AT_LEAST_ONE_OF);
    }
    const proj = loadProject(rc, Access.MAINTAINER);
    const p = declared(rc.params, {
      name: t.string(),
      path: t.string(),
      description: t.string(),
      visibility: t.string().values(VISIBILITIES),
      default_branch: t.string(),
      request_access_enabled: t.boolean(),
      topics: t.commaList(),
      tag_list: t.commaList(),
      archived: t.boolean(),
      avatar: t.any(),
      ...projectSettingsSpec(),
    });
    const avatar = readAvatarParam(p.avatar);
    const errors = validateProjectNamePath(p.name ?? proj.name, p.path ?? proj.path);
    if (p.path && p.path.toLowerCase() !== proj.path.toLowerCase() && rc.svc.db.prepare('SELECT 1 FROM projects WHERE namespace_id = ? AND lower(path) = lower(?) AND id != ?').get(proj.namespace_id, p.path, proj.id)) {
      errors.path = ['has already been taken'];
    }
    if (p.name && rc.svc.db.prepare('SELECT 1 FROM projects WHERE namespace_id = ? AND lower(name) = lower(?) AND id != ?').get(proj.namespace_id, p.name, proj.id)) {
      errors.name = ['has already been taken'];
    }
    if (p.visibility && effectiveProjectAccess(rc.svc, rc.user, proj) < Access.OWNER && p.visibility !== proj.visibility) {
      throw forbidden();
    }
    if (p.visibility && p.visibility !== proj.visibility) Object.assign(errors, restrictedVisibilityErrors(rc.svc, !!rc.user!.admin, p.visibility));
    const settings = { ...projectSettings(proj) };
    applyProjectSettings(settings, p);
    Object.assign(errors, projectSettingsErrors(settings));
    if (Object.keys(errors).length) throw validationError(errors);
    // Projects::UpdateService#validate_default_branch_change: HEAD moves only to a branch that exists.
    if (p.default_branch && p.default_branch !== proj.default_branch) {
      const repo = await rc.svc.git.ensure(proj);
      if (!(await repo.branchExists(p.default_branch))) throw validationError({ base: [`Could not change HEAD: branch '${p.default_branch}' does not exist`] });
      await repo.setHead(p.default_branch);
    }
    inTransaction(rc.svc.db, () => {
      ensureTopics(rc.svc, p.topics ?? p.tag_list ?? []);
      rc.svc.db
        .prepare(
          `UPDATE projects SET name = ?, path = ?, description = ?, visibility = ?, default_branch = ?, request_access_enabled = ?, topics = ?, archived = ?, settings = ?, updated_at = ? WHERE id = ?`,
        )
        .run(
          p.name ?? proj.name,
          p.path ?? proj.path,
          p.description === undefined ? proj.description : p.description,
          p.visibility ?? proj.visibility,
          p.default_branch ?? proj.default_branch,
          p.request_access_enabled === undefined ? proj.request_access_enabled : Number(p.request_access_enabled),
          p.topics || p.tag_list ? JSON.stringify(p.topics ?? p.tag_list) : proj.topics,
          p.archived === undefined ? proj.archived : Number(p.archived),
          JSON.stringify(settings),
          isoTime(rc.svc.now()),
          proj.id,
        );
      if (avatar !== undefined) writeAvatar(rc.svc, 'project', proj.id, avatar);
    });
    return project(rc, findProjectById(rc.svc, proj.id)!);
  });

  for (const action of ['archive', 'unarchive'] as const) {
    r.post(`/projects/:id/${action}`, (rc) => {
      const proj = loadProject(rc, Access.MAINTAINER);
      rc.svc.db.prepare('UPDATE projects SET archived = ?, updated_at = ? WHERE id = ?').run(action === 'archive' ? 1 : 0, isoTime(rc.svc.now()), proj.id);
      return project(rc, findProjectById(rc.svc, proj.id)!);
    });
  }

  r.delete('/projects/:id', async (rc) => {
    const proj = loadProject(rc, Access.OWNER);
    checkUnmodifiedSince(rc, proj.updated_at);
    inTransaction(rc.svc.db, () => deleteProject(rc, proj));
    await removeDeletedRepositories(rc.svc);
    rc.status = 202;
    return { message: '202 Accepted' };
  });
}

/**
 * Projects::TransferService: the project moves to a namespace the caller may create projects in,
 * where its path is free; it becomes no more open than its new group. Repositories live by
 * project id, so only the records move.
 */
function transferProject(rc: RequestContext, proj: Project, target: Namespace): void {
  const fail = (reason: string) => apiError(400, `Failed to transfer project ${rubyHash({ new_namespace: [reason] })}`);
  if (target.id === proj.namespace_id) throw fail('Project is already in this namespace.');
  if (!canCreateProjectIn(rc, target)) throw fail('Transfer failed, please contact an admin.');
  const taken =
    rc.svc.db.prepare('SELECT 1 FROM projects WHERE namespace_id = ? AND (lower(path) = lower(?) OR lower(name) = lower(?))').get(target.id, proj.path, proj.name) ||
    rc.svc.db.prepare('SELECT 1 FROM namespaces WHERE lower(full_path) = lower(?)').get(`${target.full_path}/${proj.path}`);
  if (taken) throw fail('Project with same name or path in target namespace already exists');
  const visibility = capVisibility(proj.visibility, target.kind === 'group' ? target.visibility : null);
  inTransaction(rc.svc.db, () => {
    rc.svc.db.prepare('UPDATE projects SET namespace_id = ?, visibility = ?, updated_at = ? WHERE id = ?').run(target.id, visibility, isoTime(rc.svc.now()), proj.id);
    // The owner of a personal namespace is the project's Owner there.
    if (target.kind === 'user' && target.owner_id) {
      const now = isoTime(rc.svc.now());
      rc.svc.db
        .prepare(
          `INSERT INTO members (source_type, source_id, user_id, access_level, created_by_id, created_at, updated_at)
           SELECT 'Project', ?, ?, 50, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM members WHERE source_type = 'Project' AND source_id = ? AND user_id = ?)`,
        )
        .run(proj.id, target.owner_id, rc.user!.id, now, now, proj.id, target.owner_id);
    }
  });
}

/**
 * Projects::CreateService's checks for a new project: the name and path rules, both free in the
 * namespace (and the path free as a subgroup's), the visibility a group allows.
 */
export function newProjectErrors(svc: ServiceContext, ns: Namespace, name: string, path: string, visibility: Visibility): Record<string, string[]> {
  const errors = validateProjectNamePath(name, path);
  if (!errors.path && !OCI_PATH_RE.test(path)) errors.path = ['must not start or end with a special character and must not contain consecutive special characters.'];
  if (!errors.path && svc.db.prepare('SELECT 1 FROM projects WHERE namespace_id = ? AND lower(path) = lower(?)').get(ns.id, path)) {
    errors.path = ['has already been taken'];
  }
  if (!errors.name && svc.db.prepare('SELECT 1 FROM projects WHERE namespace_id = ? AND lower(name) = lower(?)').get(ns.id, name)) {
    errors.name = ['has already been taken'];
  }
  if (ns.kind === 'group' && svc.db.prepare('SELECT 1 FROM namespaces WHERE lower(full_path) = lower(?)').get(`${ns.full_path}/${path}`)) {
    errors.path = ['has already been taken'];
  }
  if (ns.kind === 'group' && visibilityLevel(visibility) > visibilityLevel(ns.visibility)) {
    errors.visibility_level = [`${visibility} is not allowed in a ${ns.visibility} group.`];
  }
  return errors;
}

/** A project path that container registry repositories accept (Project validates it on create since 16.x). */
const OCI_PATH_RE = /^[a-zA-Z0-9]+(?:[._-][a-zA-Z0-9]+)*$/;

export interface NewProject {
  name: string;
  path: string;
  description?: string | null;
  visibility: Visibility;
  defaultBranch?: string;
  requestAccessEnabled?: boolean;
  topics?: string[];
  settings?: Record<string, unknown>;
  /** A project an importer fills: its type, the upstream URL (without credentials) and the first status. */
  import?: { type: string; url: string | null; status: string };
  /** Kept from the source by a migration; now otherwise. */
  createdAt?: string;
}

/**
 * Inserts a validated project, its owner's membership in a personal namespace and its 'created'
 * event. Call inside a transaction.
 */
export function insertProject(svc: ServiceContext, creator: User, ns: Namespace, p: NewProject): Project {
  const now = isoTime(svc.now());
  const info = svc.db
    .prepare(
      `INSERT INTO projects (namespace_id, creator_id, name, path, description, visibility, default_branch, request_access_enabled, topics, settings,
         import_type, import_url, import_status, created_at, updated_at, last_activity_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      ns.id,
      creator.id,
      p.name,
      p.path,
      p.description ?? null,
      p.visibility,
      p.defaultBranch ?? 'main',
      p.requestAccessEnabled === false ? 0 : 1,
      JSON.stringify(p.topics ?? []),
      JSON.stringify(p.settings ?? {}),
      p.import?.type ?? null,
      p.import?.url ?? null,
      p.import?.status ?? 'none',
      p.createdAt ?? now,
      now,
      now,
    );
  const id = Number(info.lastInsertRowid);
  ensureTopics(svc, p.topics ?? []);
  if (ns.kind === 'user') {
    svc.db
      .prepare(
        `INSERT INTO members (source_type, source_id, user_id, access_level, created_by_id, created_at, updated_at)
         VALUES ('Project', ?, ?, 50, ?, ?, ?)`,
      )
      .run(id, ns.owner_id, creator.id, now, now);
  }
  recordEvent(svc, { action: 'created', authorId: creator.id, projectId: id, targetType: null });
  return findProjectById(svc, id)!;
}

export function deleteProject(rc: RequestContext, proj: Project): void {
  rc.svc.db.prepare("DELETE FROM members WHERE source_type = 'Project' AND source_id = ?").run(proj.id);
  rc.svc.db.prepare('DELETE FROM projects WHERE id = ?').run(proj.id);
}

/**
 * A new project's settings that depend on the instance or on its visibility: Pages open to everyone
 * in a public project, shared runners and the CI config path as the instance says.
 */
function newProjectSettings(svc: ServiceContext, visibility: Visibility): Record<string, unknown> {
  const instance = applicationSettings(svc);
  const settings: Record<string, unknown> = {
    pages_access_level: visibility === 'public' ? 'enabled' : 'private',
    shared_runners_enabled: instance.shared_runners_enabled !== false,
  };
  if (instance.default_ci_config_path) settings.ci_config_path = instance.default_ci_config_path;
  return settings;
}

/** Gitlab::Access project creation levels: who may create projects in a group. */
function canCreateProjectIn(rc: RequestContext, ns: Namespace): boolean {
  const user = rc.user!;
  if (user.admin) return true;
  if (ns.kind === 'user') return ns.owner_id === user.id;
  const level = effectiveGroupAccess(rc.svc, user, ns);
  const min = { noone: Infinity, administrator: Infinity, owner: Access.OWNER, maintainer: Access.MAINTAINER, developer: Access.DEVELOPER }[groupProjectCreationLevel(rc.svc, ns)];
  return level >= min;
}

function validateProjectNamePath(name: string, path: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!name.trim()) errors.name = ["can't be blank"];
  else if (name.length > 255) errors.name = ['is too long (maximum is 255 characters)'];
  else if (!/^[\p{L}\p{N}_][\p{L}\p{N}_. +-]*$/u.test(name)) {
    errors.name = ["can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'."];
  }
  const pathErrors = validateNamespacePath(path, false);
  if (pathErrors.path) errors.path = pathErrors.path;
  return errors;
}

function slugify(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
}

