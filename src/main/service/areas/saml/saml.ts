import type { ServiceContext } from '../../context';
import type { RequestContext } from '../../http/route';
import { ApiError, apiError, notFound, unprocessable } from '../../http/errors';
import type { Namespace } from '../core/namespaces';
import { isoTime } from '../core/time';

export interface IdentityRow {
  id: number;
  user_id: number;
  provider: string;
  extern_uid: string;
  saml_group_id: number | null;
}

export interface SamlGroupLinkRow {
  id: number;
  group_id: number;
  saml_group_name: string;
  access_level: number;
  member_role_id: number | null;
  provider: string | null;
}

// --- identities ----------------------------------------------------------------------------------

export function groupIdentities(svc: ServiceContext, group: Namespace): IdentityRow[] {
  return svc.db.prepare('SELECT * FROM identities WHERE saml_group_id = ? ORDER BY id').all(group.id) as IdentityRow[];
}

export function findIdentity(svc: ServiceContext, group: Namespace, externUid: string): IdentityRow {
  const row = svc.db.prepare('SELECT * FROM identities WHERE saml_group_id = ? AND extern_uid = ? ORDER BY id LIMIT 1').get(group.id, externUid) as
    | IdentityRow
    | undefined;
  if (!row) throw notFound('Identity');
  return row;
}

/** Changes an identity's external UID; a clash with another identity of the provider is a 400. */
export function updateIdentity(svc: ServiceContext, row: IdentityRow, externUid: string): IdentityRow {
  const errors: string[] = [];
  if (!externUid.trim()) errors.push("Extern uid can't be blank");
  const clash = svc.db
    .prepare('SELECT 1 FROM identities WHERE provider = ? AND extern_uid = ? AND ifnull(saml_group_id, 0) = ifnull(?, 0) AND id != ?')
    .get(row.provider, externUid, row.saml_group_id, row.id);
  if (clash) errors.push('Extern uid has already been taken');
  if (errors.length) throw apiError(400, errors.join(','));
  svc.db.prepare('UPDATE identities SET extern_uid = ? WHERE id = ?').run(externUid, row.id);
  return svc.db.prepare('SELECT * FROM identities WHERE id = ?').get(row.id) as IdentityRow;
}

export function deleteIdentity(svc: ServiceContext, row: IdentityRow): void {
  svc.db.prepare('DELETE FROM identities WHERE id = ?').run(row.id);
}

// --- group links ---------------------------------------------------------------------------------

export function groupLinks(svc: ServiceContext, group: Namespace): SamlGroupLinkRow[] {
  return svc.db.prepare('SELECT * FROM saml_group_links WHERE group_id = ? ORDER BY id').all(group.id) as SamlGroupLinkRow[];
}

/**
 * The link named `name`; `provider` (when given; empty matches links without one) narrows it.
 * Several matches without `provider` -> 422, none -> 404.
 */
export function findGroupLink(svc: ServiceContext, group: Namespace, name: string, provider: string | undefined): SamlGroupLinkRow {
  const rows = (
    svc.db.prepare('SELECT * FROM saml_group_links WHERE group_id = ? AND saml_group_name = ? ORDER BY id').all(group.id, name) as SamlGroupLinkRow[]
  ).filter((l) => provider === undefined || (l.provider ?? '') === provider);
  if (rows.length === 0) throw notFound();
  if (rows.length > 1) {
    throw unprocessable('Multiple group links found with the same name. Please specify a provider parameter to disambiguate.');
  }
  return rows[0];
}

export interface NewGroupLink {
  name: string;
  accessLevel: number;
  memberRoleId: number | null;
  provider: string | null;
}

/** Creates a link; failures are full messages joined by ",", as GitLab's create service reports them. */
export function createGroupLink(rc: RequestContext, group: Namespace, input: NewGroupLink): SamlGroupLinkRow {
  const name = input.name.trim();
  const provider = input.provider?.trim() ? input.provider.trim() : null;
  const errors: string[] = [];
  if (!name) errors.push("Saml group name can't be blank");
  if (name.length > 255) errors.push('Saml group name is too long (maximum is 255 characters)');
  // A group's roles: Minimal Access exists on top-level groups only; "No access" is never one.
  const roles = group.parent_id === null ? [5, 10, 15, 20, 30, 40, 50] : [10, 15, 20, 30, 40, 50];
  if (!roles.includes(input.accessLevel)) errors.push('Access level is invalid');
  const duplicate = rc.svc.db
    .prepare("SELECT 1 FROM saml_group_links WHERE group_id = ? AND saml_group_name = ? AND ifnull(provider, '') = ?")
    .get(group.id, name, provider ?? '');
  if (name && duplicate) errors.push('Saml group name has already been taken');
  if (errors.length) throw new ApiError(400, { message: errors.join(',') });
  const now = isoTime(rc.svc.now());
  const info = rc.svc.db
    .prepare(
      `INSERT INTO saml_group_links (group_id, saml_group_name, access_level, member_role_id, provider, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(group.id, name, input.accessLevel, input.memberRoleId, provider, now, now);
  return rc.svc.db.prepare('SELECT * FROM saml_group_links WHERE id = ?').get(Number(info.lastInsertRowid)) as SamlGroupLinkRow;
}

export function deleteGroupLink(svc: ServiceContext, link: SamlGroupLinkRow): void {
  svc.db.prepare('DELETE FROM saml_group_links WHERE id = ?').run(link.id);
}
