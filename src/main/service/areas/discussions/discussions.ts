import type { RequestContext } from '../../http/route';
import { notFound } from '../../http/errors';
import type { NoteRow } from '../core/entities';
import { type NewNote, type Noteable, createNote } from '../core/notes';
import { isoTime } from '../core/time';

/** Notes of one discussion on a noteable, oldest first. */
export function discussionNotes(rc: RequestContext, noteable: Noteable, discussionId: string): NoteRow[] {
  return rc.svc.db
    // `+`: the thread's notes by notes_discussion, not the record's notes walked by core/079's index.
    .prepare('SELECT * FROM notes WHERE +noteable_type = ? AND +noteable_id = ? AND discussion_id = ? ORDER BY id')
    .all(noteable.type, noteable.id, discussionId) as NoteRow[];
}

/**
 * The notes of each of a page's threads (in the order asked), read in one statement: a page of
 * 20 threads read them thread by thread.
 */
export function threadsNotes(rc: RequestContext, noteable: Noteable, discussionIds: string[]): NoteRow[][] {
  const byThread = new Map<string, NoteRow[]>(discussionIds.map((d) => [d, []]));
  const rows = rc.svc.db
    .prepare('SELECT * FROM notes WHERE +noteable_type = ? AND +noteable_id = ? AND discussion_id IN (SELECT value FROM json_each(?)) ORDER BY id')
    .all(noteable.type, noteable.id, JSON.stringify(discussionIds)) as NoteRow[];
  for (const n of rows) byThread.get(n.discussion_id)?.push(n);
  return discussionIds.map((d) => byThread.get(d)!);
}

export function findDiscussion(rc: RequestContext, noteable: Noteable, discussionId: string): NoteRow[] {
  const notes = discussionNotes(rc, noteable, discussionId);
  if (!notes.length) throw notFound('Discussion');
  return notes;
}

/** Threads on merge requests can be resolved (DiscussionNote::RESOLVABLE_TYPES); on issues not. */
export const threadsResolvable = (noteable: Noteable): boolean => noteable.type === 'MergeRequest';

/** A new thread: a DiffNote when it has a position, a DiscussionNote otherwise. */
export function startDiscussion(rc: RequestContext, noteable: Noteable, n: Omit<NewNote, 'type' | 'discussionId' | 'resolvable'>): NoteRow {
  return createNote(rc, noteable, {
    ...n,
    type: n.position ? 'DiffNote' : 'DiscussionNote',
    resolvable: threadsResolvable(noteable),
  });
}

/**
 * A reply in an existing thread. Replying to a single comment turns it into a thread, as
 * GitLab's Notes::BuildService does.
 */
export function replyToDiscussion(rc: RequestContext, noteable: Noteable, discussionId: string, n: Omit<NewNote, 'type' | 'discussionId' | 'resolvable'>): NoteRow {
  const notes = findDiscussion(rc, noteable, discussionId);
  const first = notes[0];
  let type = first.type;
  if (type === null) {
    type = 'DiscussionNote';
    rc.svc.db
      .prepare("UPDATE notes SET type = 'DiscussionNote', resolvable = ? WHERE id = ?")
      .run(threadsResolvable(noteable) && !first.system ? 1 : 0, first.id);
  }
  return createNote(rc, noteable, {
    ...n,
    discussionId,
    type: type === 'DiffNote' ? 'DiffNote' : 'DiscussionNote',
    position: type === 'DiffNote' ? (first.position ? (JSON.parse(first.position) as Record<string, unknown>) : null) : null,
    resolvable: threadsResolvable(noteable),
  });
}

/** Resolves (or unresolves) every resolvable note of a thread. */
export function setDiscussionResolved(rc: RequestContext, noteable: Noteable, discussionId: string, resolved: boolean, userId: number): void {
  const now = isoTime(rc.svc.now());
  if (resolved) {
    rc.svc.db
      .prepare(
        'UPDATE notes SET resolved_at = ?, resolved_by_id = ? WHERE noteable_type = ? AND noteable_id = ? AND discussion_id = ? AND resolvable = 1 AND resolved_at IS NULL',
      )
      .run(now, userId, noteable.type, noteable.id, discussionId);
  } else {
    rc.svc.db
      .prepare('UPDATE notes SET resolved_at = NULL, resolved_by_id = NULL WHERE noteable_type = ? AND noteable_id = ? AND discussion_id = ? AND resolvable = 1')
      .run(noteable.type, noteable.id, discussionId);
  }
}
