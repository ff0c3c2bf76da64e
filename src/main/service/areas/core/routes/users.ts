import type { Router } from '../../../http/route';
import { customAttributesFilter, withCustomAttributes } from './custom_attributes';

import { declared, requireAtLeastOne, t } from '../../../http/params';
import { ApiError, badRequest, conflict, forbidden, grapeError, notFound, recordNotFound, unauthorized, validationError } from '../../../http/errors';
import { type Keyset, type SortDirection, type SqlList, fewRowsByIds, paginateSql } from '../../../http/pagination';
import { constantJson, inTransaction } from '../../../db/connection';
import { indexVersion, rareTermCandidates } from '../../../db/trigram';
import { createUser } from '../accounts';
import { userBasic, userFor, usersFor, userPublic, personalAccessToken } from '../entities';
import { markdownField } from '../../../markdown/markdown';
import { isEmojiName } from '../../award_emoji/emoji';
import {
  type PersonalAccessToken,
  type User,
  TOKEN_SCOPES,
  findTokenById,
  findUserById,
  findUserByIdOrUsername,
  findUserByEmail,
  findUserByUsername,
  hashPassword,
  insertToken,
} from '../users';
import { addDays, isoDate, isoTime } from '../time';
import { findGroupByRef } from '../namespaces';
import { ListWhere, addFilter } from '../../../db/filter';
import { instanceListAnchors } from '../instance_lists';
import type { RequestContext } from '../../../http/route';
import { tokenFilterParams, tokenListQuery } from '../tokens';
import { checkUnmodifiedSince } from '../../../http/conditional';
import { readAvatarParam, writeAvatar } from '../avatars';

/** Entities::UserBasic exposes custom_attributes after avatar_url (avatar_path only with only_path). */
const USER_EXTRAS_AFTER = 'avatar_url';

const READ_USER = ['read_api', 'read_user'];
const PASSWORD_PARAMS = ['password', 'reset_password', 'force_random_password'];
const AT_LEAST_PASSWORD = 'password, reset_password, force_random_password are missing, at least one parameter must be provided';

