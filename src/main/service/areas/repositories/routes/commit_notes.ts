import type { Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { paginateSql } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { diffLines, lineCode } from '../../../git/diff';
import type { NoteRow } from '../../core/entities';
import { createNote } from '../../core/notes';
import { checkNoteBody } from '../../core/routes/notes';
import { requireCommenter } from '../../discussions/routes';
import { commitNoteEntity, ensureCommitNoteable, loadCommitNoteable, type CommitCommentLine } from '../commit_notes';

/** /projects/:id/repository/commits/:commit_id/comments: the commit's notes as Entities::CommitNote. */
export function registerCommitNoteRoutes(r: Router): void {
  const base = '/projects/:id/repository/commits/:commit_id/comments';

  r.get(
    base,
    async (rc) => {
      const noteable = await loadCommitNoteable(rc);
      const rows = paginateSql<NoteRow>(rc, rc.svc.db, {
        select: '*',
        from: "FROM notes WHERE noteable_type = 'Commit' AND noteable_id = ?",
        args: [noteable.id],
        order: 'created_at, id',
      });
      return rows.map((n) => commitNoteEntity(rc, n));
    },
    { auth: 'optional' },
  );

  r.post(base, async (rc) => {
    const p = declared(rc.params, { note: t.string().required(), path: t.string() });
    // Grape's `given :path do requires :line ... end`.
    const at = p.path ? declared(rc.params, { line: t.integer().required(), line_type: t.string().values(['new', 'old']).default('new') }) : null;
    const noteable = await loadCommitNoteable(rc);
    const { project, repo, commit } = noteable;
    requireCommenter(rc, project);
    checkNoteBody(p.note, 'Note');
    // A path and line on the commit's diff make a LegacyDiffNote; anything else a plain comment.
    let line: CommitCommentLine | null = null;
    if (p.path && at) {
      const file = (await repo.diff(commit.parents[0] ?? null, commit.id, { paths: [p.path] })).find((f) => f.newPath === p.path);
      const hit = file
        ? diffLines(file.diff).find((l) => l.type === at.line_type && (at.line_type === 'new' ? l.newPos : l.oldPos) === at.line)
        : undefined;
      if (file && hit) line = { path: p.path, line: at.line, line_type: at.line_type as 'new' | 'old', line_code: lineCode(file.newPath, hit.oldPos, hit.newPos) };
    }
    const row = inTransaction(rc.svc.db, () =>
      createNote(rc, ensureCommitNoteable(rc.svc, noteable), {
        body: p.note,
        authorId: rc.user!.id,
        type: line ? 'LegacyDiffNote' : null,
        position: line as Record<string, unknown> | null,
      }),
    );
    rc.status = 201;
    return commitNoteEntity(rc, row);
  });
}
