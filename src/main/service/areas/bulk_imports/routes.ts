import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { forbidden, grapeError, notFound, recordNotFound, unprocessable } from '../../http/errors';
import { paginate, setPaginationHeaders, readPage, limitSql } from '../../http/pagination';
import { addFilter } from '../../db/filter';
import { applicationSettings } from '../application_settings/settings';
import type { User } from '../core/users';
import {
  type BulkImportRow,
  type EntityRow,
  type FailureRow,
  MESSAGES,
  STATUSES,
  cancelImport,
  checkSource,
  createImport,
  destinationProblem,
  findImport,
  readCreateParams,
  retryEntity,
} from './bulk_imports';
import { bulkImport, bulkImportEntity, entityFailure } from './entities';
import { planMigration } from './plan';
import { SourceClient, SourceError } from './source';

/**
 * `/bulk_imports` (lib/api/bulk_imports.rb): 404 while the `bulk_import_enabled` setting is off,
 * then authenticated; a user sees only their own migrations.
 */
function open(rc: RequestContext): User {
  if (!applicationSettings(rc.svc).bulk_import_enabled) throw notFound();
  return rc.requireUser();
}

/** Grape's `requires :import_id, type: Integer` (and `:entity_id`). */
function intParam(rc: RequestContext, name: string): number {
  const v = rc.path[name];
  if (!/^\d+$/.test(v)) throw grapeError(400, `${name} is invalid`);
  return Number(v);
}

/** The caller's own migration, or ActiveRecord's 404. */
function loadImport(rc: RequestContext, user: User): BulkImportRow {
  const imp = findImport(rc.svc, intParam(rc, 'import_id'));
  if (!imp || imp.user_id !== user.id) throw recordNotFound();
  return imp;
}

function loadEntity(rc: RequestContext, imp: BulkImportRow): EntityRow {
  const id = intParam(rc, 'entity_id');
  const e = rc.svc.db.prepare('SELECT * FROM bulk_import_entities WHERE id = ? AND bulk_import_id = ?').get(id, imp.id) as EntityRow | undefined;
  if (!e) throw recordNotFound();
  return e;
}

const listParams = (rc: RequestContext, defaultSort: 'asc' | 'desc' | null) =>
  declared(rc.params, {
    status: t.string().values(STATUSES),
    sort: defaultSort ? t.string().values(['asc', 'desc']).default(defaultSort) : t.string().values(['asc', 'desc']),
  });

/** A page of rows from `FROM ... WHERE ...`, newest or oldest first by creation. */
function listRows<T>(rc: RequestContext, from: string, where: string[], args: unknown[], sort: string | null | undefined): T[] {
  const sql = `${from} WHERE ${where.join(' AND ')}`;
  const order = sort ? `x.created_at ${sort}, x.id ${sort}` : 'x.id ASC';
  return paginate(rc, {
    count: () => (rc.svc.db.prepare(`SELECT count(*) AS n ${sql}`).get(...args) as { n: number }).n,
    rows: (limit, offset) => rc.svc.db.prepare(`SELECT x.* ${sql} ORDER BY ${order} ${limitSql(limit)} OFFSET ?`).all(...args, offset) as T[],
  });
}

/** A source URL the importer can call: http(s) with a host. */
function sourceClient(rc: RequestContext, url: string, token: string): SourceClient {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw unprocessable(MESSAGES.invalidUrl);
  }
  if (!/^https?:$/.test(parsed.protocol) || !parsed.hostname) throw unprocessable(MESSAGES.invalidUrl);
  return new SourceClient(url, token, rc.svc.fetch);
}

