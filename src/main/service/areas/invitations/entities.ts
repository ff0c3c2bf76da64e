import type { EntityContext, MemberRow } from '../core/entities';
import { findUserById } from '../core/users';

/**
 * Invitation: the reference's fields (`id`, `invite_email`, `created_at`, `access_level`,
 * `expires_at`, `user_name`, `created_by_name`) plus GitLab's entity's `invite_token` (the stored
 * token digest). `user_name` is null while no user is linked (GitLab's entity leaves it out then).
 */
export function invitation(ec: EntityContext, m: MemberRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: m.id,
    access_level: m.access_level,
    created_at: m.created_at,
    expires_at: m.expires_at,
    invite_email: m.invite_email,
    invite_token: m.invite_token,
  };
  out.user_name = m.user_id !== null ? (findUserById(ec.svc, m.user_id)?.name ?? null) : null;
  out.created_by_name = m.created_by_id !== null ? (findUserById(ec.svc, m.created_by_id)?.name ?? null) : null;
  return out;
}
