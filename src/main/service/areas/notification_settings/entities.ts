import type { User } from '../core/users';
import { withFields } from '../core/entities';
import { EMAIL_EVENTS, type NotificationSetting } from './notification_settings';

/** NotificationSetting: `level`, and `events` (tri-state) only at level custom. */
export function notificationSetting(s: NotificationSetting): Record<string, unknown> {
  const out: Record<string, unknown> = { level: s.level };
  if (s.level === 'custom') out.events = Object.fromEntries(EMAIL_EVENTS.map((e) => [e, s.events[e] ?? null]));
  return out;
}

/** GlobalNotificationSetting adds the address notifications go to (the primary e-mail by default). */
export function globalNotificationSetting(s: NotificationSetting, user: User): Record<string, unknown> {
  return withFields(notificationSetting(s), { notification_email: s.notificationEmail ?? user.email });
}
