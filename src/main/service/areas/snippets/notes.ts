import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { forbidden, notFound } from '../../http/errors';
import { paginate, paginateSql } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { Access, effectiveProjectAccess } from '../core/access';
import { type EntityContext, type NoteRow, note } from '../core/entities';
import { type Noteable, createNote, findNote, findNoteOn, validateNoteBody } from '../core/notes';
import type { Project } from '../core/projects';
import { isoTime } from '../core/time';
import { loadProjectSnippet, loadSnippetsProject } from './load';
import { checkUnmodifiedSince } from '../../http/conditional';

/**
 * Notes and discussions on project snippets (noteable type "Snippet"), the routes python-gitlab's
 * `snippet.notes` and `snippet.discussions` call.
 */
function loadSnippetNoteable(rc: RequestContext): { project: Project; noteable: Noteable } {
  const project = loadSnippetsProject(rc);
  const s = loadProjectSnippet(rc, project);
  return { project, noteable: { type: 'Snippet', id: s.id, iid: null, title: s.title, projectId: project.id } };
}

/** Entities::Discussion: the thread id, whether it is a lone comment, and its notes. */
function discussion(ec: EntityContext, notes: NoteRow[]): Record<string, unknown> {
  return {
    id: notes[0].discussion_id,
    individual_note: notes[0].type === null,
    notes: notes.map((n) => note(ec, n, null)),
  };
}

function notesOfDiscussion(rc: RequestContext, noteable: Noteable, discussionId: string): NoteRow[] {
  const rows = rc.svc.db
    // `+`: the thread's notes by notes_discussion, not the record's notes walked by core/079's index.
    .prepare('SELECT * FROM notes WHERE +noteable_type = ? AND +noteable_id = ? AND discussion_id = ? ORDER BY id')
    .all(noteable.type, noteable.id, discussionId) as NoteRow[];
  if (!rows.length) throw notFound('Discussion');
  return rows;
}

/** Anyone signed in who can read the snippet may comment on it (the project was already checked). */
function requireCommenter(rc: RequestContext, _project: Project): number {
  return rc.requireUser().id;
}

function editNote(rc: RequestContext, current: NoteRow): NoteRow {
  const user = rc.requireUser();
  const p = declared(rc.params, { body: t.string().required() });
  if (current.author_id !== user.id && !user.admin) throw forbidden();
  validateNoteBody(p.body);
  rc.svc.db.prepare('UPDATE notes SET body = ?, updated_at = ? WHERE id = ?').run(p.body, isoTime(rc.svc.now()), current.id);
  return findNote(rc, current.id)!;
}

function removeNote(rc: RequestContext, project: Project, current: NoteRow): undefined {
  const user = rc.requireUser();
  if (current.author_id !== user.id && effectiveProjectAccess(rc.svc, user, project) < Access.MAINTAINER) throw forbidden();
  checkUnmodifiedSince(rc, current.updated_at);
  rc.svc.db.prepare('DELETE FROM notes WHERE id = ?').run(current.id);
  return undefined;
}

