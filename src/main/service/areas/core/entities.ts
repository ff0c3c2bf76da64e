import type { ServiceContext } from '../../context';
import { type TimeTracked, timeStats } from './time_tracking';
import { taskCompletionStatus, taskStatus } from './tasks';
import { cachedEntity, cachedLookup, readUnremembered, sameTableVersions, tableVersionsOf, unchangedEntity, unchangedPage } from '../../db/connection';
import { markdownField } from '../../markdown/markdown';
import type { User, PersonalAccessToken } from './users';
import { USERS_TABLE, findUserById, rememberUsers, tokenExpired } from './users';
import { type Namespace, ancestorsOf, findNamespaceById, namespaceSettings } from './namespaces';
import { type Project, findProjectById, projectSettings, projectTopics } from './projects';
import { type GroupSettingName, groupBranchProtection, groupProjectCreationLevel, groupSetting } from './group_settings';
import { type ProjectSettingName, projectSetting } from './project_settings';
import { Access, canReadGroup, canReadProject, effectiveGroupAccess, effectiveProjectAccess, projectAccessLevel, groupAccessLevel } from './access';
import { groupGroupLinks, projectGroupLinks, projectShareLevel } from './group-links';
import { isSubscribed } from './participants';
import { applicationSettings } from '../application_settings/settings';
import { type MilestoneRow, findMilestoneById, milestoneExpired } from './milestones';
import { avatarUrl } from './avatars';
import { today } from './time';

/** What an entity needs to know about the request: the base URL for links, and who is looking. */
export interface EntityContext {
  svc: ServiceContext;
  baseUrl: string;
  user: User | null;
}

const bool = (v: number | null | undefined): boolean => !!v;

/**
 * `{ ...base, ...extra }`: the same keys, in the same order, with the same values. Node 20's V8
 * gives each object a spread of a freshly built one into a literal with more fields makes a hidden
 * class of its own (no transition from the last one's): 5-25 us per object, and every later read
 * of such objects megamorphic. Object.assign onto an empty object keeps one class for all of them.
 */
export function withFields<A extends object, B extends object>(base: A, extra: B): A & B {
  return Object.assign({}, base, extra);
}

/** `base` with `extra`'s fields placed right after its field `after` (where a Grape entity exposes optional ones), or unchanged without `after`. */
export function withFieldsAfter(base: Record<string, unknown>, after: string, extra: Record<string, unknown>): Record<string, unknown> {
  if (!(after in base)) return base;
  const out: Record<string, unknown> = {};
  for (const key in base) {
    out[key] = base[key];
    if (key === after) Object.assign(out, extra);
  }
  return out;
}

// --- users -------------------------------------------------------------------------------------


/** The table the milestone lookup reads (core/099): its rows outlive writes to other tables. */
const MILESTONES_TABLE = ['milestones'] as const;

/** UserBasic: the author/assignee shape. */
export function userBasic(ec: EntityContext, u: User): Record<string, unknown> {
  return {
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state,
    locked: u.state === 'blocked',
    avatar_url: avatarUrl(ec.baseUrl, 'user', u.id, u.avatar),
    web_url: `${ec.baseUrl}/${u.username}`,
  };
}

/**
 * UserBasic by id, or null when the user is gone: the same frozen entity (and JSON text) for as
 * long as the user's row reads the same. findUserById hands out the same row object until the
 * users table is written (core/099), so a page's authors and assignees cost a comparison by
 * identity, not a UserBasic built and compared field by field per page. Frozen: extend a copy.
 */
export function userBasicById(ec: EntityContext, id: number | null): Record<string, unknown> | null {
  if (id === null) return null;
  const u = findUserById(ec.svc, id);
  return u ? unchangedEntity(ec.svc.db, 'user-basic', `${id}:${ec.baseUrl}`, u as unknown as Record<string, unknown>, null, () => userBasic(ec, u)) : null;
}

interface IdentityRow {
  user_id: number;
  provider: string;
  extern_uid: string;
  saml_group_id: number | null;
}

/** What the full user record shows of other tables: the user's identities and own namespace. */
interface UserExtras {
  identities: (userId: number) => Record<string, unknown>[];
  namespaceId: (userId: number) => number | null;
}

const identityEntity = (i: IdentityRow): Record<string, unknown> => ({ provider: i.provider, extern_uid: i.extern_uid, saml_provider_id: i.saml_group_id });

/** One user's extras, read when asked (GET /user, GET /users/:id). */
const singleUserExtras = (ec: EntityContext): UserExtras => ({
  identities: (userId) =>
    (ec.svc.db.prepare('SELECT user_id, provider, extern_uid, saml_group_id FROM identities WHERE user_id = ? ORDER BY id').all(userId) as IdentityRow[]).map(identityEntity),
  namespaceId: (userId) =>
    (ec.svc.db.prepare("SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = ? ORDER BY id").get(userId) as { id: number } | undefined)?.id ?? null,
});

/** A page of users' extras, one query per table for the whole page instead of two per user. */
function pageUserExtras(ec: EntityContext, users: User[]): UserExtras {
  const ids = JSON.stringify(users.map((u) => u.id));
  const identities = new Map<number, Record<string, unknown>[]>();
  const rows = ec.svc.db
    .prepare('SELECT user_id, provider, extern_uid, saml_group_id FROM identities WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY id')
    .all(ids) as IdentityRow[];
  for (const i of rows) {
    const list = identities.get(i.user_id);
    if (list) list.push(identityEntity(i));
    else identities.set(i.user_id, [identityEntity(i)]);
  }
  const namespaces = new Map<number, number>();
  const owned = ec.svc.db
    .prepare("SELECT owner_id, id FROM namespaces WHERE kind = 'user' AND owner_id IN (SELECT value FROM json_each(?)) ORDER BY id")
    .all(ids) as { owner_id: number; id: number }[];
  for (const n of owned) if (!namespaces.has(n.owner_id)) namespaces.set(n.owner_id, n.id);
  return { identities: (userId) => identities.get(userId) ?? [], namespaceId: (userId) => namespaces.get(userId) ?? null };
}

/** The public profile (GET /users/:id by anyone). */
export function userPublic(ec: EntityContext, u: User): Record<string, unknown> {
  return withFields(userBasic(ec, u), {
    created_at: u.created_at,
    bio: u.bio,
    location: u.location,
    public_email: u.public_email,
    skype: '',
    linkedin: '',
    twitter: '',
    discord: '',
    website_url: u.website_url,
    organization: u.organization,
    job_title: u.job_title,
    pronouns: null,
    bot: bool(u.bot),
    work_information: null,
    followers: 0,
    following: 0,
    local_time: null,
  });
}

/** The full record: the user themself (GET /user) or an admin looking. */
export function userFull(ec: EntityContext, u: User, extras: UserExtras = singleUserExtras(ec)): Record<string, unknown> {
  const out: Record<string, unknown> = withFields(userPublic(ec, u), {
    last_sign_in_at: null,
    confirmed_at: u.created_at,
    last_activity_on: u.last_activity_on,
    email: u.email,
    theme_id: 1,
    color_scheme_id: 1,
    projects_limit: u.projects_limit,
    current_sign_in_at: null,
    identities: extras.identities(u.id),
    can_create_group: bool(u.can_create_group),
    can_create_project: true,
    two_factor_enabled: false,
    external: bool(u.external),
    private_profile: bool(u.private_profile),
    commit_email: u.email,
    shared_runners_minutes_limit: null,
    extra_shared_runners_minutes_limit: null,
    scim_identities: [],
  });
  if (ec.user?.admin) {
    Object.assign(out, {
      is_admin: bool(u.admin),
      note: u.note,
      namespace_id: extras.namespaceId(u.id),
      created_by: userBasicById(ec, u.created_by_id),
      email_reset_offered_at: null,
      current_sign_in_ip: null,
      last_sign_in_ip: null,
      using_license_seat: false,
      user_type: u.user_type,
    });
  }
  return out;
}

/** Which user shape a viewer gets. */
export function userFor(ec: EntityContext, u: User): Record<string, unknown> {
  return ec.user && (ec.user.admin || ec.user.id === u.id) ? userFull(ec, u) : userPublic(ec, u);
}

/**
 * userFor for each user of a page, what the full records show of other tables read for the page
 * at once. After a write elsewhere, a full record whose row, identities, namespace and creator
 * read the same keeps its entity and JSON text (unchangedEntity) instead of being built again.
 */
export function usersFor(ec: EntityContext, users: User[]): Record<string, unknown>[] {
  const viewer = ec.user;
  const full = users.filter((u) => viewer && (viewer.admin || viewer.id === u.id));
  const extras = full.length > 1 ? pageUserExtras(ec, full) : singleUserExtras(ec);
  return users.map((u) => {
    if (!viewer || !(viewer.admin || viewer.id === u.id)) return userPublic(ec, u);
    const identities = extras.identities(u.id);
    const namespaceId = extras.namespaceId(u.id);
    const creator = u.created_by_id === null ? null : (findUserById(ec.svc, u.created_by_id) ?? null);
    const read: UserExtras = { identities: () => identities, namespaceId: () => namespaceId };
    return unchangedEntity(ec.svc.db, 'listed-user', `${u.id}:${viewer.id}:${viewer.admin}:${ec.baseUrl}`, u as unknown as Record<string, unknown>, [identities, namespaceId, creator], () =>
      userFull(ec, u, read),
    );
  });
}

export function personalAccessToken(svc: ServiceContext, t: PersonalAccessToken, plainValue?: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: t.id,
    name: t.name,
    revoked: bool(t.revoked),
    created_at: t.created_at,
    description: t.description,
    scopes: JSON.parse(t.scopes),
    user_id: t.user_id,
    last_used_at: t.last_used_at,
    active: !t.revoked && !tokenExpired(svc, t),
    expires_at: t.expires_at,
  };
  if (plainValue !== undefined) out.token = plainValue;
  return out;
}

// --- namespaces and groups ---------------------------------------------------------------------

