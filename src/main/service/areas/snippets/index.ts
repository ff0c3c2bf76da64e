import type { Area } from '../index';
import { registerSnippetRoutes } from './routes';
import { snippetMigrations } from './schema';

/** Project and personal snippets: versioned files, raw downloads, notes and discussions. */
export const snippetsArea: Area = {
  name: 'snippets',
  migrations: snippetMigrations,
  register(router) {
    registerSnippetRoutes(router);
  },
};
