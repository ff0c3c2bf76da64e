import type { Area } from '../index';
import { registerImportRoutes } from './routes';
import { importMigrations } from './schema';
import { defineImportJobs } from './jobs';

/** Repository imports from the hosting providers (GitHub, Bitbucket Server, Bitbucket Cloud) and gists. */
export const importsArea: Area = {
  name: 'imports',
  migrations: importMigrations,
  register(router) {
    registerImportRoutes(router);
  },
  start(svc) {
    defineImportJobs(svc);
  },
};
