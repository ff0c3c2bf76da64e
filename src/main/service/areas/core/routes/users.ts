import type { Router } from '../../../http/route';
import { declared, requireAtLeastOne, t } from '../../../http/params';
import { ApiError, badRequest, conflict, forbidden, grapeError, notFound, recordNotFound, unauthorized, validationError } from '../../../http/errors';
import { paginate } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { createUser } from '../accounts';
import { userBasic, userFor, userPublic, personalAccessToken } from '../entities';
import {
  type PersonalAccessToken,
  type User,
  TOKEN_SCOPES,
  findTokenById,
  findUserByIdOrUsername,
  findUserByEmail,
  findUserByUsername,
  hashPassword,
  insertToken,
} from '../users';
import { addDays, isoDate, isoTime } from '../time';
import { findGroupByRef } from '../namespaces';
import { addFilter } from '../../../db/filter';
import type { RequestContext } from '../../../http/route';
import { tokenFilterParams, tokenListQuery } from '../tokens';
import { checkUnmodifiedSince } from '../../../http/conditional';

const READ_USER = ['read_api', 'read_user'];
const PASSWORD_PARAMS = ['password', 'reset_password', 'force_random_password'];
const AT_LEAST_PASSWORD = 'password, reset_password, force_random_password are missing, at least one parameter must be provided';

