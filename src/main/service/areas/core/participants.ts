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
  const visible = includeInternal ? '' : ' AND internal = 0';
  // Commenters in the order of their first note; then mentions, in the description and the notes
  // that hold an @ (no other can mention anyone): no note's text read or parsed for nothing.
  const commenters = svc.db
    .prepare(`SELECT author_id, min(id) AS first FROM notes WHERE noteable_type = ? AND noteable_id = ?${visible} GROUP BY author_id ORDER BY first`)
    .all(item.type, item.id) as { author_id: number | null }[];
  for (const n of commenters) add(n.author_id);
  const bodies = svc.db
    .prepare(`SELECT body FROM notes WHERE noteable_type = ? AND noteable_id = ?${visible} AND instr(body, '@') > 0 ORDER BY id`)
    .all(item.type, item.id) as { body: string }[];
  for (const name of [item.description, ...bodies.map((n) => n.body)].flatMap((t) => mentionedUsernames(t))) {
    const u = svc.db.prepare('SELECT id FROM users WHERE lower(username) = ?').get(name) as { id: number } | undefined;
    add(u?.id);
  }
  return ids.filter((id) => findUserById(svc, id));
}

/**
 * participantIds(item, true) includes the user, asked without listing everyone: the author and
 * the lists, a note of theirs (core/079's author index), a mention of them (only texts that hold
 * "@<their name>" are parsed).
 */
function isParticipant(svc: ServiceContext, item: ParticipantSource, user: User): boolean {
  if (item.author_id === user.id) return true;
  if ((JSON.parse(item.assignee_ids) as number[]).includes(user.id)) return true;
  if ((JSON.parse(item.reviewer_ids ?? '[]') as number[]).includes(user.id)) return true;
  const commented = svc.db
    .prepare('SELECT 1 FROM notes WHERE author_id = ? AND noteable_type = ? AND noteable_id = ? LIMIT 1')
    .get(user.id, item.type, item.id);
  if (commented) return true;
  const name = user.username.toLowerCase();
  if (mentionedUsernames(item.description).includes(name)) return true;
  const bodies = svc.db
    .prepare("SELECT body FROM notes WHERE noteable_type = ? AND noteable_id = ? AND instr(lower(body), '@' || ?) > 0")
    .all(item.type, item.id, name) as { body: string }[];
  return bodies.some((n) => mentionedUsernames(n.body).includes(name));
}

/** Subscribable#subscribed?: an explicit (un)subscription wins; otherwise participants are subscribed. */
export function isSubscribed(svc: ServiceContext, item: ParticipantSource, user: User | null): boolean {
  if (!user) return false;
  const row = svc.db
    .prepare('SELECT subscribed FROM subscriptions WHERE subscribable_type = ? AND subscribable_id = ? AND user_id = ?')
    .get(item.type, item.id, user.id) as { subscribed: number } | undefined;
  if (row) return !!row.subscribed;
  return isParticipant(svc, item, user);
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
