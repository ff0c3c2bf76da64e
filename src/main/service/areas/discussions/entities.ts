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
