import type { ServiceContext } from '../../context';
import { inTransaction } from '../../db/connection';
import type { Repository } from '../../git';
import type { Commit } from '../../git/commits';
import type { DiffFile } from '../../git/diff';
import { ZERO_SHA } from '../../git/names';
import type { RefUpdate } from '../../git/smart_http';
import type { MergeRequestRow } from '../core/entities';
import { recordEvent } from '../core/events';
import { afterIssuableWrite } from '../core/issuable_events';
import { type Project, projectSettings } from '../core/projects';
import { isoTime } from '../core/time';
import { commitsById } from './lookup';

/** One version of a merge request (GitLab's merge_request_diffs row). */
export interface MergeRequestDiffRow {
  id: number;
  merge_request_id: number;
  state: 'collected' | 'empty';
  base_commit_sha: string | null;
  start_commit_sha: string | null;
  head_commit_sha: string | null;
  real_size: string | null;
  patch_id_sha: string | null;
  created_at: string;
}

/** Versions, newest first. */
export function mergeRequestDiffs(svc: ServiceContext, mergeRequestId: number): MergeRequestDiffRow[] {
  return svc.db.prepare('SELECT * FROM merge_request_diffs WHERE merge_request_id = ? ORDER BY id DESC').all(mergeRequestId) as MergeRequestDiffRow[];
}

export function latestMergeRequestDiff(svc: ServiceContext, mergeRequestId: number): MergeRequestDiffRow | undefined {
  return svc.db.prepare('SELECT * FROM merge_request_diffs WHERE merge_request_id = ? ORDER BY id DESC LIMIT 1').get(mergeRequestId) as MergeRequestDiffRow | undefined;
}

/** A version's changes: what its head adds since the merge base (GitLab's three-dot diff). */
export async function versionDiffFiles(repo: Repository, v: MergeRequestDiffRow): Promise<DiffFile[]> {
  if (!v.head_commit_sha || !v.base_commit_sha) return [];
  return repo.diff(v.base_commit_sha, v.head_commit_sha);
}

/** A version's commits, newest first: those on the source branch the target branch lacked. */
export async function versionCommits(repo: Repository, v: MergeRequestDiffRow): Promise<Commit[]> {
  if (!v.head_commit_sha) return [];
  const ids = await repo.revList({ revs: [v.head_commit_sha], exclude: v.start_commit_sha ? [v.start_commit_sha] : [] });
  return commitsById(repo, ids);
}

interface BranchState {
  source: string | null;
  target: string | null;
  base: string | null;
}

async function branchState(repo: Repository, mr: MergeRequestRow): Promise<BranchState> {
  const source = await repo.refCommit(`refs/heads/${mr.source_branch}`);
  const target = await repo.refCommit(`refs/heads/${mr.target_branch}`);
  const base = source && target ? await repo.mergeBase(target, source) : null;
  return { source, target, base };
}

/**
 * The mergeability check (MergeRequests::MergeabilityCheckService): a merge is possible when both
 * branches exist and merge without conflicts; `behind_target` when the source lacks target commits.
 */
async function mergeability(repo: Repository, s: BranchState): Promise<{ status: 'can_be_merged' | 'cannot_be_merged'; behind: boolean }> {
  if (!s.source || !s.target) return { status: 'cannot_be_merged', behind: false };
  const behind = !(await repo.isAncestor(s.target, s.source));
  if (!behind) return { status: 'can_be_merged', behind };
  const merged = await repo.mergeTree(s.target, s.source);
  return { status: merged.tree ? 'can_be_merged' : 'cannot_be_merged', behind };
}

/**
 * MergeRequest#reload_diff: a new version when the branch heads moved since the last one (the
 * first version on creation, empty when a branch is missing), then the mergeability check.
 * Commits a version refers to are kept from garbage collection under refs/keep-around.
 */
