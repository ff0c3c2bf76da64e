import type { RequestContext, Router } from '../../http/route';
import { declared, requireExactlyOne, t } from '../../http/params';
import { badRequest, forbidden, notFound, recordNotFound } from '../../http/errors';
import { type PageAnchors, paginateSql } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { Access, effectiveProjectAccess, loadProject } from '../core/access';
import { type NoteRow, note, notes as noteEntities } from '../core/entities';
import { findNote, findNoteOn, noteListVersion, validateNoteBody } from '../core/notes';
import { isoTime } from '../core/time';
import { loadNoteable } from '../core/routes/notes';
import type { Project } from '../core/projects';
import { discussion, discussions } from './entities';
import { discussionNotes, findDiscussion, threadsNotes, replyToDiscussion, setDiscussionResolved, startDiscussion, threadsResolvable } from './discussions';
import { readPosition } from './position';
import { checkUnmodifiedSince } from '../../http/conditional';
import { rubyHash } from '../core/routes/groups';
import { hasDiffToCheck, positionLineCode } from '../repositories/positions';
import { ensureCommitNoteable, loadCommitNoteable } from '../repositories/commit_notes';
import type { Noteable } from '../core/notes';

/** Who may comment: anyone signed in on a public project, Guests and up elsewhere. */
export function requireCommenter(rc: RequestContext, project: Project): number {
  const user = rc.requireUser();
  const level = effectiveProjectAccess(rc.svc, user, project);
  if (project.visibility !== 'public' && level < Access.GUEST) throw forbidden();
  return level;
}

const canSeeInternal = (rc: RequestContext, project: Project): boolean => effectiveProjectAccess(rc.svc, rc.user, project) >= Access.PLANNER;

type DiscussionKind = 'issues' | 'merge_requests' | 'commits';

/** The noteable in the path: an issue or merge request by iid, or a commit (its code readable: Reporter on a private project). */
async function noteableOf(rc: RequestContext, kind: DiscussionKind): Promise<Noteable> {
  return kind === 'commits' ? loadCommitNoteable(rc) : loadNoteable(rc, kind);
}

