/**
 * The git adapter: the ONE place Sandlab runs the system's `git` (as GitLab's Gitaly does).
 * Nothing else in the service spawns git. Arguments are arrays (never a shell), refs and paths
 * are validated (names.ts) before they reach git, every command has a timeout, clones and pushes
 * stream both ways, and object reads go through a long-lived `git cat-file --batch` per repository.
 *
 * Using it (from any area, with `svc.git`):
 *
 *   svc.git.available / svc.git.reason      is git usable here; if not, why (Sandlab still starts;
 *                                           git is looked for after the start, or at its first use)
 *   await svc.git.ensure(project)           the project's bare repo, created on first use (throws
 *                                           GitMissingError when git is missing: the app answers 503)
 *   svc.git.repository(projectId)           the handle without touching the disk
 *   await svc.git.remove(projectId)         deletes the repo (after its project is gone)
 *
 *   const repo = await svc.git.ensure(project)
 *   await repo.resolveCommit('main')                    -> sha | null
 *   await repo.listRefs('heads' | 'tags')               -> RefInfo[] (name, commitId, tag message...)
 *   await repo.entryAt(sha, 'path/file') + repo.blob(id) -> a file's bytes at a commit
 *   await repo.tree(sha, 'dir', recursive)              -> TreeEntry[]
 *   await repo.commit(sha) / repo.revList({...})        -> history
 *   await repo.diff(fromSha, toSha)                     -> DiffFile[] (GitLab's diff fields)
 *   await repo.commitFiles({ parent, message, author, committer, actions }) then
 *   await repo.updateRef('refs/heads/x', newSha, oldSha)   (compare-and-swap; RefRaceError)
 *
 *   Imports and migrations: await svc.git.fetchFrom(repo, 'https://host/group/p.git', { token })
 *   fetches every branch and tag of a remote (the token travels in an HTTP header set through
 *   the process environment, never in the URL, arguments or logs), then set HEAD with
 *   repo.setHead(branch) and call afterRefsChanged (repositories area) to refresh MRs and events.
 *
 * Smart HTTP (clone/fetch/push) streams through smart_http.ts; the repositories area authenticates.
 */
import { join } from 'node:path';
import { GitMissingError, locateGit, locateGitSync, runGit, type GitLocation, type GitProgram } from './runtime';
import { Repository } from './repository';

export { GitMissingError, GitCommandError, GitTimeoutError } from './runtime';
export { Repository, CommitRefusedError, RefRaceError, EMPTY_TREE } from './repository';
export type { RefInfo, TreeEntry, FileAction, Person } from './repository';

export class Git {
  private readonly handles = new Map<number, Repository>();
  private found: GitLocation | null = null;
  private probing: Promise<GitLocation> | null = null;

  constructor(
    /** The git program to look for (SANDLAB_GIT, else `git` on PATH). */
    private readonly command: string,
    /** `<dataDir>/repositories` */
    readonly root: string,
    private readonly tmpDir: string,
  ) {}

  /**
   * Where git is. Looked for by probe() once the service listens (running `git --version` costs a
   * fork of the whole process: not on the way to the first answer); a use before that waits for it.
   */
  private get location(): GitLocation {
    return (this.found ??= locateGitSync(this.command));
  }

  /** Looks for git without blocking (once; unless a use already has); resolves with what was found. */
  probe(): Promise<GitLocation> {
    if (this.found) return Promise.resolve(this.found);
    return (this.probing ??= locateGit(this.command).then((found) => (this.found ??= found)));
  }

  get available(): boolean {
    return this.location.ok;
  }

  /** Why git cannot be used (null when it can). */
  get reason(): string | null {
    const location = this.location;
    return location.ok ? null : location.reason;
  }

  get version(): string | null {
    const location = this.location;
    return location.ok ? location.program.version : null;
  }

  private program(): GitProgram {
    const location = this.location;
    if (!location.ok) throw new GitMissingError(location.reason);
    return location.program;
  }

  /** `<root>/<project id>.git`, as a handle (nothing is created). */
  repository(projectId: number): Repository {
    let repo = this.handles.get(projectId);
    if (!repo) {
      repo = new Repository(this.program(), join(this.root, `${projectId}.git`), this.tmpDir);
      this.handles.set(projectId, repo);
    }
    return repo;
  }

  /** The project's repository, created (HEAD on its default branch) when it does not exist yet. */
  async ensure(project: { id: number; default_branch: string }): Promise<Repository> {
    const repo = this.repository(project.id);
    if (!repo.exists()) await repo.create(project.default_branch);
    return repo;
  }

  /** True when the project has a repository with at least one branch; never spawns git (but the first look for it). */
  hasCommits(projectId: number): boolean {
    if (!this.available) return false;
    return !this.repository(projectId).isEmpty();
  }

  async remove(projectId: number): Promise<void> {
    if (!this.available) return;
    const repo = this.repository(projectId);
    this.handles.delete(projectId);
    await repo.remove();
  }

  /**
   * Fetches every branch and tag of `url` into `repo` (imports, migrations). With a token, git
   * sends it as HTTP Basic `oauth2:<token>` (GitLab, and most hosts, take that); with a password,
   * as `<username>:<password>` (a provider's own scheme). Either way through config in the process
   * environment only.
   */
  async fetchFrom(
    repo: Repository,
    url: string,
    auth: RemoteAuth = {},
    timeoutMs = 30 * 60_000,
    /** A canceled job stops the fetch at once. */
    signal?: AbortSignal,
  ): Promise<void> {
    if (!/^https?:\/\//i.test(url)) throw new Error('only http(s) remotes can be fetched');
    const config = credentialConfig(auth);
    await repo.run(['fetch', '--quiet', '--no-write-fetch-head', '--prune', '--end-of-options', url, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*'], {
      config,
      timeoutMs,
      signal,
    });
  }

  /** The branch a remote's HEAD names (`git ls-remote --symref`), or null when it names none. */
  async remoteHead(url: string, auth: RemoteAuth = {}, signal?: AbortSignal): Promise<string | null> {
    if (!/^https?:\/\//i.test(url)) throw new Error('only http(s) remotes can be read');
    const r = await runGit(this.program(), ['ls-remote', '--symref', '--end-of-options', url, 'HEAD'], { config: credentialConfig(auth), timeoutMs: 120_000, signal });
    return /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(r.stdout.toString('utf8'))?.[1] ?? null;
  }

  close(): void {
    for (const repo of this.handles.values()) repo.close();
    this.handles.clear();
  }
}

/** Credentials for a remote: a token (as `oauth2:<token>` unless a username is given) or a username and password. */
export interface RemoteAuth {
  token?: string;
  username?: string;
  password?: string;
}

/** HTTP Basic credentials as per-process config (never in the URL, the arguments or a log). */
function credentialConfig(auth: RemoteAuth): [string, string][] {
  const credentials = auth.password !== undefined ? `${auth.username ?? ''}:${auth.password}` : auth.token ? `${auth.username ?? 'oauth2'}:${auth.token}` : null;
  return credentials ? [['http.extraHeader', `Authorization: Basic ${Buffer.from(credentials).toString('base64')}`]] : [];
}

/** The adapter for a data dir; git itself is looked for later (Git.probe, or the first use). */
export function openGit(dataDir: string, command: string): Git {
  return new Git(command, join(dataDir, 'repositories'), join(dataDir, 'tmp', 'git'));
}
