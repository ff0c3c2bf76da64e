import type { Area } from '../index';
import { serviceAccountMigrations } from './schema';
import { registerServiceAccountRoutes } from './routes';

/** Instance and group service accounts and their personal access tokens. */
export const serviceAccountsArea: Area = {
  name: 'service_accounts',
  migrations: serviceAccountMigrations,
  register(router) {
    registerServiceAccountRoutes(router);
  },
};