export function namespaceWebUrl(ec: EntityContext, ns: Namespace): string {
  return ns.kind === 'group' ? `${ec.baseUrl}/groups/${ns.full_path}` : `${ec.baseUrl}/${ns.full_path}`;
}

/** A namespace's avatar: a group's own, or its user's for a personal namespace. */
function namespaceAvatarUrl(ec: EntityContext, ns: Namespace): string | null {
  if (ns.kind === 'group') return avatarUrl(ec.baseUrl, 'group', ns.id, ns.avatar);
  const owner = ns.owner_id ? findUserById(ec.svc, ns.owner_id) : undefined;
  return owner ? avatarUrl(ec.baseUrl, 'user', owner.id, owner.avatar) : null;
}

/** The `namespace` object inside a project. */
export function namespaceBasic(ec: EntityContext, ns: Namespace): Record<string, unknown> {
  return {
    id: ns.id,
    name: ns.name,
    path: ns.path,
    kind: ns.kind,
    full_path: ns.full_path,
    parent_id: ns.parent_id,
    avatar_url: namespaceAvatarUrl(ec, ns),
    web_url: namespaceWebUrl(ec, ns),
  };
}

/**
 * Entities::Namespace (GET /namespaces): the basic fields, the group counts its administrators see,
 * and the EE plan fields for whoever administers the namespace.
 */
export function namespaceDetail(ec: EntityContext, ns: Namespace): Record<string, unknown> {
  const out = namespaceBasic(ec, ns);
  const user = ec.user;
  const admin = !!user && (user.admin || (ns.kind === 'group' ? effectiveGroupAccess(ec.svc, user, ns) >= Access.OWNER : ns.owner_id === user.id));
  const counts = namespaceCounts(ec.svc, ns);
  if (ns.kind === 'group' && admin) {
    Object.assign(out, { members_count_with_descendants: counts.members, root_repository_size: null, projects_count: counts.projects });
  }
  if (user?.admin) {
    Object.assign(out, {
      shared_runners_minutes_limit: null,
      extra_shared_runners_minutes_limit: null,
      additional_purchased_storage_size: 0,
      additional_purchased_storage_ends_on: null,
    });
  }
  out.billable_members_count = admin ? counts.members : null;
  if (admin) Object.assign(out, { plan: 'default', trial_ends_on: null, trial: false });
  return out;
}

/** Distinct members of a group and its subgroups (a personal namespace: its owner), and its projects. */
function namespaceCounts(svc: ServiceContext, ns: Namespace): { members: number; projects: number } {
  if (ns.kind === 'user') {
    const projects = svc.db.prepare('SELECT count(*) AS n FROM projects WHERE namespace_id = ?').get(ns.id) as { n: number };
    return { members: 1, projects: projects.n };
  }
  const row = svc.db
    .prepare(
      `WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT n.id FROM namespaces n JOIN tree ON n.parent_id = tree.id)
       SELECT (SELECT count(DISTINCT m.user_id) FROM members m WHERE m.source_type = 'Namespace' AND m.source_id IN (SELECT id FROM tree)
                 AND m.user_id IS NOT NULL AND m.requested_at IS NULL) AS members,
              (SELECT count(*) FROM projects WHERE namespace_id IN (SELECT id FROM tree)) AS projects`,
    )
    .get(ns.id) as { members: number; projects: number };
  return row;
}

export function group(ec: EntityContext, g: Namespace): Record<string, unknown> {
  // Built again only when the row or what it reads besides it changed (a page of groups after a write
  // elsewhere built and serialized every group anew): its ancestors' names and the instance's defaults
  // for a group without its own project creation level or branch protection.
  const app = applicationSettings(ec.svc);
  const inputs = [fullName(ec.svc, g), app.default_project_creation, app.default_branch_protection];
  return unchangedEntity(ec.svc.db, 'group', `${g.id}:${ec.baseUrl}`, g as unknown as Record<string, unknown>, inputs, () => buildGroup(ec, g));
}

/** API::Entities::Group of a row: reads the row, the base URL, its ancestors' names and the instance's defaults (group's inputs). */
function buildGroup(ec: EntityContext, g: Namespace): Record<string, unknown> {
  const settings = namespaceSettings(g);
  const get = (name: GroupSettingName) => groupSetting(settings, name);
  const protection = groupBranchProtection(ec.svc, g);
  return {
    id: g.id,
    web_url: namespaceWebUrl(ec, g),
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: g.visibility,
    share_with_group_lock: get('share_with_group_lock'),
    require_two_factor_authentication: get('require_two_factor_authentication'),
    two_factor_grace_period: get('two_factor_grace_period'),
    project_creation_level: groupProjectCreationLevel(ec.svc, g),
    auto_devops_enabled: get('auto_devops_enabled'),
    subgroup_creation_level: get('subgroup_creation_level'),
    emails_disabled: !get('emails_enabled'),
    emails_enabled: get('emails_enabled'),
    show_diff_preview_in_email: get('show_diff_preview_in_email'),
    mentions_disabled: get('mentions_disabled'),
    lfs_enabled: get('lfs_enabled'),
    archived: false,
    math_rendering_limits_enabled: get('math_rendering_limits_enabled'),
    lock_math_rendering_limits_enabled: get('lock_math_rendering_limits_enabled'),
    default_branch: get('default_branch'),
    default_branch_protection: protection.level,
    default_branch_protection_defaults: protection.defaults,
    avatar_url: avatarUrl(ec.baseUrl, 'group', g.id, g.avatar),
    request_access_enabled: bool(g.request_access_enabled),
    full_name: fullName(ec.svc, g),
    full_path: g.full_path,
    created_at: g.created_at,
    parent_id: g.parent_id,
    organization_id: 1,
    shared_runners_setting: get('shared_runners_setting'),
    max_artifacts_size: get('max_artifacts_size'),
    ldap_cn: null,
    ldap_access: null,
    wiki_access_level: get('wiki_access_level'),
    marked_for_deletion_on: null,
  };
}

/** Entities::SharedGroupWithGroup / SharedGroupWithProject: an invited group as a shared record shows it. */
function sharedWithGroup(ec: EntityContext, groupId: number, access: number, expiresAt: string | null): Record<string, unknown> | null {
  const invited = findNamespaceById(ec.svc, groupId);
  if (!invited || !canReadGroup(ec.svc, ec.user, invited)) return null;
  return { group_id: invited.id, group_name: invited.name, group_full_path: invited.full_path, group_access_level: access, expires_at: expiresAt };
}

/** A group's shared_with_groups: the groups it is shared with that the viewer can read (shared_with_group_links_visible_to_user). */
function groupSharedWithGroups(ec: EntityContext, g: Namespace): Record<string, unknown>[] {
  return groupGroupLinks(ec.svc, g.id)
    .map((l) => sharedWithGroup(ec, l.shared_with_group_id, l.group_access, l.expires_at))
    .filter((x): x is Record<string, unknown> => x !== null);
}

/** A project's shared_with_groups: its links to groups the viewer can read (Project#visible_group_links). */
function projectSharedWithGroups(ec: EntityContext, p: Project): Record<string, unknown>[] {
  return projectGroupLinks(ec.svc, p.id)
    .map((l) => sharedWithGroup(ec, l.group_id, l.group_access, l.expires_at))
    .filter((x): x is Record<string, unknown> => x !== null);
}

/** GET /groups/:id adds the viewer-specific and detail fields. */
export function groupDetail(ec: EntityContext, g: Namespace): Record<string, unknown> {
  const settings = namespaceSettings(g);
  const get = (name: GroupSettingName) => groupSetting(settings, name);
  const detail = withFields(group(ec, g), {
    shared_with_groups: groupSharedWithGroups(ec, g),
    enabled_git_access_protocol: get('enabled_git_access_protocol'),
    prevent_sharing_groups_outside_hierarchy: get('prevent_sharing_groups_outside_hierarchy'),
    shared_projects: [],
    shared_runners_minutes_limit: get('shared_runners_minutes_limit'),
    extra_shared_runners_minutes_limit: get('extra_shared_runners_minutes_limit'),
    prevent_forking_outside_group: get('prevent_forking_outside_group'),
    membership_lock: get('membership_lock'),
    file_template_project_id: get('file_template_project_id'),
  });
  return ec.user ? withFields(detail, { max_access_level: effectiveGroupAccess(ec.svc, ec.user, g) }) : detail;
}

/** "Group / Subgroup": a namespace's name with its ancestors' (name_with_namespace, full_name). */
export function fullName(svc: ServiceContext, ns: Namespace): string {
  return [...ancestorsOf(svc, ns).reverse(), ns].map((n) => n.name).join(' / ');
}

// --- projects ----------------------------------------------------------------------------------

/** The host parts of a base URL (`ssh_url_to_repo`, badge placeholders), parsed once per base URL. */
const servers = new Map<string, { hostname: string; host: string }>();

export function serverOf(baseUrl: string): { hostname: string; host: string } {
  let server = servers.get(baseUrl);
  if (!server) {
    const url = new URL(baseUrl);
    // Bounded: the Host header is the client's to choose.
    if (servers.size >= 100) servers.clear();
    servers.set(baseUrl, (server = { hostname: url.hostname, host: url.host }));
  }
  return server;
}

export function projectWebUrl(ec: EntityContext, p: Project, ns: Namespace): string {
  return `${ec.baseUrl}/${ns.full_path}/${p.path}`;
}

/**
 * The full project record of GET /projects/:id (and lists without `simple`). Fields the viewer may
 * not see are `undefined` (absent from the JSON answer).
 */
export function project(ec: EntityContext, p: Project): Record<string, unknown> {
  const emptyRepo = !ec.svc.git.hasCommits(p.id);
  return cachedEntity(ec.svc.db, 'project', [p.id, ec.user?.id ?? 0, emptyRepo, ec.baseUrl], () => buildProject(ec, p, emptyRepo));
}

