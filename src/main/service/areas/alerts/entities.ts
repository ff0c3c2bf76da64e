import type { EntityContext } from '../core/entities';
import { userBasicById } from '../core/entities';
import { findNamespaceById } from '../core/namespaces';
import type { Project } from '../core/projects';
import type { AlertIntegration, AlertNoteRow, AlertRow } from './alerts';
import { nameSlug } from './alerts';

export function projectFullPath(ec: EntityContext, p: Project): string {
  const ns = findNamespaceById(ec.svc, p.namespace_id);
  return ns ? `${ns.full_path}/${p.path}` : p.path;
}

/** The receiver URL of an integration, at GitLab's project URLs (outside /api/v4). */
export function integrationUrl(ec: EntityContext, p: Project, row: AlertIntegration): string {
  const base = `${ec.baseUrl}/${projectFullPath(ec, p)}`;
  return row.type === 'prometheus'
    ? `${base}/prometheus/alerts/notify.json`
    : `${base}/alerts/notify/${nameSlug(row.name)}/${row.endpoint_identifier}.json`;
}

/** Sandlab-only: an alert integration; `token` (its authorization key) only on create and reset. */
export function alertIntegration(ec: EntityContext, p: Project, row: AlertIntegration, token?: string): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    active: !!row.active,
    url: integrationUrl(ec, p, row),
    ...(token ? { token } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** What a receiver answers per alert (GitLab's AlertManagement::AlertEntity). */
export function alertIntakeResult(row: AlertRow): Record<string, unknown> {
  return { iid: row.iid, title: row.title };
}

/** Sandlab-only: the full alert of the alerts REST surface. */
export function alert(ec: EntityContext, p: Project, row: AlertRow): Record<string, unknown> {
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.project_id,
    title: row.title,
    description: row.description,
    status: row.status,
    severity: row.severity,
    started_at: row.started_at,
    ended_at: row.ended_at,
    events: row.events,
    fingerprint: row.fingerprint,
    service: row.service,
    monitoring_tool: row.monitoring_tool,
    hosts: JSON.parse(row.hosts) as string[],
    environment: row.environment,
    runbook: row.runbook,
    payload: JSON.parse(row.payload) as unknown,
    web_url: `${ec.baseUrl}/${projectFullPath(ec, p)}/-/alert_management/${row.iid}/details`,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Sandlab-only: one entry of an alert's timeline (GitLab's system notes on alerts). */
export function alertNote(ec: EntityContext, row: AlertNoteRow): Record<string, unknown> {
  return {
    id: row.id,
    body: row.body,
    author: userBasicById(ec, row.author_id),
    system: true,
    created_at: row.created_at,
  };
}
