import type { EntityContext } from '../core/entities';
import { namespaceWebUrl, project as projectEntity } from '../core/entities';
import type { Namespace } from '../core/namespaces';
import type { Project } from '../core/projects';
import type { JobTokenRow } from './job_token_scope';

export function jobTokenScope(inboundEnabled: boolean): Record<string, unknown> {
  // outbound_enabled is deprecated (removal planned in 18.0); Sandlab never limits outbound access.
  return { inbound_enabled: inboundEnabled, outbound_enabled: false };
}

const BASIC_PROJECT_KEYS = [
  'id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at', 'default_branch',
  'tag_list', 'topics', 'ssh_url_to_repo', 'http_url_to_repo', 'web_url', 'avatar_url', 'star_count', 'last_activity_at',
  'namespace',
] as const;

/** BasicProjectDetails: an allowlisted project. */
export function allowlistedProject(ec: EntityContext, p: Project): Record<string, unknown> {
  const full = projectEntity(ec, p);
  return Object.fromEntries(BASIC_PROJECT_KEYS.map((k) => [k, full[k]]));
}

/** BasicGroupDetails: an allowlisted group. */
export function allowlistedGroup(ec: EntityContext, g: Namespace): Record<string, unknown> {
  return { id: g.id, web_url: namespaceWebUrl(ec, g), name: g.name };
}

export function jobToken(row: JobTokenRow, value: string): Record<string, unknown> {
  return { id: row.id, token: value, project_id: row.project_id, user_id: row.user_id, created_at: row.created_at };
}
