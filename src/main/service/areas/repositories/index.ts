import type { Area } from '../index';
import type { ServiceContext } from '../../context';
import { repositoryMigrations } from './schema';
import { registerGitHttpRoutes } from './git_http';
import { registerBranchRoutes } from './routes/branches';
import { registerTagRoutes } from './routes/tags';
import { registerCommitRoutes } from './routes/commits';
import { registerCommitNoteRoutes } from './routes/commit_notes';
import { registerCommitStatusRoutes } from './routes/commit_statuses';
import { registerFileRoutes } from './routes/files';
import { registerRepositoryRoutes } from './routes/repository';
import { registerMergeRequestDiffRoutes } from './routes/merge_requests';
import { startRemovingDeletedRepositories } from './lifecycle';

const stopSweeping = new WeakMap<ServiceContext, () => void>();

/** Projects' git repositories: smart HTTP, the repository API, merge requests' diffs and merges, and what follows a push. */
export const repositoriesArea: Area = {
  name: 'repositories',
  migrations: repositoryMigrations,
  register(router) {
    registerGitHttpRoutes(router);
    registerBranchRoutes(router);
    registerTagRoutes(router);
    registerCommitRoutes(router);
    registerCommitNoteRoutes(router);
    registerCommitStatusRoutes(router);
    registerFileRoutes(router);
    registerRepositoryRoutes(router);
    registerMergeRequestDiffRoutes(router);
  },
  start(svc) {
    stopSweeping.set(svc, startRemovingDeletedRepositories(svc));
  },
  stop(svc) {
    stopSweeping.get(svc)?.();
  },
};
