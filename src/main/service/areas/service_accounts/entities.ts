import type { User } from '../core/users';
import { withFields } from '../core/entities';

/** The instance list shows only these three fields. */
export function serviceAccountBasic(u: User): Record<string, unknown> {
  return { id: u.id, username: u.username, name: u.name };
}

/** Create, update and the group list add the e-mail. */
export function serviceAccount(u: User): Record<string, unknown> {
  return withFields(serviceAccountBasic(u), { email: u.email });
}
