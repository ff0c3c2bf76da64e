import type { ServiceContext } from '../../context';
import { ZERO_SHA } from '../../git/names';
import type { User } from '../core/users';
import type { Project } from '../core/projects';
import { afterRefsChanged } from './refs_changed';
import { committerOf } from './people';

/**
 * A new project's repository (Projects::CreateService): created at once where git is available
 * (otherwise on first use), and with `initialize_with_readme` a first commit of README.md on the
 * default branch, authored by the creator.
 */
export async function createProjectRepository(svc: ServiceContext, project: Project, user: User, withReadme: boolean): Promise<void> {
  if (!svc.git.available && !withReadme) return;
  const repo = await svc.git.ensure(project);
  if (!withReadme) return;
  const person = committerOf(svc, user);
  const readme = `# ${project.name}\n\n${project.description ?? ''}`.trimEnd() + '\n';
  const sha = await repo.commitFiles({
    parent: null,
    message: 'Initial commit',
    author: person,
    committer: person,
    actions: [{ action: 'create', path: 'README.md', content: Buffer.from(readme) }],
  });
  const ref = `refs/heads/${project.default_branch}`;
  await repo.updateRef(ref, sha, ZERO_SHA);
  await afterRefsChanged(svc, project.id, user.id, [{ ref, oldSha: ZERO_SHA, newSha: sha }], repo);
}

/** Deletes the repositories of projects that are gone (one project, or a group's or user's), as the trigger noted them. */
export async function removeDeletedRepositories(svc: ServiceContext): Promise<void> {
  const ids = (svc.db.prepare('SELECT project_id FROM deleted_project_repositories').all() as { project_id: number }[]).map((r) => r.project_id);
  // Asked only when there is something to remove: this sweep also runs at start, before git is looked for.
  if (!ids.length || !svc.git.available) return;
  for (const id of ids) {
    await svc.git.remove(id);
    svc.db.prepare('DELETE FROM deleted_project_repositories WHERE project_id = ?').run(id);
  }
}

/** Removal runs after the request that deleted projects, and every few seconds for any other path. */
export function startRemovingDeletedRepositories(svc: ServiceContext): () => void {
  let running = false;
  const sweep = (): void => {
    if (running) return;
    running = true;
    removeDeletedRepositories(svc)
      .catch((err) => console.error('[sandlab] removing repositories:', err))
      .finally(() => (running = false));
  };
  sweep();
  const timer = setInterval(sweep, 5000);
  timer.unref();
  return () => clearInterval(timer);
}