function buildProject(ec: EntityContext, p: Project, emptyRepo: boolean): Record<string, unknown> {
  const ns = findNamespaceById(ec.svc, p.namespace_id)!;
  const s = projectSettings(p);
  const get = (name: ProjectSettingName) => projectSetting(s, name);
  const featureOn = (name: ProjectSettingName) => get(name) !== 'disabled';
  const webUrl = projectWebUrl(ec, p, ns);
  const pathWithNs = `${ns.full_path}/${p.path}`;
  const apiBase = `${ec.baseUrl}/api/v4/projects/${p.id}`;
  const readme = emptyRepo ? null : readmePath(ec.svc, p.id);
  const canAdmin = canAdminProject(ec, p, ns);
  const server = serverOf(ec.baseUrl);
  const topics = projectTopics(p);
  // One literal, without spreads or deletes: a field GitLab leaves out for this viewer is
  // `undefined`, which JSON leaves out too, and the object keeps the fast shape JSON.stringify
  // serializes quickly (a spread or a delete turned a 124-key entity into a slow dictionary).
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${fullName(ec.svc, ns)} / ${p.name}`,
    path: p.path,
    path_with_namespace: pathWithNs,
    created_at: p.created_at,
    default_branch: p.default_branch,
    tag_list: topics,
    topics,
    ssh_url_to_repo: `git@${server.hostname}:${pathWithNs}.git`,
    http_url_to_repo: `${webUrl}.git`,
    web_url: webUrl,
    readme_url: readme ? `${webUrl}/-/blob/${p.default_branch}/${readme}` : null,
    forks_count: 0,
    avatar_url: avatarUrl(ec.baseUrl, 'project', p.id, p.avatar),
    star_count: starCount(ec.svc, p.id),
    last_activity_at: p.last_activity_at,
    namespace: namespaceBasic(ec, ns),
    container_registry_image_prefix: `${server.host}/${pathWithNs}`,
    _links: {
      self: apiBase,
      issues: `${apiBase}/issues`,
      merge_requests: `${apiBase}/merge_requests`,
      repo_branches: `${apiBase}/repository/branches`,
      labels: `${apiBase}/labels`,
      events: `${apiBase}/events`,
      members: `${apiBase}/members`,
      cluster_agents: `${apiBase}/cluster_agents`,
    },
    packages_enabled: get('packages_enabled'),
    empty_repo: emptyRepo,
    archived: bool(p.archived),
    visibility: p.visibility,
    owner: ns.kind === 'user' && ns.owner_id ? userBasicById(ec, ns.owner_id) : undefined,
    resolve_outdated_diff_discussions: get('resolve_outdated_diff_discussions'),
    repository_object_format: get('repository_object_format'),
    // The API v3 toggles, read from the access levels that replaced them.
    issues_enabled: featureOn('issues_access_level'),
    merge_requests_enabled: featureOn('merge_requests_access_level'),
    wiki_enabled: featureOn('wiki_access_level'),
    jobs_enabled: featureOn('builds_access_level'),
    snippets_enabled: featureOn('snippets_access_level'),
    container_registry_enabled: featureOn('container_registry_access_level'),
    service_desk_enabled: get('service_desk_enabled'),
    service_desk_address: null,
    can_create_merge_request_in: true,
    // ProjectFeature's access levels, in the order Entities::Project exposes them.
    issues_access_level: get('issues_access_level'),
    repository_access_level: get('repository_access_level'),
    merge_requests_access_level: get('merge_requests_access_level'),
    forking_access_level: get('forking_access_level'),
    wiki_access_level: get('wiki_access_level'),
    builds_access_level: get('builds_access_level'),
    snippets_access_level: get('snippets_access_level'),
    pages_access_level: get('pages_access_level'),
    analytics_access_level: get('analytics_access_level'),
    container_registry_access_level: get('container_registry_access_level'),
    security_and_compliance_access_level: get('security_and_compliance_access_level'),
    releases_access_level: get('releases_access_level'),
    environments_access_level: get('environments_access_level'),
    feature_flags_access_level: get('feature_flags_access_level'),
    infrastructure_access_level: get('infrastructure_access_level'),
    monitor_access_level: get('monitor_access_level'),
    model_experiments_access_level: get('model_experiments_access_level'),
    model_registry_access_level: get('model_registry_access_level'),
    package_registry_access_level: get('package_registry_access_level'),
    requirements_access_level: get('requirements_access_level'),
    emails_disabled: !get('emails_enabled'),
    emails_enabled: get('emails_enabled'),
    show_diff_preview_in_email: get('show_diff_preview_in_email'),
    shared_runners_enabled: get('shared_runners_enabled'),
    group_runners_enabled: get('group_runners_enabled'),
    lfs_enabled: get('lfs_enabled'),
    creator_id: p.creator_id,
    mr_default_target_self: get('mr_default_target_self'),
    import_url: canAdmin ? p.import_url : undefined,
    import_type: canAdmin ? p.import_type : undefined,
    import_status: p.import_status,
    import_error: canAdmin ? p.import_error : undefined,
    open_issues_count: openIssuesCount(ec.svc, p.id),
    description_html: markdownField(p.description),
    updated_at: p.updated_at,
    ci_default_git_depth: get('ci_default_git_depth'),
    ci_delete_pipelines_in_seconds: get('ci_delete_pipelines_in_seconds'),
    ci_forward_deployment_enabled: get('ci_forward_deployment_enabled'),
    ci_forward_deployment_rollback_allowed: get('ci_forward_deployment_rollback_allowed'),
    ci_job_token_scope_enabled: false,
    ci_separated_caches: get('ci_separated_caches'),
    ci_allow_fork_pipelines_to_run_in_parent_project: get('ci_allow_fork_pipelines_to_run_in_parent_project'),
    ci_id_token_sub_claim_components: get('ci_id_token_sub_claim_components'),
    build_git_strategy: get('build_git_strategy'),
    keep_latest_artifact: get('keep_latest_artifact'),
    restrict_user_defined_variables: get('restrict_user_defined_variables'),
    ci_pipeline_variables_minimum_override_role: get('ci_pipeline_variables_minimum_override_role'),
    ci_push_repository_for_job_token_allowed: get('ci_push_repository_for_job_token_allowed'),
    public_jobs: get('public_jobs'),
    build_timeout: get('build_timeout'),
    auto_cancel_pending_pipelines: get('auto_cancel_pending_pipelines'),
    ci_config_path: get('ci_config_path'),
    shared_with_groups: projectSharedWithGroups(ec, p),
    only_allow_merge_if_pipeline_succeeds: get('only_allow_merge_if_pipeline_succeeds'),
    allow_merge_on_skipped_pipeline: get('allow_merge_on_skipped_pipeline'),
    request_access_enabled: bool(p.request_access_enabled),
    only_allow_merge_if_all_discussions_are_resolved: get('only_allow_merge_if_all_discussions_are_resolved'),
    remove_source_branch_after_merge: get('remove_source_branch_after_merge'),
    printing_merge_request_link_enabled: get('printing_merge_request_link_enabled'),
    merge_method: get('merge_method'),
    merge_request_title_regex: get('merge_request_title_regex'),
    merge_request_title_regex_description: get('merge_request_title_regex_description'),
    squash_option: get('squash_option'),
    enforce_auth_checks_on_uploads: get('enforce_auth_checks_on_uploads'),
    suggestion_commit_message: get('suggestion_commit_message'),
    merge_commit_template: get('merge_commit_template'),
    squash_commit_template: get('squash_commit_template'),
    issue_branch_template: get('issue_branch_template'),
    warn_about_potentially_unwanted_characters: get('warn_about_potentially_unwanted_characters'),
    show_default_award_emojis: get('show_default_award_emojis'),
    auto_devops_enabled: autoDevopsEnabled(ec.svc, s, ns),
    auto_devops_deploy_strategy: get('auto_devops_deploy_strategy'),
    autoclose_referenced_issues: get('autoclose_referenced_issues'),
    resource_group_default_process_mode: get('resource_group_default_process_mode'),
    max_artifacts_size: get('max_artifacts_size'),
    // EE (Premium) merge request settings, offered in every tier.
    approvals_before_merge: get('approvals_before_merge'),
    merge_pipelines_enabled: get('merge_pipelines_enabled'),
    merge_trains_enabled: get('merge_trains_enabled'),
    merge_trains_skip_train_allowed: get('merge_trains_skip_train_allowed'),
    only_allow_merge_if_all_status_checks_passed: get('only_allow_merge_if_all_status_checks_passed'),
    issues_template: get('issues_template'),
    merge_requests_template: get('merge_requests_template'),
    requirements_enabled: featureOn('requirements_access_level'),
    security_and_compliance_enabled: featureOn('security_and_compliance_access_level'),
    marked_for_deletion_at: null,
    marked_for_deletion_on: null,
    permissions: ec.user ? projectPermissions(ec, p, ns) : undefined,
  };
}

/** Project#auto_devops_enabled?: the project's own choice, else the nearest group's, else the instance's. */
function autoDevopsEnabled(svc: ServiceContext, settings: Record<string, unknown>, ns: Namespace): boolean {
  const own = projectSetting(settings, 'auto_devops_enabled') as boolean | null;
  if (own !== null) return own;
  if (ns.kind === 'group') {
    for (const g of [ns, ...ancestorsOf(svc, ns)]) {
      const v = groupSetting(namespaceSettings(g), 'auto_devops_enabled') as boolean | null;
      if (v !== null) return v;
    }
  }
  return applicationSettings(svc).auto_devops_enabled;
}

/** The README of the default branch, as the repositories area noted it after the last push. */
function readmePath(svc: ServiceContext, projectId: number): string | null {
  return (
    cachedLookup(svc.db, 'readme', projectId, () =>
      svc.db.prepare('SELECT readme_path FROM project_repositories WHERE project_id = ?').get(projectId) as { readme_path: string | null } | undefined,
    )?.readme_path ?? null
  );
}

/**
 * The caller's own and group levels in a project, and the level its shares give them (core/172), memoized between writes. `pageOwn`: the
 * caller's own levels in a page of projects, read at once (projectsPage).
 */
function projectLevels(ec: EntityContext, p: Project, ns: Namespace, pageOwn?: Map<number, number>): { own: number; group: number; shared: number } {
  const user = ec.user!;
  return cachedLookup(ec.svc.db, 'project-permissions', [p.id, user.id], () => {
    const own = pageOwn
      ? pageOwn.get(p.id)
      : (
          ec.svc.db
            .prepare(`SELECT access_level FROM members WHERE source_type = 'Project' AND source_id = ? AND user_id = ? AND requested_at IS NULL`)
            .get(p.id, user.id) as { access_level: number } | undefined
        )?.access_level;
    const group = ns.kind === 'group' ? groupAccessLevel(ec.svc, user.id, ns.id) : 0;
    const shared = projectShareLevel(ec.svc, p.id, ns, (groupId) => groupAccessLevel(ec.svc, user.id, groupId));
    return { own: own ?? 0, group, shared };
  })!;
}

function projectPermissions(ec: EntityContext, p: Project, ns: Namespace): Record<string, unknown> {
  const levels = projectLevels(ec, p, ns);
  return {
    project_access: levels.own ? { access_level: levels.own, notification_level: 3 } : null,
    group_access: levels.group ? { access_level: levels.group, notification_level: 3 } : null,
  };
}

/** `admin_project`: Maintainers and up (and admins) see how a project was imported. */
function canAdminProject(ec: EntityContext, p: Project, ns: Namespace): boolean {
  if (!ec.user) return false;
  if (ec.user.admin) return true;
  const levels = projectLevels(ec, p, ns);
  return Math.max(levels.own, levels.group, levels.shared) >= Access.MAINTAINER;
}

/** `simple=true` lists. */
function projectSimple(full: Record<string, unknown>): Record<string, unknown> {
  const keys = [
    'id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at', 'default_branch',
    'tag_list', 'topics', 'ssh_url_to_repo', 'http_url_to_repo', 'web_url', 'readme_url', 'forks_count', 'avatar_url',
    'star_count', 'last_activity_at', 'namespace', 'visibility',
  ];
  return Object.fromEntries(keys.map((k) => [k, full[k]]));
}

/**
 * A page of project entities (full or `simple`): the counts each one shows (stars, open issues)
 * are read for the whole page in one query each, instead of one query per project after a write.
 */
export function projectsPage(ec: EntityContext, rows: Project[], simple: boolean): Record<string, unknown>[] {
  if (rows.length > 1) {
    const db = ec.svc.db;
    const ids = JSON.stringify(rows.map((p) => p.id));
    const byProject = (sql: string): Map<number, number> =>
      new Map((db.prepare(sql).all(ids) as { project_id: number; n: number }[]).map((r) => [r.project_id, r.n]));
    const stars = byProject('SELECT project_id, count(*) AS n FROM project_stars WHERE project_id IN (SELECT value FROM json_each(?)) GROUP BY project_id');
    const open = byProject('SELECT project_id, opened AS n FROM project_issue_counts WHERE project_id IN (SELECT value FROM json_each(?))');
    for (const p of rows) {
      cachedLookup(db, 'star-count', p.id, () => ({ n: stars.get(p.id) ?? 0 }));
      cachedLookup(db, 'open-issues', p.id, () => ({ n: open.get(p.id) ?? 0 }));
    }
    const user = ec.user;
    if (user) {
      // The viewer's own memberships of the page's projects (their `permissions`), one query.
      const own = new Map<number, number>();
      // By (project, user), each project in turn: SQLite would otherwise read all of the user's
      // memberships (an administrator may hold thousands) to find the page's few.
      const levels = db
        .prepare(
          `SELECT m.source_id, m.access_level FROM json_each(?) j CROSS JOIN members m ON m.source_type = 'Project' AND m.source_id = j.value AND m.user_id = ?
            WHERE m.requested_at IS NULL`,
        )
        .all(ids, user.id) as { source_id: number; access_level: number }[];
      for (const m of levels) own.set(m.source_id, m.access_level);
      for (const p of rows) projectLevels(ec, p, findNamespaceById(ec.svc, p.namespace_id)!, own);
    }
  }
  return rows.map((p) => (simple ? projectSimple(listedProject(ec, p)) : listedProject(ec, p)));
}

/**
 * A project of a list page (project's entity): after a write elsewhere, a project whose row and
 * parts read the same keeps its entity and text (unchangedEntity) instead of being built and
 * serialized again (a page of 20 projects, ~130 fields each). Kept apart from project()'s
 * entities (GET /projects/:id builds its own after every write).
 */
function listedProject(ec: EntityContext, p: Project): Record<string, unknown> {
  const emptyRepo = !ec.svc.git.hasCommits(p.id);
  const key = `${p.id}:${ec.user?.id ?? 0}:${emptyRepo}:${ec.baseUrl}`;
  return cachedEntity(ec.svc.db, 'listed-project', key, () =>
    unchangedEntity(ec.svc.db, 'project', key, p as unknown as Record<string, unknown>, projectInputs(ec, p, emptyRepo), () => buildProject(ec, p, emptyRepo)),
  );
}

/**
 * Everything buildProject reads besides the row and the key's viewer id, git state and base URL: its
 * namespace and the namespaces above (names, paths, settings), a personal namespace's owner, the
 * README, the counts, the instance's Auto DevOps default, the viewer's admin flag and levels, and the
 * groups it is shared with.
 */
function projectInputs(ec: EntityContext, p: Project, emptyRepo: boolean): unknown[] {
  const svc = ec.svc;
  const ns = findNamespaceById(svc, p.namespace_id)!;
  return [
    ns,
    ancestorsOf(svc, ns),
    ns.owner_id ? (findUserById(svc, ns.owner_id) ?? null) : null,
    emptyRepo ? null : readmePath(svc, p.id),
    starCount(svc, p.id),
    openIssuesCount(svc, p.id),
    applicationSettings(svc).auto_devops_enabled,
    ec.user ? [ec.user.admin, projectLevels(ec, p, ns)] : null,
    projectSharedWithGroups(ec, p),
  ];
}

function starCount(svc: ServiceContext, projectId: number): number {
  return cachedLookup(svc.db, 'star-count', projectId, () =>
    svc.db.prepare('SELECT count(*) AS n FROM project_stars WHERE project_id = ?').get(projectId) as { n: number },
  )!.n;
}

function openIssuesCount(svc: ServiceContext, projectId: number): number {
  return cachedLookup(svc.db, 'open-issues', projectId, () =>
    svc.db.prepare('SELECT coalesce((SELECT opened FROM project_issue_counts WHERE project_id = ?), 0) AS n').get(projectId) as { n: number },
  )!.n;
}

// --- members -----------------------------------------------------------------------------------

export interface MemberRow {
  id: number;
  source_type: 'Namespace' | 'Project';
  source_id: number;
  user_id: number | null;
  access_level: number;
  expires_at: string | null;
  created_by_id: number | null;
  member_role_id: number | null;
  requested_at: string | null;
  invite_email: string | null;
  invite_token: string | null;
  invite_accepted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A member: the user's basic fields plus the membership. */
export function member(ec: EntityContext, m: MemberRow): Record<string, unknown> {
  return memberWith(ec, m, new Map());
}

/** The members of a page: their users read in one query, each creator built once. */
export function members(ec: EntityContext, rows: MemberRow[]): Record<string, unknown>[] {
  rememberUsers(ec.svc, [...new Set(rows.map((m) => m.user_id!))]);
  const creators = new Map<number | null, Record<string, unknown> | null>();
  const shared = `${ec.user?.id ?? 0}:${!!ec.user?.admin}:${ec.baseUrl}`;
  return rows.map((m) => {
    // A member whose row, user and creator read as when its entity was built keeps that entity and
    // its JSON text (unchangedEntity): a page of members was built and serialized anew after any
    // write. The viewer is in the key (an administrator and the member see the e-mail).
    const u = findUserById(ec.svc, m.user_id!);
    let createdBy = creators.get(m.created_by_id);
    if (createdBy === undefined) creators.set(m.created_by_id, (createdBy = userBasicById(ec, m.created_by_id)));
    return unchangedEntity(ec.svc.db, 'member', `${m.id}:${shared}`, m as unknown as Record<string, unknown>, [u ?? null, createdBy], () => memberWith(ec, m, creators));
  });
}

function memberWith(ec: EntityContext, m: MemberRow, creators: Map<number | null, Record<string, unknown> | null>): Record<string, unknown> {
  const u = findUserById(ec.svc, m.user_id!)!;
  let createdBy = creators.get(m.created_by_id);
  if (createdBy === undefined) creators.set(m.created_by_id, (createdBy = userBasicById(ec, m.created_by_id)));
  // userBasic's fresh object extended in place, not spread into a literal with more fields after
  // it: V8 (node 20) adds each field after a spread through a slow runtime path, ~4 us a field
  // (~30 us a member; a page of 20 spent more on this than on its queries).
  const out: Record<string, unknown> = Object.assign(userBasic(ec, u), {
    access_level: m.access_level,
    created_at: m.created_at,
    created_by: createdBy,
    expires_at: m.expires_at,
    group_saml_identity: null,
    membership_state: 'active',
    member_role: null,
  });
  if (ec.user?.admin || ec.user?.id === u.id) out.email = u.email;
  return out;
}

export { projectAccessLevel };

// --- issues, merge requests, notes -------------------------------------------------------------

export interface IssueRow extends TimeTracked {
  id: number;
  project_id: number;
  iid: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed';
  author_id: number | null;
  assignee_ids: string;
  labels: string;
  confidential: number;
  discussion_locked: number | null;
  due_date: string | null;
  weight: number | null;
  issue_type: string;
  milestone_id: number | null;
  closed_at: string | null;
  closed_by_id: number | null;
  created_at: string;
  updated_at: string;
  /** 'none', or the source an importer brought it from ('github', 'bitbucket', 'gitlab', ...). */
  imported_from: string;
  /** The issue it was moved to (core/350). */
  moved_to_id: number | null;
}

export interface MergeRequestRow extends TimeTracked {
  id: number;
  project_id: number;
  iid: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed' | 'merged' | 'locked';
  author_id: number | null;
  assignee_ids: string;
  reviewer_ids: string;
  labels: string;
  source_branch: string;
  target_branch: string;
  source_project_id: number;
  target_project_id: number;
  squash: number;
  remove_source_branch: number | null;
  discussion_locked: number | null;
  base_sha: string;
  start_sha: string;
  head_sha: string;
  milestone_id: number | null;
  /** Written by the repositories area's mergeability check; null on merge requests made before repositories. */
  merge_status: 'can_be_merged' | 'cannot_be_merged' | null;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  merge_error: string | null;
  /** The source branch lacks commits of the target branch. */
  behind_target: number;
  merged_by_id: number | null;
  merged_at: string | null;
  closed_by_id: number | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
  /** 'none', or the source an importer brought it from ('github', 'bitbucket', 'gitlab', ...). */
  imported_from: string;
}

export interface NoteRow {
  id: number;
  project_id: number | null;
  noteable_type: string;
  noteable_id: number;
  discussion_id: string;
  type: string | null;
  author_id: number | null;
  body: string;
  system: number;
  internal: number;
  resolvable: number;
  resolved_at: string | null;
  resolved_by_id: number | null;
  position: string | null;
  created_at: string;
  updated_at: string;
  /** 'none', or the source an importer brought it from ('github', 'bitbucket', 'gitlab', ...). */
  imported_from: string;
}

/** A project's full path (`group/sub/project`), or null when it or its namespace is gone. */
export function projectFullPath(ec: EntityContext, projectId: number): string | null {
  const p = findProjectById(ec.svc, projectId);
  const ns = p && findNamespaceById(ec.svc, p.namespace_id);
  return p && ns ? `${ns.full_path}/${p.path}` : null;
}

function projectPathOf(ec: EntityContext, projectId: number): { fullPath: string; webUrl: string } {
  const p = findProjectById(ec.svc, projectId)!;
  const fullPath = `${findNamespaceById(ec.svc, p.namespace_id)!.full_path}/${p.path}`;
  return { fullPath, webUrl: `${ec.baseUrl}/${fullPath}` };
}

/** UserBasic entities of a JSON list of user ids (assignees, reviewers), each built once per page. */
const usersOf = (ec: EntityContext, counts: IssuableCounts, json: string): Record<string, unknown>[] =>
  json === '[]' ? [] : (JSON.parse(json) as number[]).map((id) => userOf(ec, counts, id)).filter((u): u is Record<string, unknown> => u !== null);

/** UserBasic by id (null when there is none or the user is gone), built once per page for the rows that share it. */
function userOf(ec: EntityContext, counts: IssuableCounts, id: number | null): Record<string, unknown> | null {
  if (id === null) return null;
  let entity = counts.users.get(id);
  if (entity === undefined) counts.users.set(id, (entity = userBasicById(ec, id)));
  return entity;
}

/**
 * The entity a page built earlier for the same record, when it reads the same as this one: the
 * issues that embed it then compare it by identity (unchangedEntity), once per page, not per row.
 */
function sameAsBefore(ec: EntityContext, kind: string, id: number, entity: Record<string, unknown> | null): Record<string, unknown> | null {
  return entity && unchangedEntity(ec.svc.db, `embedded-${kind}`, `${id}:${ec.baseUrl}`, null, entity, () => entity);
}

/** A project's full path and web URL, read once per page. */
function projectPathOnPage(ec: EntityContext, counts: IssuableCounts, projectId: number): { fullPath: string; webUrl: string } {
  let path = counts.projects.get(projectId);
  if (!path) counts.projects.set(projectId, (path = projectPathOf(ec, projectId)));
  return path;
}

/**
 * What issues or merge requests show of other tables, read for a whole page at once (one query
 * per table, not one per row): user notes, thumbs up and down, and for issues the projects of
 * the merge requests that close each one; and the entities the rows share (users, projects,
 * milestones), each built once.
 */
interface IssuableCounts {
  notes: Map<number, number>;
  votes: Map<number, { upvotes: number; downvotes: number }>;
  closingProjects: Map<number, number[]>;
  /** Milestone entities by id, built once for the rows that share them. */
  milestones: Map<number, Record<string, unknown> | null>;
  users: Map<number, Record<string, unknown> | null>;
  projects: Map<number, { fullPath: string; webUrl: string }>;
}

/** What a page's rows name of users: an issue's or merge request's people. */
interface PeopleRow {
  id: number;
  author_id: number | null;
  closed_by_id: number | null;
  assignee_ids: string;
  merged_by_id?: number | null;
  reviewer_ids?: string;
}

/** The users a page shows, read in one query (rememberUsers) rather than one per user. */
function rememberPageUsers(ec: EntityContext, rows: PeopleRow[]): void {
  if (rows.length < 2) return;
  const ids = new Set<number>();
  const add = (id: number | null | undefined): void => void (id != null && ids.add(id));
  for (const r of rows) {
    add(r.author_id);
    add(r.closed_by_id);
    add(r.merged_by_id);
    if (r.assignee_ids !== '[]') for (const id of JSON.parse(r.assignee_ids) as number[]) add(id);
    if (r.reviewer_ids && r.reviewer_ids !== '[]') for (const id of JSON.parse(r.reviewer_ids) as number[]) add(id);
  }
  rememberUsers(ec.svc, [...ids]);
}

function issuableCounts(ec: EntityContext, type: 'Issue' | 'MergeRequest', rows: PeopleRow[]): IssuableCounts {
  rememberPageUsers(ec, rows);
  const ids = rows.map((r) => r.id);
  // readCounts joins each id once to its rows: a list naming one twice would count its thumbs twice.
  const idList = JSON.stringify(new Set(ids).size === ids.length ? ids : [...new Set(ids)]);
  // Kept across writes to other tables (core/109's versions of the tables counted from): a page of
  // rows read as before then reads no count at all after a write elsewhere.
  const counts = cachedLookup(ec.svc.db, type === 'Issue' ? 'issue-page-counts' : 'merge-request-page-counts', idList, () => readCounts(ec.svc, type, idList), COUNTED_TABLES[type])!;
  return { notes: counts.notes, votes: counts.votes, closingProjects: counts.closingProjects, milestones: new Map(), users: new Map(), projects: new Map() };
}

/** The tables issuableCounts reads, each with a version (core/109) that every write to it moves. */
const COUNTED_TABLES = {
  Issue: ['user_note_counts', 'award_emoji', 'merge_requests_closing_issues'],
  MergeRequest: ['user_note_counts', 'award_emoji'],
} as const;

/** The tables a page of issues or merge requests reads its people (UserBasic: the user's row alone) and counts from (core/099's versions). */
const PAGE_TABLES = {
  Issue: ['users', ...COUNTED_TABLES.Issue],
  MergeRequest: ['users', ...COUNTED_TABLES.MergeRequest],
} as const;

/** What some rows' entities read besides their row, PAGE_TABLES, their project's path and their milestone: `reads` says which rows (from the row and the counts alone). */
interface RowReads<R> {
  reads: (ec: EntityContext, r: R, counts: IssuableCounts) => boolean;
  value: (ec: EntityContext, r: R, counts: IssuableCounts) => unknown;
}

/** What a page of issues or merge requests read besides its rows and the request: what issuablePageCurrent checks after a write. */
interface IssuablePageInputs<R> {
  /** PAGE_TABLES' versions, read before the page's users and counts. */
  versions: (number | undefined)[];
  /** The counts read (the closing merge requests' projects): unchanged while their tables' versions hold. */
  counts: IssuableCounts;
  /** Each project's full path (references, web URLs). */
  paths: [number, string][];
  /** Each milestone's entity (its row, its project's or group's path, whether it expired by today). */
  milestones: KeptMilestone[];
  /** The rows that read more (RowReads), each with what it read. */
  reads: [R, unknown][];
}

/**
 * The entities of a page of issues or merge requests (`entity` builds one from its row and the
 * page's counts), handed out again while the page's rows and what they read besides read the
 * same (unchangedPage): after a write elsewhere a page of 100 checked its versions, a path and a
 * milestone or two, where each row built its parts and compared them (~1.3 us a row).
 */
function issuablePage<R extends PeopleRow & { project_id: number; milestone_id: number | null }>(
  ec: EntityContext,
  type: 'Issue' | 'MergeRequest',
  key: string,
  rows: R[],
  others: RowReads<R>,
  entity: (r: R, counts: IssuableCounts) => Record<string, unknown>,
): Record<string, unknown>[] {
  const kind = type === 'Issue' ? 'issue-page' : 'merge-request-page';
  return unchangedPage(
    ec.svc.db,
    kind,
    key,
    rows,
    (inputs: IssuablePageInputs<R>) => issuablePageCurrent(ec, type, others, inputs),
    () => {
      const versions = tableVersionsOf(ec.svc.db, PAGE_TABLES[type]);
      const counts = issuableCounts(ec, type, rows);
      const entities = rows.map((r) => entity(r, counts));
      const reads: [R, unknown][] = [];
      for (const r of rows) if (others.reads(ec, r, counts)) reads.push([r, others.value(ec, r, counts)]);
      const paths = [...counts.projects].map(([id, p]): [number, string] => [id, p.fullPath]);
      const milestones = [...counts.milestones].map(([id, entity]) => keptMilestone(ec, id, entity));
      return { entities, inputs: { versions, counts, paths, milestones, reads } };
    },
    (kept, pageRows, at) => movedIssuablePage(ec, type, others, entity, kept, pageRows as R[], at),
  );
}

/**
 * A page moved along by one row from a kept page whose inputs still read the same (unchangedPage's
 * `moved`): the new row's counts (`rows[at]`: the first row of a page moved forward, the last of
 * one moved back) read for it alone and added to the kept page's, its entity built, and what it
 * read (its project's path, its milestone, its RowReads) added to the kept inputs. The kept
 * versions are the tables' versions now (the kept page was found current), read before the new
 * row's counts as build reads them.
 */
function movedIssuablePage<R extends PeopleRow & { project_id: number; milestone_id: number | null }>(
  ec: EntityContext,
  type: 'Issue' | 'MergeRequest',
  others: RowReads<R>,
  entity: (r: R, counts: IssuableCounts) => Record<string, unknown>,
  kept: { entities: Record<string, unknown>[]; inputs: IssuablePageInputs<R> },
  rows: R[],
  at: number,
): { entities: Record<string, unknown>[]; inputs: IssuablePageInputs<R> } {
  const row = rows[at];
  const was = kept.inputs;
  const added = issuableCounts(ec, type, [row]);
  const counts: IssuableCounts = {
    notes: new Map([...was.counts.notes, ...added.notes]),
    votes: new Map([...was.counts.votes, ...added.votes]),
    closingProjects: new Map([...was.counts.closingProjects, ...added.closingProjects]),
    milestones: new Map(),
    users: new Map(),
    projects: new Map(),
  };
  const built = entity(row, counts);
  const onPage = new Set(rows);
  const reads = was.reads.filter(([r]) => onPage.has(r));
  if (others.reads(ec, row, counts)) reads.unshift([row, others.value(ec, row, counts)]);
  // Of the kept paths and milestones, those the page's rows still name (a row reads its own project's
  // and milestone's alone): the row that left takes its own along, and a page moved again and again
  // checks no more than it shows.
  const projectIds = new Set(rows.map((r) => r.project_id));
  const milestoneIds = new Set(rows.map((r) => r.milestone_id));
  const paths = was.paths.filter(([id]) => projectIds.has(id));
  for (const [id, p] of counts.projects) if (!paths.some(([known]) => known === id)) paths.push([id, p.fullPath]);
  const milestones = was.milestones.filter((kept) => milestoneIds.has(kept.id));
  for (const [id, m] of counts.milestones) if (!milestones.some((known) => known.id === id)) milestones.push(keptMilestone(ec, id, m));
  const entities = at === 0 ? [built, ...kept.entities] : [...kept.entities, built];
  return { entities, inputs: { versions: was.versions, counts, paths, milestones, reads } };
}

/** Whether what a page of issues or merge requests read besides its rows (the page's `inputs`) still reads the same. */
function issuablePageCurrent<R>(ec: EntityContext, type: 'Issue' | 'MergeRequest', others: RowReads<R>, inputs: IssuablePageInputs<R>): boolean {
  if (!sameTableVersions(ec.svc.db, PAGE_TABLES[type], inputs.versions)) return false;
  for (const [id, fullPath] of inputs.paths) if (projectFullPath(ec, id) !== fullPath) return false;
  for (const kept of inputs.milestones) if (!sameMilestone(ec, kept)) return false;
  for (const [r, value] of inputs.reads) if (others.value(ec, r, inputs.counts) !== value) return false;
  return true;
}

/**
 * The counts of a page's records (ids as a JSON list): user notes, thumbs up and down, for issues the
 * projects of the merge requests closing each. One statement, its parts told apart by `part`: three
 * (two for merge requests) cost a read's locks each in WAL mode, ~7-10 us apiece, on every page of
 * records not counted since their tables last changed (pages in turn, after a note or an award).
 */
function readCounts(svc: ServiceContext, type: 'Issue' | 'MergeRequest', idList: string): Pick<IssuableCounts, 'notes' | 'votes' | 'closingProjects'> {
  // Kept by issuableCounts' cachedLookup: the statement need not remember its answer too.
  const rows = readUnremembered<{ part: number; id: number; a: number; b: number | null }>(
    svc.db,
    type === 'Issue' ? ISSUE_COUNTS_SQL : MERGE_REQUEST_COUNTS_SQL,
    ...(type === 'Issue' ? [idList, type, idList, type, idList] : [idList, type, idList, type]),
  );
  const notes = new Map<number, number>();
  const votes = new Map<number, { upvotes: number; downvotes: number }>();
  const closingProjects = new Map<number, number[]>();
  for (const r of rows) {
    if (r.part === 0) notes.set(r.id, r.a);
    else if (r.part === 1) votes.set(r.id, { upvotes: r.a, downvotes: r.b! });
    else closingProjects.set(r.id, [...(closingProjects.get(r.id) ?? []), r.a]);
  }
  return { notes, votes, closingProjects };
}

// user_notes_count from core/023's counters (the record's notes that are not system notes); thumbs from award_emoji.
// Each part walks the page's ids (json_each, distinct: a page's rows) and seeks each one's rows, rather than
// `x IN (SELECT value FROM json_each(?))`: the same plans otherwise, but in this compound the IN lists cost
// ~50 us of CPU a page of 20 against ~16 for the joins (mr13, pages never counted before: pages in turn).
const NOTE_AND_VOTE_COUNTS_SQL = `SELECT 0 AS part, u.noteable_id AS id, u.n AS a, NULL AS b FROM json_each(?) j CROSS JOIN user_note_counts u ON u.noteable_type = ? AND u.noteable_id = j.value
UNION ALL SELECT 1, e.awardable_id, sum(e.name = 'thumbsup'), sum(e.name = 'thumbsdown') FROM json_each(?) j CROSS JOIN award_emoji e
  ON e.awardable_type = ? AND e.awardable_id = j.value GROUP BY e.awardable_id`;
const MERGE_REQUEST_COUNTS_SQL = NOTE_AND_VOTE_COUNTS_SQL;
const ISSUE_COUNTS_SQL = `${NOTE_AND_VOTE_COUNTS_SQL}
UNION ALL SELECT 2, c.issue_id, m.project_id, NULL FROM json_each(?) j CROSS JOIN merge_requests_closing_issues c ON c.issue_id = j.value
  JOIN merge_requests m ON m.id = c.merge_request_id`;

/** Issue#merge_requests_count: the merge requests (visible to the viewer) that close the issue. */
function closingMergeRequestsCount(ec: EntityContext, counts: IssuableCounts, issueId: number): number {
  return (counts.closingProjects.get(issueId) ?? []).filter((id) => canReadProject(ec.svc, ec.user, findProjectById(ec.svc, id)!)).length;
}

const NO_VOTES = { upvotes: 0, downvotes: 0 };

/** The request's entity context as plain values, read once for a page of rows (the base URL is computed from the request). */
const pageContext = (ec: EntityContext): EntityContext => ({ svc: ec.svc, baseUrl: ec.baseUrl, user: ec.user });

/**
 * What every issue or merge request of a page shares, made once for all of them rather than once
 * per record: a page's entities are kept between requests (unchangedPage, up to 1,000 a kind), and
 * each object or string of their own lived past several young-generation collections, to be
 * copied and promoted before dying old (bench/fresh-pages.cjs: a fresh page of 20 issues promoted
 * ~36 KB). The project's API URL (the last one asked: a page's records are mostly one project's),
 * the upper-cased issue types (a handful of values), timeStats and tasks.ts's status of no checklist items; within an entity, one
 * reference text for `short` and `relative`.
 */
let projectApi = { baseUrl: '', projectId: -1, url: '' };
function projectApiUrl(baseUrl: string, projectId: number): string {
  if (projectApi.projectId !== projectId || projectApi.baseUrl !== baseUrl) projectApi = { baseUrl, projectId, url: `${baseUrl}/api/v4/projects/${projectId}` };
  return projectApi.url;
}
const upperCased = new Map<string, string>();
function upperCase(value: string): string {
  let upper = upperCased.get(value);
  if (upper === undefined) {
    upper = value.toUpperCase();
    if (upperCased.size < 64) upperCased.set(value, upper);
  }
  return upper;
}

/**
 * Entities::Issue as lists show it. `subscribed` (single issues only, see issueDetail) is left
 * `undefined` here, which JSON leaves out: one literal keeps the object's fast shape.
 */
export function issue(ec: EntityContext, i: IssueRow): Record<string, unknown> {
  return issues(ec, [i])[0];
}

/**
 * Entities::Issue for each row of a list: a page that reads as when its entities were built hands
 * them out again (issuablePage); otherwise its counts (notes, thumbs, closing merge requests) are
 * read in one batch, and an issue whose row and parts read the same keeps its entity and text.
 */
export function issues(requestEc: EntityContext, rows: IssueRow[]): Record<string, unknown>[] {
  const ec = pageContext(requestEc);
  const shared = issueEntityShared(ec);
  return issuablePage(ec, 'Issue', shared, rows, CLOSING_READS, (i, counts) => {
    const parts = issueParts(ec, i, counts);
    return unchangedEntity(ec.svc.db, 'issue', `${i.id}:${shared}`, i as unknown as Record<string, unknown>, parts, () => buildIssue(ec, i, parts, undefined));
  });
}

/**
 * What an issue entity depends on besides the database: the viewer (merge requests they can see,
 * their subscription), the base URL, and the date (its milestone's `expired`), read once per list.
 */
const issueEntityShared = (ec: EntityContext): string => `${ec.user?.id ?? 0}:${today(ec.svc)}:${ec.baseUrl}`;

function issueEntityKey(ec: EntityContext): (i: IssueRow) => string {
  const shared = issueEntityShared(ec);
  return (i) => `${i.id}:${shared}`;
}

/** An issue's merge_requests_count reads which closing merge requests' projects the viewer may see. */
const CLOSING_READS: RowReads<IssueRow> = {
  reads: (_ec, i, counts) => counts.closingProjects.has(i.id),
  value: (ec, i, counts) => closingMergeRequestsCount(ec, counts, i.id),
};

/** What an issue shows of other records and tables: everything buildIssue reads besides the row and the request. */
interface IssueParts {
  path: { fullPath: string; webUrl: string };
  closedBy: Record<string, unknown> | null;
  milestone: Record<string, unknown> | null;
  assignees: Record<string, unknown>[];
  author: Record<string, unknown> | null;
  notes: number;
  votes: { upvotes: number; downvotes: number };
  mergeRequests: number;
}

function issueParts(ec: EntityContext, i: IssueRow, counts: IssuableCounts): IssueParts {
  return {
    path: projectPathOnPage(ec, counts, i.project_id),
    closedBy: userOf(ec, counts, i.closed_by_id),
    milestone: milestoneOf(ec, counts, i.milestone_id),
    assignees: usersOf(ec, counts, i.assignee_ids),
    author: userOf(ec, counts, i.author_id),
    notes: counts.notes.get(i.id) ?? 0,
    votes: counts.votes.get(i.id) ?? NO_VOTES,
    mergeRequests: closingMergeRequestsCount(ec, counts, i.id),
  };
}

/** Entities::Issue of a row and its parts (issueParts): reads nothing else. */
function buildIssue(ec: EntityContext, i: IssueRow, parts: IssueParts, subscribed: boolean | undefined): Record<string, unknown> {
  const { fullPath, webUrl } = parts.path;
  const assignees = parts.assignees;
  const api = projectApiUrl(ec.baseUrl, i.project_id);
  const reference = `#${i.iid}`;
  const { upvotes, downvotes } = parts.votes;
  const tasks = taskCompletionStatus(i.description);
  return {
    id: i.id,
    iid: i.iid,
    project_id: i.project_id,
    title: i.title,
    description: i.description,
    state: i.state,
    created_at: i.created_at,
    updated_at: i.updated_at,
    closed_at: i.closed_at,
    closed_by: parts.closedBy,
    // Sorted by title, as Entities::IssueBasic (`labels.map(&:title).sort`).
    labels: (JSON.parse(i.labels) as string[]).sort(),
    milestone: parts.milestone,
    assignees,
    author: parts.author,
    type: upperCase(i.issue_type),
    assignee: assignees[0] ?? null,
    user_notes_count: parts.notes,
    merge_requests_count: parts.mergeRequests,
    upvotes,
    downvotes,
    due_date: i.due_date,
    confidential: !!i.confidential,
    discussion_locked: i.discussion_locked === null ? null : !!i.discussion_locked,
    issue_type: i.issue_type,
    web_url: `${webUrl}/-/issues/${i.iid}`,
    time_stats: timeStats(i),
    task_completion_status: tasks,
    weight: i.weight,
    blocking_issues_count: 0,
    has_tasks: tasks.count > 0,
    ...(tasks.count > 0 ? { task_status: taskStatus(tasks) } : undefined),
    _links: {
      self: `${api}/issues/${i.iid}`,
      notes: `${api}/issues/${i.iid}/notes`,
      award_emoji: `${api}/issues/${i.iid}/award_emoji`,
      project: api,
      closed_as_duplicate_of: null,
    },
    references: { short: reference, relative: reference, full: `${fullPath}${reference}` },
    severity: 'UNKNOWN',
    subscribed,
    moved_to_id: i.moved_to_id ?? null,
    imported: i.imported_from !== 'none',
    imported_from: i.imported_from,
    service_desk_reply_to: null,
  };
}

