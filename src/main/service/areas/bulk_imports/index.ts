import type { Area } from '../index';
import { defineEntityJob } from './importer';
import { registerBulkImportRoutes } from './routes';
import { bulkImportMigrations } from './schema';

/** Group and project migration by direct transfer (`/bulk_imports`), run as durable jobs. */
export const bulkImportsArea: Area = {
  name: 'bulk_imports',
  migrations: bulkImportMigrations,
  register(router) {
    registerBulkImportRoutes(router);
  },
  start(svc) {
    defineEntityJob(svc);
  },
};
