import { EMPTY_POSITION } from '../discussions/position';
import type { DraftNoteRow } from './draft_notes';

/** DraftNote (lib/api/entities/draft_note.rb). */
export function draftNote(d: DraftNoteRow): Record<string, unknown> {
  return {
    id: d.id,
    author_id: d.author_id,
    merge_request_id: d.merge_request_id,
    resolve_discussion: !!d.resolve_discussion,
    discussion_id: d.discussion_id,
    note: d.note,
    commit_id: d.commit_id,
    line_code: d.line_code,
    position: d.position ? (JSON.parse(d.position) as Record<string, unknown>) : { ...EMPTY_POSITION },
  };
}