/** A single issue (GET, create, update): Entities::Issue with `subscribed`, which lists leave out. */
export function issueDetail(ec: EntityContext, i: IssueRow): Record<string, unknown> {
  return cachedEntity(ec.svc.db, 'issue-detail', [i.id, ec.user?.id ?? 0, today(ec.svc), ec.baseUrl], () =>
    buildIssue(ec, i, issueParts(ec, i, issuableCounts(ec, 'Issue', [i])), isSubscribed(ec.svc, { type: 'Issue', ...i }, ec.user)),
  );
}

/** Fields Entities::Issue adds to Entities::IssueBasic. */
const ISSUE_ONLY_FIELDS = new Set(['has_tasks', 'task_status', '_links', 'references', 'severity', 'subscribed', 'moved_to_id', 'service_desk_reply_to']);

/** Entities::IssueBasic (a milestone's issues). */
export function issueBasic(ec: EntityContext, i: IssueRow): Record<string, unknown> {
  return issueBasics(ec, [i])[0];
}

/**
 * Entities::IssueBasic of each row of a list: the rows' Entities::Issue built for the page at once
 * (issues: one batch of counts, not one per row), each without the fields IssueBasic leaves out,
 * kept (with its text) for as long as the issue's entity is the same.
 */
export function issueBasics(ec: EntityContext, rows: IssueRow[]): Record<string, unknown>[] {
  const full = issues(ec, rows);
  // Made from the page's Entities::Issue alone (frozen, the same objects while they read the same): a page of them is kept whole.
  return unchangedPage(ec.svc.db, 'issue-basic-page', '', full, () => true, () => {
    const key = issueEntityKey(ec);
    const entities = full.map((entity, k) => unchangedEntity(ec.svc.db, 'issue-basic', key(rows[k]), null, entity, () => withoutFields(entity, ISSUE_ONLY_FIELDS)));
    return { entities, inputs: null };
  });
}

