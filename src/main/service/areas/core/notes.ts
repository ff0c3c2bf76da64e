import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/connection';
import type { RequestContext } from '../../http/route';
import { recordNotFound, validationError } from '../../http/errors';
import type { NoteRow } from './entities';
import { recordEvent } from './events';
import { isoTime } from './time';

/** Anything notes hang on: an issue, a merge request (areas add snippets, epics, ...). */
export interface Noteable {
  type: string;
  id: number;
  iid: number | null;
  title: string;
  projectId: number | null;
  groupId?: number | null;
}

export const NOTE_MAX_LENGTH = 1_000_000;

export const newDiscussionId = (): string => randomBytes(20).toString('hex');

export interface NewNote {
  body: string;
  authorId: number;
  internal?: boolean;
  /** Reply into an existing discussion; a new one otherwise. */
  discussionId?: string | null;
  /** 'DiscussionNote' / 'DiffNote' for threads; null for plain comments. */
  type?: string | null;
  resolvable?: boolean;
  position?: Record<string, unknown> | null;
  createdAt?: string;
  /** A system note ("marked this issue as related to #2"): no activity event. */
  system?: boolean;
}

export function validateNoteBody(body: string): void {
  if (!body.trim()) throw validationError({ note: ["can't be blank"] });
  if (body.length > NOTE_MAX_LENGTH) throw validationError({ note: [`is too long (maximum is ${NOTE_MAX_LENGTH} characters)`] });
}

/** Inserts a note and its "commented on" event. Call inside a transaction. Only the service is needed (system notes come from services). */
export function createNote(rc: Pick<RequestContext, 'svc'>, noteable: Noteable, n: NewNote): NoteRow {
  validateNoteBody(n.body);
  const now = isoTime(rc.svc.now());
  const info = rc.svc.db
    .prepare(
      `INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, type, author_id, body, system, internal, resolvable, position, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      noteable.projectId,
      noteable.type,
      noteable.id,
      n.discussionId ?? newDiscussionId(),
      n.type ?? null,
      n.authorId,
      n.body,
      n.system ? 1 : 0,
      n.internal ? 1 : 0,
      n.resolvable ? 1 : 0,
      n.position ? JSON.stringify(n.position) : null,
      n.createdAt ?? now,
      now,
    );
  const row = findNote(rc, Number(info.lastInsertRowid))!;
  if (n.system) return row;
  recordEvent(rc.svc, {
    action: 'commented',
    authorId: n.authorId,
    projectId: noteable.projectId,
    groupId: noteable.groupId ?? null,
    targetType: row.type ?? 'Note',
    targetId: row.id,
    targetTitle: noteable.title,
    data: { noteable_type: noteable.type, noteable_id: noteable.id, noteable_iid: noteable.iid },
  });
  if (noteable.type === 'Issue' || noteable.type === 'MergeRequest') {
    const table = noteable.type === 'Issue' ? 'issues' : 'merge_requests';
    rc.svc.db.prepare(`UPDATE ${table} SET updated_at = ? WHERE id = ?`).run(now, noteable.id);
  }
  return row;
}

export function findNote(rc: Pick<RequestContext, 'svc'>, id: number): NoteRow | undefined {
  return rc.svc.db.prepare('SELECT * FROM notes WHERE id = ?').get(id) as NoteRow | undefined;
}

export function findNoteOn(rc: RequestContext, noteable: Noteable, noteId: string): NoteRow {
  const row = /^\d+$/.test(noteId)
    ? (rc.svc.db.prepare('SELECT * FROM notes WHERE id = ? AND noteable_type = ? AND noteable_id = ?').get(Number(noteId), noteable.type, noteable.id) as
        | NoteRow
        | undefined)
    : undefined;
  if (!row) throw recordNotFound();
  return row;
}

/** A record's notes list version (core/022): moved on by every insert, update and delete of its notes. */
export function noteListVersion(db: Db, type: string, id: number): number {
  return (db.prepare('SELECT coalesce((SELECT version FROM note_list_versions WHERE noteable_type = ? AND noteable_id = ?), 0) AS v').get(type, id) as { v: number }).v;
}
