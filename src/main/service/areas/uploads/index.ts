import type { ServiceContext } from '../../context';
import type { Area } from '../index';
import { registerUploadRoutes } from './routes';
import { uploadMigrations } from './schema';
import { sweepOrphanedUploads } from './uploads';

/** Deleted projects leave their files behind (no hook reaches here); a sweep removes them. */
const SWEEP_INTERVAL_MS = 5 * 60_000;
const sweepers = new WeakMap<ServiceContext, NodeJS.Timeout>();

function sweepQuietly(svc: ServiceContext): void {
  try {
    sweepOrphanedUploads(svc);
  } catch (err) {
    console.error('[sandlab] upload sweep failed:', err);
  }
}

/** Markdown uploads of projects, streamed to `<dataDir>/uploads/`. */
export const uploadsArea: Area = {
  name: 'uploads',
  migrations: uploadMigrations,
  register(router) {
    registerUploadRoutes(router);
  },
  start(svc) {
    sweepQuietly(svc);
    sweepers.set(svc, setInterval(() => sweepQuietly(svc), SWEEP_INTERVAL_MS).unref());
  },
  stop(svc) {
    clearInterval(sweepers.get(svc));
    sweepers.delete(svc);
  },
};
