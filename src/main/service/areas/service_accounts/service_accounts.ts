import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context';
import type { RequestContext } from '../../http/route';
import { ApiError, badRequest, conflict, notFound, validationError } from '../../http/errors';
import { createUser } from '../core/accounts';
import { type User, findUserByEmail, findUserById, findUserByUsername } from '../core/users';
import type { Namespace } from '../core/namespaces';
import { deleteGroupTree } from '../core/routes/groups';
import { isoTime } from '../core/time';
import { checkUnmodifiedSince } from '../../http/conditional';

export const SERVICE_ACCOUNT_TYPE = 'service_account';
export const DEFAULT_NAME = 'Service account user';

/** As declared: null (JSON null) means the default on create and "can't be blank" on update. */
export interface ServiceAccountInput {
  name?: string | null;
  username?: string | null;
  email?: string | null;
}

/** The host part of generated no-reply addresses: this instance's host, as the client reached it. */
function noReplyDomain(rc: RequestContext): string {
  return `noreply.${new URL(rc.baseUrl).hostname}`;
}

/** Service failures surface as `400 Bad request - <full message>`, as GitLab's service account API does. */
function asBadRequest(err: unknown): never {
  if (err instanceof ApiError && err.body) {
    const message = err.body.message;
    if (typeof message === 'string') throw badRequest(message);
    if (message && typeof message === 'object') {
      const full = Object.entries(message as Record<string, string[]>).flatMap(([field, msgs]) =>
        msgs.map((m) => `${field.charAt(0).toUpperCase()}${field.slice(1).replace(/_/g, ' ')} ${m}`),
      );
      throw badRequest(full.join(', '));
    }
  }
  throw err;
}

/** Creates a service account user (instance-wide when `group` is null). Call inside a transaction. */
export function createServiceAccount(rc: RequestContext, input: ServiceAccountInput, group: Namespace | null): User {
  const prefix = group ? `service_account_group_${group.id}` : 'service_account';
  const username = input.username ?? `${prefix}_${randomBytes(16).toString('hex')}`;
  const email = input.email ?? `${username}@${noReplyDomain(rc)}`;
  let user: User;
  try {
    user = createUser(rc.svc, {
      username,
      name: input.name ?? DEFAULT_NAME,
      email,
      bot: true,
      userType: SERVICE_ACCOUNT_TYPE,
      createdById: rc.user?.id ?? null,
    });
  } catch (err) {
    asBadRequest(err);
  }
  rc.svc.db
    .prepare('INSERT INTO service_accounts (user_id, provisioned_by_group_id, created_at) VALUES (?, ?, ?)')
    .run(user.id, group?.id ?? null, isoTime(rc.svc.now()));
  return user;
}

export function updateServiceAccount(rc: RequestContext, user: User, input: ServiceAccountInput): User {
  const errors: Record<string, string[]> = {};
  if (input.name !== undefined && !input.name?.trim()) errors.name = ["can't be blank"];
  if (input.username === null) errors.username = ["can't be blank"];
  else if (input.username !== undefined && !/^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/.test(input.username)) {
    errors.username = ["can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."];
  }
  if (input.email === null) errors.email = ["can't be blank"];
  else if (input.email !== undefined && !/^[^@\s]+@[^@\s]+$/.test(input.email)) errors.email = ['is invalid'];
  if (Object.keys(errors).length) asBadRequest(validationError(errors));
  if (input.email && findUserByEmail(rc.svc, input.email) && findUserByEmail(rc.svc, input.email)!.id !== user.id) {
    throw badRequest('Email has already been taken');
  }
  if (input.username && findUserByUsername(rc.svc, input.username) && findUserByUsername(rc.svc, input.username)!.id !== user.id) {
    throw badRequest('Username has already been taken');
  }
  const set: [string, unknown][] = [];
  if (input.name !== undefined) set.push(['name', input.name]);
  if (input.username !== undefined) set.push(['username', input.username]);
  if (input.email !== undefined) set.push(['email', input.email]);
  if (set.length) {
    rc.svc.db
      .prepare(`UPDATE users SET ${set.map(([k]) => `${k} = ?`).join(', ')}, updated_at = ? WHERE id = ?`)
      .run(...set.map(([, v]) => v), isoTime(rc.svc.now()), user.id);
  }
  if (input.username !== undefined && input.username !== user.username) {
    rc.svc.db
      .prepare("UPDATE namespaces SET name = ?, path = ?, full_path = ? WHERE kind = 'user' AND owner_id = ?")
      .run(input.username, input.username, input.username, user.id);
  }
  return findUserById(rc.svc, user.id)!;
}

export interface ServiceAccountRow {
  user_id: number;
  provisioned_by_group_id: number | null;
}

export function serviceAccountRow(svc: ServiceContext, userId: number): ServiceAccountRow | undefined {
  return svc.db.prepare('SELECT * FROM service_accounts WHERE user_id = ?').get(userId) as ServiceAccountRow | undefined;
}

/** `:user_id` of a group's service account: 400 when not a service account, 404 when another group's. */
export function loadGroupServiceAccount(rc: RequestContext, group: Namespace, ref = rc.path.user_id): User {
  const user = /^\d+$/.test(ref) ? findUserById(rc.svc, Number(ref)) : undefined;
  if (!user) throw notFound('User');
  if (user.user_type !== SERVICE_ACCOUNT_TYPE) throw badRequest('User is not of type Service Account');
  if (serviceAccountRow(rc.svc, user.id)?.provisioned_by_group_id !== group.id) throw notFound('User');
  return user;
}

