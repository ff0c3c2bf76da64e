import type { ServiceContext } from '../../context';
import { isoTime } from './time';

/** GitLab's event actions (app/models/event.rb). */
export type EventAction =
  | 'created'
  | 'updated'
  | 'closed'
  | 'reopened'
  | 'pushed'
  | 'commented'
  | 'merged'
  | 'joined'
  | 'left'
  | 'destroyed'
  | 'expired'
  | 'approved';

export interface NewEvent {
  action: EventAction;
  authorId: number;
  projectId?: number | null;
  groupId?: number | null;
  /** "Issue", "MergeRequest", "Note", "DiffNote", "DiscussionNote", "Snippet", "Epic", "Milestone", "User", ... */
  targetType?: string | null;
  targetId?: number | null;
  targetIid?: number | null;
  targetTitle?: string | null;
  /** Extra shape data (push_data, the note's noteable, ...), stored as JSON. */
  data?: Record<string, unknown> | null;
}

/** Event::RESET_PROJECT_ACTIVITY_INTERVAL. */
const PROJECT_ACTIVITY_INTERVAL_MS = 3_600_000;

/** Writes one activity event. Call it inside the transaction of the action it records. */
export function recordEvent(svc: ServiceContext, e: NewEvent): number {
  const now = isoTime(svc.now());
  const info = svc.db
    .prepare(
      `INSERT INTO events (project_id, group_id, author_id, action, target_type, target_id, target_iid, target_title, data, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      e.projectId ?? null,
      e.groupId ?? null,
      e.authorId,
      e.action,
      e.targetType ?? null,
      e.targetId ?? null,
      e.targetIid ?? null,
      e.targetTitle ?? null,
      e.data ? JSON.stringify(e.data) : null,
      now,
    );
  // GitLab's Event#reset_project_activity: a project's activity (touch_all: last_activity_at and updated_at) moves
  // only when the last one is an hour old or more, so a busy project's row is not rewritten at every event.
  if (e.projectId) {
    const hourAgo = isoTime(new Date(svc.nowMs() - PROJECT_ACTIVITY_INTERVAL_MS));
    svc.db.prepare('UPDATE projects SET last_activity_at = ?, updated_at = ? WHERE id = ? AND last_activity_at <= ?').run(now, now, e.projectId, hourAgo);
  }
  // Written only when the day changes: an update that finds the same day moved the users table's
  // version (core/099) at every write, and every remembered user row and UserBasic went with it.
  const day = now.slice(0, 10);
  svc.db.prepare('UPDATE users SET last_activity_on = ? WHERE id = ? AND last_activity_on IS NOT ?').run(day, e.authorId, day);
  return Number(info.lastInsertRowid);
}
