import type { ServiceContext } from '../../context';
import { apiError, validationError } from '../../http/errors';
import type { User } from '../core/users';
import { isoTime } from '../core/time';

export const LEVELS = ['disabled', 'participating', 'watch', 'global', 'mention', 'custom'] as const;

/** The e-mail events of NotificationSetting.email_events (with EE's new_epic), in GitLab's order. */
export const EMAIL_EVENTS = [
  'new_release', 'new_note', 'new_issue', 'reopen_issue', 'close_issue', 'reassign_issue', 'issue_due',
  'new_merge_request', 'push_to_merge_request', 'reopen_merge_request', 'close_merge_request',
  'reassign_merge_request', 'change_reviewer_merge_request', 'merge_merge_request', 'failed_pipeline',
  'fixed_pipeline', 'success_pipeline', 'moved_project', 'merge_when_pipeline_succeeds', 'new_epic',
] as const;

/** Flags accepted on input: the events above plus `approver`, which is stored but never shown. */
export const EVENT_PARAMS = [...EMAIL_EVENTS, 'approver'] as const;

export type SourceType = 'Global' | 'Namespace' | 'Project';

export interface NotificationSetting {
  level: string;
  notificationEmail: string | null;
  events: Record<string, boolean | null>;
}

interface Row {
  id: number;
  level: string;
  notification_email: string | null;
  events: string;
}

function findRow(svc: ServiceContext, userId: number, type: SourceType, sourceId: number): Row | undefined {
  return svc.db
    .prepare('SELECT * FROM notification_settings WHERE user_id = ? AND source_type = ? AND source_id = ?')
    .get(userId, type, sourceId) as Row | undefined;
}

/** The user's setting for a source, or the default (participating globally, global elsewhere). */
export function readSetting(svc: ServiceContext, user: User, type: SourceType, sourceId: number): NotificationSetting {
  const row = findRow(svc, user.id, type, sourceId);
  return {
    level: row?.level ?? (type === 'Global' ? 'participating' : 'global'),
    notificationEmail: row?.notification_email ?? null,
    events: row ? (JSON.parse(row.events) as Record<string, boolean | null>) : {},
  };
}

export interface SettingChange {
  level?: string | null;
  /** Global only: undefined keeps it; '' or null goes back to the primary e-mail. */
  notificationEmail?: string | null;
  events: Partial<Record<string, boolean | null>>;
}

/**
 * Stores the given fields only. Setting event flags leaves the level as it is (GitLab updates
 * the declared params and nothing else). Call inside a transaction.
 */
export function updateSetting(svc: ServiceContext, user: User, type: SourceType, sourceId: number, change: SettingChange): NotificationSetting {
  const current = readSetting(svc, user, type, sourceId);
  if (change.level !== undefined && !(LEVELS as readonly string[]).includes(change.level ?? '')) {
    throw apiError(400, `'${change.level ?? ''}' is not a valid level`);
  }
  let email = current.notificationEmail;
  if (change.notificationEmail !== undefined) {
    const wanted = change.notificationEmail?.trim() || null;
    if (wanted && wanted.toLowerCase() !== user.email.toLowerCase()) {
      throw validationError({ notification_email: ['must be an email you have verified'] });
    }
    email = wanted;
  }
  const events = { ...current.events, ...change.events };
  const level = change.level ?? current.level;
  const now = isoTime(svc.now());
  svc.db
    .prepare(
      `INSERT INTO notification_settings (user_id, source_type, source_id, level, notification_email, events, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id, source_type, source_id) DO UPDATE SET level = excluded.level,
         notification_email = excluded.notification_email, events = excluded.events, updated_at = excluded.updated_at`,
    )
    .run(user.id, type, sourceId, level, email, JSON.stringify(events), now, now);
  return readSetting(svc, user, type, sourceId);
}
