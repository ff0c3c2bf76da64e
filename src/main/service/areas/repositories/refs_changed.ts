import type { ServiceContext } from '../../context';
import { inTransaction } from '../../db/connection';
import type { Repository } from '../../git';
import { commitTitle } from '../../git/commits';
import { ZERO_SHA } from '../../git/names';
import type { RefUpdate } from '../../git/smart_http';
import { recordEvent } from '../core/events';
import { type Project, findProjectById } from '../core/projects';
import { isoTime } from '../core/time';
import { staleProjectStatistics } from '../core/project_statistics';
import { refreshMergeRequestsAfterPush } from './merge_requests';

/** Git::ProcessRefChangesService: more ref changes of one kind than this make one bulk event. */
const PUSH_EVENT_ACTIVITIES_LIMIT = 3;

interface PushData {
  commit_count: number;
  action: 'created' | 'removed' | 'pushed';
  ref_type: 'branch' | 'tag';
  commit_from: string | null;
  commit_to: string | null;
  ref: string;
  commit_title: string | null;
  ref_count: number | null;
}

/**
 * Everything that follows a change of branches or tags, whoever made it (a push, a commit or a
 * branch through the API, a merge, an import): the default branch of a first push, the project's
 * push events (which move `last_activity_at`), the README the project entity links, and the
 * merge requests on the moved branches (new versions, closed, merged, checked again).
 */
export async function afterRefsChanged(svc: ServiceContext, projectId: number, userId: number, updates: RefUpdate[], repo: Repository): Promise<void> {
  const changes = updates.filter((u) => u.oldSha !== u.newSha && /^refs\/(heads|tags)\//.test(u.ref));
  if (!changes.length) return;
  const before = findProjectById(svc, projectId);
  if (!before) return;
  await adoptDefaultBranch(svc, before, changes, repo);
  const project = findProjectById(svc, projectId)!;
  const data: PushData[] = [];
  for (const kind of ['branch', 'tag'] as const) {
    const ofKind = changes.filter((u) => u.ref.startsWith(kind === 'branch' ? 'refs/heads/' : 'refs/tags/'));
    if (ofKind.length > PUSH_EVENT_ACTIVITIES_LIMIT) data.push(bulkPushData(kind, ofKind.length));
    else for (const u of ofKind) data.push(await pushData(repo, project, u, kind));
  }
  const readme = await findReadme(repo, project.default_branch);
  inTransaction(svc.db, () => {
    for (const d of data) recordEvent(svc, { action: 'pushed', authorId: userId, projectId, targetType: null, data: { ...d } });
    recordReadme(svc, projectId, readme);
    staleProjectStatistics(svc, projectId);
  });
  await refreshMergeRequestsAfterPush(svc, project, repo, userId, changes);
}

/**
 * After branches arrived without a push (a migration fetching a repository): the default branch's
 * README, which the project entity links; no push events, as GitLab's importers make none.
 */
export async function afterRepositoryImported(svc: ServiceContext, projectId: number, repo: Repository): Promise<void> {
  const project = findProjectById(svc, projectId);
  if (!project) return;
  const readme = await findReadme(repo, project.default_branch);
  inTransaction(svc.db, () => {
    recordReadme(svc, projectId, readme);
    staleProjectStatistics(svc, projectId);
  });
}

function recordReadme(svc: ServiceContext, projectId: number, readme: string | null): void {
  svc.db
    .prepare(
      `INSERT INTO project_repositories (project_id, readme_path, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (project_id) DO UPDATE SET readme_path = excluded.readme_path, updated_at = excluded.updated_at`,
    )
    .run(projectId, readme, isoTime(svc.now()));
}

/** As Gitaly does: a repository whose HEAD names no branch adopts the first branch pushed to it. */
async function adoptDefaultBranch(svc: ServiceContext, project: Project, changes: RefUpdate[], repo: Repository): Promise<void> {
  const head = repo.headBranch() ?? project.default_branch;
  if (await repo.branchExists(head)) return;
  const created = changes.find((u) => u.ref.startsWith('refs/heads/') && u.newSha !== ZERO_SHA);
  if (!created) return;
  await setDefaultBranch(svc, project.id, repo, created.ref.slice('refs/heads/'.length));
}

/** HEAD and the project's default_branch name `branch` (which exists). */
export async function setDefaultBranch(svc: ServiceContext, projectId: number, repo: Repository, branch: string): Promise<void> {
  await repo.setHead(branch);
  svc.db.prepare('UPDATE projects SET default_branch = ? WHERE id = ?').run(branch, projectId);
}

async function pushData(repo: Repository, project: Project, u: RefUpdate, refType: 'branch' | 'tag'): Promise<PushData> {
  const created = u.oldSha === ZERO_SHA;
  const removed = u.newSha === ZERO_SHA;
  let count = 0;
  let title: string | null = null;
  if (!removed) {
    if (refType === 'tag') {
      count = 1;
    } else {
      // Git::BranchHooksService#commits: a new default branch counts all its commits, another new
      // branch what the default branch lacks, an update what it added.
      const name = u.ref.slice('refs/heads/'.length);
      const base = !created ? u.oldSha : name === project.default_branch ? null : await repo.refCommit(`refs/heads/${project.default_branch}`);
      count = await repo.countCommits([u.newSha], base ? [base] : []);
    }
    const commit = await repo.commit(await repo.resolveCommit(u.newSha) ?? '');
    title = commit ? truncate(commitTitle(commit.message), 70) : null;
  }
  return {
    commit_count: count,
    action: created ? 'created' : removed ? 'removed' : 'pushed',
    ref_type: refType,
    commit_from: created ? null : u.oldSha,
    commit_to: removed ? null : u.newSha,
    ref: u.ref.replace(/^refs\/(heads|tags)\//, ''),
    commit_title: title,
    ref_count: null,
  };
}

function bulkPushData(refType: 'branch' | 'tag', refCount: number): PushData {
  return { commit_count: 0, action: 'pushed', ref_type: refType, commit_from: null, commit_to: null, ref: '', commit_title: null, ref_count: refCount };
}

/** Rails' String#truncate: at most `n` characters, the last three "..." when cut. */
function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 3)}...`;
}

/** The README in the root of the default branch, markup first (Repository#readme_path). */
export async function findReadme(repo: Repository, branch: string): Promise<string | null> {
  const sha = await repo.refCommit(`refs/heads/${branch}`);
  if (!sha) return null;
  const entries = ((await repo.tree(sha, '', false)) ?? []).filter((e) => e.type === 'blob' && /^readme(\.[^/]*)?$/i.test(e.name));
  const markup = entries.find((e) => /\.(md|markdown|mdown|mkd|rdoc|adoc|asciidoc|org|textile|rst|creole|wiki|mediawiki|pod)$/i.test(e.name));
  return (markup ?? entries[0])?.path ?? null;
}
