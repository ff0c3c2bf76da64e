import type { Area } from '../index';
import { draftNotesMigrations } from './schema';
import { registerDraftNoteRoutes } from './routes';

/** Merge request draft notes: private until published into the merge request's discussions. */
export const draftNotesArea: Area = {
  name: 'draft_notes',
  migrations: draftNotesMigrations,
  register(router) {
    registerDraftNoteRoutes(router);
  },
};
