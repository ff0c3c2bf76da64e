import type { RequestContext, Router } from '../../http/route';
import { FormBody } from '../../http/route';
import { declared, t } from '../../http/params';
import { badRequest, forbidden, grapeError, notFound, unauthorized, unprocessable } from '../../http/errors';
import { paginateSql, paginateArray } from '../../http/pagination';
import { Access, loadProject } from '../core/access';
import { findProjectByRef, type Project } from '../core/projects';
import {
  ALERT_ORDER_COLUMNS,
  ALERT_STATUSES,
  type AlertIntegration,
  type AlertRow,
  INTEGRATION_TYPES,
  activeIntegrations,
  alertQuery,
  createIntegration,
  deleteIntegration,
  findAlert,
  findIntegration,
  findIntegrationByIdentifier,
  keyMatches,
  listAlertNotes,
  listIntegrations,
  receiveGenericAlert,
  receiveMetricsAlerts,
  resetIntegrationToken,
  updateAlertStatus,
  updateIntegration,
} from './alerts';
import { alert, alertIntakeResult, alertIntegration, alertNote } from './entities';
import { isProcessableMetricsPayload, jsonDepth } from './payload';

/** GitLab's DeepSize refuses payloads nested deeper than this. */
const MAX_PAYLOAD_DEPTH = 20;

const INTEGRATIONS = '/projects/:id/alert_management/integrations';
const ALERTS = '/projects/:id/alert_management/alerts';

export function registerAlertRoutes(r: Router): void {
  // --- Sandlab-only: integrations (GitLab manages them in its web UI / GraphQL) ---------------

  r.get(INTEGRATIONS, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    return paginateArray(rc, listIntegrations(rc.svc, project.id)).map((row) => alertIntegration(rc, project, row));
  });

  r.post(INTEGRATIONS, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const p = declared(rc.params, {
      name: t.string().required(),
      type: t.string().values(INTEGRATION_TYPES).default('http'),
      active: t.boolean().default(true),
    });
    const { row, token } = createIntegration(rc.svc, project, { name: p.name, type: p.type, active: p.active });
    return alertIntegration(rc, project, row, token);
  });

  r.get(`${INTEGRATIONS}/:integration_id`, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    return alertIntegration(rc, project, loadIntegration(rc, project));
  });

  r.put(`${INTEGRATIONS}/:integration_id`, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const row = loadIntegration(rc, project);
    const p = declared(rc.params, { name: t.string(), active: t.boolean() });
    const updated = updateIntegration(rc.svc, row, { name: p.name ?? undefined, active: p.active ?? undefined });
    return alertIntegration(rc, project, updated);
  });

  r.delete(`${INTEGRATIONS}/:integration_id`, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    deleteIntegration(rc.svc, loadIntegration(rc, project));
    return undefined;
  });

  r.post(`${INTEGRATIONS}/:integration_id/reset_token`, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const { row, token } = resetIntegrationToken(rc.svc, loadIntegration(rc, project));
    rc.status = 200;
    return alertIntegration(rc, project, row, token);
  });

  // A test alert, processed as if the integration had received it (Developer, as in GitLab's UI).
  r.post(`${INTEGRATIONS}/:integration_id/test`, (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const row = loadIntegration(rc, project);
    rc.status = 200;
    return intake(rc, project, row, readPayload(rc));
  });

  // --- Sandlab-only: alerts (GitLab lists them through GraphQL) -----------------------------

  r.get(ALERTS, (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = declared(rc.params, {
      status: t.string().values(ALERT_STATUSES),
      search: t.string(),
      order_by: t.string().values(ALERT_ORDER_COLUMNS).default('iid'),
      sort: t.string().values(['asc', 'desc'] as const).default('asc'),
    });
    const q = alertQuery(project.id, { status: p.status ?? undefined, search: p.search ?? undefined, orderBy: p.order_by, sort: p.sort });
    const db = rc.svc.db;
    return paginateSql<AlertRow>(rc, db, { select: 'a.*', from: q.sql, args: q.args, order: q.order }).map((row) => alert(rc, project, row));
  });

  r.get(`${ALERTS}/:alert_iid`, (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    return alert(rc, project, loadAlert(rc, project));
  });

  r.put(`${ALERTS}/:alert_iid`, (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const row = loadAlert(rc, project);
    const p = declared(rc.params, { status: t.string().values(ALERT_STATUSES).required() });
    return alert(rc, project, updateAlertStatus(rc.svc, row, p.status, rc.requireUser()));
  });

  r.get(`${ALERTS}/:alert_iid/notes`, (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const row = loadAlert(rc, project);
    return listAlertNotes(rc.svc, row).map((n) => alertNote(rc, n));
  });

  // --- the receivers, at GitLab's project URLs ----------------------------------------------
  // A project path nests up to 20 namespaces deep; one route per depth (a catch-all would shadow
  // the app's 404/405 answers). The handler parses the path itself.
  for (let depth = 2; depth <= MAX_PATH_SEGMENTS; depth++) {
    const project = Array.from({ length: depth }, (_, i) => `/:s${i + 1}`).join('');
    for (const receiver of ['alerts/notify', 'alerts/notify.json', 'alerts/notify/:name/:identifier']) {
      r.rootRoute('POST', `${project}/${receiver}`, receive, { auth: 'none' });
      r.rootRoute('POST', `${project}/prometheus/${receiver}`, receive, { auth: 'none' });
    }
  }
}