export function registerBulkImportRoutes(r: Router): void {
  r.post(
    '/bulk_imports',
    async (rc) => {
      const user = open(rc);
      const p = readCreateParams(rc.params);
      // Sandlab-only: `dry_run` answers the plan and writes nothing.
      const { dry_run: dryRun } = declared(rc.params, { dry_run: t.boolean() });
      const client = sourceClient(rc, p.url, p.accessToken);
      const info = await checkSource(client, p.entities);
      if (dryRun) {
        rc.status = 200;
        return planMigration(rc.svc, user, client, p, info, new URL(rc.baseUrl).origin);
      }
      for (const e of p.entities) {
        const problem = destinationProblem(rc.svc, user, e, client.origin, new URL(rc.baseUrl).origin);
        if (problem) throw unprocessable(problem);
      }
      return bulkImport(rc.svc, createImport(rc.svc, user, p, info));
    },
    { auth: 'optional' },
  );

  r.get(
    '/bulk_imports',
    (rc) => {
      const user = open(rc);
      const q = listParams(rc, 'desc');
      const where = ['x.user_id = ?'];
      const args: unknown[] = [user.id];
      if (q.status) addFilter(where, args, 'x.status = ?', q.status);
      return listRows<BulkImportRow>(rc, 'FROM bulk_imports x', where, args, q.sort).map((b) => bulkImport(rc.svc, b));
    },
    { auth: 'optional' },
  );

  r.get(
    '/bulk_imports/entities',
    (rc) => {
      const user = open(rc);
      const q = listParams(rc, 'desc');
      const where = ['x.bulk_import_id IN (SELECT id FROM bulk_imports WHERE user_id = ?)'];
      const args: unknown[] = [user.id];
      if (q.status) addFilter(where, args, 'x.status = ?', q.status);
      return listRows<EntityRow>(rc, 'FROM bulk_import_entities x', where, args, q.sort).map((e) => bulkImportEntity(rc.svc, e));
    },
    { auth: 'optional' },
  );

  r.get('/bulk_imports/:import_id', (rc) => bulkImport(rc.svc, loadImport(rc, open(rc))), { auth: 'optional' });

  r.get(
    '/bulk_imports/:import_id/entities',
    (rc) => {
      const imp = loadImport(rc, open(rc));
      const q = listParams(rc, null);
      const where = ['x.bulk_import_id = ?'];
      const args: unknown[] = [imp.id];
      if (q.status) addFilter(where, args, 'x.status = ?', q.status);
      return listRows<EntityRow>(rc, 'FROM bulk_import_entities x', where, args, q.sort).map((e) => bulkImportEntity(rc.svc, e));
    },
    { auth: 'optional' },
  );

  r.get('/bulk_imports/:import_id/entities/:entity_id', (rc) => {
    const imp = loadImport(rc, open(rc));
    return bulkImportEntity(rc.svc, loadEntity(rc, imp));
  }, { auth: 'optional' });

  r.get(
    '/bulk_imports/:import_id/entities/:entity_id/failures',
    (rc) => {
      const entity = loadEntity(rc, loadImport(rc, open(rc)));
      return listRows<FailureRow>(rc, 'FROM bulk_import_failures x', ['x.entity_id = ?'], [entity.id], undefined).map(entityFailure);
    },
    { auth: 'optional' },
  );

  r.post(
    '/bulk_imports/:import_id/cancel',
    (rc) => {
      const user = open(rc);
      const imp = findImport(rc.svc, intParam(rc, 'import_id'));
      if (!imp) throw notFound();
      // `authenticated_as_admin! unless bulk_import.user == current_user`
      if (imp.user_id !== user.id && !user.admin) throw forbidden();
      rc.status = 200;
      return bulkImport(rc.svc, cancelImport(rc.svc, imp));
    },
    { auth: 'optional' },
  );

  // Sandlab-only: run an entity again; only what failed is redone (README "Sandlab extensions").
  r.post(
    '/bulk_imports/:import_id/entities/:entity_id/retry',
    (rc) => {
      const imp = loadImport(rc, open(rc));
      const entity = loadEntity(rc, imp);
      const { configuration } = declared(rc.params, { configuration: t.hash() });
      const token = configuration?.access_token;
      if (token !== undefined && typeof token !== 'string') throw grapeError(400, 'configuration[access_token] is invalid');
      rc.status = 200;
      return bulkImportEntity(rc.svc, retryEntity(rc.svc, imp, entity, token?.trim() || undefined));
    },
    { auth: 'optional' },
  );

  // Sandlab-only: what the token can migrate from the source (the Migrations workspace's browser).
  r.post(
    '/sandlab/bulk_imports/source_entities',
    async (rc) => {
      open(rc);
      const p = declared(rc.params, {
        configuration: t.hash().required(),
        source_type: t.string().values(['group_entity', 'project_entity']).default('group_entity'),
        search: t.string(),
      });
      const url = p.configuration.url;
      const token = p.configuration.access_token;
      if (typeof url !== 'string') throw grapeError(400, 'configuration[url] is missing');
      if (typeof token !== 'string') throw grapeError(400, 'configuration[access_token] is missing');
      const page = readPage(rc.params);
      const client = sourceClient(rc, url, token);
      const groups = p.source_type === 'group_entity';
      // What GitLab's own import page offers: groups the token owns, projects it maintains.
      const query = {
        min_access_level: groups ? 50 : 40,
        search: p.search ?? undefined,
        order_by: groups ? 'name' : 'path',
        sort: 'asc',
        page: page.page,
        per_page: page.perPage,
        ...(groups ? {} : { simple: true }),
      };
      let res: Response;
      try {
        res = await client.get(groups ? '/groups' : '/projects', query);
      } catch (err) {
        if (!(err instanceof SourceError)) throw err;
        if (err.status === 401 || err.status === 403) throw unprocessable(MESSAGES.scopeOrUrl);
        if (err.status === 404) throw unprocessable(MESSAGES.invalidUrl);
        throw unprocessable(err.message);
      }
      const items = (await res.json()) as Record<string, unknown>[];
      const total = Number(res.headers.get('x-total') ?? NaN);
      const hasNext = !!res.headers.get('x-next-page');
      setPaginationHeaders(rc, page, Number.isFinite(total) ? total : page.offset + items.length + (hasNext ? 1 : 0));
      return items.map((x) => ({
        id: x.id,
        kind: groups ? 'group' : 'project',
        name: x.name,
        path: x.path,
        full_path: groups ? x.full_path : x.path_with_namespace,
        full_name: groups ? x.full_name : x.name_with_namespace,
        description: x.description ?? null,
        visibility: x.visibility ?? null,
        web_url: x.web_url ?? null,
        parent_id: groups ? (x.parent_id ?? null) : null,
      }));
    },
    { auth: 'optional' },
  );
}
