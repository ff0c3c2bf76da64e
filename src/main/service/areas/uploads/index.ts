import type { Area } from '../index';
import { registerUploadRoutes } from './routes';
import { uploadMigrations } from './schema';
import { sweepOrphanedUploads } from './uploads';

/** Markdown uploads of projects, streamed to `<dataDir>/uploads/`. */
export const uploadsArea: Area = {
  name: 'uploads',
  migrations: uploadMigrations,
  register(router) {
    registerUploadRoutes(router);
  },
  start(svc) {
    sweepOrphanedUploads(svc);
  },
};
