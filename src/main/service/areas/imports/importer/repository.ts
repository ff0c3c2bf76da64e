import { GitCommandError, GitMissingError, GitTimeoutError, type Repository } from '../../../git';
import { afterRepositoryImported, setDefaultBranch } from '../../repositories/refs_changed';
import type { ImportRun } from './run';

/**
 * The first stage of every importer (GitLab's RepositoryImporter): fetches the upstream
 * repository's branches and tags into the project's bare repository with the import's
 * credentials and puts HEAD on the upstream default branch. As on GitLab, an import is no push:
 * no push events, only the README the project links. A project whose repository already has
 * branches (a resumed import) is left as it is. Credentials reach git through its environment
 * only, never the URL or its arguments.
 */

/** git's HTTP Basic credentials, made of the import's: GitHub takes the token as username. */
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
      await run.svc.git.fetchFrom(repo, url, auth, undefined, signal);
      await followRemoteHead(run, repo, url, auth, signal);
      await afterRepositoryImported(run.svc, project.id, repo);
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
  if (head && (await repo.branchExists(head))) await setDefaultBranch(run.svc, project.id, repo, head);
}

/** git's own last word, with any credentials in a URL it quotes left out. */
function cloneFailure(err: Error): string {
  const reason = err instanceof GitCommandError ? (err.stderr.trim().split('\n').filter(Boolean).pop() ?? err.message) : err.message;
  return reason.replace(/\/\/[^/@\s]+@/g, '//');
}
