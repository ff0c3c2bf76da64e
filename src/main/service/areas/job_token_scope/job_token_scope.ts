import type { ServiceContext, JobTokenIdentity } from '../../context';
import type { RequestContext } from '../../http/route';
import { inTransaction } from '../../db/connection';
import { badRequest, forbidden, notFound } from '../../http/errors';
import { Access, canReadGroup, canReadProject, effectiveProjectAccess } from '../core/access';
import { type Project, findProjectById, findProjectByRef } from '../core/projects';
import { type Namespace, findNamespaceById, selfAndAncestorIds } from '../core/namespaces';
import { findUserById, generateToken, tokenDigest } from '../core/users';
import { isoTime } from '../core/time';

/** GitLab's per-direction link limit (Ci::JobToken::ProjectScopeLink::PROJECT_LINK_DIRECTIONAL_LIMIT). */
export const LINK_LIMIT = 200;

const INSUFFICIENT = 'Insufficient permissions to modify the job token scope';

export function inboundEnabled(svc: ServiceContext, projectId: number): boolean {
  const row = svc.db.prepare('SELECT inbound_enabled FROM job_token_scope_settings WHERE project_id = ?').get(projectId) as
    | { inbound_enabled: number }
    | undefined;
  return row ? !!row.inbound_enabled : true;
}

export function setInboundEnabled(svc: ServiceContext, projectId: number, enabled: boolean): void {
  inTransaction(svc.db, () => {
    svc.db
      .prepare(
        `INSERT INTO job_token_scope_settings (project_id, inbound_enabled) VALUES (?, ?)
         ON CONFLICT (project_id) DO UPDATE SET inbound_enabled = excluded.inbound_enabled`,
      )
      .run(projectId, enabled ? 1 : 0);
  });
}

/** The inbound allowlist: the project itself first, then the projects added to it. */
export function allowlistedProjects(svc: ServiceContext, source: Project): Project[] {
  const linked = svc.db
    .prepare(
      `SELECT p.* FROM job_token_project_links l JOIN projects p ON p.id = l.target_project_id
       WHERE l.source_project_id = ? ORDER BY l.id`,
    )
    .all(source.id) as Project[];
  return [source, ...linked];
}

export function allowlistedGroups(svc: ServiceContext, source: Project): Namespace[] {
  return svc.db
    .prepare(
      `SELECT n.* FROM job_token_group_links l JOIN namespaces n ON n.id = l.target_group_id
       WHERE l.source_project_id = ? ORDER BY l.id`,
    )
    .all(source.id) as Namespace[];
}

const canAdmin = (rc: RequestContext, project: Project): boolean =>
  effectiveProjectAccess(rc.svc, rc.user, project) >= Access.MAINTAINER;

export function addProjectLink(rc: RequestContext, source: Project, targetId: number): { source_project_id: number; target_project_id: number } {
  const target = findProjectById(rc.svc, targetId);
  if (!target) throw notFound('target_project_id not found');
  if (!canAdmin(rc, source)) throw badRequest(INSUFFICIENT);
  if (!canReadProject(rc.svc, rc.user, target)) {
    throw badRequest("The target_project that you are attempting to access does not exist or you don't have permission to perform this action");
  }
  const links = rc.svc.db.prepare('SELECT target_project_id FROM job_token_project_links WHERE source_project_id = ?').all(source.id) as {
    target_project_id: number;
  }[];
  if (links.some((l) => l.target_project_id === target.id)) throw badRequest('This project is already in the job token allowlist.');
  if (target.id === source.id) throw badRequest("Validation failed: Target project can't be the same as the source project");
  if (links.length >= LINK_LIMIT) {
    throw badRequest('Validation failed: Source project exceeds the allowable number of project links in this direction');
  }
  inTransaction(rc.svc.db, () => {
    rc.svc.db
      .prepare('INSERT INTO job_token_project_links (source_project_id, target_project_id, added_by_id, created_at) VALUES (?, ?, ?, ?)')
      .run(source.id, target.id, rc.user?.id ?? null, isoTime(rc.svc.now()));
  });
  return { source_project_id: source.id, target_project_id: target.id };
}

export function removeProjectLink(rc: RequestContext, source: Project, targetRef: string): void {
  const target = findProjectByRef(rc.svc, targetRef);
  if (!target || !canReadProject(rc.svc, rc.user, target)) throw notFound('Project');
  if (!canAdmin(rc, source)) throw forbidden(INSUFFICIENT);
  if (target.id === source.id) throw badRequest('Source project cannot be removed from the job token scope');
  inTransaction(rc.svc.db, () => {
    const info = rc.svc.db
      .prepare('DELETE FROM job_token_project_links WHERE source_project_id = ? AND target_project_id = ?')
      .run(source.id, target.id);
    if (info.changes === 0) throw badRequest('Target project is not in the job token scope');
  });
}

