import type { ServiceContext } from '../../context';
import { inTransaction } from '../../db/connection';
import { apiError } from '../../http/errors';
import type { Repository } from '../../git';
import { ZERO_SHA } from '../../git/names';
import { Access, effectiveProjectAccess } from '../core/access';
import { isDraftTitle, type MergeRequestRow } from '../core/entities';
import { recordEvent } from '../core/events';
import { afterIssuableWrite, recordStateEvent } from '../core/issuable_events';
import { findNamespaceById } from '../core/namespaces';
import { type Project, findProjectById } from '../core/projects';
import { isoTime } from '../core/time';
import { toSentence } from '../core/sentence';
import { markAllTodosDone } from '../core/todos';
import { findUserById, type User } from '../core/users';
import { committerOf } from './people';
import { latestMergeRequestDiff, mergeMethod, versionCommits } from './merge_requests';
import { moveRef, swapRef } from './writes';
import { afterRefsChanged } from './refs_changed';

export interface MergeOptions {
  squash?: boolean;
  mergeCommitMessage?: string;
  squashCommitMessage?: string;
  shouldRemoveSourceBranch?: boolean;
}

/**
 * MergeRequest#mergeable?: open, not a draft, checked against real branches (a version exists and
 * both branches are there), no conflicts, and rebased when the project merges by fast-forward.
 */
export function isMergeable(project: Project, mr: MergeRequestRow): boolean {
  if (mr.state !== 'opened' || isDraftTitle(mr.title)) return false;
  if (mr.merge_status !== 'can_be_merged' || !mr.head_sha || !mr.start_sha) return false;
  return !(mr.behind_target && mergeMethod(project) !== 'merge');
}

function reload(svc: ServiceContext, id: number): MergeRequestRow {
  return svc.db.prepare('SELECT * FROM merge_requests WHERE id = ?').get(id) as MergeRequestRow;
}


/** Open issues this merge request closes that `user` may close (visible_closing_issues_for). */
function closingIssues(svc: ServiceContext, mr: MergeRequestRow, user: User): { id: number; iid: number; title: string; project_id: number }[] {
  const rows = svc.db
    .prepare(
      `SELECT i.id, i.iid, i.title, i.project_id FROM issues i JOIN merge_requests_closing_issues c ON c.issue_id = i.id
       WHERE c.merge_request_id = ? AND i.state = 'opened' ORDER BY i.project_id, i.iid`,
    )
    .all(mr.id) as { id: number; iid: number; title: string; project_id: number }[];
  return rows.filter((i) => {
    const p = findProjectById(svc, i.project_id);
    return !!p && effectiveProjectAccess(svc, user, p) >= Access.REPORTER;
  });
}

/** MergeRequest#default_merge_commit_message (no project template in Sandlab). */
function defaultMergeCommitMessage(svc: ServiceContext, project: Project, mr: MergeRequestRow, user: User): string {
  const fullPath = `${findNamespaceById(svc, project.namespace_id)!.full_path}/${project.path}`;
  const refs = closingIssues(svc, mr, user).map((i) => {
    if (i.project_id === project.id) return `#${i.iid}`;
    const p = findProjectById(svc, i.project_id)!;
    return `${findNamespaceById(svc, p.namespace_id)!.full_path}/${p.path}#${i.iid}`;
  });
  const parts = [`Merge branch '${mr.source_branch}' into '${mr.target_branch}'`, mr.title];
  if (refs.length) parts.push(`Closes ${toSentence(refs)}`);
  parts.push(`See merge request ${fullPath}!${mr.iid}`);
  return parts.join('\n\n');
}

/**
 * MergeRequests::MergeService: squash when asked (one commit of the whole change on the merge
 * base), then a merge commit (`merge`, `rebase_merge`) or a fast-forward (`ff`) of the target
 * branch. Refs move compare-and-swap: a branch that moved meanwhile fails the merge instead of
 * losing work. PostMergeService then marks the merge request merged and, on the default branch,
 * closes the issues it closes (one transaction), before the push to the target is processed;
 * the source branch goes last when asked.
 */