/** Users, the current user, and personal access tokens. */
export function registerUserRoutes(r: Router): void {
  r.get('/version', () => ({ version: SANDLAB_GITLAB_VERSION, revision: 'sandlab' }), { scopes: READ_USER });
  r.get(
    '/metadata',
    () => ({
      version: SANDLAB_GITLAB_VERSION,
      revision: 'sandlab',
      kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
      enterprise: true,
    }),
    { scopes: READ_USER },
  );

  r.get('/user', (rc) => userFor(rc, rc.requireUser()), { scopes: READ_USER });

  r.get(
    '/users',
    (rc) => {
      const q = declared(rc.params, {
        username: t.string(),
        search: t.string(),
        active: t.boolean(),
        blocked: t.boolean(),
        external: t.boolean(),
        exclude_external: t.boolean(),
        humans: t.boolean(),
        order_by: t.string().values(['id', 'name', 'username', 'created_at', 'updated_at']).default('id'),
        sort: t.string().values(['asc', 'desc']).default('desc'),
      });
      const where: string[] = [];
      const args: unknown[] = [];
      if (q.username) addFilter(where, args, 'lower(username) = lower(?)', q.username);
      if (q.search) {
        where.push("(username LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\' OR lower(email) = lower(?))");
        const like = `%${likeEscape(q.search)}%`;
        args.push(like, like, q.search);
      }
      if (q.active) where.push("state = 'active'");
      if (q.blocked) where.push("state = 'blocked'");
      if (q.external) where.push('external = 1');
      if (q.exclude_external) where.push('external = 0');
      if (q.humans) where.push("user_type = 'human'");
      const sql = where.length ? `WHERE ${where.join(' AND ')}` : '';
      // GitLab lists users newest first by default.
      const order = `${q.order_by} ${q.sort}${q.order_by === 'id' ? '' : `, id ${q.sort}`}`;
      const rows = paginate(rc, {
        count: () => (rc.svc.db.prepare(`SELECT count(*) AS n FROM users ${sql}`).get(...args) as { n: number }).n,
        rows: (limit, offset) =>
          rc.svc.db.prepare(`SELECT * FROM users ${sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...args, limit, offset) as User[],
      });
      return rows.map((u) => (rc.user?.admin ? userFor(rc, u) : userBasic(rc, u)));
    },
    { auth: 'optional', scopes: READ_USER },
  );

  // `current_user.admin? ? Entities::UserDetailsWithAdmin : Entities::User`: even the user themself gets the
  // public profile here (their private details come from GET /user).
  r.get(
    '/users/:id',
    (rc) => {
      const u = loadUser(rc);
      return rc.user?.admin ? userFor(rc, u) : userPublic(rc, u);
    },
    { auth: 'optional', scopes: READ_USER },
  );

  r.post('/users', (rc) => {
    rc.requireUser();
    // Grape validates before the endpoint body runs `authenticated_as_admin!`, and reports in declaration
    // order: email, then `at_least_one_of :password, :reset_password, :force_random_password`, then the rest.
    const noPassword = PASSWORD_PARAMS.every((k) => rc.params[k] === undefined);
    let p;
    try {
      p = declared(rc.params, {
        email: t.string().required(),
        name: t.string().required(),
        username: t.string().required(),
        password: t.string(),
        reset_password: t.boolean(),
        force_random_password: t.boolean(),
        skip_confirmation: t.boolean(),
        ...profileParams(),
        provider: t.string(),
        extern_uid: t.string(),
        group_id_for_saml: t.integer(),
      });
    } catch (e) {
      const error = e instanceof ApiError ? e.body?.error : undefined;
      if (!noPassword || typeof error !== 'string') throw e;
      const m = /^(email [^,]+)(?:, (.*))?$/.exec(error);
      throw grapeError(400, [m?.[1], AT_LEAST_PASSWORD, m ? m[2] : error].filter(Boolean).join(', '));
    }
    requireAtLeastOne(rc.params, PASSWORD_PARAMS);
    const admin = rc.requireAdmin();
    if (p.group_id_for_saml != null && !findGroupByRef(rc.svc, String(p.group_id_for_saml))) throw notFound('Group');
    const user = inTransaction(rc.svc.db, () =>
      createUser(rc.svc, {
        username: p.username,
        name: p.name,
        email: p.email,
        password: p.password,
        admin: p.admin ?? false,
        external: p.external ?? false,
        bio: p.bio ?? undefined,
        location: p.location ?? undefined,
        websiteUrl: p.website_url ?? undefined,
        organization: p.organization ?? undefined,
        jobTitle: p.job_title ?? undefined,
        note: p.note,
        publicEmail: p.public_email,
        privateProfile: p.private_profile ?? undefined,
        projectsLimit: p.projects_limit ?? undefined,
        canCreateGroup: p.can_create_group ?? undefined,
        createdById: admin.id,
        identity:
          p.provider && p.extern_uid
            ? { provider: p.provider, externUid: p.extern_uid, samlGroupId: p.group_id_for_saml ?? null }
            : null,
      }),
    );
    return userFor(rc, user);
  });

  r.put('/users/:id', (rc) => {
    rc.requireAdmin();
    const user = loadUser(rc);
    const p = declared(rc.params, {
      email: t.string(),
      name: t.string(),
      username: t.string(),
      password: t.string(),
      ...profileParams(),
    });
    if (p.password != null && p.password.length < 8) throw validationError({ password: ['is too short (minimum is 8 characters)'] });
    if (p.email && (findUserByEmail(rc.svc, p.email)?.id ?? user.id) !== user.id) {
      throw conflict('Email has already been taken');
    }
    if (p.username && (findUserByUsername(rc.svc, p.username)?.id ?? user.id) !== user.id) {
      throw conflict('Username has already been taken');
    }
    const columns: Record<string, unknown> = {
      email: p.email,
      name: p.name,
      username: p.username,
      password_digest: p.password ? hashPassword(p.password) : undefined,
      admin: p.admin === undefined ? undefined : Number(p.admin),
      external: p.external === undefined ? undefined : Number(p.external),
      bio: p.bio,
      location: p.location,
      website_url: p.website_url,
      organization: p.organization,
      job_title: p.job_title,
      note: p.note,
      public_email: p.public_email,
      private_profile: p.private_profile === undefined ? undefined : Number(p.private_profile),
      projects_limit: p.projects_limit,
      can_create_group: p.can_create_group === undefined ? undefined : Number(p.can_create_group),
    };
    const set = Object.entries(columns).filter(([, v]) => v !== undefined);
    inTransaction(rc.svc.db, () => {
      if (set.length) {
        rc.svc.db
          .prepare(`UPDATE users SET ${set.map(([k]) => `${k} = ?`).join(', ')}, updated_at = ? WHERE id = ?`)
          .run(...set.map(([, v]) => v), isoTime(rc.svc.now()), user.id);
      }
      if (p.username && p.username !== user.username) {
        rc.svc.db
          .prepare("UPDATE namespaces SET name = ?, path = ?, full_path = ? WHERE kind = 'user' AND owner_id = ?")
          .run(p.username, p.username, p.username, user.id);
      }
    });
    return userFor(rc, loadUser(rc));
  });

  r.delete('/users/:id', (rc) => {
    const admin = rc.requireAdmin();
    const user = loadUser(rc);
    if (user.id === admin.id) throw forbidden();
    checkUnmodifiedSince(rc, user.updated_at);
    inTransaction(rc.svc.db, () => {
      rc.svc.db.prepare("DELETE FROM namespaces WHERE kind = 'user' AND owner_id = ?").run(user.id);
      rc.svc.db.prepare('DELETE FROM users WHERE id = ?').run(user.id);
    });
    return undefined;
  });

  for (const action of ['block', 'unblock', 'deactivate', 'activate'] as const) {
    r.post(`/users/:id/${action}`, (rc) => {
      rc.requireAdmin();
      const user = loadUser(rc);
      const state = action === 'block' ? 'blocked' : action === 'deactivate' ? 'deactivated' : 'active';
      rc.svc.db.prepare('UPDATE users SET state = ?, updated_at = ? WHERE id = ?').run(state, isoTime(rc.svc.now()), user.id);
      rc.status = 201;
      return action === 'block' || action === 'unblock' ? true : userFor(rc, loadUser(rc));
    });
  }

  // --- personal access tokens ---------------------------------------------------------------

  r.post('/users/:id/personal_access_tokens', (rc) => {
    rc.requireAdmin();
    const user = loadUser(rc);
    const p = declared(rc.params, {
      name: t.string().required(),
      scopes: t.array(t.string()).required().values(TOKEN_SCOPES),
      expires_at: t.date(),
      description: t.string(),
    });
    const expiresAt = p.expires_at ?? isoDate(addDays(rc.svc.now(), 365));
    if (expiresAt <= isoDate(rc.svc.now())) throw validationError({ expires_at: ['must be in the future'] });
    const { row, value } = inTransaction(rc.svc.db, () =>
      insertToken(rc.svc, { userId: user.id, name: p.name, scopes: p.scopes, expiresAt, description: p.description ?? null }),
    );
    return personalAccessToken(rc.svc, row, value);
  });

  r.get('/personal_access_tokens', (rc) => {
    const me = rc.requireUser();
    const q = declared(rc.params, { user_id: t.idOrPath(), ...tokenFilterParams() });
    let userId: number | null = me.id;
    if (q.user_id) {
      const u = findUserByIdOrUsername(rc.svc, q.user_id);
      // restrict_non_admins!: anyone else's tokens (or an unknown user) are `unauthorized!` for non-admins.
      if (!me.admin && u?.id !== me.id) throw unauthorized();
      if (!u) throw notFound('User');
      userId = u.id;
    } else if (me.admin) {
      userId = null; // admins list everyone's tokens
    }
    const { sql, args, order } = tokenListQuery(rc.svc, userId, q);
    return paginate(rc, {
      count: () => (rc.svc.db.prepare(`SELECT count(*) AS n ${sql}`).get(...args) as { n: number }).n,
      rows: (limit, offset) => rc.svc.db.prepare(`SELECT * ${sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...args, limit, offset) as PersonalAccessToken[],
    }).map((row) => personalAccessToken(rc.svc, row));
  });

  r.get('/personal_access_tokens/self', (rc) => personalAccessToken(rc.svc, selfToken(rc)));
  r.get('/personal_access_tokens/:id', (rc) => personalAccessToken(rc.svc, loadToken(rc, false)));

  r.delete('/personal_access_tokens/self', (rc) => {
    const token = selfToken(rc);
    revokeToken(rc, token.id);
    return undefined;
  });
  r.delete('/personal_access_tokens/:id', (rc) => {
    const token = loadToken(rc, true);
    revokeToken(rc, token.id);
    return undefined;
  });

  r.post('/personal_access_tokens/self/rotate', (rc) => rotate(rc, selfToken(rc)));
  r.post('/personal_access_tokens/:id/rotate', (rc) => rotate(rc, loadToken(rc, true)));
}

/** Profile and limit attributes an admin may set on create and on update. */
const profileParams = () => ({
  admin: t.boolean(),
  external: t.boolean(),
  bio: t.string(),
  location: t.string(),
  website_url: t.string(),
  organization: t.string(),
  job_title: t.string(),
  note: t.string(),
  public_email: t.string(),
  private_profile: t.boolean(),
  projects_limit: t.integer(),
  can_create_group: t.boolean(),
});

/** The GitLab release whose API Sandlab follows. */
export const SANDLAB_GITLAB_VERSION = '17.9.0';

export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `:id` of /users/:id: numeric id or username. */
export function loadUser(rc: RequestContext, ref = rc.path.id): User {
  const user = findUserByIdOrUsername(rc.svc, ref);
  if (!user) throw notFound('User');
  return user;
}

function selfToken(rc: RequestContext) {
  rc.requireUser();
  if (!rc.auth?.token) throw notFound();
  return findTokenById(rc.svc, rc.auth.token.id)!;
}

/** A token the caller may see (own, or any for admins); `forWrite` mirrors GitLab's 400/404 split. */
function loadToken(rc: RequestContext, forWrite: boolean) {
  const me = rc.requireUser();
  const id = /^\d+$/.test(rc.path.id) ? Number(rc.path.id) : NaN;
  const token = Number.isNaN(id) ? undefined : findTokenById(rc.svc, id);
  if (!token) throw forWrite ? recordNotFound() : notFound();
  if (!me.admin && token.user_id !== me.id) throw forWrite ? badRequest() : notFound();
  return token;
}

export function revokeToken(rc: RequestContext, id: number): void {
  rc.svc.db.prepare('UPDATE personal_access_tokens SET revoked = 1 WHERE id = ?').run(id);
}

export function rotate(rc: RequestContext, token: PersonalAccessToken) {
  const p = declared(rc.params, { expires_at: t.date() });
  const today = isoDate(rc.svc.now());
  if (token.revoked || (token.expires_at !== null && token.expires_at <= today)) throw badRequest('Token already revoked');
  const expiresAt = p.expires_at ?? isoDate(addDays(rc.svc.now(), 7));
  if (expiresAt <= today) throw badRequest('Expiration date must be in the future');
  const { row, value } = inTransaction(rc.svc.db, () => {
    revokeToken(rc, token.id);
    return insertToken(rc.svc, {
      userId: token.user_id,
      name: token.name,
      description: token.description,
      scopes: JSON.parse(token.scopes) as string[],
      expiresAt,
      previousTokenId: token.id,
    });
  });
  rc.status = 200;
  return personalAccessToken(rc.svc, row, value);
}
