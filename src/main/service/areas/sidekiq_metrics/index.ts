import type { Area } from '../index';
import { registerSidekiqMetricsRoutes } from './routes';

/** The Sidekiq Metrics API (administrators): Sandlab's durable job runner seen as GitLab's Sidekiq. */
export const sidekiqMetricsArea: Area = {
  name: 'sidekiq_metrics',
  migrations: [],
  register(router) {
    registerSidekiqMetricsRoutes(router);
  },
};
