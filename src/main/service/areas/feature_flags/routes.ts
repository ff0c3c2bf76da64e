import type { Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { ApiError, apiError } from '../../http/errors';
import { paginateArray } from '../../http/pagination';
import { Access, loadProject } from '../core/access';
import {
  createFlag, createUserList, deleteFlag, deleteUserList, findFlagByName, findUserListByIid, listFlags, listUserLists,
  readStrategies, updateFlag, updateUserList,
} from './feature_flags';
import { featureFlag, userList } from './entities';

/** lib/api/feature_flags.rb */
export function registerFeatureFlagRoutes(r: Router): void {
  r.get('/projects/:id/feature_flags', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = declared(rc.params, { scope: t.string().values(['enabled', 'disabled']) });
    return paginateArray(rc, listFlags(rc.svc, project, p.scope ?? undefined)).map((f) => featureFlag(rc.svc, f));
  });

  r.post('/projects/:id/feature_flags', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = declared(rc.params, {
      name: t.string().required(),
      version: t.string(),
      description: t.string(),
      active: t.boolean(),
    });
    const strategies = readStrategies(rc.params.strategies, false);
    if (p.version && p.version !== 'new_version_flag') throw apiError(400, 'Version is invalid');
    const flag = createFlag(rc, project, { name: p.name, description: p.description, active: p.active ?? undefined, strategies });
    return featureFlag(rc.svc, flag, true);
  });

  r.get('/projects/:id/feature_flags/:feature_flag_name', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    return featureFlag(rc.svc, findFlagByName(rc.svc, project, rc.path.feature_flag_name));
  });

  r.put('/projects/:id/feature_flags/:feature_flag_name', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = declared(rc.params, { name: t.string(), description: t.string(), active: t.boolean() });
    const strategies = readStrategies(rc.params.strategies, true);
    const flag = findFlagByName(rc.svc, project, rc.path.feature_flag_name);
    const updated = updateFlag(rc, project, flag, {
      name: p.name ?? undefined,
      description: p.description,
      active: p.active ?? undefined,
      strategies,
    });
    return featureFlag(rc.svc, updated, true);
  });

  r.delete('/projects/:id/feature_flags/:feature_flag_name', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const flag = findFlagByName(rc.svc, project, rc.path.feature_flag_name);
    const body = featureFlag(rc.svc, flag);
    deleteFlag(rc, project, flag);
    return body;
  });
}

/** API::FeatureFlagsUserLists formats plain-string errors as `{"message": "..."}`, Grape's included. */
function asMessage<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof ApiError && typeof err.body?.error === 'string') throw apiError(err.status, err.body.error);
    throw err;
  }
}

/** lib/api/feature_flags_user_lists.rb */
export function registerUserListRoutes(r: Router): void {
  r.get('/projects/:id/feature_flags_user_lists', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = asMessage(() => declared(rc.params, { search: t.string() }));
    return paginateArray(rc, listUserLists(rc.svc, project, p.search ?? undefined)).map((l) => userList(rc, l));
  });

  r.post('/projects/:id/feature_flags_user_lists', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = asMessage(() => declared(rc.params, { name: t.string().required(), user_xids: t.string().required() }));
    return userList(rc, createUserList(rc.svc, project, p.name, p.user_xids));
  });

  r.get('/projects/:id/feature_flags_user_lists/:iid', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    return userList(rc, findUserListByIid(rc.svc, project, rc.path.iid));
  });

  r.put('/projects/:id/feature_flags_user_lists/:iid', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = asMessage(() => declared(rc.params, { name: t.string(), user_xids: t.string() }));
    const list = findUserListByIid(rc.svc, project, rc.path.iid);
    return userList(rc, updateUserList(rc.svc, project, list, p.name ?? undefined, p.user_xids ?? undefined));
  });

  r.delete('/projects/:id/feature_flags_user_lists/:iid', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    deleteUserList(rc.svc, findUserListByIid(rc.svc, project, rc.path.iid));
    return undefined;
  });
}