/** A copy of `entity` without `fields`, the others in their order. */
function withoutFields(entity: Record<string, unknown>, fields: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in entity) if (!fields.has(key)) out[key] = entity[key];
  return out;
}

export function mergeRequest(ec: EntityContext, m: MergeRequestRow): Record<string, unknown> {
  return mergeRequests(ec, [m])[0];
}

/** Entities::MergeRequest for each row of a list, what the rows share read once for all of them. */
export function mergeRequests(requestEc: EntityContext, rows: MergeRequestRow[]): Record<string, unknown>[] {
  const ec = pageContext(requestEc);
  const shared = `${ec.user?.id ?? 0}:${ec.baseUrl}`;
  // The page's key names the date too (its milestones' `expired`), where an entity's inputs hold its milestone.
  return issuablePage(ec, 'MergeRequest', `${shared}:${today(ec.svc)}`, rows, MERGE_METHOD_READS, (m, counts) => {
    // A merge request whose row and parts read as when its entity was built keeps that entity and its text.
    const parts = mergeRequestParts(ec, m, counts);
    return unchangedEntity(ec.svc.db, 'merge-request', `${m.id}:${shared}`, m as unknown as Record<string, unknown>, parts, () => buildMergeRequest(m, parts));
  });
}

/** A merge request behind its target reads its project's merge method (detailed_merge_status). */
const MERGE_METHOD_READS: RowReads<MergeRequestRow> = {
  reads: (_ec, m) => !!m.behind_target,
  value: (ec, m) => detailedMergeStatus(ec, m, isDraftTitle(m.title)),
};

