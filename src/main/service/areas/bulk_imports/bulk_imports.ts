import type { ServiceContext } from '../../context';
import { inTransaction } from '../../db/connection';
import { grapeError, unprocessable } from '../../http/errors';
import type { Params } from '../../http/params';
import type { JobState } from '../../jobs/runner';
import { Access, effectiveGroupAccess } from '../core/access';
import { type Namespace, findGroupByRef, findNamespaceByFullPath } from '../core/namespaces';
import { findProjectByRef } from '../core/projects';
import { validateNamespacePath } from '../core/routes/groups';
import { isoTime } from '../core/time';
import type { User } from '../core/users';
import { SourceClient, SourceError } from './source';

/** GitLab's statuses for imports and entities (BulkImport.all_human_statuses). */
export const STATUSES = ['created', 'started', 'finished', 'timeout', 'failed', 'canceled'] as const;
export type Status = (typeof STATUSES)[number];
const isActive = (s: Status): boolean => s === 'created' || s === 'started';

export const ENTITY_JOB = 'bulk_import_entity';
/** The runner's key for an import's source token (held in memory only). */
export const secretKey = (importId: number): string => `bulk_import:${importId}`;

export interface BulkImportRow {
  id: number;
  user_id: number;
  status: Status;
  source_type: string;
  source_url: string;
  source_version: string | null;
  source_enterprise: number | null;
  created_at: string;
  updated_at: string;
}

export interface EntityRow {
  id: number;
  bulk_import_id: number;
  parent_id: number | null;
  entity_type: 'group' | 'project';
  status: Status;
  source_full_path: string;
  source_xid: number | null;
  destination_slug: string;
  destination_namespace: string;
  namespace_id: number | null;
  project_id: number | null;
  migrate_projects: number;
  migrate_memberships: number;
  job_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface FailureRow {
  id: number;
  entity_id: number;
  relation: string;
  pipeline_class: string;
  pipeline_step: string;
  exception_class: string;
  exception_message: string;
  correlation_id_value: string;
  source_url: string | null;
  source_title: string | null;
  created_at: string;
}

export interface StatRow {
  relation: string;
  source: number;
  fetched: number;
  imported: number;
}

export const findImport = (svc: ServiceContext, id: number): BulkImportRow | undefined =>
  svc.db.prepare('SELECT * FROM bulk_imports WHERE id = ?').get(id) as BulkImportRow | undefined;

export const findEntity = (svc: ServiceContext, id: number): EntityRow | undefined =>
  svc.db.prepare('SELECT * FROM bulk_import_entities WHERE id = ?').get(id) as EntityRow | undefined;

export const entitiesOf = (svc: ServiceContext, importId: number): EntityRow[] =>
  svc.db.prepare('SELECT * FROM bulk_import_entities WHERE bulk_import_id = ? ORDER BY id').all(importId) as EntityRow[];

/** Where an entity lands: `namespace/slug`, or the slug alone for a new top-level group. */
export const destinationPath = (e: { destination_namespace: string; destination_slug: string }): string =>
  [e.destination_namespace, e.destination_slug].filter(Boolean).join('/');

// --- the request: Grape's declared parameters ---------------------------------------------------

export interface EntityParams {
  source_type: 'group_entity' | 'project_entity';
  source_full_path: string;
  destination_namespace: string;
  destination_slug: string;
  migrate_projects: boolean;
  migrate_memberships: boolean;
}

export interface CreateParams {
  url: string;
  accessToken: string;
  entities: EntityParams[];
}

const SOURCE_TYPES = ['group_entity', 'project_entity'];
/** Gitlab::Regex.oci_repository_path_regex and its message. */
const SLUG_RE = /^[a-zA-Z0-9]+([._-][a-zA-Z0-9]+)*$/;
const SLUG_RULE =
  "can only include non-accented letters, digits, '_', '-' and '.'. It must not start with '-', '_', or '.', nor end with '-', '_', '.', '.git', or '.atom'.";
const RELATIVE_PATH = (example: string): string =>
  `must be a relative path and not include protocol, sub-domain, or domain information. For example, '${example}/full/path' not 'https://example.com/${example}/full/path'`;

/** NamespacePathValidator / ProjectPathValidator.valid_path?: every segment a valid path. */
function validFullPath(path: string): boolean {
  const segments = path.split('/');
  return segments.every((seg, i) => Object.keys(validateNamespacePath(seg, i === 0 && segments.length > 1)).length === 0);
}

const isHash = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const BOOLEANS: Record<string, boolean> = { true: true, '1': true, t: true, yes: true, false: false, '0': false, f: false, no: false };
const toBoolean = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : typeof v === 'number' ? v !== 0 : (BOOLEANS[String(v).toLowerCase()] ?? null));

