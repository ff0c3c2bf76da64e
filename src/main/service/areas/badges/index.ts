import type { Area } from '../index';
import { registerBadgeRoutes } from './routes';
import { badgeMigrations } from './schema';

/** Project and group badges with their placeholders rendered. */
export const badgesArea: Area = {
  name: 'badges',
  migrations: badgeMigrations,
  register(router) {
    registerBadgeRoutes(router);
  },
};
