import type { Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { notFound, recordNotFound } from '../../http/errors';
import { paginate } from '../../http/pagination';
import { Access, loadProject } from '../core/access';
import {
  countClientKeys,
  createClientKey,
  deleteClientKey,
  findClientKey,
  findSetting,
  listClientKeys,
  updateSetting,
  upsertSetting,
} from './error_tracking';
import { clientKey, errorTrackingSetting } from './entities';

const SETTINGS = '/projects/:id/error_tracking/settings';
const CLIENT_KEYS = '/projects/:id/error_tracking/client_keys';

/** lib/api/error_tracking/project_settings.rb and client_keys.rb: everything needs Maintainer. */
export function registerErrorTrackingRoutes(r: Router): void {
  r.get(SETTINGS, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const setting = findSetting(rc.svc, project);
    if (!setting) throw notFound('Error Tracking Setting');
    return errorTrackingSetting(setting);
  });

  r.patch(SETTINGS, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const p = declared(rc.params, { active: t.boolean().required().notBlank(), integrated: t.boolean() });
    const setting = findSetting(rc.svc, project);
    if (!setting) throw notFound('Error Tracking Setting');
    return errorTrackingSetting(updateSetting(rc.svc, setting, p.active, p.integrated ?? undefined));
  });

  r.put(SETTINGS, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const p = declared(rc.params, { active: t.boolean().required().notBlank(), integrated: t.boolean().required() });
    return errorTrackingSetting(upsertSetting(rc.svc, project, p.active, p.integrated));
  });

  r.get(CLIENT_KEYS, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    return paginate(rc, {
      count: () => countClientKeys(rc.svc, project),
      rows: (limit, offset) => listClientKeys(rc.svc, project, limit, offset),
    }).map((k) => clientKey(rc, k));
  });

  r.post(CLIENT_KEYS, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    return clientKey(rc, createClientKey(rc.svc, project));
  });

  // GitLab destroys the key and answers 200 with it.
  r.delete(`${CLIENT_KEYS}/:key_id`, (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const { key_id } = declared({ key_id: rc.path.key_id }, { key_id: t.integer().required() });
    const key = findClientKey(rc.svc, project, key_id);
    if (!key) throw recordNotFound();
    deleteClientKey(rc.svc, key);
    rc.status = 200;
    return clientKey(rc, key);
  });
}
