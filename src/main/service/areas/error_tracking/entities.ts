import type { EntityContext } from '../core/entities';
import type { ClientKey, ErrorTrackingSetting } from './error_tracking';

/** Sentry's web URL from its API URL (`.../api/0/projects/org/proj` -> `.../org/proj`). */
const externalUrl = (apiUrl: string | null): string | null => (apiUrl ? apiUrl.replace('api/0/projects/', '') : null);

/** The settings, with the reference's field name and GitLab's side by side. */
export function errorTrackingSetting(s: ErrorTrackingSetting): Record<string, unknown> {
  const url = externalUrl(s.api_url);
  return {
    active: !!s.active,
    project_name: s.project_name,
    sentry_external_url: url,
    errortracker_external_url: url,
    api_url: s.api_url,
    integrated: !!s.integrated,
  };
}

/** A client key; its DSN embeds the public key and points at this instance's collector. */
export function clientKey(ec: EntityContext, k: ClientKey): Record<string, unknown> {
  const base = new URL(ec.baseUrl);
  const dsn = `${base.protocol}//${k.public_key}@${base.host}/api/v4/error_tracking/collector/${k.project_id}`;
  return {
    id: k.id,
    active: !!k.active,
    public_key: k.public_key,
    sentry_dsn: dsn,
    errortracker_dsn: dsn,
  };
}