/**
 * POST /bulk_imports' parameters as Grape declares them (lib/api/bulk_imports.rb), with its 400s
 * in declaration order: `configuration{url, access_token}`, `entities[]{source_type,
 * source_full_path, destination_namespace, destination_slug|destination_name, migrate_*}`.
 */
export function readCreateParams(params: Params): CreateParams {
  const errors: string[] = [];
  const conf = params.configuration;
  if (conf === undefined || conf === null) errors.push('configuration is missing');
  else if (!isHash(conf)) errors.push('configuration is invalid');
  const confHash = isHash(conf) ? conf : {};
  for (const key of ['url', 'access_token']) {
    const v = confHash[key];
    if (v === undefined || v === null) errors.push(`configuration[${key}] is missing`);
    else if (typeof v !== 'string' && typeof v !== 'number') errors.push(`configuration[${key}] is invalid`);
  }
  const raw = params.entities;
  let list: Record<string, unknown>[] = [];
  if (raw === undefined || raw === null) errors.push('entities is missing');
  else if (!Array.isArray(raw) || !raw.every(isHash)) errors.push('entities is invalid');
  else if (raw.length === 0) errors.push('entities is empty');
  else list = raw as Record<string, unknown>[];

  const field = (i: number, name: string): string => `entities[${i}][${name}]`;
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
  const checks: ((e: Record<string, unknown>, i: number) => void)[] = [
    (e, i) => {
      if (e.source_type === undefined || e.source_type === null) errors.push(`${field(i, 'source_type')} is missing`);
      else if (!SOURCE_TYPES.includes(String(e.source_type))) errors.push(`${field(i, 'source_type')} does not have a valid value`);
    },
    (e, i) => {
      const v = str(e.source_full_path);
      if (e.source_full_path === undefined || e.source_full_path === null) errors.push(`${field(i, 'source_full_path')} is missing`);
      else if (v === null || !validFullPath(v)) errors.push(`${field(i, 'source_full_path')} ${RELATIVE_PATH('source')}`);
    },
    (e, i) => {
      const v = str(e.destination_namespace);
      if (e.destination_namespace === undefined || e.destination_namespace === null) errors.push(`${field(i, 'destination_namespace')} is missing`);
      else if (v === null || (v !== '' && !validFullPath(v))) errors.push(`${field(i, 'destination_namespace')} ${RELATIVE_PATH('destination')}`);
    },
    ...(['destination_slug', 'destination_name'] as const).map((name) => (e: Record<string, unknown>, i: number) => {
      if (e[name] === undefined || e[name] === null) return;
      const v = str(e[name]);
      if (v === null || !SLUG_RE.test(v)) errors.push(`${field(i, name)} ${SLUG_RULE} For example, 'destination_namespace' not 'destination/namespace'`);
    }),
    ...(['migrate_projects', 'migrate_memberships'] as const).map((name) => (e: Record<string, unknown>, i: number) => {
      if (e[name] !== undefined && e[name] !== null && toBoolean(e[name]) === null) errors.push(`${field(i, name)} is invalid`);
    }),
    (e, i) => {
      const slug = e.destination_slug !== undefined;
      const name = e.destination_name !== undefined;
      if (slug && name) errors.push(`${field(i, 'destination_slug')}, ${field(i, 'destination_name')} are mutually exclusive`);
      if (!slug && !name) errors.push(`${field(i, 'destination_slug')}, ${field(i, 'destination_name')} are missing, at least one parameter must be provided`);
    },
  ];
  for (const check of checks) list.forEach((e, i) => check(e, i));
  if (errors.length) throw grapeError(400, errors.join(', '));
  return {
    url: String(confHash.url),
    accessToken: String(confHash.access_token).trim(),
    entities: list.map((e) => ({
      source_type: String(e.source_type) as EntityParams['source_type'],
      source_full_path: String(e.source_full_path),
      destination_namespace: String(e.destination_namespace),
      destination_slug: String(e.destination_slug ?? e.destination_name),
      migrate_projects: e.migrate_projects === undefined || e.migrate_projects === null ? true : toBoolean(e.migrate_projects)!,
      migrate_memberships: e.migrate_memberships === undefined || e.migrate_memberships === null ? true : toBoolean(e.migrate_memberships)!,
    })),
  };
}

