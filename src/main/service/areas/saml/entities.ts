import type { IdentityRow, SamlGroupLinkRow } from './saml';

/** IdentityDetail: the external UID and whose it is. */
export function identity(i: IdentityRow): Record<string, unknown> {
  return { extern_uid: i.extern_uid, user_id: i.user_id };
}

export function samlGroupLink(l: SamlGroupLinkRow): Record<string, unknown> {
  return { name: l.saml_group_name, access_level: l.access_level, member_role_id: l.member_role_id, provider: l.provider };
}
