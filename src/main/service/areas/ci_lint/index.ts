import type { Area } from '../index';
import { ciLintMigrations } from './schema';
import { registerCiLintRoutes } from './routes';

/** CI configuration lint (project POST/GET, the legacy instance POST), reading the project's repository. */
export const ciLintArea: Area = {
  name: 'ci_lint',
  migrations: ciLintMigrations,
  register(router) {
    registerCiLintRoutes(router);
  },
};