/** Users, the current user, and personal access tokens. */
export function registerUserRoutes(r: Router): void {
  // The same answer every time: built and serialized once (jsonBody), not per request.
  const version = constantJson({ version: SANDLAB_GITLAB_VERSION, revision: 'sandlab' });
  const metadata = constantJson({
    version: SANDLAB_GITLAB_VERSION,
    revision: 'sandlab',
    kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
    enterprise: true,
  });
  r.get('/version', () => version, { scopes: READ_USER });
  r.get('/metadata', () => metadata, { scopes: READ_USER });

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
        admins: t.boolean(),
        created_after: t.dateTime(),
        created_before: t.dateTime(),
        without_projects: t.boolean(),
        exclude_internal: t.boolean(),
        without_project_bots: t.boolean(),
        two_factor: t.string().values(['enabled', 'disabled']),
        order_by: t.string().values(['id', 'name', 'username', 'created_at', 'updated_at']).default('id'),
        sort: t.string().values(['asc', 'desc']).default('desc'),
      });
      const where = new ListWhere();
      /** At most COUNT_LIMIT users can match (the search index's candidates and an e-mail). */
      let fewRows = false;
      if (q.username) where.add('lower(username) = lower(?)', q.username);
      if (q.search) {
        // A term few users hold: those the search index finds (or the e-mail names), checked with the same LIKE.
        const few = rareTermCandidates(rc.svc.db, 'users_search', 'id', q.search, ['username', 'name'], indexVersion(rc.svc.db, 'users_search'));
        if (few) where.add(`(${few.sql} OR lower(email) = lower(?))`, ...few.args, q.search);
        fewRows = !!few;
        const like = `%${likeEscape(q.search)}%`;
        where.add("(username LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\' OR lower(email) = lower(?))", like, like, q.search);
      }
      if (q.active) where.on('state', "= 'active'");
      if (q.blocked) where.on('state', "IN ('blocked', 'banned')");
      // Filters GitLab keeps for administrators (admins, created_*, without_projects).
      if (rc.user?.admin) {
        if (q.admins) where.add('admin = 1');
        if (q.created_after) where.add('created_at >= ?', q.created_after);
        if (q.created_before) where.add('created_at <= ?', q.created_before);
        if (q.without_projects) {
          where.add(`id NOT IN (SELECT user_id FROM members WHERE source_type = 'Project' AND user_id IS NOT NULL AND requested_at IS NULL)`);
        }
      }
      if (q.exclude_internal) where.add("user_type NOT IN ('ghost', 'support_bot', 'alert_bot', 'visual_review_bot', 'migration_bot', 'security_bot', 'automation_bot', 'admin_bot', 'suggested_reviewers_bot', 'llm_bot', 'duo_code_review_bot')");
      if (q.without_project_bots) where.add("user_type != 'project_bot'");
      if (q.two_factor === 'enabled') where.add('0');
      if (q.external) where.add('external = 1');
      if (q.exclude_external) where.add('external = 0');
      if (q.humans) where.add("user_type = 'human'");
      const custom = customAttributesFilter(rc, 'users', 'users');
      where.addAll(custom.sql, custom.args);
      const clause = (conditions: string[]): string => `FROM users WHERE ${conditions.length ? conditions.join(' AND ') : '1 = 1'}`;
      // GitLab lists users newest first by default.
      const order = `${q.order_by} ${q.sort}${q.order_by === 'id' ? '' : `, id ${q.sort}`}`;
      const list: SqlList<User> = { select: '*', from: clause(where.walk), narrow: clause(where.narrow), args: where.args, order, keyset: userKeyset(q.order_by, q.sort) };
      // Deep pages anchored while no user is written (core/052); not with conditions on other tables.
      if (!(rc.user?.admin && q.without_projects) && !custom.sql.length) {
        const by = q.order_by as 'id' | 'name' | 'username' | 'created_at' | 'updated_at';
        list.anchors = instanceListAnchors(rc.svc.db, 'users', list, by, 'id', q.sort, (u) => u[by]);
      }
      const rows = paginateSql<User>(rc, rc.svc.db, fewRows ? fewRowsByIds(rc.svc.db, list, 'users', 'id') : list);
      return rc.user?.admin ? withCustomAttributes(rc, 'users', usersFor(rc, rows), USER_EXTRAS_AFTER) : rows.map((u) => userBasic(rc, u));
    },
    { auth: 'optional', scopes: READ_USER },
  );

  // `current_user.admin? ? Entities::UserDetailsWithAdmin : Entities::User`: even the user themself gets the
  // public profile here (their private details come from GET /user).
  r.get(
    '/users/:id',
    (rc) => {
      const u = loadUser(rc);
      return rc.user?.admin ? withCustomAttributes(rc, 'users', [userFor(rc, u)], USER_EXTRAS_AFTER)[0] : userPublic(rc, u);
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
        avatar: t.any(),
      });
    } catch (e) {
      const error = e instanceof ApiError ? e.body?.error : undefined;
      if (!noPassword || typeof error !== 'string') throw e;
      const m = /^(email [^,]+)(?:, (.*))?$/.exec(error);
      throw grapeError(400, [m?.[1], AT_LEAST_PASSWORD, m ? m[2] : error].filter(Boolean).join(', '));
    }
    requireAtLeastOne(rc.params, PASSWORD_PARAMS);
    const avatar = readAvatarParam(p.avatar);
    const admin = rc.requireAdmin();
    if (p.group_id_for_saml != null && !findGroupByRef(rc.svc, String(p.group_id_for_saml))) throw notFound('Group');
    const user = inTransaction(rc.svc.db, () => {
      const created = createUser(rc.svc, {
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
      });
      if (avatar) writeAvatar(rc.svc, 'user', created.id, avatar);
      return created;
    });
    return userFor(rc, findUserById(rc.svc, user.id)!);
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
      provider: t.string(),
      extern_uid: t.string(),
      group_id_for_saml: t.integer(),
      avatar: t.any(),
    });
    const avatar = readAvatarParam(p.avatar);
    if (p.password != null && p.password.length < 8) throw validationError({ password: ['is too short (minimum is 8 characters)'] });
    if (
      p.provider &&
      p.extern_uid &&
      rc.svc.db.prepare('SELECT 1 FROM identities WHERE provider = ? AND extern_uid = ? AND saml_group_id IS ? AND user_id != ?').get(p.provider, p.extern_uid, p.group_id_for_saml ?? null, user.id)
    ) {
      throw validationError({ 'identities.extern_uid': ['has already been taken'] });
    }
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
      // Users::UpdateService: provider + extern_uid set (or replace) that provider's identity.
      if (p.provider && p.extern_uid) {
        const samlGroup = p.group_id_for_saml ?? null;
        const existing = rc.svc.db
          .prepare('SELECT id FROM identities WHERE user_id = ? AND provider = ? AND saml_group_id IS ?')
          .get(user.id, p.provider, samlGroup) as { id: number } | undefined;
        if (existing) rc.svc.db.prepare('UPDATE identities SET extern_uid = ? WHERE id = ?').run(p.extern_uid, existing.id);
        else {
          rc.svc.db
            .prepare('INSERT INTO identities (user_id, provider, extern_uid, saml_group_id, created_at) VALUES (?, ?, ?, ?, ?)')
            .run(user.id, p.provider, p.extern_uid, samlGroup, isoTime(rc.svc.now()));
        }
      }
      if (p.username && p.username !== user.username) {
        rc.svc.db
          .prepare("UPDATE namespaces SET name = ?, path = ?, full_path = ? WHERE kind = 'user' AND owner_id = ?")
          .run(p.username, p.username, p.username, user.id);
      }
      if (avatar !== undefined) writeAvatar(rc.svc, 'user', user.id, avatar);
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

  // Admin state changes (lib/api/users.rb and Users::*Service): 201 `true`, GitLab's 403 reasons, and
  // `null` when the user already is in the asked state (the endpoint's `break`).
  const stateAction = (action: string, run: (rc: RequestContext, user: User, admin: User) => unknown) =>
    r.post(`/users/:id/${action}`, (rc) => {
      const admin = rc.requireAdmin();
      const id = declared({ id: rc.path.id }, { id: t.integer() }).id!;
      const user = findUserById(rc.svc, id);
      if (!user) throw notFound('User');
      rc.status = 201;
      return run(rc, user, admin);
    });
  const setState = (rc: RequestContext, user: User, state: string): true => {
    inTransaction(rc.svc.db, () => rc.svc.db.prepare('UPDATE users SET state = ?, updated_at = ? WHERE id = ?').run(state, isoTime(rc.svc.now()), user.id));
    return true;
  };

  stateAction('block', (rc, user, admin) => {
    if (user.id === admin.id) throw forbidden('The API initiating user cannot be blocked by the API');
    if (user.state === 'blocked') return null;
    return setState(rc, user, 'blocked');
  });

  stateAction('unblock', (rc, user) => {
    if (user.state === 'deactivated') throw forbidden('Deactivated users cannot be unblocked by the API');
    // Users::UnblockService answers whether the user went from blocked to active.
    if (user.state !== 'blocked') return false;
    return setState(rc, user, 'active');
  });

  stateAction('deactivate', (rc, user) => {
    if (user.state === 'deactivated') return null;
    if (user.state === 'blocked' || user.state === 'banned') throw forbidden('Error occurred. A blocked user cannot be deactivated');
    if (user.bot || user.user_type !== 'human') throw forbidden('Internal users cannot be deactivated');
    // User#can_be_deactivated?: no activity in the last MINIMUM_INACTIVE_DAYS (90) days.
    const since = new Date(rc.svc.now().getTime() - 90 * 86_400_000).toISOString().slice(0, 10);
    if (user.last_activity_on && user.last_activity_on > since) {
      throw forbidden('The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated');
    }
    return setState(rc, user, 'deactivated');
  });

  stateAction('activate', (rc, user) => {
    if (user.state === 'blocked' || user.state === 'banned') throw forbidden('Error occurred. A blocked user must be unblocked to be activated');
    if (user.state === 'active') return true;
    return setState(rc, user, 'active');
  });

  stateAction('ban', (rc, user) => {
    if (user.state !== 'active') throw forbidden(`You cannot ban ${user.state} users.`);
    return setState(rc, user, 'banned');
  });

  stateAction('unban', (rc, user) => {
    if (user.state !== 'banned') throw forbidden(`You cannot unban ${user.state} users.`);
    return setState(rc, user, 'active');
  });

  // DELETE /users/:id/identities/:provider (administrators): removes that provider's identity.
  r.delete('/users/:id/identities/:provider', (rc) => {
    rc.requireAdmin();
    const user = loadUser(rc);
    const info = rc.svc.db.prepare('DELETE FROM identities WHERE user_id = ? AND provider = ?').run(user.id, rc.path.provider);
    if (!info.changes) throw notFound('Identity');
    return undefined;
  });

  // GET /user/activities (administrators): users active on or after `from` (default six months back).
  r.get(
    '/user/activities',
    (rc) => {
      rc.requireAdmin();
      const q = declared(rc.params, { from: t.date() });
      const from = q.from ?? isoDate(addDays(rc.svc.now(), -183));
      const sql = 'FROM users WHERE last_activity_on >= ?';
      return paginateSql<User>(rc, rc.svc.db, { select: '*', from: sql, args: [from], order: 'id' }).map((u) => ({ username: u.username, last_activity_on: u.last_activity_on, last_activity_at: u.last_activity_on }));
    },
    { scopes: READ_USER },
  );

  // --- user status (lib/api/users.rb `/user/status`, `/users/:id/status`) -------------------

  r.get('/user/status', (rc) => userStatusEntity(rc, rc.requireUser().id), { scopes: READ_USER });
  for (const method of ['put', 'patch'] as const) {
    r[method]('/user/status', (rc) => {
      const user = rc.requireUser();
      const p = declared(rc.params, {
        emoji: t.string(),
        message: t.string(),
        availability: t.string(),
        clear_status_after: t.string().values(Object.keys(CLEAR_STATUS_AFTER)),
      });
      inTransaction(rc.svc.db, () => setUserStatus(rc, user.id, p, method === 'put'));
      return userStatusEntity(rc, user.id);
    });
  }
  r.get(
    '/users/:id/status',
    (rc) => {
      const user = loadUser(rc);
      return userStatusEntity(rc, user.id);
    },
    { auth: 'optional', scopes: READ_USER },
  );

  // GET /users/:user_id/memberships (admins): the user's direct memberships as Entities::Membership.
  r.get('/users/:user_id/memberships', (rc) => {
    rc.requireAdmin();
    const q = declared({ ...rc.params, user_id: rc.path.user_id }, { user_id: t.integer().required(), type: t.string().values(['Project', 'Namespace']) });
    const user = loadUser(rc, String(q.user_id));
    const where = ['m.user_id = ?', 'm.requested_at IS NULL'];
    const args: unknown[] = [user.id];
    if (q.type) addFilter(where, args, 'm.source_type = ?', q.type);
    const rows = paginateSql<{ source_id: number; source_type: string; access_level: number; source_name: string | null }>(rc, rc.svc.db, {
      select: `m.source_id, m.source_type, m.access_level,
        CASE m.source_type WHEN 'Project' THEN (SELECT name FROM projects WHERE id = m.source_id) ELSE (SELECT name FROM namespaces WHERE id = m.source_id) END AS source_name`,
      from: `FROM members m WHERE ${where.join(' AND ')}`,
      args,
      order: 'm.id',
    });
    return rows.map((m) => ({ source_id: m.source_id, source_name: m.source_name, source_type: m.source_type, access_level: m.access_level }));
  });

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
    return paginateSql<PersonalAccessToken>(rc, rc.svc.db, { select: '*', from: sql, args, order }).map((row) => personalAccessToken(rc.svc, row));
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

