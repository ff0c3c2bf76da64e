import type { Area } from '../index';
import { registerAwardEmojiRoutes } from './routes';

/** Award emoji (reactions) on issues, merge requests, project snippets and their notes (core holds the table). */
export const awardEmojiArea: Area = {
  name: 'award_emoji',
  migrations: [],
  register(router) {
    registerAwardEmojiRoutes(router);
  },
};
