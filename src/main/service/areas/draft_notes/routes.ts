import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { badRequest } from '../../http/errors';
import { inTransaction } from '../../db/connection';
import { loadProject } from '../core/access';
import type { Noteable } from '../core/notes';
import { loadNoteable } from '../core/routes/notes';
import { requireCommenter } from '../discussions/routes';
import { readPosition } from '../discussions/position';
import { draftNote } from './entities';
import { diffPositionLineCode } from '../repositories/positions';
import { createDraftNote, deleteDraftNote, findDraftNote, listDraftNotes, publishDraftNote, updateDraftNote } from './draft_notes';

const BASE = '/projects/:id/merge_requests/:noteable_iid/draft_notes';

function mergeRequest(rc: RequestContext): { mr: Noteable; userId: number } {
  const user = rc.requireUser();
  return { mr: loadNoteable(rc, 'merge_requests'), userId: user.id };
}

/** `:draft_note_id` is declared Integer: anything else is Grape's 400 before any lookup. */
function draftNoteId(rc: RequestContext): string {
  declared({ draft_note_id: rc.path.draft_note_id }, { draft_note_id: t.integer().required() });
  return rc.path.draft_note_id;
}

/** /projects/:id/merge_requests/:iid/draft_notes: the caller's pending review comments. */
export function registerDraftNoteRoutes(r: Router): void {
  r.get(BASE, (rc) => {
    const { mr, userId } = mergeRequest(rc);
    return listDraftNotes(rc, mr, userId).map(draftNote);
  });

  r.get(`${BASE}/:draft_note_id`, (rc) => {
    const { mr, userId } = mergeRequest(rc);
    return draftNote(findDraftNote(rc, mr, userId, draftNoteId(rc)));
  });

  r.post(BASE, async (rc) => {
    const { mr, userId } = mergeRequest(rc);
    const p = declared(rc.params, {
      note: t.string().required(),
      in_reply_to_discussion_id: t.string(),
      commit_id: t.string(),
      resolve_discussion: t.boolean(),
    });
    const position = readPosition(rc.params.position);
    const project = loadProject(rc);
    requireCommenter(rc, project);
    const lineCode = await diffPositionLineCode(rc.svc, project, mr.id, position);
    const row = inTransaction(rc.svc.db, () =>
      createDraftNote(rc, mr, userId, {
        note: p.note,
        position,
        lineCode,
        commitId: p.commit_id && p.commit_id !== 'undefined' ? p.commit_id : null,
        resolveDiscussion: p.resolve_discussion ?? false,
        inReplyToDiscussionId: p.in_reply_to_discussion_id || null,
      }),
    );
    return draftNote(row);
  });

  const update = async (rc: RequestContext): Promise<Record<string, unknown>> => {
    const { mr, userId } = mergeRequest(rc);
    const p = declared(rc.params, { note: t.string().notBlank() });
    const position = readPosition(rc.params.position);
    if (!p.note) throw badRequest('Missing params to modify');
    const current = findDraftNote(rc, mr, userId, draftNoteId(rc));
    const lineCode = await diffPositionLineCode(rc.svc, loadProject(rc), mr.id, position);
    return draftNote(inTransaction(rc.svc.db, () => updateDraftNote(rc, current, p.note!, position, lineCode)));
  };
  r.put(`${BASE}/:draft_note_id`, update);

  r.delete(`${BASE}/:draft_note_id`, (rc) => {
    const { mr, userId } = mergeRequest(rc);
    const current = findDraftNote(rc, mr, userId, draftNoteId(rc));
    inTransaction(rc.svc.db, () => deleteDraftNote(rc, current));
    return undefined;
  });

  r.put(`${BASE}/:draft_note_id/publish`, (rc) => {
    const { mr, userId } = mergeRequest(rc);
    const current = findDraftNote(rc, mr, userId, draftNoteId(rc));
    inTransaction(rc.svc.db, () => publishDraftNote(rc, mr, current));
    return undefined;
  });

  r.post(`${BASE}/bulk_publish`, (rc) => {
    const { mr, userId } = mergeRequest(rc);
    inTransaction(rc.svc.db, () => {
      for (const d of listDraftNotes(rc, mr, userId)) publishDraftNote(rc, mr, d);
    });
    rc.status = 204;
    return undefined;
  });
}
