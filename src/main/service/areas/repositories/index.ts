import type { Area } from '../index';
import type { ServiceContext } from '../../context';
import { repositoryMigrations } from './schema';
import { registerGitHttpRoutes } from './git_http';
import { startRemovingDeletedRepositories } from './lifecycle';

const stopSweeping = new WeakMap<ServiceContext, () => void>();

/** Projects' git repositories: smart HTTP, the repository API, and what follows a push. */
export const repositoriesArea: Area = {
  name: 'repositories',
  migrations: repositoryMigrations,
  register(router) {
    registerGitHttpRoutes(router);
  },
  start(svc) {
    stopSweeping.set(svc, startRemovingDeletedRepositories(svc));
  },
  stop(svc) {
    stopSweeping.get(svc)?.();
  },
};
