import type { Area } from '../index';
import { labelMigrations } from './schema';
import { registerLabelRoutes } from './routes';

/** Group labels (and project labels, from the same model) with subscriptions and real counts. */
export const labelsArea: Area = {
  name: 'labels',
  migrations: labelMigrations,
  register(router) {
    registerLabelRoutes(router);
  },
};