/** Namespaces nest 20 deep at most (GitLab's limit); a `/-/` segment may follow the project. */
const MAX_PATH_SEGMENTS = 22;

function loadIntegration(rc: RequestContext, project: Project): AlertIntegration {
  const id = rc.path.integration_id;
  const row = /^\d+$/.test(id) ? findIntegration(rc.svc, project.id, Number(id)) : undefined;
  if (!row) throw notFound('Integration');
  return row;
}

function loadAlert(rc: RequestContext, project: Project): AlertRow {
  const iid = rc.path.alert_iid;
  const row = /^\d+$/.test(iid) ? findAlert(rc.svc, project.id, Number(iid)) : undefined;
  if (!row) throw notFound('Alert');
  return row;
}

/** Which receiver a path names: `<project>/alerts/notify[/<name>/<id>].json`, `<project>/prometheus/alerts/notify[...].json`. */
interface ReceiverTarget {
  projectPath: string;
  type: 'http' | 'prometheus';
  /** The endpoint identifier, or null for the project-wide URL. */
  identifier: string | null;
}

/**
 * The receivers a path may name, most likely first: `.../alerts/notify/<name>/<id>` or
 * `.../alerts/notify` (a group, project or integration may itself be called "alerts"/"notify").
 */
export function parseReceiverPaths(pathname: string): ReceiverTarget[] {
  let segments: string[];
  try {
    segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return [];
  }
  const last = segments.length - 1;
  if (last < 0) return [];
  segments[last] = segments[last].replace(/\.json$/, '');
  const out: ReceiverTarget[] = [];
  for (const tailLength of [2, 0]) {
    const at = last - 1 - tailLength;
    if (at < 0 || segments[at] !== 'alerts' || segments[at + 1] !== 'notify') continue;
    const identifier = tailLength ? segments[last] : null;
    const head = segments.slice(0, at);
    // `<project>/prometheus/alerts/notify` names the metrics receiver, unless the project itself
    // is called "prometheus".
    if (head[head.length - 1] === 'prometheus') add(out, head.slice(0, -1), 'prometheus', identifier);
    add(out, head, 'http', identifier);
  }
  return out;
}

function add(out: ReceiverTarget[], head: string[], type: ReceiverTarget['type'], identifier: string | null): void {
  const path = head[head.length - 1] === '-' ? head.slice(0, -1) : head;
  if (path.length >= 2) out.push({ projectPath: path.join('/'), type, identifier });
}

