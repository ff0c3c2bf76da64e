import type { ServiceContext } from '../../context';
import { apiError } from '../../http/errors';
import { CommitRefusedError, RefRaceError, type FileAction, type Person, type Repository } from '../../git';
import { isSafeRevision, isValidNewRefName, ZERO_SHA } from '../../git/names';
import type { User } from '../core/users';
import type { Project } from '../core/projects';
import { afterRefsChanged } from './refs_changed';
import { committerOf } from './people';

/**
 * Moves a ref and runs what follows every ref change (events, default branch, MR versions).
 * A ref that moved meanwhile answers GitLab's 400, never overwrites someone else's push.
 */
export async function moveRef(svc: ServiceContext, project: Project, repo: Repository, user: User, ref: string, newSha: string, oldSha: string, raceMessage: string): Promise<void> {
  await swapRef(repo, ref, newSha, oldSha, raceMessage);
  await afterRefsChanged(svc, project.id, user.id, [{ ref, oldSha, newSha }], repo);
}

/** The ref move alone (compare-and-swap), for callers that record their own change before afterRefsChanged. */
export async function swapRef(repo: Repository, ref: string, newSha: string, oldSha: string, raceMessage: string): Promise<void> {
  try {
    await repo.updateRef(ref, newSha, oldSha);
  } catch (err) {
    if (err instanceof RefRaceError) throw apiError(400, raceMessage);
    throw err;
  }
}

export interface NewCommit {
  branch: string;
  startBranch?: string | null;
  startSha?: string | null;
  message: string;
  actions: FileAction[];
  authorName?: string | null;
  authorEmail?: string | null;
  force?: boolean;
}

/**
 * Commits::CreateService / Files::MultiService: one commit of `actions` on `branch`, started from
 * `start_branch`/`start_sha` (or the branch itself; an empty repository starts from nothing).
 * Every refusal is a 400 with GitLab's message. Returns the new commit id.
 */
export async function createCommit(svc: ServiceContext, project: Project, repo: Repository, user: User, c: NewCommit): Promise<string> {
  if (!isValidNewRefName(c.branch)) throw apiError(400, `${c.branch} is an invalid branch name`);
  const branchRef = `refs/heads/${c.branch}`;
  const current = await repo.refCommit(branchRef);
  const empty = repo.isEmpty();
  let parent: string | null;
  if (c.startSha) {
    parent = await repo.resolveCommit(c.startSha);
    if (!parent || !/^[0-9a-f]{7,40}$/.test(c.startSha)) throw apiError(400, `Cannot find start_sha '${c.startSha}'`);
  } else {
    const start = c.startBranch ?? c.branch;
    parent = await repo.refCommit(`refs/heads/${start}`);
    // validate_on_branch!: a start branch must exist unless the repository is still empty.
    if (!parent && !empty) throw apiError(400, 'You can only create or edit files when you are on a branch');
  }
  if (current && (c.startBranch || c.startSha) && (c.startBranch ?? null) !== c.branch && !c.force) {
    throw apiError(400, `A branch called '${c.branch}' already exists. Switch to that branch in order to make changes`);
  }
  await checkLastCommitIds(repo, parent, c.actions);
  const committer = committerOf(svc, user);
  const author: Person = { ...committer, name: c.authorName || committer.name, email: c.authorEmail || committer.email };
  let sha: string;
  try {
    sha = await repo.commitFiles({ parent, message: c.message, author, committer, actions: c.actions });
  } catch (err) {
    if (err instanceof CommitRefusedError) throw apiError(400, err.message);
    throw err;
  }
  await moveRef(svc, project, repo, user, branchRef, sha, current ?? ZERO_SHA, 'Could not update the branch: it changed while the commit was made');
  return sha;
}

/** `last_commit_id` of an update, move or delete: the file must not have changed since (Files::UpdateService). */
async function checkLastCommitIds(repo: Repository, parent: string | null, actions: FileAction[]): Promise<void> {
  for (const a of actions) {
    if (a.action === 'chmod' || !a.lastCommitId || !parent) continue;
    const path = a.action === 'move' ? a.previousPath : a.path;
    const last = (await repo.revList({ revs: [parent], path, max: 1 }))[0];
    if (last && last !== a.lastCommitId && !last.startsWith(a.lastCommitId)) {
      throw apiError(400, 'You are attempting to update a file that has changed since you started editing it.');
    }
  }
}

/**
 * Branches::CreateService. In an empty repository it first commits an empty README.md on the
 * default branch (create_default_branch_if_empty, before the name is validated), so a branch can
 * be made from it at once.
 */
export async function createBranch(svc: ServiceContext, project: Project, repo: Repository, user: User, name: string, ref: string): Promise<string> {
  if (repo.isEmpty()) {
    const actions: FileAction[] = [{ action: 'create', path: 'README.md', content: Buffer.alloc(0) }];
    await createCommit(svc, project, repo, user, { branch: project.default_branch || 'main', message: 'Add README.md', actions });
  }
  if (!isValidNewRefName(name)) throw apiError(400, 'Branch name is invalid');
  if (await repo.branchExists(name)) throw apiError(400, 'Branch already exists');
  const target = isSafeRevision(ref) ? await repo.resolveCommit(ref) : null;
  if (!target) throw apiError(400, 'Invalid reference name: ' + ref);
  await moveRef(svc, project, repo, user, `refs/heads/${name}`, target, ZERO_SHA, 'Branch already exists');
  return target;
}

/** Branches::DeleteService (the branch exists; the caller checked). */
export async function deleteBranch(svc: ServiceContext, project: Project, repo: Repository, user: User, name: string, sha: string): Promise<void> {
  if (name === project.default_branch) throw apiError(405, 'The default branch of a project cannot be deleted.');
  await moveRef(svc, project, repo, user, `refs/heads/${name}`, ZERO_SHA, sha, 'No such branch');
}

/** Tags::CreateService: a lightweight tag, or an annotated one when there is a message. */
export async function createTag(svc: ServiceContext, project: Project, repo: Repository, user: User, name: string, ref: string, message: string | null): Promise<void> {
  if (!ref) throw apiError(400, 'Target is empty');
  if (!isValidNewRefName(name)) throw apiError(400, 'Tag name invalid');
  if (await repo.refCommit(`refs/tags/${name}`)) throw apiError(400, `Tag ${name} already exists`);
  const target = isSafeRevision(ref) ? await repo.resolveCommit(ref) : null;
  if (!target) throw apiError(400, `Target ${ref} is invalid`);
  const text = message?.trim();
  const object = text ? await repo.createTagObject(name, target, text, committerOf(svc, user)) : target;
  await moveRef(svc, project, repo, user, `refs/tags/${name}`, object, ZERO_SHA, `Tag ${name} already exists`);
}

export async function deleteTag(svc: ServiceContext, project: Project, repo: Repository, user: User, name: string, objectId: string): Promise<void> {
  await moveRef(svc, project, repo, user, `refs/tags/${name}`, ZERO_SHA, objectId, 'No such tag');
}
