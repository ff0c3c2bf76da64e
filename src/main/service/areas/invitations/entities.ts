import type { EntityContext, MemberRow } from '../core/entities';
import { findUserById } from '../core/users';

/** Invitation (lib/api/entities/invitation.rb): no `id`; the stored token digest is shown. */
export function invitation(ec: EntityContext, m: MemberRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    access_level: m.access_level,
    created_at: m.created_at,
    expires_at: m.expires_at,
    invite_email: m.invite_email,
    invite_token: m.invite_token,
  };
  if (m.user_id !== null) out.user_name = findUserById(ec.svc, m.user_id)?.name ?? null;
  out.created_by_name = m.created_by_id !== null ? (findUserById(ec.svc, m.created_by_id)?.name ?? null) : null;
  return out;
}