/** What a merge request shows of other records and tables: everything buildMergeRequest reads besides the row and the request. */
interface MergeRequestParts {
  path: { fullPath: string; webUrl: string };
  mergedBy: Record<string, unknown> | null;
  closedBy: Record<string, unknown> | null;
  author: Record<string, unknown> | null;
  assignees: Record<string, unknown>[];
  reviewers: Record<string, unknown>[];
  milestone: Record<string, unknown> | null;
  notes: number;
  votes: { upvotes: number; downvotes: number };
  detailedMergeStatus: string;
}

function mergeRequestParts(ec: EntityContext, m: MergeRequestRow, counts: IssuableCounts): MergeRequestParts {
  return {
    path: projectPathOnPage(ec, counts, m.project_id),
    mergedBy: userOf(ec, counts, m.merged_by_id),
    closedBy: userOf(ec, counts, m.closed_by_id),
    author: userOf(ec, counts, m.author_id),
    assignees: usersOf(ec, counts, m.assignee_ids),
    reviewers: usersOf(ec, counts, m.reviewer_ids),
    milestone: milestoneOf(ec, counts, m.milestone_id),
    notes: counts.notes.get(m.id) ?? 0,
    votes: counts.votes.get(m.id) ?? NO_VOTES,
    detailedMergeStatus: detailedMergeStatus(ec, m, isDraftTitle(m.title)),
  };
}

