import type { RequestContext } from '../../http/route';
import { recordNotFound, validationError } from '../../http/errors';
import type { Noteable } from '../core/notes';
import { validateNoteBody } from '../core/notes';
import { isoTime } from '../core/time';
import { discussionNotes, replyToDiscussion, setDiscussionResolved, startDiscussion } from '../discussions/discussions';

export interface DraftNoteRow {
  id: number;
  merge_request_id: number;
  author_id: number;
  note: string;
  discussion_id: string | null;
  resolve_discussion: number;
  commit_id: string | null;
  line_code: string | null;
  position: string | null;
  internal: number;
  created_at: string;
  updated_at: string;
}

/** The caller's drafts on a merge request; nobody else's are ever visible. */
export function listDraftNotes(rc: RequestContext, mr: Noteable, authorId: number): DraftNoteRow[] {
  return rc.svc.db
    .prepare('SELECT * FROM draft_notes WHERE merge_request_id = ? AND author_id = ? ORDER BY id')
    .all(mr.id, authorId) as DraftNoteRow[];
}

export function findDraftNote(rc: RequestContext, mr: Noteable, authorId: number, id: string): DraftNoteRow {
  const row = /^\d+$/.test(id)
    ? (rc.svc.db.prepare('SELECT * FROM draft_notes WHERE id = ? AND merge_request_id = ? AND author_id = ?').get(Number(id), mr.id, authorId) as
        | DraftNoteRow
        | undefined)
    : undefined;
  if (!row) throw recordNotFound();
  return row;
}

export interface NewDraftNote {
  note: string;
  position: Record<string, unknown> | null;
  /** DraftNote#line_code: the diff line the position names, where the merge request has a diff. */
  lineCode: string | null;
  commitId: string | null;
  resolveDiscussion: boolean;
  inReplyToDiscussionId: string | null;
}

/** DraftNotes::CreateService. */
export function createDraftNote(rc: RequestContext, mr: Noteable, authorId: number, d: NewDraftNote): DraftNoteRow {
  validateNoteBody(d.note);
  if (d.inReplyToDiscussionId && !discussionNotes(rc, mr, d.inReplyToDiscussionId).length) {
    throw validationError({ base: ['Thread to reply to cannot be found'] });
  }
  const now = isoTime(rc.svc.now());
  const info = rc.svc.db
    .prepare(
      `INSERT INTO draft_notes (merge_request_id, author_id, note, discussion_id, resolve_discussion, commit_id, position, line_code, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(mr.id, authorId, d.note, d.inReplyToDiscussionId, d.resolveDiscussion ? 1 : 0, d.commitId, d.position ? JSON.stringify(d.position) : null, d.lineCode, now, now);
  return rc.svc.db.prepare('SELECT * FROM draft_notes WHERE id = ?').get(Number(info.lastInsertRowid)) as DraftNoteRow;
}

/** As GitLab's update: the note and the position given (no position -> none). */
export function updateDraftNote(rc: RequestContext, d: DraftNoteRow, note: string, position: Record<string, unknown> | null, lineCode: string | null): DraftNoteRow {
  validateNoteBody(note);
  rc.svc.db
    .prepare('UPDATE draft_notes SET note = ?, position = ?, line_code = ?, updated_at = ? WHERE id = ?')
    .run(note, position ? JSON.stringify(position) : null, lineCode, isoTime(rc.svc.now()), d.id);
  return rc.svc.db.prepare('SELECT * FROM draft_notes WHERE id = ?').get(d.id) as DraftNoteRow;
}

export function deleteDraftNote(rc: RequestContext, d: DraftNoteRow): void {
  rc.svc.db.prepare('DELETE FROM draft_notes WHERE id = ?').run(d.id);
}

/**
 * DraftNotes::PublishService for one draft: a real note (a new thread, or a reply that resolves
 * or reopens its thread), with its "commented on" event; the draft goes away. Call inside a transaction.
 */
export function publishDraftNote(rc: RequestContext, mr: Noteable, d: DraftNoteRow): void {
  const position = d.position ? (JSON.parse(d.position) as Record<string, unknown>) : null;
  const input = { body: d.note, authorId: d.author_id, internal: !!d.internal, position };
  if (d.discussion_id && discussionNotes(rc, mr, d.discussion_id).length) {
    replyToDiscussion(rc, mr, d.discussion_id, input);
    setDiscussionResolved(rc, mr, d.discussion_id, !!d.resolve_discussion, d.author_id);
  } else {
    startDiscussion(rc, mr, input);
  }
  deleteDraftNote(rc, d);
}