/**
 * CursorBasedKeyset for User: `order_by` id, name, username, created_at or updated_at, either sort
 * (`columns` narrows that where a list offers fewer, as service accounts offer id and username).
 * `table` is the users table's alias in the list's SQL.
 */
export function userKeyset(
  orderBy: string,
  sort: SortDirection,
  columns: readonly (keyof User)[] = ['id', 'name', 'username', 'created_at', 'updated_at'],
  table = 'users',
): Keyset<User> {
  const orders: Keyset<User>['orders'] = {};
  for (const c of columns) orders[c] = { column: `${table}.${c}`, sorts: ['asc', 'desc'], value: (u) => u[c] as string | number };
  return { style: 'cursor', type: 'User', orderBy, sort, orders, idColumn: `${table}.id`, id: (u) => u.id };
}

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

/** UserStatus::CLEAR_STATUS_QUICK_OPTIONS, in hours. */
const CLEAR_STATUS_AFTER: Record<string, number> = {
  '30_minutes': 0.5,
  '3_hours': 3,
  '8_hours': 8,
  '1_day': 24,
  '3_days': 72,
  '7_days': 168,
  '30_days': 720,
};

interface UserStatusRow {
  user_id: number;
  emoji: string;
  message: string | null;
  availability: string;
  clear_status_at: string | null;
}

