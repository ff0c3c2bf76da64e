import type { Router } from '../../http/route';
import { applicationSettings, updateApplicationSettings } from './settings';

/** `GET`/`PUT /application/settings` (lib/api/settings.rb): administrators only. */
export function registerApplicationSettingsRoutes(r: Router): void {
  r.get('/application/settings', (rc) => {
    rc.requireAdmin();
    return applicationSettings(rc.svc);
  });
  r.put('/application/settings', (rc) => {
    rc.requireAdmin();
    return updateApplicationSettings(rc.svc, rc.params);
  });
}