export function registerSnippetNoteRoutes(r: Router): void {
  const notes = '/projects/:id/snippets/:snippet_id/notes';
  const discussions = '/projects/:id/snippets/:snippet_id/discussions';

  r.get(
    notes,
    (rc) => {
      const { noteable } = loadSnippetNoteable(rc);
      const q = declared(rc.params, {
        order_by: t.string().values(['created_at', 'updated_at']).default('created_at'),
        sort: t.string().values(['asc', 'desc']).default('desc'),
      });
      const sql = 'FROM notes WHERE noteable_type = ? AND noteable_id = ?';
      const args = [noteable.type, noteable.id];
      return paginateSql<NoteRow>(rc, rc.svc.db, { select: '*', from: sql, args, order: `${q.order_by} ${q.sort}, id ${q.sort}` }).map((n) => note(rc, n, null));
    },
    { auth: 'optional' },
  );

  r.get(`${notes}/:note_id`, (rc) => note(rc, findNoteOn(rc, loadSnippetNoteable(rc).noteable, rc.path.note_id), null), { auth: 'optional' });

  r.post(notes, (rc) => {
    const { project, noteable } = loadSnippetNoteable(rc);
    const authorId = requireCommenter(rc, project);
    const p = declared(rc.params, { body: t.string().required() });
    const row = inTransaction(rc.svc.db, () => createNote(rc, noteable, { body: p.body, authorId }));
    return note(rc, row, null);
  });

  r.put(`${notes}/:note_id`, (rc) => {
    const { noteable } = loadSnippetNoteable(rc);
    return note(rc, editNote(rc, findNoteOn(rc, noteable, rc.path.note_id)), null);
  });

  r.delete(`${notes}/:note_id`, (rc) => {
    const { project, noteable } = loadSnippetNoteable(rc);
    return removeNote(rc, project, findNoteOn(rc, noteable, rc.path.note_id));
  });

  r.get(
    discussions,
    (rc) => {
      const { noteable } = loadSnippetNoteable(rc);
      const rows = rc.svc.db
        .prepare('SELECT * FROM notes WHERE noteable_type = ? AND noteable_id = ? ORDER BY id')
        .all(noteable.type, noteable.id) as NoteRow[];
      const threads = new Map<string, NoteRow[]>();
      for (const n of rows) threads.set(n.discussion_id, [...(threads.get(n.discussion_id) ?? []), n]);
      const all = [...threads.values()];
      return paginate(rc, { count: () => all.length, rows: (limit, offset) => all.slice(offset, offset + limit) }).map((d) => discussion(rc, d));
    },
    { auth: 'optional' },
  );

  r.get(`${discussions}/:discussion_id`, (rc) => discussion(rc, notesOfDiscussion(rc, loadSnippetNoteable(rc).noteable, rc.path.discussion_id)), {
    auth: 'optional',
  });

  r.post(discussions, (rc) => {
    const { project, noteable } = loadSnippetNoteable(rc);
    const authorId = requireCommenter(rc, project);
    const p = declared(rc.params, { body: t.string().required(), created_at: t.dateTime() });
    const row = inTransaction(rc.svc.db, () => createNote(rc, noteable, { body: p.body, authorId, type: 'DiscussionNote' }));
    return discussion(rc, [row]);
  });

  r.post(`${discussions}/:discussion_id/notes`, (rc) => {
    const { project, noteable } = loadSnippetNoteable(rc);
    const thread = notesOfDiscussion(rc, noteable, rc.path.discussion_id);
    const authorId = requireCommenter(rc, project);
    const p = declared(rc.params, { body: t.string().required() });
    const row = inTransaction(rc.svc.db, () => {
      // Replying turns a lone comment into a thread, as GitLab does.
      rc.svc.db.prepare("UPDATE notes SET type = 'DiscussionNote' WHERE discussion_id = ? AND type IS NULL").run(rc.path.discussion_id);
      return createNote(rc, noteable, { body: p.body, authorId, type: 'DiscussionNote', discussionId: thread[0].discussion_id });
    });
    return note(rc, row, null);
  });

  const inDiscussion = (rc: RequestContext, noteable: Noteable): NoteRow => {
    notesOfDiscussion(rc, noteable, rc.path.discussion_id);
    const n = findNoteOn(rc, noteable, rc.path.note_id);
    if (n.discussion_id !== rc.path.discussion_id) throw notFound('Note');
    return n;
  };

  r.get(`${discussions}/:discussion_id/notes/:note_id`, (rc) => note(rc, inDiscussion(rc, loadSnippetNoteable(rc).noteable), null), {
    auth: 'optional',
  });

  r.put(`${discussions}/:discussion_id/notes/:note_id`, (rc) => {
    const { noteable } = loadSnippetNoteable(rc);
    return note(rc, editNote(rc, inDiscussion(rc, noteable)), null);
  });

  r.delete(`${discussions}/:discussion_id/notes/:note_id`, (rc) => {
    const { project, noteable } = loadSnippetNoteable(rc);
    return removeNote(rc, project, inDiscussion(rc, noteable));
  });
}