export function addGroupLink(rc: RequestContext, source: Project, groupId: number): { source_project_id: number; target_group_id: number } {
  const group = findGroup(rc.svc, groupId);
  if (!group) throw notFound('target_group_id not found');
  if (!canAdmin(rc, source)) throw badRequest(INSUFFICIENT);
  if (!canReadGroup(rc.svc, rc.user, group)) {
    throw badRequest("The target_group that you are attempting to access does not exist or you don't have permission to perform this action");
  }
  const links = rc.svc.db.prepare('SELECT target_group_id FROM job_token_group_links WHERE source_project_id = ?').all(source.id) as {
    target_group_id: number;
  }[];
  if (links.some((l) => l.target_group_id === group.id)) throw badRequest('This group is already in the job token allowlist.');
  if (links.length >= LINK_LIMIT) throw badRequest('Validation failed: Source project exceeds the allowable number of group links');
  inTransaction(rc.svc.db, () => {
    rc.svc.db
      .prepare('INSERT INTO job_token_group_links (source_project_id, target_group_id, added_by_id, created_at) VALUES (?, ?, ?, ?)')
      .run(source.id, group.id, rc.user?.id ?? null, isoTime(rc.svc.now()));
  });
  return { source_project_id: source.id, target_group_id: group.id };
}

export function removeGroupLink(rc: RequestContext, source: Project, groupRef: string): void {
  const group = /^\d+$/.test(groupRef) ? findGroup(rc.svc, Number(groupRef)) : undefined;
  if (!group) throw notFound('target_group_id not found');
  if (!canAdmin(rc, source)) throw forbidden(INSUFFICIENT);
  inTransaction(rc.svc.db, () => {
    const info = rc.svc.db.prepare('DELETE FROM job_token_group_links WHERE source_project_id = ? AND target_group_id = ?').run(source.id, group.id);
    if (info.changes === 0) throw badRequest('Target group is not in the job token scope');
  });
}

function findGroup(svc: ServiceContext, id: number): Namespace | undefined {
  const ns = findNamespaceById(svc, id);
  return ns?.kind === 'group' ? ns : undefined;
}

/**
 * May a job of `sourceProjectId` reach `target`? Its own project always; others when the target's
 * inbound scope is off, or the source (or a group above it) is on the target's allowlist.
 */
export function jobTokenCanAccess(svc: ServiceContext, sourceProjectId: number, target: Project): boolean {
  if (sourceProjectId === target.id) return true;
  if (!inboundEnabled(svc, target.id)) return true;
  const direct = svc.db
    .prepare('SELECT 1 FROM job_token_project_links WHERE source_project_id = ? AND target_project_id = ?')
    .get(target.id, sourceProjectId);
  if (direct) return true;
  const source = findProjectById(svc, sourceProjectId);
  const ns = source && findNamespaceById(svc, source.namespace_id);
  if (!ns) return false;
  const groupIds = selfAndAncestorIds(svc, ns);
  const viaGroup = svc.db
    .prepare(`SELECT 1 FROM job_token_group_links WHERE source_project_id = ? AND target_group_id IN (${groupIds.map(() => '?').join(',')})`)
    .get(target.id, ...groupIds);
  return !!viaGroup;
}

export function resolveJobToken(svc: ServiceContext, token: string): JobTokenIdentity | null {
  const row = svc.db.prepare('SELECT * FROM ci_job_tokens WHERE token_digest = ?').get(tokenDigest(token)) as
    | { project_id: number; user_id: number }
    | undefined;
  if (!row) return null;
  const user = findUserById(svc, row.user_id);
  if (!user || user.state !== 'active') return null;
  return { user, projectId: row.project_id };
}

export interface JobTokenRow {
  id: number;
  project_id: number;
  user_id: number;
  created_at: string;
}

/** Sandlab-only: issues a job token as a running job of `project` triggered by `userId` would hold. */
export function mintJobToken(svc: ServiceContext, project: Project, userId: number): { row: JobTokenRow; value: string } {
  const value = generateToken('glcbt-');
  return inTransaction(svc.db, () => {
    const info = svc.db
      .prepare('INSERT INTO ci_job_tokens (token_digest, project_id, user_id, created_at) VALUES (?, ?, ?, ?)')
      .run(tokenDigest(value), project.id, userId, isoTime(svc.now()));
    const row = svc.db.prepare('SELECT id, project_id, user_id, created_at FROM ci_job_tokens WHERE id = ?').get(Number(info.lastInsertRowid)) as JobTokenRow;
    return { row, value };
  });
}

/** Sandlab-only: the job finished; its token stops working. */
export function revokeJobToken(svc: ServiceContext, id: number): boolean {
  return inTransaction(svc.db, () => svc.db.prepare('DELETE FROM ci_job_tokens WHERE id = ?').run(id).changes > 0);
}