// --- the source: reachable, token valid, each entity visible and exportable (422s) -------------

/** BulkImports::Error's messages, in the order CreateService raises them. */
export const MESSAGES = {
  invalidUrl: 'Invalid source URL. Enter only the base URL of the source GitLab instance.',
  scopeOrUrl: 'Check that the source instance base URL and the personal access token meet the necessary requirements.',
  unsupported: "Unsupported GitLab version. Minimum supported version is '14'.",
  notFound: (path: string) => `Import failed. '${path}' not found.`,
  notAuthorized: (path: string) => `Import failed. You don't have permission to export '${path}'.`,
  destinationNamespace: (ns: string) => `Import failed. Destination '${ns}' is invalid, or you don't have permission.`,
  destinationSlug: `Import failed. Destination URL ${SLUG_RULE}`,
  exists: (path: string) => `Import failed. '${path}' already exists. Change the destination and try again.`,
  subgroupOfSource: 'Validation failed: Import failed: Destination cannot be a subgroup of the source group. Change the destination and try again.',
};

const MIN_MAJOR_VERSION = 14;
const PAT_ENDPOINT_MIN_VERSION = [15, 5];

export interface SourceInfo {
  version: string;
  enterprise: boolean;
}

/** `major.minor` of a version string, or null when it is not one. */
function parseVersion(v: unknown): [number, number] | null {
  const m = typeof v === 'string' ? /^(\d+)\.(\d+)/.exec(v) : null;
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** GET /version (falling back to /metadata), with GitLab's reading of each failure. */
async function sourceMetadata(client: SourceClient): Promise<{ version?: unknown; enterprise?: unknown }> {
  const attempt = async (path: string) => client.getJson<{ version?: unknown; enterprise?: unknown }>(path);
  try {
    try {
      return await attempt('/version');
    } catch (err) {
      if (!(err instanceof SourceError) || err.status === null) throw err;
      return await attempt('/metadata');
    }
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    if (err.status === 401 || err.status === 403) throw unprocessable(MESSAGES.scopeOrUrl);
    if (err.status === null) throw unprocessable(err.message);
    throw unprocessable(MESSAGES.invalidUrl);
  }
}

/** Any other failed call during the checks: GitLab answers the NetworkError's message. */
async function orUnprocessable<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof SourceError) throw unprocessable(err.message);
    throw err;
  }
}

/**
 * The checks BulkImports::CreateService runs against the source before accepting, in its order:
 * the instance and its version, the token's `api` scope, then each entity: visible to the token
 * (404 -> not found) and exportable by it (Owner of a group, Maintainer of a project, or admin).
 */
