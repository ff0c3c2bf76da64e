import type { ServiceContext } from '../../context';
import type { User } from './users';
import { findUserById } from './users';
import { mentionedUsernames } from './todos';
import { isoTime } from './time';

export type SubscribableType = 'Issue' | 'MergeRequest';

interface ParticipantSource {
  type: SubscribableType;
  id: number;
  author_id: number | null;
  assignee_ids: string;
  reviewer_ids?: string;
  description: string | null;
}

/**
 * Participable#participants: the author, the assignees (and reviewers), everyone who commented, and
 * the users mentioned, in that order, each once. Internal notes count only for `includeInternal`.
 */
export function participantIds(svc: ServiceContext, item: ParticipantSource, includeInternal: boolean): number[] {
  const ids: number[] = [];
  const add = (id: number | null | undefined) => {
    if (id != null && !ids.includes(id)) ids.push(id);
  };
  add(item.author_id);
  for (const id of JSON.parse(item.assignee_ids) as number[]) add(id);
  for (const id of JSON.parse(item.reviewer_ids ?? '[]') as number[]) add(id);
  const notes = svc.db
    .prepare(`SELECT author_id, body FROM notes WHERE noteable_type = ? AND noteable_id = ? ${includeInternal ? '' : 'AND internal = 0'} ORDER BY id`)
    .all(item.type, item.id) as { author_id: number | null; body: string }[];
  const texts = [item.description, ...notes.map((n) => n.body)];
  for (const n of notes) add(n.author_id);
  for (const name of texts.flatMap((t) => mentionedUsernames(t))) {
    const u = svc.db.prepare('SELECT id FROM users WHERE lower(username) = ?').get(name) as { id: number } | undefined;
    add(u?.id);
  }
  return ids.filter((id) => findUserById(svc, id));
}

/** Subscribable#subscribed?: an explicit (un)subscription wins; otherwise participants are subscribed. */
export function isSubscribed(svc: ServiceContext, item: ParticipantSource, user: User | null): boolean {
  if (!user) return false;
  const row = svc.db
    .prepare('SELECT subscribed FROM subscriptions WHERE subscribable_type = ? AND subscribable_id = ? AND user_id = ?')
    .get(item.type, item.id, user.id) as { subscribed: number } | undefined;
  if (row) return !!row.subscribed;
  return participantIds(svc, item, true).includes(user.id);
}

/** Records an explicit subscription or unsubscription (call inside a transaction). */
export function setSubscribed(svc: ServiceContext, type: SubscribableType, id: number, userId: number, subscribed: boolean): void {
  const now = isoTime(svc.now());
  svc.db
    .prepare(
      `INSERT INTO subscriptions (subscribable_type, subscribable_id, user_id, subscribed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (subscribable_type, subscribable_id, user_id) DO UPDATE SET subscribed = excluded.subscribed, updated_at = excluded.updated_at`,
    )
    .run(type, id, userId, subscribed ? 1 : 0, now, now);
}
