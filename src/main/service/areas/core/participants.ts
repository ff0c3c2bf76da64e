import type { ServiceContext } from '../../context';
import type { User } from './users';
import { findUserById } from './users';
import { mentionedUsernames } from './todos';
import { isoTime } from './time';
import { likeEscape } from './routes/users';
import { Access, canReadProject, effectiveProjectAccess } from './access';
import { findProjectById } from './projects';

export type SubscribableType = 'Issue' | 'MergeRequest';

interface ParticipantSource {
  type: SubscribableType;
  id: number;
  project_id: number;
  author_id: number | null;
  assignee_ids: string;
  reviewer_ids?: string;
  title: string;
  description: string | null;
}

/**
 * Participable#participants, in GitLab's order. Participable#raw_participants walks the record's
 * `participant` attributes as a stack (each pushed in declaration order, the last popped first):
 * Issuable declares `:author, :notes_with_associations, :assignees`, MergeRequest then
 * `:reviewers` (EE's participant_approvers: Sandlab has no approvals). So: the reviewers, the
 * assignees, the notes' authors in note order (a system note's author too, unless already listed),
 * then the author; then the users mentioned (Mentionable's references, gathered as the walk reads
 * texts: internal notes' first, merged before the others; then the title, the description, the
 * other notes in order), each once. Internal notes count only for `includeInternal` (the viewer
 * reads them: verify_access's source_visible_to_user?); a user mentioned in one counts only if they
 * could read it themselves (users_that_can_read_internal_notes: a Planner or more, or an
 * administrator). Then filter_by_ability: only users who can read the project.
 */
export function participantIds(svc: ServiceContext, item: ParticipantSource, includeInternal: boolean): number[] {
  const ids: number[] = [];
  const add = (id: number | null | undefined) => {
    if (id != null && !ids.includes(id)) ids.push(id);
  };
  for (const id of JSON.parse(item.reviewer_ids ?? '[]') as number[]) add(id);
  for (const id of JSON.parse(item.assignee_ids) as number[]) add(id);
  // Commenters in the order of their first (visible) note, from core/098's rows; then mentions, in
  // the description and the notes that hold an @ (core/098's partial index: no other can mention
  // anyone): no note's text read or parsed for nothing.
  const first = includeInternal ? 'first_id' : 'first_public_id';
  const commenters = svc.db
    .prepare(`SELECT author_id FROM note_authors WHERE noteable_type = ? AND noteable_id = ? AND ${first} IS NOT NULL ORDER BY ${first}`)
    .all(item.type, item.id) as { author_id: number }[];
  for (const n of commenters) add(n.author_id);
  add(item.author_id);
  const visible = includeInternal ? '' : ' AND internal = 0';
  const notes = svc.db
    .prepare(`SELECT body, internal FROM notes WHERE noteable_type = ? AND noteable_id = ? AND instr(body, '@') > 0${visible} ORDER BY id`)
    .all(item.type, item.id) as { body: string; internal: number }[];
  const project = findProjectById(svc, item.project_id);
  const userIdOf = (name: string): number | undefined => (svc.db.prepare('SELECT id FROM users WHERE lower(username) = ?').get(name) as { id: number } | undefined)?.id;
  for (const name of notes.filter((n) => n.internal).flatMap((n) => mentionedUsernames(n.body))) {
    const id = userIdOf(name);
    if (id !== undefined && project && readsInternalNotes(svc, id, project)) add(id);
  }
  for (const name of [item.title, item.description, ...notes.filter((n) => !n.internal).map((n) => n.body)].flatMap((t) => mentionedUsernames(t))) add(userIdOf(name));
  return ids.filter((id) => {
    const user = findUserById(svc, id);
    return !!user && (!project || canReadProject(svc, user, project));
  });
}

/** Ability.users_that_can_read_internal_notes for one user: read_internal_note on the project (a Planner or more; administrators). */
function readsInternalNotes(svc: ServiceContext, userId: number, project: NonNullable<ReturnType<typeof findProjectById>>): boolean {
  const user = findUserById(svc, userId);
  return !!user && effectiveProjectAccess(svc, user, project) >= Access.PLANNER;
}

/** Subscribable#subscribed?: an explicit (un)subscription wins; otherwise participants are subscribed. */
export function isSubscribed(svc: ServiceContext, item: ParticipantSource, user: User | null): boolean {
  if (!user) return false;
  const row = svc.db
    .prepare('SELECT subscribed FROM subscriptions WHERE subscribable_type = ? AND subscribable_id = ? AND user_id = ?')
    .get(item.type, item.id, user.id) as { subscribed: number } | undefined;
  if (row) return !!row.subscribed;
  return isParticipant(svc, item, user, true);
}

/**
 * participantIds(...).includes(user.id), without reading every note of a record that may have
 * 200,000 (a single issue's GET read them all for `subscribed`): their notes by the
 * (noteable, author) index (core/087), a mention in the title or the description, and mentions of
 * their name only in the notes whose text holds it — comments through the notes' full-text index (core/076), system notes (not in it)
 * by their own index — each checked as participantIds reads mentions.
 */
export function isParticipant(svc: ServiceContext, item: ParticipantSource, user: User, includeInternal: boolean): boolean {
  if (item.author_id === user.id) return true;
  if ((JSON.parse(item.assignee_ids) as number[]).includes(user.id) || (JSON.parse(item.reviewer_ids ?? '[]') as number[]).includes(user.id)) return true;
  let internal = includeInternal ? '' : ' AND internal = 0';
  const noteable = [item.type, item.id];
  if (svc.db.prepare(`SELECT 1 FROM notes WHERE noteable_type = ? AND noteable_id = ? AND author_id = ?${internal} LIMIT 1`).get(...noteable, user.id)) return true;
  const name = user.username.toLowerCase();
  const mentions = (text: string | null): boolean => mentionedUsernames(text).includes(name);
  if (mentions(item.title) || mentions(item.description)) return true;
  // A mention in an internal note counts only for a user who can read it (users_that_can_read_internal_notes).
  const project = findProjectById(svc, item.project_id);
  if (includeInternal && !(project && readsInternalNotes(svc, user.id, project))) internal = ' AND internal = 0';
  const like = `%@${likeEscape(name)}%`;
  const mention = `@${name}`;
  const byText = (system: 0 | 1): string => `SELECT body FROM notes WHERE noteable_type = ? AND noteable_id = ? AND system = ${system}${internal} AND body LIKE ? ESCAPE '\\'`;
  // The full-text index's trigrams need three characters: a one-letter name reads the record's comments.
  // The matches are looked up among the record's notes that hold an @ (core/098's partial index):
  // without `instr`, SQLite walked all of them (15 ms for a Guest on an issue of 200,000 notes).
  const comments: [string, unknown[]] =
    mention.length >= 3
      ? [
          `SELECT n.body FROM notes n WHERE n.id IN (SELECT rowid & 4294967295 FROM notes_search WHERE notes_search MATCH ?) AND n.noteable_type = ? AND n.noteable_id = ? AND instr(n.body, '@') > 0 AND n.system = 0${internal}`,
          [`"${mention}"`, ...noteable],
        ]
      : [byText(0), [...noteable, like]];
  const system: [string, unknown[]] = [byText(1), [...noteable, like]];
  for (const [sql, args] of [comments, system]) {
    for (const n of svc.db.prepare(sql).iterate(...args) as Iterable<{ body: string }>) if (mentions(n.body)) return true;
  }
  return false;
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
