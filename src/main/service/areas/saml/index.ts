import type { Area } from '../index';
import { samlMigrations } from './schema';
import { registerSamlRoutes } from './routes';

/** SAML identities of a group and SAML group links. */
export const samlArea: Area = {
  name: 'saml',
  migrations: samlMigrations,
  register(router) {
    registerSamlRoutes(router);
  },
};
