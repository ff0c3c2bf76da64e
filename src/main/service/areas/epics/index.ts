import type { Area } from '../index';
import { epicMigrations } from './schema';
import { registerEpicRoutes } from './routes';
import { registerEpicIssueRoutes } from './epic_issues';

/** Group epics (the deprecated REST API), with to-dos, award emoji and notes. */
export const epicsArea: Area = {
  name: 'epics',
  migrations: epicMigrations,
  register(router) {
    registerEpicRoutes(router);
    registerEpicIssueRoutes(router);
  },
};