export async function checkSource(client: SourceClient, entities: EntityParams[]): Promise<SourceInfo> {
  const meta = await sourceMetadata(client);
  const version = parseVersion(meta?.version);
  if (!version) throw unprocessable(MESSAGES.invalidUrl);
  if (version[0] < MIN_MAJOR_VERSION) throw unprocessable(MESSAGES.unsupported);
  const [minMajor, minMinor] = PAT_ENDPOINT_MIN_VERSION;
  if (version[0] > minMajor || (version[0] === minMajor && version[1] >= minMinor)) {
    const token = await orUnprocessable(client.getJson<{ scopes?: unknown }>('/personal_access_tokens/self'));
    if (!Array.isArray(token?.scopes) || !token.scopes.includes('api')) throw unprocessable(MESSAGES.scopeOrUrl);
  }
  let me: { id: number; is_admin?: boolean } | null = null;
  for (const e of entities) {
    const kind = e.source_type === 'group_entity' ? 'groups' : 'projects';
    let record: { id: number };
    try {
      record = await client.getJson<{ id: number }>(`/${kind}/${encodeURIComponent(e.source_full_path)}`, kind === 'groups' ? { with_projects: false } : {});
    } catch (err) {
      if (err instanceof SourceError && (err.status === 404 || err.status === 403)) throw unprocessable(MESSAGES.notFound(e.source_full_path));
      throw err instanceof SourceError ? unprocessable(err.message) : err;
    }
    me ??= await orUnprocessable(client.getJson<{ id: number; is_admin?: boolean }>('/user'));
    if (me.is_admin) continue;
    const needed = kind === 'groups' ? Access.OWNER : Access.MAINTAINER;
    let level = 0;
    try {
      level = (await client.getJson<{ access_level?: number }>(`/${kind}/${record.id}/members/all/${me.id}`)).access_level ?? 0;
    } catch (err) {
      if (!(err instanceof SourceError) || (err.status !== 404 && err.status !== 403)) throw err instanceof SourceError ? unprocessable(err.message) : err;
    }
    if (level < needed) throw unprocessable(MESSAGES.notAuthorized(e.source_full_path));
  }
  return { version: String(meta.version), enterprise: meta.enterprise === undefined ? true : !!meta.enterprise };
}

// --- the destination: namespace, slug, free path ------------------------------------------------

/** May `user` create what the entity makes inside `ns` (create_subgroup / import_projects)? */
export function canCreateIn(svc: ServiceContext, user: User, ns: Namespace, entityType: 'group' | 'project'): boolean {
  const level = effectiveGroupAccess(svc, user, ns);
  if (entityType === 'project') return level >= Access.MAINTAINER;
  const rule = (JSON.parse(ns.settings) as { subgroup_creation_level?: string }).subgroup_creation_level ?? 'maintainer';
  return level >= (rule === 'owner' ? Access.OWNER : Access.MAINTAINER);
}

/** Where a project entity with no destination namespace lands: the user's own namespace. */
export function destinationNamespaceOf(svc: ServiceContext, user: User, e: Pick<EntityParams, 'source_type' | 'destination_namespace'>): Namespace | null {
  if (e.destination_namespace) return findGroupByRef(svc, e.destination_namespace) ?? null;
  return e.source_type === 'project_entity' ? (findNamespaceByFullPath(svc, user.username) ?? null) : null;
}

/**
 * The first destination problem of an entity, with GitLab's message (CreateService's per-entity
 * checks, in order), or null. `selfOrigin` is this instance's origin: migrating a group into
 * itself on the same instance is refused.
 */
export function destinationProblem(svc: ServiceContext, user: User, e: EntityParams, sourceOrigin: string, selfOrigin: string): string | null {
  const type = e.source_type === 'group_entity' ? 'group' : 'project';
  if (e.destination_namespace) {
    const ns = findGroupByRef(svc, e.destination_namespace);
    if (!ns || !canCreateIn(svc, user, ns, type)) return MESSAGES.destinationNamespace(e.destination_namespace);
  } else if (type === 'group' && !user.admin && !user.can_create_group) {
    return MESSAGES.destinationNamespace(e.destination_namespace);
  }
  if (!SLUG_RE.test(e.destination_slug)) return MESSAGES.destinationSlug;
  const full = type === 'project' && !e.destination_namespace ? `${user.username}/${e.destination_slug}` : destinationPath(e);
  // A project cannot take a subgroup's path either (GitLab fails such a project when it creates it).
  const taken = !!findNamespaceByFullPath(svc, full) || (type === 'project' && !!findProjectByRef(svc, full));
  if (taken) return MESSAGES.exists(full);
  if (type === 'group' && sourceOrigin === selfOrigin) {
    const src = e.source_full_path.toLowerCase();
    if (full.toLowerCase().startsWith(`${src}/`)) return MESSAGES.subgroupOfSource;
  }
  return null;
}

// --- accepting: the import, its entities, their jobs --------------------------------------------

