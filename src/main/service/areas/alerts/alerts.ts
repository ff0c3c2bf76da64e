import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServiceContext } from '../../context';
import { inTransaction } from '../../db/connection';
import { addFilter } from '../../db/filter';
import { validationError } from '../../http/errors';
import type { Project } from '../core/projects';
import type { User } from '../core/users';
import { isoTime } from '../core/time';
import {
  METRICS_MAX_ALERTS,
  type ParsedAlert,
  parseGenericPayload,
  parseMetricsAlert,
} from './payload';

export type IntegrationType = 'http' | 'prometheus';
export const INTEGRATION_TYPES: readonly IntegrationType[] = ['http', 'prometheus'];

export const ALERT_STATUSES = ['triggered', 'acknowledged', 'resolved', 'ignored'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

export interface AlertIntegration {
  id: number;
  project_id: number;
  name: string;
  type: IntegrationType;
  active: number;
  endpoint_identifier: string;
  token_digest: string;
  created_at: string;
  updated_at: string;
}

export interface AlertRow {
  id: number;
  project_id: number;
  iid: number;
  integration_id: number | null;
  title: string;
  description: string | null;
  status: AlertStatus;
  severity: string;
  started_at: string;
  ended_at: string | null;
  events: number;
  fingerprint: string | null;
  service: string | null;
  monitoring_tool: string | null;
  hosts: string;
  environment: string | null;
  runbook: string | null;
  payload: string;
  created_at: string;
  updated_at: string;
}

export interface AlertNoteRow {
  id: number;
  alert_id: number;
  author_id: number | null;
  body: string;
  created_at: string;
}

export const INTEGRATION_NAME_MAX = 255;

// --- integrations ------------------------------------------------------------------------------

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** An authorization key as GitLab makes them (32 hex characters). */
const newKey = (): string => randomBytes(16).toString('hex');

export function findIntegration(svc: ServiceContext, projectId: number, id: number): AlertIntegration | undefined {
  return svc.db.prepare('SELECT * FROM alert_integrations WHERE project_id = ? AND id = ?').get(projectId, id) as AlertIntegration | undefined;
}

export function listIntegrations(svc: ServiceContext, projectId: number): AlertIntegration[] {
  return svc.db.prepare('SELECT * FROM alert_integrations WHERE project_id = ? ORDER BY id').all(projectId) as AlertIntegration[];
}

export function findIntegrationByIdentifier(svc: ServiceContext, projectId: number, identifier: string): AlertIntegration | undefined {
  return svc.db
    .prepare('SELECT * FROM alert_integrations WHERE project_id = ? AND endpoint_identifier = ?')
    .get(projectId, identifier) as AlertIntegration | undefined;
}

export function activeIntegrations(svc: ServiceContext, projectId: number, type: IntegrationType): AlertIntegration[] {
  return svc.db
    .prepare('SELECT * FROM alert_integrations WHERE project_id = ? AND type = ? AND active = 1 ORDER BY id')
    .all(projectId, type) as AlertIntegration[];
}

function checkName(name: string): void {
  if (!name.trim()) throw validationError({ name: ["can't be blank"] });
  if (name.length > INTEGRATION_NAME_MAX) throw validationError({ name: [`is too long (maximum is ${INTEGRATION_NAME_MAX} characters)`] });
}

export function createIntegration(
  svc: ServiceContext,
  project: Project,
  input: { name: string; type: IntegrationType; active: boolean },
): { row: AlertIntegration; token: string } {
  checkName(input.name);
  const token = newKey();
  const now = isoTime(svc.now());
  const id = inTransaction(svc.db, () =>
    Number(
      svc.db
        .prepare(
          `INSERT INTO alert_integrations (project_id, name, type, active, endpoint_identifier, token_digest, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(project.id, input.name, input.type, input.active ? 1 : 0, randomBytes(8).toString('hex'), digest(token), now, now).lastInsertRowid,
    ),
  );
  return { row: findIntegration(svc, project.id, id)!, token };
}

export function updateIntegration(svc: ServiceContext, row: AlertIntegration, input: { name?: string; active?: boolean }): AlertIntegration {
  if (input.name !== undefined) checkName(input.name);
  inTransaction(svc.db, () =>
    svc.db
      .prepare('UPDATE alert_integrations SET name = ?, active = ?, updated_at = ? WHERE id = ?')
      .run(input.name ?? row.name, input.active === undefined ? row.active : input.active ? 1 : 0, isoTime(svc.now()), row.id),
  );
  return findIntegration(svc, row.project_id, row.id)!;
}

export function resetIntegrationToken(svc: ServiceContext, row: AlertIntegration): { row: AlertIntegration; token: string } {
  const token = newKey();
  inTransaction(svc.db, () =>
    svc.db.prepare('UPDATE alert_integrations SET token_digest = ?, updated_at = ? WHERE id = ?').run(digest(token), isoTime(svc.now()), row.id),
  );
  return { row: findIntegration(svc, row.project_id, row.id)!, token };
}

export function deleteIntegration(svc: ServiceContext, row: AlertIntegration): void {
  inTransaction(svc.db, () => svc.db.prepare('DELETE FROM alert_integrations WHERE id = ?').run(row.id));
}

/** Whether `presented` is the integration's key; compares digests in constant time. */
export function keyMatches(row: AlertIntegration, presented: string | null): boolean {
  if (!presented) return false;
  return timingSafeEqual(Buffer.from(digest(presented), 'hex'), Buffer.from(row.token_digest, 'hex'));
}

/** `Integration name` -> `integration-name`, the cosmetic segment of the receiver URL. */
export function nameSlug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'http-endpoint'
  );
}

// --- alerts ------------------------------------------------------------------------------------

export function findAlert(svc: ServiceContext, projectId: number, iid: number): AlertRow | undefined {
  return svc.db.prepare('SELECT * FROM alerts WHERE project_id = ? AND iid = ?').get(projectId, iid) as AlertRow | undefined;
}

const findAlertById = (svc: ServiceContext, id: number): AlertRow =>
  svc.db.prepare('SELECT * FROM alerts WHERE id = ?').get(id) as AlertRow;

function findOpenAlert(svc: ServiceContext, projectId: number, fingerprint: string): AlertRow | undefined {
  return svc.db
    .prepare(`SELECT * FROM alerts WHERE project_id = ? AND fingerprint = ? AND status <> 'resolved'`)
    .get(projectId, fingerprint) as AlertRow | undefined;
}

export interface AlertFilters {
  status?: AlertStatus;
  search?: string;
  orderBy: string;
  sort: 'asc' | 'desc';
}

export const ALERT_ORDER_COLUMNS = ['iid', 'created_at', 'updated_at', 'started_at', 'ended_at', 'severity', 'status', 'events', 'title'] as const;

export function alertQuery(projectId: number, f: AlertFilters): { sql: string; args: unknown[]; order: string } {
  const where: string[] = ['a.project_id = ?'];
  const args: unknown[] = [projectId];
  if (f.status) addFilter(where, args, 'a.status = ?', f.status);
  if (f.search) {
    const like = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    addFilter(
      where,
      args,
      `(a.title LIKE ? ESCAPE '\\' OR a.description LIKE ? ESCAPE '\\' OR a.service LIKE ? ESCAPE '\\' OR a.monitoring_tool LIKE ? ESCAPE '\\' OR a.hosts LIKE ? ESCAPE '\\')`,
      like,
      like,
      like,
      like,
      like,
    );
  }
  // Severity and status sort by GitLab's enum order (critical first; triggered first).
  const column =
    f.orderBy === 'severity'
      ? `CASE a.severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 WHEN 'info' THEN 4 ELSE 5 END`
      : f.orderBy === 'status'
        ? `CASE a.status WHEN 'triggered' THEN 0 WHEN 'acknowledged' THEN 1 WHEN 'resolved' THEN 2 ELSE 3 END`
        : `a.${f.orderBy}`;
  const dir = f.sort === 'desc' ? 'DESC' : 'ASC';
  return { sql: `FROM alerts a WHERE ${where.join(' AND ')}`, args, order: `${column} ${dir}, a.iid ${dir}` };
}

export function listAlertNotes(svc: ServiceContext, alert: AlertRow): AlertNoteRow[] {
  return svc.db.prepare('SELECT * FROM alert_notes WHERE alert_id = ? ORDER BY id').all(alert.id) as AlertNoteRow[];
}

function addNote(svc: ServiceContext, alertId: number, authorId: number | null, body: string): void {
  svc.db
    .prepare('INSERT INTO alert_notes (alert_id, author_id, body, created_at) VALUES (?, ?, ?, ?)')
    .run(alertId, authorId, body, isoTime(svc.now()));
}

const STATUS_WORDS: Record<AlertStatus, string> = {
  triggered: 'Triggered',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
  ignored: 'Ignored',
};

/**
 * Applies one inbound alert: a repeat of an open alert with the same fingerprint bumps its
 * `events`; a resolving payload resolves it; anything else opens a new alert. A resolving payload
 * with no open alert to resolve yields nothing (GitLab creates no alert for it).
 */
function applyAlert(svc: ServiceContext, project: Project, integrationId: number | null, a: ParsedAlert, source: string): AlertRow | null {
  const now = isoTime(svc.now());
  const existing = a.fingerprint ? findOpenAlert(svc, project.id, a.fingerprint) : undefined;
  if (existing) {
    if (a.endedAt) {
      addNote(svc, existing.id, null, `logged a recovery alert from **${source}**`);
      svc.db.prepare(`UPDATE alerts SET status = 'resolved', ended_at = ?, updated_at = ? WHERE id = ?`).run(a.endedAt, now, existing.id);
      addNote(svc, existing.id, null, `changed the status to **${STATUS_WORDS.resolved}**`);
    } else {
      svc.db.prepare('UPDATE alerts SET events = events + 1, updated_at = ? WHERE id = ?').run(now, existing.id);
    }
    return findAlertById(svc, existing.id);
  }
  if (a.endedAt || !a.title || !a.startedAt) return null;
  const iid = (svc.db.prepare('SELECT coalesce(max(iid), 0) + 1 AS n FROM alerts WHERE project_id = ?').get(project.id) as { n: number }).n;
  const id = Number(
    svc.db
      .prepare(
        `INSERT INTO alerts (project_id, iid, integration_id, title, description, status, severity, started_at, ended_at, events,
           fingerprint, service, monitoring_tool, hosts, environment, runbook, payload, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'triggered', ?, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        project.id,
        iid,
        integrationId,
        a.title,
        a.description,
        a.severity,
        a.startedAt,
        a.fingerprint,
        a.service,
        a.monitoringTool,
        JSON.stringify(a.hosts),
        a.environment,
        a.runbook,
        JSON.stringify(a.payload),
        now,
        now,
      ).lastInsertRowid,
  );
  addNote(svc, id, null, `logged an alert from **${source}**`);
  return findAlertById(svc, id);
}

/**
 * A generic HTTP endpoint payload -> its alert, or null when it resolves nothing (GitLab then
 * answers 400). One transaction.
 */
export function receiveGenericAlert(
  svc: ServiceContext,
  project: Project,
  integration: AlertIntegration | null,
  payload: Record<string, unknown>,
): AlertRow | null {
  const parsed = parseGenericPayload(payload);
  parsed.startedAt ??= isoTime(svc.now());
  const source = parsed.monitoringTool ?? integration?.name ?? 'Generic Alert Endpoint';
  return inTransaction(svc.db, () => applyAlert(svc, project, integration?.id ?? null, parsed, source));
}

/**
 * A metrics (Prometheus/Alertmanager) payload, already checked processable -> one alert per item
 * of `alerts[]` (at most 100); items that yield no alert are left out. One transaction.
 */
export function receiveMetricsAlerts(
  svc: ServiceContext,
  project: Project,
  integration: AlertIntegration | null,
  payload: { alerts: unknown[] },
): AlertRow[] {
  const now = svc.now();
  return inTransaction(svc.db, () => {
    const out: AlertRow[] = [];
    for (const item of payload.alerts.slice(0, METRICS_MAX_ALERTS)) {
      if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
      const row = applyAlert(svc, project, integration?.id ?? null, parseMetricsAlert(item as Record<string, unknown>, now), 'Prometheus');
      if (row) out.push(row);
    }
    return out;
  });
}

/** A member sets the alert's status; resolving sets `ended_at`, leaving `resolved` clears it. */
export function updateAlertStatus(svc: ServiceContext, alert: AlertRow, status: AlertStatus, user: User): AlertRow {
  if (status === alert.status) return alert;
  const now = isoTime(svc.now());
  return inTransaction(svc.db, () => {
    if (alert.status === 'resolved' && alert.fingerprint && findOpenAlert(svc, alert.project_id, alert.fingerprint)) {
      throw validationError({ fingerprint: ['Cannot have multiple unresolved alerts'] });
    }
    const endedAt = status === 'resolved' ? now : null;
    svc.db.prepare('UPDATE alerts SET status = ?, ended_at = ?, updated_at = ? WHERE id = ?').run(status, endedAt, now, alert.id);
    addNote(svc, alert.id, user.id, `changed the status to **${STATUS_WORDS[status]}**`);
    return findAlertById(svc, alert.id);
  });
}
