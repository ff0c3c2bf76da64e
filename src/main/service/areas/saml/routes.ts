import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { badRequest, forbidden, unauthorized } from '../../http/errors';
import { inTransaction } from '../../db/connection';
import { ACCESS_LEVEL_VALUES, Access, canReadGroup, effectiveGroupAccess, loadGroup } from '../core/access';
import { type Namespace, findGroupByRef } from '../core/namespaces';
import { identity, samlGroupLink } from './entities';
import {
  createGroupLink,
  deleteGroupLink,
  deleteIdentity,
  findGroupLink,
  findIdentity,
  groupIdentities,
  groupLinks,
  updateIdentity,
} from './saml';

/**
 * Identities API: Owner (404 when the group is not visible, 403 below Owner). Only top-level
 * groups carry a SAML provider; a subgroup answers 400 as a group without one does.
 */
function loadSamlGroup(rc: RequestContext): Namespace {
  rc.requireUser();
  const group = loadGroup(rc);
  if (effectiveGroupAccess(rc.svc, rc.user, group) < Access.OWNER) throw forbidden();
  if (group.parent_id !== null) throw badRequest();
  return group;
}

/** SAML group links answer every permission failure, an unknown group included, with 401. */
function loadLinkGroup(rc: RequestContext): Namespace {
  const group = findGroupByRef(rc.svc, rc.path.id);
  if (!group || !rc.user || !canReadGroup(rc.svc, rc.user, group) || effectiveGroupAccess(rc.svc, rc.user, group) < Access.OWNER) {
    throw unauthorized();
  }
  return group;
}

export function registerSamlRoutes(r: Router): void {
  r.get('/groups/:id/saml/identities', (rc) => groupIdentities(rc.svc, loadSamlGroup(rc)).map(identity));

  r.get('/groups/:id/saml/:uid', (rc) => identity(findIdentity(rc.svc, loadSamlGroup(rc), rc.path.uid)));

  r.patch('/groups/:id/saml/:uid', (rc) => {
    // Grape runs the before filter (authenticate, Owner) ahead of parameter validation.
    const group = loadSamlGroup(rc);
    const p = declared(rc.params, { extern_uid: t.string().required() });
    const row = findIdentity(rc.svc, group, rc.path.uid);
    return identity(inTransaction(rc.svc.db, () => updateIdentity(rc.svc, row, p.extern_uid)));
  });

  r.delete('/groups/:id/saml/:uid', (rc) => {
    const group = loadSamlGroup(rc);
    deleteIdentity(rc.svc, findIdentity(rc.svc, group, rc.path.uid));
    return undefined;
  });

  // --- SAML group links --------------------------------------------------------------------------

  r.get('/groups/:id/saml_group_links', (rc) => groupLinks(rc.svc, loadLinkGroup(rc)).map(samlGroupLink));

  r.get('/groups/:id/saml_group_links/:saml_group_name', (rc) => {
    const group = loadLinkGroup(rc);
    const p = declared(rc.params, { provider: t.string() });
    return samlGroupLink(findGroupLink(rc.svc, group, rc.path.saml_group_name, p.provider ?? undefined));
  });

  r.post('/groups/:id/saml_group_links', (rc) => {
    const group = loadLinkGroup(rc);
    const p = declared(rc.params, {
      saml_group_name: t.string().required(),
      access_level: t.integer().required().values(ACCESS_LEVEL_VALUES),
      member_role_id: t.integer(),
      provider: t.string(),
    });
    const link = inTransaction(rc.svc.db, () =>
      createGroupLink(rc, group, {
        name: p.saml_group_name,
        accessLevel: p.access_level,
        memberRoleId: p.member_role_id ?? null,
        provider: p.provider ?? null,
      }),
    );
    return samlGroupLink(link);
  });

  r.delete('/groups/:id/saml_group_links/:saml_group_name', (rc) => {
    const group = loadLinkGroup(rc);
    const p = declared(rc.params, { provider: t.string() });
    deleteGroupLink(rc.svc, findGroupLink(rc.svc, group, rc.path.saml_group_name, p.provider ?? undefined));
    return undefined;
  });
}
