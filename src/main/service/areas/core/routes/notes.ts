import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { ApiError, badRequest, forbidden, notFound } from '../../../http/errors';
import { type PageAnchors, type SortDirection, paginateSql } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { Access, effectiveProjectAccess, loadProject } from '../access';
import { type NoteRow, note, notes } from '../entities';
import { type Noteable, createNote, findNote, findNoteOn, noteListVersion, validateNoteBody } from '../notes';
import { findProjectById } from '../projects';
import { isoTime } from '../time';
import { findMergeRequest } from '../workitems';
import { loadIssue } from './issues';
import { rubyHash } from './groups';
import { checkUnmodifiedSince } from '../../../http/conditional';

type Kind = 'issues' | 'merge_requests';

/** The issue or merge request named by the route, as a Noteable the caller can read. */
export function loadNoteable(rc: RequestContext, kind: Kind, iid = rc.path.noteable_iid): Noteable {
  const project = loadProject(rc);
  if (kind === 'issues') {
    const i = loadIssue(rc, project, iid);
    return { type: 'Issue', id: i.id, iid: i.iid, title: i.title, projectId: project.id };
  }
  const m = findMergeRequest(rc, project, iid, 'notFound');
  return { type: 'MergeRequest', id: m.id, iid: m.iid, title: m.title, projectId: project.id };
}

/**
 * Internal notes are for Reporters (Planners) and up: the condition on the notes the caller reads,
 * and the suffix of the order's index whose entries are exactly those notes (core/393's partial
 * `_shown` indexes hold `WHERE internal = 0`: the condition below that says so, not its wording).
 */
function notesVisible(rc: RequestContext, projectId: number): { sql: string; indexSuffix: '' | '_shown' } {
  const user = rc.user;
  // The project's row as every request finds it (kept by id across other projects' writes), not a statement of its own.
  const project = findProjectById(rc.svc, projectId)!;
  return effectiveProjectAccess(rc.svc, user, project) >= Access.PLANNER ? { sql: '1 = 1', indexSuffix: '' } : { sql: 'internal = 0', indexSuffix: '_shown' };
}

/**
 * GitLab's notes API reports an invalid note as a 400 string built from the model errors:
 * `400 Bad request - Note {:note=>["can't be blank"]}` on create (process_note_creation_result)
 * and `400 Bad request - Failed to save note {...}` on update (update_note).
 */
export function checkNoteBody(body: string, prefix: string): void {
  try {
    validateNoteBody(body);
  } catch (e) {
    const message = e instanceof ApiError ? (e.body as { message?: unknown }).message : undefined;
    if (message && typeof message === 'object' && !Array.isArray(message)) throw badRequest(`${prefix} ${rubyHash(message as Record<string, string[]>)}`);
    throw e;
  }
}

