import type { Area } from '../index';
import { registerDiscussionRoutes } from './routes';

/** Threads on issues and merge requests, over core's notes (draft notes publish into them). */
export const discussionsArea: Area = {
  name: 'discussions',
  migrations: [],
  register(router) {
    registerDiscussionRoutes(router);
  },
};
