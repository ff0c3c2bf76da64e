import type { Area } from '../index';
import { registerMarkdownRoutes } from './routes';

/** POST /markdown: GitLab Flavored Markdown rendered and sanitized. */
export const markdownArea: Area = {
  name: 'markdown',
  migrations: [],
  register(router) {
    registerMarkdownRoutes(router);
  },
};
