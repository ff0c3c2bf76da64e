import type { EntityContext, MemberRow } from '../core/entities';
import { userBasic, withFields } from '../core/entities';
import { findUserById } from '../core/users';

/** AccessRequester: the user's basic fields and when they asked. */
export function accessRequester(ec: EntityContext, m: MemberRow): Record<string, unknown> {
  return withFields(userBasic(ec, findUserById(ec.svc, m.user_id!)!), { requested_at: m.requested_at });
}

/** The answer to a new request also carries the row's `created_at`. */
export function newAccessRequest(ec: EntityContext, m: MemberRow): Record<string, unknown> {
  return withFields(accessRequester(ec, m), { created_at: m.created_at });
}