export function registerNoteRoutes(r: Router): void {
  for (const kind of ['issues', 'merge_requests'] as const) {
    const base = `/projects/:id/${kind}/:noteable_iid/notes`;
    // A job token reads a merge request's notes, not an issue's (doc/ci/jobs/ci_job_token.md).
    const reads = { auth: 'optional', jobToken: kind === 'merge_requests' } as const;

    r.get(
      base,
      (rc) => {
        const noteable = loadNoteable(rc, kind);
        const q = declared(rc.params, {
          order_by: t.string().values(['created_at', 'updated_at']).default('created_at'),
          sort: t.string().values(['asc', 'desc']).default('desc'),
          activity_filter: t.string().values(['all_notes', 'only_comments', 'only_activity']),
        });
        const visible = notesVisible(rc, noteable.projectId!);
        const where = ['noteable_type = ?', 'noteable_id = ?', visible.sql];
        if (q.activity_filter === 'only_comments') where.push('system = 0');
        if (q.activity_filter === 'only_activity') where.push('system = 1');
        // The order's index, for the count too: SQLite, asked only to count, took core/087's
        // (noteable, author) index and read 200,000 notes in author order (2 -> 190 ms). Without
        // internal notes, core/393's partial one: its entries are the notes shown, no row read to skip.
        const index = `${q.order_by === 'updated_at' ? 'notes_noteable_updated' : 'notes_noteable_created'}${visible.indexSuffix}`;
        const sql = `FROM notes INDEXED BY ${index} WHERE ${where.join(' AND ')}`;
        const args = [noteable.type, noteable.id];
        const sort = q.sort as SortDirection;
        // Deep pages start after a row an earlier page read while the record's notes are unwritten
        // (core/022); the caller's view (internal notes) is in the SQL, so in the key.
        const anchors: PageAnchors<NoteRow> = {
          key: JSON.stringify(['notes', sql, args, q.order_by, sort]),
          version: () => noteListVersion(rc.svc.db, noteable.type, noteable.id),
          column: q.order_by,
          idColumn: 'id',
          sort,
          value: (n) => (q.order_by === 'updated_at' ? n.updated_at : n.created_at),
          id: (n) => n.id,
          // core/022's version moves on every write to the record's notes; the caller's view is in the key.
          rowsAtVersion: true,
        };
        return notes(rc, paginateSql<NoteRow>(rc, rc.svc.db, { select: '*', from: sql, args, order: `${q.order_by} ${q.sort}, id ${q.sort}`, anchors }), noteable.iid);
      },
      reads,
    );

    r.get(
      `${base}/:note_id`,
      (rc) => {
        const noteable = loadNoteable(rc, kind);
        const n = findNoteOn(rc, noteable, rc.path.note_id);
        // get_note: a note the caller may not read is `not_found!("Note")`.
        if (n.internal && effectiveProjectAccess(rc.svc, rc.user, loadProject(rc)) < Access.PLANNER) throw notFound('Note');
        return note(rc, n, noteable.iid);
      },
      reads,
    );

    r.post(base, (rc) => {
      const user = rc.requireUser();
      const noteable = loadNoteable(rc, kind);
      const p = declared(rc.params, { body: t.string().required(), internal: t.boolean(), confidential: t.boolean(), created_at: t.dateTime() });
      const project = loadProject(rc);
      const level = effectiveProjectAccess(rc.svc, user, project);
      if (project.visibility !== 'public' && level < Access.GUEST) throw forbidden();
      const internal = p.internal ?? p.confidential ?? false;
      if (internal && level < Access.PLANNER) throw forbidden();
      checkNoteBody(p.body, 'Note');
      const row = inTransaction(rc.svc.db, () =>
        createNote(rc, noteable, {
          body: p.body,
          authorId: user.id,
          internal,
          createdAt: p.created_at && level >= Access.OWNER ? p.created_at : undefined,
          resolvable: false,
        }),
      );
      return note(rc, row, noteable.iid);
    });

    r.put(`${base}/:note_id`, (rc) => {
      const user = rc.requireUser();
      const noteable = loadNoteable(rc, kind);
      const current = findNoteOn(rc, noteable, rc.path.note_id);
      const p = declared(rc.params, { body: t.string(), confidential: t.boolean(), internal: t.boolean() });
      // :admin_note belongs to the author and to Maintainers of the project (and admins).
      if (current.author_id !== user.id && effectiveProjectAccess(rc.svc, user, loadProject(rc)) < Access.MAINTAINER) throw forbidden();
      if (p.body !== undefined) checkNoteBody(p.body ?? '', 'Failed to save note');
      rc.svc.db.prepare('UPDATE notes SET body = ?, updated_at = ? WHERE id = ?').run(p.body ?? current.body, isoTime(rc.svc.now()), current.id);
      return note(rc, findNote(rc, current.id)!, noteable.iid);
    });

    r.delete(`${base}/:note_id`, (rc) => {
      const user = rc.requireUser();
      const noteable = loadNoteable(rc, kind);
      const current = findNoteOn(rc, noteable, rc.path.note_id);
      if (current.author_id !== user.id && effectiveProjectAccess(rc.svc, user, loadProject(rc)) < Access.MAINTAINER) throw forbidden();
      checkUnmodifiedSince(rc, current.updated_at);
      rc.svc.db.prepare('DELETE FROM notes WHERE id = ?').run(current.id);
      return undefined;
    });
  }
}
