import type { Area } from '../index';
import { alertMigrations } from './schema';
import { registerAlertRoutes } from './routes';

/** Alert intake (generic HTTP and metrics receivers), integrations and alerts. */
export const alertsArea: Area = {
  name: 'alerts',
  migrations: alertMigrations,
  register(router) {
    registerAlertRoutes(router);
  },
};