export function createImport(svc: ServiceContext, user: User, p: CreateParams, info: SourceInfo): BulkImportRow {
  svc.jobs.ensureCapacity(p.entities.length);
  return inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    const info_ = svc.db
      .prepare(
        `INSERT INTO bulk_imports (user_id, status, source_type, source_url, source_version, source_enterprise, created_at, updated_at)
         VALUES (?, 'created', 'gitlab', ?, ?, ?, ?, ?)`,
      )
      .run(user.id, p.url, info.version, info.enterprise ? 1 : 0, now, now);
    const importId = Number(info_.lastInsertRowid);
    for (const e of p.entities) {
      const namespace = e.source_type === 'project_entity' && !e.destination_namespace ? user.username : e.destination_namespace;
      addEntity(svc, importId, p.accessToken, {
        entity_type: e.source_type === 'group_entity' ? 'group' : 'project',
        parent_id: null,
        source_full_path: e.source_full_path,
        source_xid: null,
        destination_namespace: namespace,
        destination_slug: e.destination_slug,
        migrate_projects: e.migrate_projects,
        migrate_memberships: e.migrate_memberships,
      });
    }
    return findImport(svc, importId)!;
  });
}

export interface NewEntity {
  entity_type: 'group' | 'project';
  parent_id: number | null;
  source_full_path: string;
  source_xid: number | null;
  destination_namespace: string;
  destination_slug: string;
  migrate_projects: boolean;
  migrate_memberships: boolean;
}

/**
 * An entity row and its job. The token (given when the import is created; held by the runner for
 * entities a running job adds) goes to the runner's memory, never to the row.
 */
