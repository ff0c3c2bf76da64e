import type { Area } from '../index';
import { registerApplicationSettingsRoutes } from './routes';
import { applicationSettingsMigrations } from './schema';
import { ensureApplicationSettings, rateLimits } from './settings';

/** Instance-wide application settings (admin), read by the areas that honour them. */
export const applicationSettingsArea: Area = {
  name: 'application_settings',
  migrations: applicationSettingsMigrations,
  register(router) {
    registerApplicationSettingsRoutes(router);
  },
  start(svc) {
    ensureApplicationSettings(svc);
    svc.rateLimits = () => rateLimits(svc);
  },
};