/** Entities::MergeRequest of a row and its parts (mergeRequestParts): reads nothing else. */
function buildMergeRequest(m: MergeRequestRow, parts: MergeRequestParts): Record<string, unknown> {
  const { fullPath, webUrl } = parts.path;
  const assignees = parts.assignees;
  const draft = isDraftTitle(m.title);
  const { upvotes, downvotes } = parts.votes;
  const reference = `!${m.iid}`;
  return {
    id: m.id,
    iid: m.iid,
    project_id: m.project_id,
    title: m.title,
    description: m.description,
    state: m.state,
    created_at: m.created_at,
    updated_at: m.updated_at,
    merged_by: parts.mergedBy,
    merge_user: parts.mergedBy,
    merged_at: m.merged_at,
    closed_by: parts.closedBy,
    closed_at: m.closed_at,
    target_branch: m.target_branch,
    source_branch: m.source_branch,
    user_notes_count: parts.notes,
    upvotes,
    downvotes,
    author: parts.author,
    assignees,
    assignee: assignees[0] ?? null,
    reviewers: parts.reviewers,
    source_project_id: m.source_project_id,
    target_project_id: m.target_project_id,
    // Sorted by title, as Entities::MergeRequestBasic.
    labels: (JSON.parse(m.labels) as string[]).sort(),
    draft,
    work_in_progress: draft,
    milestone: parts.milestone,
    merge_when_pipeline_succeeds: false,
    merge_status: m.merge_status ?? (m.state === 'opened' ? 'can_be_merged' : 'unchecked'),
    detailed_merge_status: parts.detailedMergeStatus,
    sha: m.head_sha || null,
    merge_commit_sha: m.merge_commit_sha,
    squash_commit_sha: m.squash_commit_sha,
    discussion_locked: m.discussion_locked === null ? null : !!m.discussion_locked,
    should_remove_source_branch: null,
    force_remove_source_branch: m.remove_source_branch === null ? null : !!m.remove_source_branch,
    prepared_at: m.created_at,
    reference,
    references: { short: reference, relative: reference, full: `${fullPath}${reference}` },
    web_url: `${webUrl}/-/merge_requests/${m.iid}`,
    time_stats: timeStats(m),
    squash: !!m.squash,
    squash_on_merge: !!m.squash,
    task_completion_status: taskCompletionStatus(m.description),
    has_conflicts: m.merge_status === 'cannot_be_merged',
    blocking_discussions_resolved: true,
    approvals_before_merge: null,
    imported: m.imported_from !== 'none',
    imported_from: m.imported_from,
  };
}