export function addEntity(svc: ServiceContext, importId: number, token: string | null, e: NewEntity): EntityRow {
  return inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    const info = svc.db
      .prepare(
        `INSERT INTO bulk_import_entities (bulk_import_id, parent_id, entity_type, source_full_path, source_xid, destination_slug, destination_namespace,
           migrate_projects, migrate_memberships, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(importId, e.parent_id, e.entity_type, e.source_full_path, e.source_xid, e.destination_slug, e.destination_namespace, e.migrate_projects ? 1 : 0, e.migrate_memberships ? 1 : 0, now, now);
    const id = Number(info.lastInsertRowid);
    const key = secretKey(importId);
    const job = svc.jobs.enqueue(ENTITY_JOB, { entityId: id }, { subject: key, secret: { key, value: token ?? undefined } });
    svc.db.prepare('UPDATE bulk_import_entities SET job_id = ? WHERE id = ?').run(job.id, id);
    return findEntity(svc, id)!;
  });
}

// --- states -------------------------------------------------------------------------------------

const PROJECT_IMPORT_STATUS: Record<Status, string> = {
  created: 'scheduled',
  started: 'started',
  finished: 'finished',
  failed: 'failed',
  timeout: 'failed',
  canceled: 'canceled',
};

/**
 * An entity's job changed state (the runner calls this inside the same transaction): the entity,
 * its project's `import_status`, a failure record for a fatal error, then the import's status.
 */
export function entityTransition(svc: ServiceContext, entityId: number, state: JobState, error: string | null, correlationId: string): void {
  const entity = findEntity(svc, entityId);
  if (!entity) return;
  const now = isoTime(svc.now());
  svc.db.prepare('UPDATE bulk_import_entities SET status = ?, updated_at = ? WHERE id = ?').run(state, now, entityId);
  if (entity.project_id) svc.db.prepare('UPDATE projects SET import_status = ? WHERE id = ?').run(PROJECT_IMPORT_STATUS[state], entity.project_id);
  if ((state === 'failed' || state === 'timeout') && error) {
    addFailure(svc, entityId, {
      relation: entity.entity_type,
      pipelineClass: entity.entity_type === 'group' ? 'BulkImports::Groups::Pipelines::GroupPipeline' : 'BulkImports::Projects::Pipelines::ProjectPipeline',
      step: 'loader',
      exceptionClass: state === 'timeout' ? 'BulkImports::Pipeline::ExpiredError' : 'BulkImports::Error',
      message: error,
      correlationId,
      sourceUrl: null,
      sourceTitle: entity.source_full_path,
    });
  }
  refreshImportStatus(svc, entity.bulk_import_id);
}

/**
 * The import's status from its entities: started while any runs, then failed when all failed,
 * timeout when those that did not fail timed out, finished otherwise. A canceled import stays so.
 */
export function refreshImportStatus(svc: ServiceContext, importId: number): void {
  const imp = findImport(svc, importId);
  if (!imp || imp.status === 'canceled') return;
  const counts = new Map<Status, number>(
    (svc.db.prepare('SELECT status, count(*) AS n FROM bulk_import_entities WHERE bulk_import_id = ? GROUP BY status').all(importId) as { status: Status; n: number }[]).map(
      (r) => [r.status, r.n],
    ),
  );
  const n = (s: Status): number => counts.get(s) ?? 0;
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  let status: Status;
  if (n('started') || n('created')) status = n('created') === total ? 'created' : 'started';
  else if (n('failed') === total) status = 'failed';
  else if (n('timeout') && n('timeout') + n('failed') === total) status = 'timeout';
  else if (n('canceled') === total) status = 'canceled';
  else status = 'finished';
  if (status === imp.status) return;
  svc.db.prepare('UPDATE bulk_imports SET status = ?, updated_at = ? WHERE id = ?').run(status, isoTime(svc.now()), importId);
  if (!isActive(status)) reportUnlinkedEpics(svc, importId);
}

/** Epic parents that never arrived (their group was not part of the migration) become failures. */
function reportUnlinkedEpics(svc: ServiceContext, importId: number): void {
  const left = svc.db
    .prepare(
      `SELECT l.entity_id, l.parent_source_key, e.title, e.iid FROM bulk_import_epic_links l JOIN epics e ON e.id = l.epic_id WHERE l.bulk_import_id = ?`,
    )
    .all(importId) as { entity_id: number; parent_source_key: string; title: string; iid: number }[];
  for (const l of left) {
    addFailure(svc, l.entity_id, {
      relation: 'epics',
      pipelineClass: 'BulkImports::Groups::Pipelines::EpicsPipeline',
      step: 'loader',
      exceptionClass: 'BulkImports::Error',
      message: `The parent epic (source id ${l.parent_source_key}) of epic &${l.iid} was not part of the migration`,
      correlationId: 'epic-links',
      sourceUrl: null,
      sourceTitle: l.title,
    });
  }
  svc.db.prepare('DELETE FROM bulk_import_epic_links WHERE bulk_import_id = ?').run(importId);
}

/** POST /bulk_imports/:id/cancel: the import and every unfinished entity end `canceled` now. */
export function cancelImport(svc: ServiceContext, imp: BulkImportRow): BulkImportRow {
  inTransaction(svc.db, () => {
    svc.db.prepare("UPDATE bulk_imports SET status = 'canceled', updated_at = ? WHERE id = ?").run(isoTime(svc.now()), imp.id);
    for (const e of entitiesOf(svc, imp.id)) {
      if (!isActive(e.status)) continue;
      if (e.job_id) svc.jobs.cancel(e.job_id);
      svc.db.prepare("UPDATE bulk_import_entities SET status = 'canceled', updated_at = ? WHERE id = ? AND status IN ('created', 'started')").run(isoTime(svc.now()), e.id);
    }
  });
  return findImport(svc, imp.id)!;
}

export const TOKEN_NEEDED =
  'The source access token is no longer held (Sandlab restarted, or this migration ended): send configuration[access_token] again to retry.';

/**
 * Sandlab-only retry of one entity: its failures are cleared and the relations that had them run
 * again; records already copied are skipped (bulk_import_records), so nothing is duplicated.
 */
export function retryEntity(svc: ServiceContext, imp: BulkImportRow, entity: EntityRow, token: string | undefined): EntityRow {
  if (isActive(entity.status)) throw unprocessable('The entity is still being imported; cancel it or wait for it to end before retrying.');
  const key = secretKey(imp.id);
  if (!token && !svc.jobs.hasSecret(key)) throw unprocessable(TOKEN_NEEDED);
  svc.jobs.ensureCapacity(1);
  return inTransaction(svc.db, () => {
    const relations = new Set(
      (svc.db.prepare('SELECT DISTINCT relation FROM bulk_import_failures WHERE entity_id = ?').all(entity.id) as { relation: string }[]).map((r) => r.relation),
    );
    svc.db.prepare('DELETE FROM bulk_import_failures WHERE entity_id = ?').run(entity.id);
    svc.db.prepare("UPDATE bulk_imports SET status = 'started', updated_at = ? WHERE id = ?").run(isoTime(svc.now()), imp.id);
    if (token) svc.jobs.provideSecret(key, token);
    svc.jobs.retry(entity.job_id!, { forgetStep: (step) => relations.has(step) });
    return findEntity(svc, entity.id)!;
  });
}

// --- records, stats, failures (written by the importer) ----------------------------------------

/** The destination id a source record was copied to in this import, if it was. */
export function mappedId(svc: ServiceContext, importId: number, relation: string, sourceKey: string | number): number | undefined {
  const row = svc.db
    .prepare('SELECT destination_id FROM bulk_import_records WHERE bulk_import_id = ? AND relation = ? AND source_key = ?')
    .get(importId, relation, String(sourceKey)) as { destination_id: number } | undefined;
  return row?.destination_id;
}

/** Records a copied record and counts it as imported for the relation (same transaction as the copy). */
export function recordMapping(svc: ServiceContext, entity: EntityRow, relation: string, sourceKey: string | number, destinationId: number, statsRelation: string | null = relation): void {
  const info = svc.db
    .prepare('INSERT OR IGNORE INTO bulk_import_records (bulk_import_id, entity_id, relation, source_key, destination_id) VALUES (?, ?, ?, ?, ?)')
    .run(entity.bulk_import_id, entity.id, relation, String(sourceKey), destinationId);
  if (info.changes && statsRelation) {
    svc.db
      .prepare('INSERT INTO bulk_import_stats (entity_id, relation, imported) VALUES (?, ?, 1) ON CONFLICT (entity_id, relation) DO UPDATE SET imported = imported + 1')
      .run(entity.id, statsRelation);
  }
}

/** Source and fetched counts of a relation; each only ever grows (a re-run refetches the same records). */
export function recordCounts(svc: ServiceContext, entityId: number, relation: string, counts: { source?: number; fetched?: number }): void {
  svc.db
    .prepare(
      `INSERT INTO bulk_import_stats (entity_id, relation, source, fetched) VALUES (?, ?, ?, ?)
       ON CONFLICT (entity_id, relation) DO UPDATE SET source = max(source, excluded.source), fetched = max(fetched, excluded.fetched)`,
    )
    .run(entityId, relation, counts.source ?? 0, counts.fetched ?? 0);
}

export function statsOf(svc: ServiceContext, entityId: number): StatRow[] {
  return svc.db.prepare('SELECT relation, source, fetched, imported FROM bulk_import_stats WHERE entity_id = ? ORDER BY relation').all(entityId) as StatRow[];
}

export interface NewFailure {
  relation: string;
  pipelineClass: string;
  step: string;
  exceptionClass: string;
  message: string;
  correlationId: string;
  sourceUrl: string | null;
  sourceTitle: string | null;
}

export function addFailure(svc: ServiceContext, entityId: number, f: NewFailure): void {
  svc.db
    .prepare(
      `INSERT INTO bulk_import_failures (entity_id, relation, pipeline_class, pipeline_step, exception_class, exception_message, correlation_id_value,
         source_url, source_title, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(entityId, f.relation, f.pipelineClass, f.step, f.exceptionClass, f.message.slice(0, 1000), f.correlationId, f.sourceUrl, f.sourceTitle, isoTime(svc.now()));
}

export const failuresOf = (svc: ServiceContext, entityId: number): FailureRow[] =>
  svc.db.prepare('SELECT * FROM bulk_import_failures WHERE entity_id = ? ORDER BY id').all(entityId) as FailureRow[];

export function importHasFailures(svc: ServiceContext, importId: number): boolean {
  return !!svc.db
    .prepare(
      `SELECT 1 FROM bulk_import_failures f JOIN bulk_import_entities e ON e.id = f.entity_id WHERE e.bulk_import_id = ?
       UNION ALL SELECT 1 FROM bulk_import_entities WHERE bulk_import_id = ? AND status = 'failed' LIMIT 1`,
    )
    .get(importId, importId);
}

export function entityHasFailures(svc: ServiceContext, entity: EntityRow): boolean {
  return entity.status === 'failed' || !!svc.db.prepare('SELECT 1 FROM bulk_import_failures WHERE entity_id = ? LIMIT 1').get(entity.id);
}
