import type { Area } from '../index';
import { notificationSettingsMigrations } from './schema';
import { registerNotificationSettingRoutes } from './routes';

/** Global, group and project notification levels and custom e-mail events. */
export const notificationSettingsArea: Area = {
  name: 'notification_settings',
  migrations: notificationSettingsMigrations,
  register(router) {
    registerNotificationSettingRoutes(router);
  },
};
