import type { ServiceContext } from '../../context';
import { findGroupByRef, findNamespaceByFullPath } from '../core/namespaces';
import { findProjectByRef } from '../core/projects';
import type { User } from '../core/users';
import { availableLabelsSql, DEFAULT_SCOPE } from '../labels/labels';
import { type CreateParams, type EntityParams, MESSAGES, type SourceInfo, destinationProblem, destinationPath } from './bulk_imports';
import { type SourceClient, SourceError } from './source';
import { type SourceUser, inParallel, matchUser } from './users';

/**
 * Sandlab-only dry run (`POST /bulk_imports` with `dry_run: true`): after the same source checks,
 * walks the source tree as the migration would and answers the plan without writing anything:
 * every entity with its destination path and per-relation source counts, and the conflicts found
 * (a destination that is taken or not allowed, members matching no user here, labels the
 * destination already offers, which the migration would reuse).
 */

export interface PlannedEntity {
  entity_type: 'group' | 'project';
  source_full_path: string;
  destination_full_path: string;
  destination_namespace: string;
  destination_slug: string;
  parent_source_full_path: string | null;
  stats: Record<string, { source: number }>;
}

export interface Conflict {
  type: 'destination_invalid' | 'path_taken' | 'unmatched_member' | 'label_exists';
  source_full_path: string;
  destination_full_path: string;
  message: string;
  username?: string;
  label?: string;
}

export interface Plan {
  dry_run: true;
  source_url: string;
  source_version: string;
  entities: PlannedEntity[];
  conflicts: Conflict[];
}

/**
 * Relations counted for each kind of entity: stats name -> list path below the entity, its query,
 * and for lists that also show records of other entities (a project's group labels and badges),
 * which of them count.
 */
type Counted = Record<string, [string, Record<string, string | boolean>, ((item: Record<string, unknown>) => boolean)?]>;
const GROUP_COUNTS: Counted = {
  members: ['members', {}],
  labels: ['labels', { only_group_labels: true, include_ancestor_groups: false }],
  milestones: ['milestones', { include_ancestors: false }],
  badges: ['badges', {}, (b) => b.kind === 'group'],
  epics: ['epics', { include_descendant_groups: false, include_ancestor_groups: false, state: 'all' }],
};
const PROJECT_COUNTS: Counted = {
  members: ['members', {}],
  labels: ['labels', { include_ancestor_groups: false }, (l) => l.is_project_label !== false],
  milestones: ['milestones', { include_ancestors: false }],
  badges: ['badges', {}, (b) => b.kind === 'project'],
  issues: ['issues', { scope: 'all', state: 'all' }],
  merge_requests: ['merge_requests', { scope: 'all', state: 'all' }],
  snippets: ['snippets', {}],
  feature_flags: ['feature_flags', {}],
  feature_flag_user_lists: ['feature_flags_user_lists', {}],
  uploads: ['uploads', {}],
};

interface Walk {
  svc: ServiceContext;
  user: User;
  client: SourceClient;
  plan: Plan;
  memberships: boolean;
  projects: boolean;
}

export async function planMigration(svc: ServiceContext, user: User, client: SourceClient, p: CreateParams, info: SourceInfo, selfOrigin: string): Promise<Plan> {
  const plan: Plan = { dry_run: true, source_url: p.url, source_version: info.version, entities: [], conflicts: [] };
  for (const e of p.entities) {
    const w: Walk = { svc, user, client, plan, memberships: e.migrate_memberships, projects: e.migrate_projects };
    const namespace = e.source_type === 'project_entity' && !e.destination_namespace ? user.username : e.destination_namespace;
    const problem = destinationProblem(svc, user, e, client.origin, selfOrigin);
    const target = { ...e, destination_namespace: namespace };
    if (problem) {
      plan.conflicts.push({
        type: problem.includes('already exists') ? 'path_taken' : 'destination_invalid',
        source_full_path: e.source_full_path,
        destination_full_path: destinationPath(target),
        message: problem,
      });
    }
    if (e.source_type === 'group_entity') await planGroup(w, target, null);
    else await planProject(w, target, null);
  }
  return plan;
}

type Target = Pick<EntityParams, 'source_full_path' | 'destination_namespace' | 'destination_slug'>;

