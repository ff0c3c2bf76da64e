import type { Area } from '../index';
import { featureFlagsMigrations } from './schema';
import { registerFeatureFlagRoutes, registerUserListRoutes } from './routes';

/** Project feature flags (new-version flags with strategies and scopes) and their user lists. */
export const featureFlagsArea: Area = {
  name: 'feature_flags',
  migrations: featureFlagsMigrations,
  register(router) {
    registerFeatureFlagRoutes(router);
    registerUserListRoutes(router);
  },
};
