import { GitCommandError, GitMissingError, GitTimeoutError, type Repository } from '../../../git';
import { ZERO_SHA } from '../../../git/names';
import type { RefUpdate } from '../../../git/smart_http';
import { afterRefsChanged, setDefaultBranch } from '../../repositories/refs_changed';
import type { ImportRun } from './run';

/**
 * The first stage of every importer (GitLab's RepositoryImporter): fetches the upstream
 * repository's branches and tags into the project's bare repository with the import's
 * credentials, puts HEAD on the upstream default branch, then records the change as any push is
 * (events, README). A project whose repository already has branches (a resumed import) is left as
 * it is. Credentials go to git through its environment only, never the URL or its arguments.
 */

/** How git's HTTP Basic credentials are made of the import's: GitHub takes the token as username. */
export interface CloneAuth {
  username: string;
  password: string;
}

/** The repository stage failed: the import ends with this readable message (GitLab's wording). */
export class RepositoryImportError extends Error {}

export async function importRepository(run: ImportRun, auth: CloneAuth): Promise<void> {
  const url = run.project.import_url;
  if (!url) return;
  await run.job.step('repository', async (signal) => {
    const project = run.project;
    if (run.svc.git.hasCommits(project.id)) return;
    try {
      const repo = await run.svc.git.ensure(project);
      const before = await refSnapshot(repo);
      await run.svc.git.fetchFrom(repo, url, auth, undefined, signal);
      await followRemoteHead(run, repo, url, auth, signal);
      const after = await refSnapshot(repo);
      const updates = refUpdates(before, after, run.project.default_branch);
      const pusher = run.row.user_id ?? project.creator_id;
      if (pusher !== null) await afterRefsChanged(run.svc, project.id, pusher, updates, repo);
      run.job.progress({ message: `repository (${Object.keys(after).length} refs)` });
    } catch (err) {
      if (err instanceof GitCommandError || err instanceof GitTimeoutError || err instanceof GitMissingError) {
        throw new RepositoryImportError(`Failed to import the repository: ${cloneFailure(err)}`);
      }
      throw err;
    }
  });
}

/**
 * HEAD stays on the project's default branch (GitHub's and Bitbucket Cloud's API named it) when
 * the upstream has it; otherwise it follows the upstream's own HEAD, as a clone does.
 */
async function followRemoteHead(run: ImportRun, repo: Repository, url: string, auth: CloneAuth, signal: AbortSignal): Promise<void> {
  const project = run.project;
  if (await repo.branchExists(project.default_branch)) return;
  const head = await run.svc.git.remoteHead(url, auth, signal);
  if (!head || !(await repo.branchExists(head))) return;
  await setDefaultBranch(run.svc, project.id, repo, head);
}

/** Full ref name -> the object it names (the tag object for an annotated tag, as a push reports it). */
async function refSnapshot(repo: Repository): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const kind of ['heads', 'tags'] as const) for (const r of await repo.listRefs(kind)) out[r.ref] = r.tagObjectId ?? r.commitId;
  return out;
}

/** What the fetch changed, the default branch first (a repository without HEAD's branch adopts the first created one). */
function refUpdates(before: Record<string, string>, after: Record<string, string>, defaultBranch: string): RefUpdate[] {
  const refs = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const updates = refs.map((ref) => ({ ref, oldSha: before[ref] ?? ZERO_SHA, newSha: after[ref] ?? ZERO_SHA })).filter((u) => u.oldSha !== u.newSha);
  const rank = (u: RefUpdate): number => (u.ref === `refs/heads/${defaultBranch}` ? 0 : u.ref.startsWith('refs/heads/') ? 1 : 2);
  return updates.sort((a, b) => rank(a) - rank(b) || a.ref.localeCompare(b.ref));
}

/** git's own last word, with any credentials in a URL it quotes left out. */
function cloneFailure(err: Error): string {
  const reason = err instanceof GitCommandError ? (err.stderr.trim().split('\n').filter(Boolean).pop() ?? err.message) : err.message;
  return reason.replace(/\/\/[^/@\s]+@/g, '//');
}