export async function refreshMergeRequest(svc: ServiceContext, repo: Repository, mr: MergeRequestRow): Promise<void> {
  const s = await branchState(repo, mr);
  const latest = latestMergeRequestDiff(svc, mr.id);
  const moved = !latest || latest.head_commit_sha !== s.source || latest.start_commit_sha !== s.target;
  let version: Omit<MergeRequestDiffRow, 'id' | 'merge_request_id' | 'created_at'> | null = null;
  if (moved && mr.state === 'opened') {
    const files = s.source && s.target && s.base ? await repo.diff(s.base, s.source) : [];
    version = {
      state: files.length ? 'collected' : 'empty',
      base_commit_sha: s.base,
      start_commit_sha: s.target,
      head_commit_sha: s.source,
      real_size: s.source && s.target ? String(files.length) : null,
      patch_id_sha: s.base && s.source && files.length ? await repo.patchId(s.base, s.source) : null,
    };
    for (const sha of new Set([s.base, s.target, s.source])) if (sha) await keepAround(repo, sha);
    if (s.source) await repo.run(['update-ref', `refs/merge-requests/${mr.iid}/head`, s.source]);
  }
  const check = await mergeability(repo, s);
  inTransaction(svc.db, () => {
    if (version) {
      svc.db
        .prepare(
          `INSERT INTO merge_request_diffs (merge_request_id, state, base_commit_sha, start_commit_sha, head_commit_sha, real_size, patch_id_sha, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(mr.id, version.state, version.base_commit_sha, version.start_commit_sha, version.head_commit_sha, version.real_size, version.patch_id_sha, isoTime(svc.now()));
      // The merge request's own diff_refs follow its latest version ('' where a branch is missing).
      svc.db
        .prepare('UPDATE merge_requests SET base_sha = ?, start_sha = ?, head_sha = ?, merge_error = NULL WHERE id = ?')
        .run(version.base_commit_sha ?? '', version.start_commit_sha ?? '', version.head_commit_sha ?? '', mr.id);
    }
    if (mr.state === 'opened') svc.db.prepare('UPDATE merge_requests SET merge_status = ?, behind_target = ? WHERE id = ?').run(check.status, check.behind ? 1 : 0, mr.id);
  });
}

async function keepAround(repo: Repository, sha: string): Promise<void> {
  await repo.run(['update-ref', `refs/keep-around/${sha}`, sha]);
}

/**
 * MergeRequests::RefreshService after a push: merge requests whose source branch moved get a new
 * version, those whose source branch went away are closed, those whose source commits now sit in
 * their target branch are marked merged, and every open one on a moved branch is checked again.
 */
export async function refreshMergeRequestsAfterPush(svc: ServiceContext, project: Project, repo: Repository, userId: number, changes: RefUpdate[]): Promise<void> {
  let branches: string[] | undefined;
  for (const u of changes) {
    if (!u.ref.startsWith('refs/heads/')) continue;
    const branch = u.ref.slice('refs/heads/'.length);
    branches ??= (await repo.listRefs('heads')).map((r) => r.name);
    for (const mr of pushedMergeRequests(svc, project.id, branch, branches)) {
      if (u.newSha === ZERO_SHA && mr.source_branch === branch) {
        closeMergeRequest(svc, project, mr, userId);
        continue;
      }
      if (mr.target_branch === branch && (await newlyContains(svc, repo, mr, u))) {
        markMergedByPush(svc, project, mr, userId, u.newSha);
        continue;
      }
      await refreshMergeRequest(svc, repo, mr);
    }
  }
}

/**
 * The open merge requests a push to `branch` concerns: those from it, and those into it whose
 * source branch is in the repository or that have a version. One into it whose branches never
 * were in the repository keeps the diff_refs it was made with and no version, as on creation
 * (syncMergeRequestWithBranches). Read by the source branches' index: a project's million merge
 * requests into `main` made without branches each got an empty version on a push to main (hours
 * of git, gigabytes of rows), and the target's index read them all (0.7 s).
 */
function pushedMergeRequests(svc: ServiceContext, projectId: number, branch: string, branches: string[]): MergeRequestRow[] {
  return svc.db
    .prepare(
      `SELECT * FROM merge_requests WHERE id IN (
         SELECT id FROM merge_requests WHERE project_id = @project AND source_branch = @branch
         UNION SELECT id FROM merge_requests INDEXED BY merge_requests_project_source_branch
           WHERE project_id = @project AND source_branch IN (SELECT value FROM json_each(@branches)) AND target_branch = @branch
         UNION SELECT m.id FROM merge_request_diffs d CROSS JOIN merge_requests m ON m.id = d.merge_request_id WHERE m.project_id = @project AND m.target_branch = @branch
       ) AND state = 'opened' ORDER BY id`,
    )
    .all({ project: projectId, branch, branches: JSON.stringify(branches) }) as MergeRequestRow[];
}

/** post_merge_manually_merged: the push brought the merge request's (non-empty) head into its target. */
async function newlyContains(svc: ServiceContext, repo: Repository, mr: MergeRequestRow, u: RefUpdate): Promise<boolean> {
  const head = mr.head_sha;
  if (u.newSha === ZERO_SHA || !head || latestMergeRequestDiff(svc, mr.id)?.state !== 'collected') return false;
  if (!(await repo.isAncestor(head, u.newSha))) return false;
  return u.oldSha === ZERO_SHA || !(await repo.isAncestor(head, u.oldSha));
}

function closeMergeRequest(svc: ServiceContext, project: Project, mr: MergeRequestRow, userId: number): void {
  inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    svc.db.prepare("UPDATE merge_requests SET state = 'closed', closed_at = ?, closed_by_id = ?, updated_at = ? WHERE id = ?").run(now, userId, now, mr.id);
    recordEvent(svc, { action: 'closed', authorId: userId, projectId: project.id, targetType: 'MergeRequest', targetId: mr.id, targetIid: mr.iid, targetTitle: mr.title });
    afterIssuableWrite(svc, project, 'MergeRequest', mr, reload(svc, mr.id), userId);
  });
}

/** MergeRequests::PostMergeService for a merge made by pushing the source commits to the target branch. */
function markMergedByPush(svc: ServiceContext, project: Project, mr: MergeRequestRow, userId: number, targetHead: string): void {
  inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    svc.db
      .prepare("UPDATE merge_requests SET state = 'merged', merged_at = ?, merged_by_id = ?, merge_commit_sha = ?, updated_at = ? WHERE id = ?")
      .run(now, userId, targetHead, now, mr.id);
    recordEvent(svc, { action: 'merged', authorId: userId, projectId: project.id, targetType: 'MergeRequest', targetId: mr.id, targetIid: mr.iid, targetTitle: mr.title });
    afterIssuableWrite(svc, project, 'MergeRequest', mr, reload(svc, mr.id), userId);
  });
}

/** The merge method a project merges with (`merge`, `rebase_merge`, `ff`). */
export function mergeMethod(project: Project): string {
  return (projectSettings(project).merge_method as string | undefined) ?? 'merge';
}

function reload(svc: ServiceContext, id: number): MergeRequestRow {
  return svc.db.prepare('SELECT * FROM merge_requests WHERE id = ?').get(id) as MergeRequestRow;
}

/**
 * After a merge request is created, reopened or retargeted: its first (or next) version from the
 * real branches. A merge request whose branches are not in the repository (and never were) keeps
 * the diff_refs it was made with, and no version.
 */
export async function syncMergeRequestWithBranches(svc: ServiceContext, project: Project, mergeRequestId: number): Promise<void> {
  if (!svc.git.available) return;
  const mr = reload(svc, mergeRequestId);
  if (mr.state !== 'opened') return;
  const repo = await svc.git.ensure(project);
  const hasVersion = !!latestMergeRequestDiff(svc, mr.id);
  if (!hasVersion && !((await repo.branchExists(mr.source_branch)) && (await repo.branchExists(mr.target_branch)))) return;
  await refreshMergeRequest(svc, repo, mr);
}

/** MergeRequest#diverged_commits_count: commits of the target branch the source branch lacks (0 without both branches). */
export async function divergedCommitsCount(svc: ServiceContext, project: Project, mr: MergeRequestRow): Promise<number> {
  if (!svc.git.available || mr.state !== 'opened') return 0;
  const repo = await svc.git.ensure(project);
  const s = await branchState(repo, mr);
  return s.source && s.target ? repo.countCommits([s.target], [s.source]) : 0;
}
