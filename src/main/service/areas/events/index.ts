import type { Area } from '../index';
import { registerEventRoutes } from './routes';

/** Activity events: reads what every area records with core's recordEvent. */
export const eventsArea: Area = {
  name: 'events',
  migrations: [],
  register(router) {
    registerEventRoutes(router);
  },
};