async function planGroup(w: Walk, t: Target, parent: string | null): Promise<void> {
  const g = await w.client.getJson<{ id: number }>(`/groups/${encodeURIComponent(t.source_full_path)}`, { with_projects: false });
  const planned = await plannedEntity(w, 'group', t, parent, `/groups/${g.id}`, GROUP_COUNTS);
  if (parent) checkTaken(w, planned);
  await checkMembers(w, planned, `/groups/${g.id}/members`);
  await checkLabels(w, planned, `/groups/${g.id}/labels`, { only_group_labels: true, include_ancestor_groups: false });
  if (w.projects) {
    for (const p of await listAll<{ path: string; path_with_namespace: string }>(w, `/groups/${g.id}/projects`, { include_subgroups: false, with_shared: false })) {
      await planProject(w, { source_full_path: p.path_with_namespace, destination_namespace: planned.destination_full_path, destination_slug: p.path }, t.source_full_path);
    }
  }
  for (const sg of await listAll<{ path: string; full_path: string }>(w, `/groups/${g.id}/subgroups`, {})) {
    await planGroup(w, { source_full_path: sg.full_path, destination_namespace: planned.destination_full_path, destination_slug: sg.path }, t.source_full_path);
  }
}

async function planProject(w: Walk, t: Target, parent: string | null): Promise<void> {
  const p = await w.client.getJson<{ id: number }>(`/projects/${encodeURIComponent(t.source_full_path)}`);
  const planned = await plannedEntity(w, 'project', t, parent, `/projects/${p.id}`, PROJECT_COUNTS);
  if (parent) checkTaken(w, planned);
  await checkMembers(w, planned, `/projects/${p.id}/members`);
  await checkLabels(w, planned, `/projects/${p.id}/labels`, { include_ancestor_groups: false });
}

async function plannedEntity(
  w: Walk,
  type: 'group' | 'project',
  t: Target,
  parent: string | null,
  base: string,
  counted: Counted,
): Promise<PlannedEntity> {
  const stats: Record<string, { source: number }> = {};
  const names = Object.keys(counted).filter((n) => n !== 'members' || w.memberships);
  await inParallel(names, 4, async (name) => {
    const [path, query, belongs] = counted[name];
    try {
      const source = belongs ? (await listAll<Record<string, unknown>>(w, `${base}/${path}`, query)).filter(belongs).length : await w.client.count(`${base}/${path}`, query);
      stats[name] = { source };
    } catch (err) {
      // A list the source does not have (epics on a Free instance, uploads before 17.2) counts nothing.
      if (!(err instanceof SourceError) || err.status === null || err.status >= 500) throw err;
    }
  });
  const planned: PlannedEntity = {
    entity_type: type,
    source_full_path: t.source_full_path,
    destination_full_path: destinationPath(t),
    destination_namespace: t.destination_namespace,
    destination_slug: t.destination_slug,
    parent_source_full_path: parent,
    stats: Object.fromEntries(names.filter((n) => stats[n]).map((n) => [n, stats[n]])),
  };
  w.plan.entities.push(planned);
  return planned;
}

/** A child lands under its new parent: only an existing group or project there is in the way. */
function checkTaken(w: Walk, e: PlannedEntity): void {
  const taken = findNamespaceByFullPath(w.svc, e.destination_full_path) || (e.entity_type === 'project' && findProjectByRef(w.svc, e.destination_full_path));
  if (!taken) return;
  w.plan.conflicts.push({
    type: 'path_taken',
    source_full_path: e.source_full_path,
    destination_full_path: e.destination_full_path,
    message: MESSAGES.exists(e.destination_full_path),
  });
}

async function checkMembers(w: Walk, e: PlannedEntity, path: string): Promise<void> {
  if (!w.memberships) return;
  const members = await listAll<SourceUser>(w, path, {});
  await inParallel(members, 8, async (m) => {
    if ((await matchUser(w.svc, w.client, m)) !== null) return;
    w.plan.conflicts.push({
      type: 'unmatched_member',
      source_full_path: e.source_full_path,
      destination_full_path: e.destination_full_path,
      username: m.username,
      message: `No user here matches source member '${m.username}' by e-mail or username: the membership would not be migrated.`,
    });
  });
}

/** Labels with a title the destination already offers (from its groups above) are reused, not copied. */
async function checkLabels(w: Walk, e: PlannedEntity, path: string, query: Record<string, string | boolean>): Promise<void> {
  const parent = findGroupByRef(w.svc, e.destination_namespace);
  if (!parent) return;
  const avail = availableLabelsSql(w.svc, { kind: 'group', group: parent }, DEFAULT_SCOPE);
  const existing = w.svc.db.prepare(`SELECT 1 FROM labels l WHERE ${avail.sql} AND l.title = ?`);
  for (const l of await listAll<{ name: string; is_project_label?: boolean }>(w, path, query)) {
    if (l.is_project_label === false || !existing.get(...avail.args, l.name)) continue;
    w.plan.conflicts.push({
      type: 'label_exists',
      source_full_path: e.source_full_path,
      destination_full_path: e.destination_full_path,
      label: l.name,
      message: `Label '${l.name}' already exists in '${parent.full_path}': the migration would use it instead of copying it.`,
    });
  }
}

async function listAll<T>(w: Walk, path: string, query: Record<string, string | boolean>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of w.client.pages<T>(path, query)) out.push(...page.items);
  return out;
}