/**
 * Users::SetStatusService: PUT replaces the status (missing fields cleared), PATCH changes what is
 * given. A message without an emoji gets `speech_balloon`; an empty status is removed. The emoji
 * must be one of GitLab's, the message at most 100 characters.
 */
function setUserStatus(
  rc: RequestContext,
  userId: number,
  p: { emoji?: string | null; message?: string | null; availability?: string | null; clear_status_after?: string | null },
  replace: boolean,
): void {
  const current = rc.svc.db.prepare('SELECT * FROM user_statuses WHERE user_id = ?').get(userId) as UserStatusRow | undefined;
  const pick = <K extends 'emoji' | 'message' | 'availability'>(k: K): string | null =>
    p[k] !== undefined ? (p[k] ?? null) : replace ? null : ((current?.[k] as string | null | undefined) ?? null);
  let emoji = pick('emoji');
  const message = pick('message');
  const availability = pick('availability') ?? 'not_set';
  if (!emoji && message) emoji = 'speech_balloon';
  const errors: Record<string, string[]> = {};
  if (emoji && !isEmojiName(emoji)) errors.emoji = ['is not a valid emoji name'];
  if (message && message.length > 100) errors.message = ['is too long (maximum is 100 characters)'];
  if (!['not_set', 'busy'].includes(availability)) errors.availability = ['is not included in the list'];
  if (Object.keys(errors).length) throw validationError(errors);
  if (!emoji && !message && availability === 'not_set') {
    rc.svc.db.prepare('DELETE FROM user_statuses WHERE user_id = ?').run(userId);
    return;
  }
  const hours = p.clear_status_after ? CLEAR_STATUS_AFTER[p.clear_status_after] : undefined;
  const clearAt = hours !== undefined ? isoTime(new Date(rc.svc.now().getTime() + hours * 3_600_000)) : replace ? null : (current?.clear_status_at ?? null);
  rc.svc.db
    .prepare(
      `INSERT INTO user_statuses (user_id, emoji, message, availability, clear_status_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET emoji = excluded.emoji, message = excluded.message, availability = excluded.availability, clear_status_at = excluded.clear_status_at`,
    )
    .run(userId, emoji ?? 'speech_balloon', message, availability, clearAt);
}

/** Entities::UserStatus; a status past its clear_status_at reads as none. */
function userStatusEntity(rc: RequestContext, userId: number): Record<string, unknown> {
  const row = rc.svc.db.prepare('SELECT * FROM user_statuses WHERE user_id = ?').get(userId) as UserStatusRow | undefined;
  const live = row && (!row.clear_status_at || row.clear_status_at > isoTime(rc.svc.now())) ? row : undefined;
  return {
    emoji: live?.emoji ?? null,
    availability: live?.availability ?? null,
    message: live?.message ?? null,
    message_html: markdownField(live?.message),
    clear_status_at: live?.clear_status_at ?? null,
  };
}