/** A title that marks a draft (`Draft:`, `[Draft]`, `(Draft)`, `Draft - `). */
export function isDraftTitle(title: string): boolean {
  return /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s)/i.test(title);
}

/**
 * DetailedMergeStatusService, for what Sandlab checks: open, both branches present, not a draft,
 * no conflicts, rebased when the project merges by fast-forward.
 */
function detailedMergeStatus(ec: EntityContext, m: MergeRequestRow, draft: boolean): string {
  if (m.state !== 'opened') return 'not_open';
  if (m.merge_status !== null && (!m.head_sha || !m.start_sha)) return 'broken_status';
  if (draft) return 'draft_status';
  if (m.merge_status === 'cannot_be_merged') return 'conflict';
  if (m.behind_target) {
    const project = findProjectById(ec.svc, m.project_id);
    if (project && (projectSettings(project).merge_method ?? 'merge') !== 'merge') return 'need_rebase';
  }
  return 'mergeable';
}

/** The size of the latest version's diff, as GitLab counts it ("3"); null without one. */
function changesCount(ec: EntityContext, mergeRequestId: number): string | null {
  const row = ec.svc.db.prepare('SELECT real_size FROM merge_request_diffs WHERE merge_request_id = ? ORDER BY id DESC LIMIT 1').get(mergeRequestId) as
    | { real_size: string | null }
    | undefined;
  return row?.real_size ?? null;
}

function canMerge(ec: EntityContext, projectId: number): boolean {
  const project = ec.user ? findProjectById(ec.svc, projectId) : undefined;
  return !!project && effectiveProjectAccess(ec.svc, ec.user, project) >= Access.DEVELOPER;
}

/** GET of a single merge request adds the detail fields (diff_refs and friends). */
export function mergeRequestDetail(ec: EntityContext, m: MergeRequestRow): Record<string, unknown> {
  return withFields(mergeRequest(ec, m), {
    subscribed: isSubscribed(ec.svc, { type: 'MergeRequest', ...m }, ec.user),
    changes_count: changesCount(ec, m.id),
    latest_build_started_at: null,
    latest_build_finished_at: null,
    first_deployed_to_production_at: null,
    pipeline: null,
    head_pipeline: null,
    diff_refs: { base_sha: m.base_sha || null, head_sha: m.head_sha || null, start_sha: m.start_sha || null },
    merge_error: m.merge_error,
    first_contribution: false,
    // can_be_merged_by?: Developers and up (admins included) of the target project.
    user: { can_merge: canMerge(ec, m.project_id) },
  });
}

export function note(ec: EntityContext, n: NoteRow, noteableIid: number | null): Record<string, unknown> {
  return noteWith(ec, n, noteableIid, new Map());
}

/**
 * The note entity of each note of a list, each user (author, resolver) built once for the list. A
 * page whose rows (the same frozen objects, remembered at the record's note list version) read as
 * when it was built, and whose users' table is at the same version, is handed out again
 * (unchangedPage); otherwise a note whose row and users read as when its entity was built keeps
 * that entity and its JSON text (unchangedEntity): after a write elsewhere a page of 100 notes was
 * built and serialized anew.
 */
export function notes(ec: EntityContext, rows: NoteRow[], noteableIid: number | null): Record<string, unknown>[] {
  const db = ec.svc.db;
  const baseUrl = ec.baseUrl;
  // A note shows its row, its author and resolver (UserBasic: the user's row alone) and the request's base URL.
  return unchangedPage(db, 'note-page', `${noteableIid}:${baseUrl}`, rows, (versions: (number | undefined)[]) => sameTableVersions(db, USERS_TABLE, versions), () => {
    const versions = tableVersionsOf(db, USERS_TABLE);
    const users = new Map<number | null, Record<string, unknown> | null>();
    const user = (id: number | null): Record<string, unknown> | null => {
      let entity = users.get(id);
      if (entity === undefined) users.set(id, (entity = userBasicById(ec, id)));
      return entity;
    };
    const entities = rows.map((n) => {
      const inputs = [user(n.author_id), n.resolvable ? user(n.resolved_by_id) : null];
      return unchangedEntity(db, 'note', `${n.id}:${noteableIid}:${baseUrl}`, n as unknown as Record<string, unknown>, inputs, () => noteWith(ec, n, noteableIid, users));
    });
    return { entities, inputs: versions };
  });
}

function noteWith(ec: EntityContext, n: NoteRow, noteableIid: number | null, users: Map<number | null, Record<string, unknown> | null>): Record<string, unknown> {
  const user = (id: number | null): Record<string, unknown> | null => {
    let entity = users.get(id);
    if (entity === undefined) users.set(id, (entity = userBasicById(ec, id)));
    return entity;
  };
  const out: Record<string, unknown> = {
    id: n.id,
    type: n.type,
    body: n.body,
    attachment: null,
    author: user(n.author_id),
    created_at: n.created_at,
    updated_at: n.updated_at,
    system: !!n.system,
    // A commit's notes carry its sha (commit_id), not a noteable id.
    noteable_id: n.noteable_type === 'Commit' ? null : n.noteable_id,
    noteable_type: n.noteable_type,
    project_id: n.project_id,
    resolvable: !!n.resolvable,
    confidential: !!n.internal,
    internal: !!n.internal,
    imported: n.imported_from !== 'none',
    imported_from: n.imported_from,
    noteable_iid: noteableIid,
    commands_changes: {},
  };
  if (n.resolvable) {
    out.resolved = n.resolved_at !== null;
    out.resolved_by = user(n.resolved_by_id);
    out.resolved_at = n.resolved_at;
  }
  // A LegacyDiffNote (a commit comment on a line) keeps its line in position but shows none, as GitLab exposes position only for DiffNote.
  if (n.position && n.type !== 'LegacyDiffNote') out.position = JSON.parse(n.position);
  return out;
}

// --- milestones --------------------------------------------------------------------------------

/** Entities::Milestone: `project_id` or `group_id`, whichever owns it. */
export function milestone(ec: EntityContext, m: MilestoneRow): Record<string, unknown> {
  const out: Record<string, unknown> = { id: m.id, iid: m.iid };
  let webUrl: string;
  if (m.project_id !== null) {
    out.project_id = m.project_id;
    webUrl = `${projectPathOf(ec, m.project_id).webUrl}/-/milestones/${m.iid}`;
  } else {
    out.group_id = m.group_id;
    webUrl = `${namespaceWebUrl(ec, findNamespaceById(ec.svc, m.group_id!)!)}/-/milestones/${m.iid}`;
  }
  return withFields(out, {
    title: m.title,
    description: m.description,
    state: m.state,
    created_at: m.created_at,
    updated_at: m.updated_at,
    due_date: m.due_date,
    start_date: m.start_date,
    expired: milestoneExpired(ec.svc, m),
    web_url: webUrl,
  });
}

/** The `milestone` object of an issue or merge request (null without one), built once per page for the rows that share it. */
function milestoneOf(ec: EntityContext, counts: IssuableCounts, id: number | null): Record<string, unknown> | null {
  if (id === null) return null;
  let entity = counts.milestones.get(id);
  if (entity === undefined) counts.milestones.set(id, (entity = embeddedMilestone(ec, id)));
  return entity;
}

/** The milestone entity an issue or merge request embeds: the one built before while it reads the same (sameAsBefore). */
function embeddedMilestone(ec: EntityContext, id: number): Record<string, unknown> | null {
  const m = milestoneRow(ec, id);
  return sameAsBefore(ec, 'milestone', id, m ? milestone(ec, m) : null);
}

/** A milestone's row, kept across writes to other tables (the same object while the milestones' version holds): consecutive pages share a few milestones. */
const milestoneRow = (ec: EntityContext, id: number): MilestoneRow | undefined => cachedLookup(ec.svc.db, 'milestone', id, () => findMilestoneById(ec.svc, id), MILESTONES_TABLE);

/** A milestone a kept page embeds: its entity with the row and the owner's path it was built from. */
interface KeptMilestone {
  id: number;
  row: MilestoneRow | undefined;
  owner: string | null;
  entity: Record<string, unknown> | null;
}

function keptMilestone(ec: EntityContext, id: number, entity: Record<string, unknown> | null): KeptMilestone {
  const row = milestoneRow(ec, id);
  return { id, row, owner: row ? milestoneOwner(ec, row) : null, entity };
}

/** What a milestone's entity reads besides its row, the base URL and the date: its project's full path, or its group's. */
function milestoneOwner(ec: EntityContext, m: MilestoneRow): string | null {
  return m.project_id !== null ? projectFullPath(ec, m.project_id) : (findNamespaceById(ec.svc, m.group_id!)?.full_path ?? null);
}

/**
 * Whether a kept page's milestone reads as when the page was built (the page's key holds the base
 * URL and the date): its row the same object and its owner's path the same, or else its entity
 * built again the same. After a write elsewhere that is a lookup and a path, where building the
 * entity to compare it cost ~5-15 us a page.
 */
function sameMilestone(ec: EntityContext, kept: KeptMilestone): boolean {
  const row = milestoneRow(ec, kept.id);
  if (row === kept.row && (row === undefined || milestoneOwner(ec, row) === kept.owner)) return true;
  return embeddedMilestone(ec, kept.id) === kept.entity;
}