export async function mergeMergeRequest(svc: ServiceContext, project: Project, repo: Repository, user: User, mr: MergeRequestRow, opts: MergeOptions): Promise<MergeRequestRow> {
  const source = await repo.refCommit(`refs/heads/${mr.source_branch}`);
  const target = await repo.refCommit(`refs/heads/${mr.target_branch}`);
  if (!source || !target) throw apiError(405, '405 Method Not Allowed');
  const base = (await repo.mergeBase(target, source)) ?? target;
  const committer = committerOf(svc, user);
  const squash = opts.squash ?? !!mr.squash;
  let head = source;
  let squashSha: string | null = null;
  if (squash) {
    const version = latestMergeRequestDiff(svc, mr.id);
    const commits = version ? await versionCommits(repo, version) : [];
    const message = opts.squashCommitMessage ?? mr.title;
    // SquashService: one commit that already carries the message is its own squash.
    if (commits.length === 1 && commits[0].message.trim() === message.trim()) squashSha = source;
    else {
      const author = findUserById(svc, mr.author_id ?? user.id) ?? user;
      squashSha = await repo.commitTree((await repo.commit(source))!.tree, [base], message, committerOf(svc, author), committer);
    }
    head = squashSha;
  }
  let newTarget: string;
  let mergeCommitSha: string | null = null;
  if (mergeMethod(project) === 'ff') {
    if (!(await repo.isAncestor(target, head))) throw apiError(405, '405 Method Not Allowed');
    newTarget = head;
  } else {
    const merged = await repo.mergeTree(target, head);
    if (!merged.tree) throw apiError(405, '405 Method Not Allowed');
    const message = opts.mergeCommitMessage ?? defaultMergeCommitMessage(svc, project, mr, user);
    newTarget = await repo.commitTree(merged.tree, [target, head], message, committer, committer);
    mergeCommitSha = newTarget;
  }
  const targetRef = `refs/heads/${mr.target_branch}`;
  await swapRef(repo, targetRef, newTarget, target, 'Merge request is not mergeable: the target branch changed');
  const merged = inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    const issues = mr.target_branch === project.default_branch ? closingIssues(svc, mr, user) : [];
    svc.db
      .prepare(
        `UPDATE merge_requests SET state = 'merged', merged_at = ?, merged_by_id = ?, merge_commit_sha = ?, squash_commit_sha = ?, squash = ?,
           merge_status = 'can_be_merged', merge_error = NULL, updated_at = ? WHERE id = ?`,
      )
      .run(now, user.id, mergeCommitSha, squashSha, squash ? 1 : 0, now, mr.id);
    recordEvent(svc, { action: 'merged', authorId: user.id, projectId: project.id, targetType: 'MergeRequest', targetId: mr.id, targetIid: mr.iid, targetTitle: mr.title });
    afterIssuableWrite(svc, project, 'MergeRequest', mr, reload(svc, mr.id), user.id);
    for (const issue of issues) closeIssueViaMergeRequest(svc, issue, mr, user, now);
    return reload(svc, mr.id);
  });
  await afterRefsChanged(svc, project.id, user.id, [{ ref: targetRef, oldSha: target, newSha: newTarget }], repo);
  const removeSource = opts.shouldRemoveSourceBranch ?? !!mr.remove_source_branch;
  if (removeSource && mr.source_branch !== project.default_branch) {
    await moveRef(svc, project, repo, user, `refs/heads/${mr.source_branch}`, ZERO_SHA, source, 'The source branch changed');
  }
  return merged;
}

/** Issues::CloseService with `closed_via: merge_request`: closed by the merging user, the state event naming the merge request. */
function closeIssueViaMergeRequest(svc: ServiceContext, issue: { id: number; iid: number; title: string; project_id: number }, mr: MergeRequestRow, user: User, now: string): void {
  svc.db.prepare("UPDATE issues SET state = 'closed', closed_at = ?, closed_by_id = ?, updated_at = ? WHERE id = ?").run(now, user.id, now, issue.id);
  recordEvent(svc, { action: 'closed', authorId: user.id, projectId: issue.project_id, targetType: 'Issue', targetId: issue.id, targetIid: issue.iid, targetTitle: issue.title });
  recordStateEvent(svc, 'Issue', issue.id, 'closed', user.id, mr.id);
  markAllTodosDone(svc, 'Issue', issue.id);
}

/**
 * MergeRequests::MergeToRefService as the mergeability check runs it: the merge commit the merge
 * would make, written to refs/merge-requests/:iid/merge. null when the branches do not merge.
 */
export async function writeMergeRef(svc: ServiceContext, project: Project, repo: Repository, mr: MergeRequestRow, caller: User | null): Promise<string | null> {
  if (mr.state !== 'opened') return null;
  const source = await repo.refCommit(`refs/heads/${mr.source_branch}`);
  const target = await repo.refCommit(`refs/heads/${mr.target_branch}`);
  if (!source || !target) return null;
  const merged = await repo.mergeTree(target, source);
  if (!merged.tree) return null;
  // Written as the merge request's author (the caller where the author is gone).
  const author = (mr.author_id ? findUserById(svc, mr.author_id) : undefined) ?? caller;
  if (!author) return null;
  const person = committerOf(svc, author);
  const sha = await repo.commitTree(merged.tree, [target, source], defaultMergeCommitMessage(svc, project, mr, author), person, person);
  await repo.run(['update-ref', `refs/merge-requests/${mr.iid}/merge`, sha]);
  return sha;
}

/**
 * MergeRequests::RebaseService without a worktree: the source branch's own commits replayed on the
 * target head one by one (authors kept, the caller as committer). A conflict leaves the branch as
 * it was and sets GitLab's merge_error.
 */
export async function rebaseMergeRequest(svc: ServiceContext, project: Project, repo: Repository, user: User, mr: MergeRequestRow): Promise<void> {
  const source = await repo.refCommit(`refs/heads/${mr.source_branch}`);
  const target = await repo.refCommit(`refs/heads/${mr.target_branch}`);
  if (!source || !target || (await repo.isAncestor(target, source))) return;
  const ids = await repo.revList({ revs: [source], exclude: [target], reverse: true, noMerges: true });
  const committer = committerOf(svc, user);
  let onto = target;
  for (const id of ids) {
    const commit = (await repo.commit(id))!;
    const tree = await repo.cherryPickTree(commit, onto, committer);
    if (!tree) {
      svc.db.prepare('UPDATE merge_requests SET merge_error = ? WHERE id = ?').run('Rebase failed: Rebase locally, resolve all conflicts, then push the branch.', mr.id);
      return;
    }
    onto = await repo.commitTree(tree, [onto], commit.message, { name: commit.author.name, email: commit.author.email, date: commit.author.date }, committer);
  }
  // The push of the rebased branch refreshes the merge request (a new version, checked again).
  await moveRef(svc, project, repo, user, `refs/heads/${mr.source_branch}`, onto, source, 'Rebase failed: the source branch changed');
}

