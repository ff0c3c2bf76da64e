import { tokenFilterParams, tokenListQuery } from '../core/tokens';
import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { apiError, badRequest, forbidden, notFound } from '../../http/errors';
import { paginateSql } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { Access, effectiveGroupAccess, loadGroup } from '../core/access';
import type { Namespace } from '../core/namespaces';
import { personalAccessToken } from '../core/entities';
import { type PersonalAccessToken, type User, TOKEN_SCOPES, findTokenById, findUserById, insertToken } from '../core/users';
import { revokeToken, rotate, userKeyset } from '../core/routes/users';
import { addDays, isoDate } from '../core/time';
import { serviceAccount, serviceAccountBasic } from './entities';
import {
  SERVICE_ACCOUNT_TYPE,
  createServiceAccount,
  deleteServiceAccount,
  loadGroupServiceAccount,
  serviceAccountsQuery,
  updateServiceAccount,
} from './service_accounts';

/** The maximum token lifetime (GitLab's default `max_personal_access_token_lifetime`). */
const MAX_TOKEN_LIFETIME_DAYS = 365;

const listParams = {
  order_by: t.string().values(['id', 'username']).default('id'),
  sort: t.string().values(['asc', 'desc']).default('desc'),
};
const accountParams = { name: t.string(), username: t.string(), email: t.string() };

/** A top-level group the caller may administer service accounts of (Owner or admin). */
function loadServiceAccountGroup(rc: RequestContext): Namespace {
  rc.requireUser();
  const group = loadGroup(rc);
  if (effectiveGroupAccess(rc.svc, rc.user, group) < Access.OWNER) throw forbidden();
  if (group.parent_id !== null) throw badRequest('Group must be a top-level group');
  return group;
}

function listAccounts(rc: RequestContext, groupId: number | null): User[] {
  const q = declared(rc.params, listParams);
  const { sql, args, order } = serviceAccountsQuery(groupId, q.order_by, q.sort);
  return paginateSql<User>(rc, rc.svc.db, { select: 'u.*', from: sql, args, order, keyset: userKeyset(q.order_by, q.sort, ['id', 'username'], 'u') });
}

/** The service account's token named by `:token_id`; another user's token is "not found". */
function loadAccountToken(rc: RequestContext, user: User): PersonalAccessToken {
  const token = /^\d+$/.test(rc.path.token_id) ? findTokenById(rc.svc, Number(rc.path.token_id)) : undefined;
  if (!token || token.user_id !== user.id) throw notFound();
  return token;
}

export function registerServiceAccountRoutes(r: Router): void {
  // --- instance service accounts (administrators) -------------------------------------------

  r.get('/service_accounts', (rc) => {
    rc.requireAdmin();
    return listAccounts(rc, null).map(serviceAccountBasic);
  });

  r.post('/service_accounts', (rc) => {
    rc.requireAdmin();
    const p = declared(rc.params, accountParams);
    return serviceAccount(inTransaction(rc.svc.db, () => createServiceAccount(rc, p, null)));
  });

  r.patch('/service_accounts/:id', (rc) => {
    rc.requireAdmin();
    const user = /^\d+$/.test(rc.path.id) ? findUserById(rc.svc, Number(rc.path.id)) : undefined;
    if (!user) throw notFound('User');
    if (user.user_type !== SERVICE_ACCOUNT_TYPE) throw badRequest('User is not of type Service Account');
    const p = declared(rc.params, accountParams);
    return serviceAccount(inTransaction(rc.svc.db, () => updateServiceAccount(rc, user, p)));
  });

  // --- group service accounts (Owners of a top-level group) ----------------------------------

  const base = '/groups/:id/service_accounts';

  r.get(base, (rc) => {
    const group = loadServiceAccountGroup(rc);
    return listAccounts(rc, group.id).map(serviceAccount);
  });

  r.post(base, (rc) => {
    const group = loadServiceAccountGroup(rc);
    const p = declared(rc.params, accountParams);
    // Provisioned by the group, not a member of it: GitLab's create service adds no membership
    // (Owners add the account to groups and projects through the members API).
    return serviceAccount(inTransaction(rc.svc.db, () => createServiceAccount(rc, p, group)));
  });

  r.get(`${base}/:user_id`, (rc) => serviceAccount(loadGroupServiceAccount(rc, loadServiceAccountGroup(rc))));

  r.patch(`${base}/:user_id`, (rc) => {
    const group = loadServiceAccountGroup(rc);
    const user = loadGroupServiceAccount(rc, group);
    const p = declared(rc.params, accountParams);
    return serviceAccount(inTransaction(rc.svc.db, () => updateServiceAccount(rc, user, p)));
  });

  r.delete(`${base}/:user_id`, (rc) => {
    const group = loadServiceAccountGroup(rc);
    const user = loadGroupServiceAccount(rc, group);
    const p = declared(rc.params, { hard_delete: t.boolean().default(false) });
    inTransaction(rc.svc.db, () => deleteServiceAccount(rc, user, p.hard_delete));
    return undefined;
  });

  // --- their personal access tokens ----------------------------------------------------------

  const tokens = `${base}/:user_id/personal_access_tokens`;

  r.get(tokens, (rc) => {
    const group = loadServiceAccountGroup(rc);
    const user = loadGroupServiceAccount(rc, group);
    const f = declared(rc.params, tokenFilterParams());
    const { sql, args, order } = tokenListQuery(rc.svc, user.id, f);
    return paginateSql<PersonalAccessToken>(rc, rc.svc.db, { select: '*', from: sql, args, order }).map((row) => personalAccessToken(rc.svc, row));
  });

  const createToken = (rc: RequestContext): unknown => {
    const group = loadServiceAccountGroup(rc);
    const user = loadGroupServiceAccount(rc, group);
    const p = declared(rc.params, {
      name: t.string().required(),
      scopes: t.array(t.string()).required().values(TOKEN_SCOPES),
      description: t.string(),
      expires_at: t.date(),
    });
    const today = isoDate(rc.svc.now());
    const expiresAt = p.expires_at ?? isoDate(addDays(rc.svc.now(), MAX_TOKEN_LIFETIME_DAYS));
    if (expiresAt <= today) throw apiError(422, 'Expires at must be in the future');
    if (expiresAt > isoDate(addDays(rc.svc.now(), MAX_TOKEN_LIFETIME_DAYS))) {
      throw apiError(422, `Expires at must be before ${isoDate(addDays(rc.svc.now(), MAX_TOKEN_LIFETIME_DAYS + 1))}`);
    }
    const { row, value } = inTransaction(rc.svc.db, () =>
      insertToken(rc.svc, { userId: user.id, name: p.name, scopes: p.scopes, expiresAt, description: p.description ?? null }),
    );
    rc.status = 201;
    return personalAccessToken(rc.svc, row, value);
  };
  r.post(tokens, createToken);

  r.delete(`${tokens}/:token_id`, (rc) => {
    const group = loadServiceAccountGroup(rc);
    const user = loadGroupServiceAccount(rc, group);
    const token = loadAccountToken(rc, user);
    revokeToken(rc, token.id);
    return undefined;
  });

  r.post(`${tokens}/:token_id/rotate`, (rc) => {
    const group = loadServiceAccountGroup(rc);
    const user = loadGroupServiceAccount(rc, group);
    return rotate(rc, loadAccountToken(rc, user));
  });
}

