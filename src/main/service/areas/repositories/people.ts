import type { ServiceContext } from '../../context';
import type { Person } from '../../git';
import type { User } from '../core/users';
import { isoTime } from '../core/time';

/** The identity Sandlab writes commits with for a user (their name and commit email), at the service clock. */
export function committerOf(svc: ServiceContext, user: User): Person {
  return { name: user.name, email: user.email, date: isoTime(svc.now()) };
}