/** Lists service accounts provisioned by a group (or instance-wide ones for null). */
export function serviceAccountsQuery(groupId: number | null, orderBy: string, sort: string): { sql: string; args: unknown[]; order: string } {
  const sql = `FROM users u JOIN service_accounts s ON s.user_id = u.id WHERE ${groupId === null ? 's.provisioned_by_group_id IS NULL' : 's.provisioned_by_group_id = ?'}`;
  return { sql, args: groupId === null ? [] : [groupId], order: `u.${orderBy === 'username' ? 'username' : 'id'} ${sort}, u.id ${sort}` };
}

// --- deletion ------------------------------------------------------------------------------------

/** Columns that record who did something: they move to the ghost user instead of being lost. */
const ACTOR_COLUMNS = ['author_id', 'closed_by_id', 'merged_by_id', 'resolved_by_id'];
/** Tables whose rows go with their user (activity, memberships, credentials). */
const OWNED_BY_USER = new Set(['events', 'members', 'personal_access_tokens', 'identities', 'service_accounts']);

function contributionColumns(svc: ServiceContext): { table: string; column: string }[] {
  const tables = svc.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
  const out: { table: string; column: string }[] = [];
  for (const { name } of tables) {
    if (OWNED_BY_USER.has(name)) continue;
    const columns = svc.db.prepare(`PRAGMA table_info("${name}")`).all() as { name: string }[];
    for (const c of columns) if (ACTOR_COLUMNS.includes(c.name)) out.push({ table: name, column: c.name });
  }
  return out;
}

/** GitLab's "Ghost User", created on first need, that holds deleted users' contributions. */
export function ghostUser(svc: ServiceContext): User {
  const existing = svc.db.prepare("SELECT * FROM users WHERE user_type = 'ghost' ORDER BY id LIMIT 1").get() as User | undefined;
  if (existing) return existing;
  let username = 'ghost';
  for (let i = 1; findUserByUsername(svc, username) || svc.db.prepare('SELECT 1 FROM namespaces WHERE parent_id IS NULL AND lower(path) = lower(?)').get(username); i++) {
    username = `ghost${i}`;
  }
  let email = `${username}@example.com`;
  for (let i = 1; findUserByEmail(svc, email); i++) email = `${username}${i}@example.com`;
  return createUser(svc, {
    username,
    name: 'Ghost User',
    email,
    userType: 'ghost',
    bio: 'This is a "Ghost User", created to hold all issues authored by users that have since been deleted. This user cannot be removed.',
    canCreateGroup: false,
    projectsLimit: 0,
  });
}

/** Groups where the user is the only direct Owner. */
function solelyOwnedGroupIds(svc: ServiceContext, userId: number): number[] {
  return (
    svc.db
      .prepare(
        `SELECT m.source_id AS id FROM members m
         WHERE m.source_type = 'Namespace' AND m.user_id = ? AND m.access_level = 50 AND m.requested_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM members o WHERE o.source_type = 'Namespace' AND o.source_id = m.source_id
             AND o.access_level = 50 AND o.user_id IS NOT NULL AND o.user_id != m.user_id AND o.requested_at IS NULL)`,
      )
      .all(userId) as { id: number }[]
  ).map((r) => r.id);
}

/**
 * Deletes a service account. Without `hardDelete` its contributions move to the ghost user and a
 * group it solely owns blocks the deletion (409); with it, both are deleted. Call inside a transaction.
 */
export function deleteServiceAccount(rc: RequestContext, user: User, hardDelete: boolean): void {
  const sole = solelyOwnedGroupIds(rc.svc, user.id);
  if (sole.length && !hardDelete) throw conflict('User cannot be removed while is the sole-owner of a group');
  checkUnmodifiedSince(rc, user.updated_at);
  for (const groupId of sole) {
    if (rc.svc.db.prepare('SELECT 1 FROM namespaces WHERE id = ?').get(groupId)) deleteGroupTree(rc, groupId);
  }
  const columns = contributionColumns(rc.svc);
  if (hardDelete) {
    for (const { table, column } of columns) {
      if (column === 'author_id') rc.svc.db.prepare(`DELETE FROM "${table}" WHERE author_id = ?`).run(user.id);
    }
  }
  const remaining = columns.filter(({ table }) => rc.svc.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table));
  const needsGhost = remaining.some(({ table, column }) => rc.svc.db.prepare(`SELECT 1 FROM "${table}" WHERE "${column}" = ? LIMIT 1`).get(user.id));
  if (needsGhost) {
    const ghost = ghostUser(rc.svc);
    for (const { table, column } of remaining) rc.svc.db.prepare(`UPDATE "${table}" SET "${column}" = ? WHERE "${column}" = ?`).run(ghost.id, user.id);
  }
  rc.svc.db.prepare("DELETE FROM namespaces WHERE kind = 'user' AND owner_id = ?").run(user.id);
  rc.svc.db.prepare('DELETE FROM users WHERE id = ?').run(user.id);
}

