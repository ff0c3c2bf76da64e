import type { ServiceContext } from '../../context';
import type { RequestContext } from '../../http/route';
import type { Noteable } from '../core/notes';
import type { EntityContext, NoteRow } from '../core/entities';
import { userBasicById } from '../core/entities';
import { fullTitle } from './entities';
import { loadRepository } from './access';
import { commitOr404 } from './lookup';
import type { Project } from '../core/projects';
import type { Repository } from '../../git';
import type { Commit } from '../../git/commits';

/**
 * The noteable a commit's notes hang on. GitLab keeps `commit_id` on the note itself; Sandlab's
 * notes are indexed by an integer noteable id, so each noted commit gets a `commit_noteables` row,
 * written with its first note (`ensureCommitNoteable`). Until then the id is 0, which no note has.
 */
export async function loadCommitNoteable(rc: RequestContext, sha = rc.path.commit_id): Promise<CommitNoteable> {
  const { project, repo } = await loadRepository(rc);
  const commit = await commitOr404(repo, sha);
  const row = rc.svc.db.prepare('SELECT id FROM commit_noteables WHERE project_id = ? AND sha = ?').get(project.id, commit.id) as { id: number } | undefined;
  return { type: 'Commit', id: row?.id ?? 0, iid: null, title: fullTitle(commit.message), projectId: project.id, sha: commit.id, project, repo, commit };
}

export type CommitNoteable = Noteable & { sha: string; project: Project; repo: Repository; commit: Commit };

/** The noteable with its row written (inside the note's transaction); other noteables as they are. */
export function ensureCommitNoteable<T extends Noteable>(svc: ServiceContext, noteable: T & { sha?: string }): T {
  if (noteable.type !== 'Commit' || noteable.id || !noteable.sha) return noteable;
  svc.db.prepare('INSERT OR IGNORE INTO commit_noteables (project_id, sha) VALUES (?, ?)').run(noteable.projectId, noteable.sha);
  const row = svc.db.prepare('SELECT id FROM commit_noteables WHERE project_id = ? AND sha = ?').get(noteable.projectId, noteable.sha) as { id: number };
  return { ...noteable, id: row.id };
}

/** A commit comment's place in the diff, kept in the note's position (LegacyDiffNote). */
export interface CommitCommentLine {
  path: string;
  line: number;
  line_type: 'new' | 'old';
  line_code: string;
}

/** Entities::CommitNote: path, line and line_type only for a comment on a diff line. */
export function commitNoteEntity(ec: EntityContext, n: NoteRow): Record<string, unknown> {
  const at = n.type === 'LegacyDiffNote' && n.position ? (JSON.parse(n.position) as CommitCommentLine) : null;
  return {
    note: n.body,
    path: at?.path ?? null,
    line: at?.line ?? null,
    line_type: at?.line_type ?? null,
    author: userBasicById(ec, n.author_id),
    created_at: n.created_at,
  };
}
