import type { Area } from '../index';
import { errorTrackingMigrations } from './schema';
import { registerErrorTrackingRoutes } from './routes';

/** Error tracking settings and client keys. */
export const errorTrackingArea: Area = {
  name: 'error_tracking',
  migrations: errorTrackingMigrations,
  register(router) {
    registerErrorTrackingRoutes(router);
  },
};
