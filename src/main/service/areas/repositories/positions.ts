import type { ServiceContext } from '../../context';
import { SHA_RE } from '../../git/names';
import { findPositionLine, lineCode } from '../../git/diff';
import type { Project } from '../core/projects';
import { latestMergeRequestDiff } from './merge_requests';

/**
 * Whether a merge request's diff positions can be checked: it has a version from real branches.
 * Merge requests on branches the repository never had keep positions as given, unchecked.
 */
export function hasDiffToCheck(svc: ServiceContext, mergeRequestId: number): boolean {
  return svc.git.available && !!latestMergeRequestDiff(svc, mergeRequestId)?.head_commit_sha;
}

/**
 * DraftNote#line_code: the code of the line a position names on a merge request with a diff;
 * null without a position, without a diff, or when the line is not in it.
 */
export async function diffPositionLineCode(
  svc: ServiceContext,
  project: Project,
  mergeRequestId: number,
  position: Record<string, unknown> | null,
): Promise<string | null> {
  if (!position || !hasDiffToCheck(svc, mergeRequestId)) return null;
  return positionLineCode(svc, project, position);
}

/**
 * Gitlab::Diff::Position#line_code: the diff of the position's base_sha..head_sha for its file,
 * the line it names found as GitLab's parser numbers lines, and `<sha1 of the path>_<old>_<new>`.
 * null when that line is not in the diff (or the commits are unknown); only text positions have one.
 */
export async function positionLineCode(svc: ServiceContext, project: Project, position: Record<string, unknown>): Promise<string | null> {
  if (position.position_type !== 'text') return null;
  const base = String(position.base_sha ?? '');
  const head = String(position.head_sha ?? '');
  if (!SHA_RE.test(base) || !SHA_RE.test(head)) return null;
  const repo = await svc.git.ensure(project);
  if (!(await repo.commit(base)) || !(await repo.commit(head))) return null;
  const oldPath = (position.old_path as string | null) ?? null;
  const newPath = (position.new_path as string | null) ?? null;
  const paths = [...new Set([oldPath, newPath].filter((p): p is string => !!p))];
  const file = (await repo.diff(base, head, { paths })).find((f) => f.newPath === (newPath ?? f.newPath) && f.oldPath === (oldPath ?? f.oldPath));
  if (!file) return null;
  const line = findPositionLine(file, (position.old_line as number | null) ?? null, (position.new_line as number | null) ?? null);
  // Diff::File#file_path: the new path, else the old one.
  return line ? lineCode(file.newPath || file.oldPath, line.oldPos, line.newPos) : null;
}
