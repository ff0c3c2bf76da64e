import type { Area } from '../index';
import { registerAccessRequestRoutes } from './routes';

/** Access requests: rows of core's members table with `requested_at` set. */
export const accessRequestsArea: Area = {
  name: 'access_requests',
  migrations: [],
  register(router) {
    registerAccessRequestRoutes(router);
  },
};