/** The key a receiver request presents: `Bearer <key>`, or Basic with the key as password. */
export function presentedKey(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization);
  if (bearer) return bearer[1].trim() || null;
  const basic = /^Basic\s+(.+)$/i.exec(authorization);
  if (!basic) return null;
  const decoded = Buffer.from(basic[1].trim(), 'base64').toString('utf8');
  // Rails reads `user:password`; the key is the password (the user is left blank).
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1) || null;
}

/**
 * The request body as an alert payload: over the limit or nested deeper than GitLab allows
 * -> 400, not JSON -> 400. An empty body is `{}`; a form body (curl without a content type) is
 * read as JSON text when it is, else as its fields.
 */
function readPayload(rc: RequestContext): unknown {
  const body = rc.req.body;
  // text/plain is parsed as itself, so its text is the body rather than rawBody.
  const raw = rc.rawBody ?? (typeof body === 'string' ? body : undefined);
  if (raw !== undefined && Buffer.byteLength(raw) > rc.svc.limits.maxAlertPayloadBytes) {
    throw badRequest('Payload too large');
  }
  let payload: unknown;
  if (raw === undefined) {
    // No body, or multipart: the fields are the payload.
    const { private_token: _token, ...fields } = rc.params;
    payload = fields;
  } else if (body instanceof FormBody) {
    const { private_token: _token, ...fields } = rc.params;
    payload = tryJson(raw) ?? fields;
  } else if (body !== undefined && typeof body !== 'string') {
    payload = body; // JSON, parsed by the app (which answers 400 to malformed JSON)
  } else {
    payload = tryJson(raw);
    if (payload === undefined) throw grapeError(400, 'The request body is not valid JSON');
  }
  if (jsonDepth(payload, MAX_PAYLOAD_DEPTH + 1) > MAX_PAYLOAD_DEPTH) throw badRequest('Payload too deeply nested');
  return payload;
}

function tryJson(raw: string): unknown {
  if (!raw.trim()) return {};
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** Processes a payload for one integration and answers `[{iid, title}]`. */
function intake(rc: RequestContext, project: Project, integration: AlertIntegration, payload: unknown): unknown {
  if (integration.type === 'prometheus') {
    if (!isProcessableMetricsPayload(payload)) throw unprocessable();
    return receiveMetricsAlerts(rc.svc, project, integration, payload).map(alertIntakeResult);
  }
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw badRequest();
  const row = receiveGenericAlert(rc.svc, project, integration, payload as Record<string, unknown>);
  // GitLab answers 400 when the payload left no alert (a resolving payload with nothing open).
  if (!row) throw badRequest();
  return [alertIntakeResult(row)];
}

/**
 * POST to a receiver URL. GitLab's order: payload size (400); for metrics payloads the required
 * attributes (422); integration missing or inactive (403 generic, 401 metrics); key (401).
 */
async function receive(rc: RequestContext): Promise<unknown> {
  const targets = parseReceiverPaths(rc.pathname);
  if (targets.length === 0) throw grapeError(404, '404 Not Found');
  const found = targets.map((t) => ({ target: t, project: findProjectByRef(rc.svc, t.projectPath) })).find((x) => x.project);
  if (!found?.project) throw notFound('Project');
  const { target, project } = found;
  const payload = readPayload(rc);
  if (target.type === 'prometheus' && !isProcessableMetricsPayload(payload)) throw unprocessable();

  const candidates = target.identifier
    ? [findIntegrationByIdentifier(rc.svc, project.id, target.identifier)].filter(
        (i): i is AlertIntegration => !!i && i.type === target.type && !!i.active,
      )
    : activeIntegrations(rc.svc, project.id, target.type);
  // The generic service answers 403 when no active integration matches; the metrics service only
  // asks whether the key is valid for an active integration, so there it is 401.
  if (candidates.length === 0) throw target.type === 'prometheus' ? unauthorized() : forbidden();
  const key = presentedKey(rc.req.headers.authorization);
  // Every candidate is compared, so the time taken does not tell which one matched.
  const matches = candidates.filter((i) => keyMatches(i, key));
  if (matches.length === 0) throw unauthorized();
  rc.status = 200;
  return intake(rc, project, matches[0], payload);
}
