import type { Area } from '../index';
import { registerSpamLogRoutes } from './routes';
import { spamMigrations } from './schema';

/** The local spam check with its CAPTCHA retry (opt-in), and the spam logs it keeps. */
export const spamArea: Area = {
  name: 'spam',
  migrations: spamMigrations,
  register(router) {
    registerSpamLogRoutes(router);
  },
};