/** /projects/:id/{issues,merge_requests}/:iid/discussions and /projects/:id/repository/commits/:sha/discussions: threads of notes. */
export function registerDiscussionRoutes(r: Router): void {
  for (const kind of ['issues', 'merge_requests', 'commits'] as const) {
    const base = kind === 'commits' ? '/projects/:id/repository/commits/:commit_id/discussions' : `/projects/:id/${kind}/:noteable_iid/discussions`;

    r.get(
      base,
      async (rc) => {
        const noteable = await noteableOf(rc, kind);
        const internal = canSeeInternal(rc, loadProject(rc)) ? '' : ' AND internal = 0';
        // The record's threads by their first note (core/088), the first the caller may see.
        const first = internal ? 'first_public_id' : 'first_id';
        const sql = `FROM note_discussions WHERE noteable_type = ? AND noteable_id = ? AND ${first} IS NOT NULL`;
        const args = [noteable.type, noteable.id];
        // Deep pages start after a thread an earlier page read while the record's notes are
        // unwritten (core/022's version); a list past 10,000 threads is counted once per version.
        const key = JSON.stringify(['discussions', sql, args]);
        const anchors: PageAnchors<{ discussion_id: string; first: number }> = {
          key,
          version: () => noteListVersion(rc.svc.db, noteable.type, noteable.id),
          column: first,
          idColumn: first,
          sort: 'asc',
          value: (d) => d.first,
          id: (d) => d.first,
          // The threads' rows follow the record's notes (core/088's triggers), whose every write moves the version.
          rowsAtVersion: true,
        };
        const ids = paginateSql(rc, rc.svc.db, { select: `discussion_id, ${first} AS first`, from: sql, args, order: `${first} ASC`, anchors });
        const threads = threadsNotes(rc, noteable, ids.map((d) => d.discussion_id)).map((notes) => notes.filter((n) => !internal || !n.internal));
        return discussions(rc, threads, noteable.iid);
      },
      { auth: 'optional' },
    );

    r.get(
      `${base}/:discussion_id`,
      async (rc) => {
        const noteable = await noteableOf(rc, kind);
        const notes = findDiscussion(rc, noteable, rc.path.discussion_id);
        const visible = canSeeInternal(rc, loadProject(rc)) ? notes : notes.filter((n) => !n.internal);
        if (!visible.length) throw notFound('Discussion');
        return discussion(rc, visible, noteable.iid);
      },
      { auth: 'optional' },
    );

    // The notes of one thread (not paginated); python-gitlab's `discussion.notes.list()`.
    r.get(
      `${base}/:discussion_id/notes`,
      async (rc) => {
        const noteable = await noteableOf(rc, kind);
        const internal = canSeeInternal(rc, loadProject(rc));
        const notes = discussionNotes(rc, noteable, rc.path.discussion_id).filter((n) => internal || !n.internal);
        if (!notes.length) throw notFound('Notes');
        return noteEntities(rc, notes, noteable.iid);
      },
      { auth: 'optional' },
    );

    // One note, found on the noteable as GitLab's get_note does (python-gitlab's `discussion.notes.get(id)`).
    r.get(
      `${base}/:discussion_id/notes/:note_id`,
      async (rc) => {
        const noteable = await noteableOf(rc, kind);
        declared({ note_id: rc.path.note_id }, { note_id: t.integer().required() });
        const row = findNoteOn(rc, noteable, rc.path.note_id);
        if (row.internal && !canSeeInternal(rc, loadProject(rc))) throw notFound('Note');
        return note(rc, row, noteable.iid);
      },
      { auth: 'optional' },
    );

    r.post(base, async (rc) => {
      const noteable = await noteableOf(rc, kind);
      const project = loadProject(rc);
      const level = requireCommenter(rc, project);
      const p = declared(rc.params, { body: t.string().required(), internal: t.boolean(), confidential: t.boolean(), created_at: t.dateTime() });
      const position = kind === 'issues' ? null : readPosition(rc.params.position);
      const internal = p.internal ?? p.confidential ?? false;
      if (internal && level < Access.PLANNER) throw forbidden();
      // DiffNote's `validates :line_code, presence: true, line_code: true` for text positions on a real diff.
      const checkable = kind === 'commits' || hasDiffToCheck(rc.svc, noteable.id);
      if (position?.position_type === 'text' && checkable && !(await positionLineCode(rc.svc, project, position))) {
        throw badRequest(`Note ${rubyHash({ line_code: ["can't be blank", 'must be a valid line code'] })}`);
      }
      const row = inTransaction(rc.svc.db, () =>
        startDiscussion(rc, ensureCommitNoteable(rc.svc, noteable), {
          body: p.body,
          authorId: rc.user!.id,
          internal,
          position,
          createdAt: p.created_at && level >= Access.OWNER ? p.created_at : undefined,
        }),
      );
      rc.status = 201;
      return discussion(rc, [row], noteable.iid);
    });

    r.post(`${base}/:discussion_id/notes`, async (rc) => {
      const noteable = await noteableOf(rc, kind);
      const project = loadProject(rc);
      requireCommenter(rc, project);
      const p = declared(rc.params, { body: t.string().required(), created_at: t.dateTime() });
      const row = inTransaction(rc.svc.db, () => replyToDiscussion(rc, noteable, rc.path.discussion_id, { body: p.body, authorId: rc.user!.id }));
      return note(rc, row, noteable.iid);
    });

    r.put(`${base}/:discussion_id`, async (rc) => {
      const noteable = await noteableOf(rc, kind);
      const project = loadProject(rc);
      const user = rc.requireUser();
      const p = declared(rc.params, { resolved: t.boolean().required() });
      const notes = findDiscussion(rc, noteable, rc.path.discussion_id);
      if (!threadsResolvable(noteable) || !notes.some((n) => n.resolvable)) throw forbidden();
      if (effectiveProjectAccess(rc.svc, user, project) < Access.DEVELOPER && notes[0].author_id !== user.id) throw forbidden();
      inTransaction(rc.svc.db, () => setDiscussionResolved(rc, noteable, rc.path.discussion_id, p.resolved, user.id));
      return discussion(rc, discussionNotes(rc, noteable, rc.path.discussion_id), noteable.iid);
    });

    r.put(`${base}/:discussion_id/notes/:note_id`, async (rc) => {
      const noteable = await noteableOf(rc, kind);
      const project = loadProject(rc);
      const user = rc.requireUser();
      requireExactlyOne(rc.params, ['body', 'resolved']);
      const p = declared(rc.params, { body: t.string(), resolved: t.boolean() });
      const current = noteInDiscussion(rc, findDiscussion(rc, noteable, rc.path.discussion_id), rc.path.note_id);
      if (p.body !== undefined && p.body !== null) {
        if (current.author_id !== user.id && !user.admin) throw forbidden();
        validateNoteBody(p.body);
        rc.svc.db.prepare('UPDATE notes SET body = ?, updated_at = ? WHERE id = ?').run(p.body, isoTime(rc.svc.now()), current.id);
      } else if (p.resolved !== undefined && p.resolved !== null) {
        if (!current.resolvable) throw forbidden();
        if (effectiveProjectAccess(rc.svc, user, project) < Access.DEVELOPER && current.author_id !== user.id) throw forbidden();
        const now = isoTime(rc.svc.now());
        rc.svc.db
          .prepare('UPDATE notes SET resolved_at = ?, resolved_by_id = ? WHERE id = ?')
          .run(p.resolved ? now : null, p.resolved ? user.id : null, current.id);
      }
      return note(rc, findNote(rc, current.id)!, noteable.iid);
    });

    r.delete(`${base}/:discussion_id/notes/:note_id`, async (rc) => {
      const noteable = await noteableOf(rc, kind);
      const project = loadProject(rc);
      const user = rc.requireUser();
      const current = noteInDiscussion(rc, findDiscussion(rc, noteable, rc.path.discussion_id), rc.path.note_id);
      if (current.author_id !== user.id && effectiveProjectAccess(rc.svc, user, project) < Access.MAINTAINER) throw forbidden();
      checkUnmodifiedSince(rc, current.updated_at);
      rc.svc.db.prepare('DELETE FROM notes WHERE id = ?').run(current.id);
      return undefined;
    });
  }
}

function noteInDiscussion(_rc: RequestContext, notes: NoteRow[], noteId: string): NoteRow {
  const n = /^\d+$/.test(noteId) ? notes.find((x) => x.id === Number(noteId)) : undefined;
  if (!n) throw recordNotFound();
  return n;
}
