import { unchangedEntity } from '../../db/connection';
import type { EntityContext, NoteRow } from '../core/entities';
import { notes as noteEntities } from '../core/entities';

/** Discussion: the thread id, whether it is a single comment, and its notes. */
export function discussion(ec: EntityContext, notes: NoteRow[], noteableIid: number | null): Record<string, unknown> {
  return {
    id: notes[0].discussion_id,
    individual_note: notes.length === 1 && notes[0].type === null,
    notes: noteEntities(ec, notes, noteableIid),
  };
}

/**
 * The Discussion of each thread of a list (each its notes, those the caller sees). A thread whose
 * note entities are those of its last build keeps its entity and JSON text (unchangedEntity).
 */
export function discussions(ec: EntityContext, threads: NoteRow[][], noteableIid: number | null): Record<string, unknown>[] {
  const notes = noteEntities(ec, threads.flat(), noteableIid);
  let at = 0;
  return threads.map((thread) => {
    const entities = notes.slice(at, (at += thread.length));
    const first = thread[0];
    const key = `${first.noteable_type}:${first.noteable_id}:${first.discussion_id}:${noteableIid}:${ec.baseUrl}`;
    return unchangedEntity(ec.svc.db, 'discussion', key, null, entities, () => ({
      id: first.discussion_id,
      individual_note: thread.length === 1 && first.type === null,
      notes: entities,
    }));
  });
}
