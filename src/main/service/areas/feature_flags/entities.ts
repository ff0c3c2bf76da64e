import type { ServiceContext } from '../../context';
import type { EntityContext } from '../core/entities';
import { findNamespaceById } from '../core/namespaces';
import { findProjectById } from '../core/projects';
import { type FlagRow, type UserListRow, findUserListById, scopesOf, strategiesOf } from './feature_flags';

/**
 * API::Entities::FeatureFlag (new-version flags only; `scopes` is the legacy field, always []).
 * A strategy's `user_list` is null when unset; the reference's create and update responses leave
 * an unset one out (`omitNullUserList`).
 */
export function featureFlag(svc: ServiceContext, f: FlagRow, omitNullUserList = false): Record<string, unknown> {
  return {
    name: f.name,
    description: f.description,
    active: !!f.active,
    version: 'new_version_flag',
    created_at: f.created_at,
    updated_at: f.updated_at,
    scopes: [],
    strategies: strategiesOf(svc, f.id).map((s) => {
      const out: Record<string, unknown> = {
        id: s.id,
        name: s.name,
        parameters: JSON.parse(s.parameters) as unknown,
        scopes: scopesOf(svc, s.id).map((sc) => ({ id: sc.id, environment_scope: sc.environment_scope })),
      };
      const list = s.user_list_id != null ? findUserListById(svc, s.user_list_id) : undefined;
      if (list) out.user_list = { id: list.id, iid: list.iid, name: list.name, user_xids: list.user_xids };
      else if (!omitNullUserList) out.user_list = null;
      return out;
    }),
  };
}

/** API::Entities::FeatureFlag::UserList */
export function userList(ec: EntityContext, l: UserListRow): Record<string, unknown> {
  const project = findProjectById(ec.svc, l.project_id)!;
  const ns = findNamespaceById(ec.svc, project.namespace_id)!;
  const path = `/${ns.full_path}/${project.path}/-/feature_flags_user_lists/${l.iid}`;
  return {
    id: l.id,
    iid: l.iid,
    name: l.name,
    user_xids: l.user_xids,
    project_id: l.project_id,
    created_at: l.created_at,
    updated_at: l.updated_at,
    path,
    edit_path: `${path}/edit`,
  };
}
