import { hash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { ServiceContext } from '../../context';
import { cachedLookup, lookupKnown } from '../../db/connection';
import { isoDateOfMs, isoTime } from './time';

export interface User {
  id: number;
  username: string;
  name: string;
  email: string;
  public_email: string | null;
  /** The avatar's file name (core/avatars.ts). */
  avatar: string | null;
  password_digest: string | null;
  state: string;
  admin: number;
  bot: number;
  user_type: string;
  external: number;
  private_profile: number;
  bio: string;
  location: string;
  website_url: string;
  organization: string;
  job_title: string;
  note: string | null;
  projects_limit: number;
  can_create_group: number;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
  last_activity_on: string | null;
}

export interface PersonalAccessToken {
  id: number;
  user_id: number;
  name: string;
  description: string | null;
  token_digest: string;
  scopes: string;
  expires_at: string | null;
  revoked: number;
  previous_token_id: number | null;
  created_at: string;
  last_used_at: string | null;
}

export { TOKEN_SCOPES } from '../../../../shared/token-scopes';

/** The tables a kind of cached lookup reads (core/099): its values outlive writes to other tables. */
export const USERS_TABLE = ['users'] as const;
const TOKEN_TABLES = ['personal_access_tokens'] as const;
const IDENTITY_TABLES = ['personal_access_tokens', 'users'] as const;

export function findUserById(svc: ServiceContext, id: number): User | undefined {
  return cachedLookup(svc.db, 'user', id, loadUser, USERS_TABLE, svc);
}

const loadUser = (svc: ServiceContext, id: number): User | undefined => svc.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as User | undefined;

/**
 * Reads the users of a page in one query and remembers each as findUserById does, so the page's
 * entities find them without a query per user.
 */
export function rememberUsers(svc: ServiceContext, all: number[]): void {
  const ids = all.filter((id) => !lookupKnown(svc.db, 'user', id));
  if (ids.length < 2) return;
  // By id, each in turn (CROSS JOIN): the users' primary key, not a scan of every user.
  const rows = svc.db.prepare('SELECT u.* FROM json_each(?) j CROSS JOIN users u ON u.id = j.value').all(JSON.stringify(ids)) as User[];
  for (const u of rows) cachedLookup(svc.db, 'user', u.id, () => u, USERS_TABLE);
}

export function findUserByUsername(svc: ServiceContext, username: string): User | undefined {
  return svc.db.prepare('SELECT * FROM users WHERE lower(username) = lower(?)').get(username) as User | undefined;
}

/** `:id` of a user: a numeric id or a username. */
export function findUserByIdOrUsername(svc: ServiceContext, ref: string): User | undefined {
  return /^\d+$/.test(ref) ? findUserById(svc, Number(ref)) : findUserByUsername(svc, ref);
}

export function findUserByEmail(svc: ServiceContext, email: string): User | undefined {
  return svc.db.prepare('SELECT * FROM users WHERE lower(email) = lower(?)').get(email) as User | undefined;
}

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('hex')}$${scryptSync(password, salt, 32).toString('hex')}`;
}

export function passwordMatches(digest: string | null, password: string): boolean {
  if (!digest) return false;
  const [, saltHex, hashHex] = digest.split('$');
  const expected = Buffer.from(hashHex, 'hex');
  const actual = scryptSync(password, Buffer.from(saltHex, 'hex'), expected.length);
  return timingSafeEqual(expected, actual);
}

// --- tokens ------------------------------------------------------------------------------------

/** Only this digest is stored; the plain token is shown once. */
export const tokenDigest = (token: string): string => hash('sha256', token, 'hex');

/** `glpat-` + 20 URL-safe characters, GitLab's classic personal access token format. */
export function generateToken(prefix = 'glpat-'): string {
  return prefix + randomBytes(15).toString('base64url');
}

/**
 * The token row for a presented value. Remembered by the value (in memory only, until the next
 * write, like every cached lookup) so a request skips the SHA-256 digest, a tenth of a cheap read's CPU.
 */
export function findTokenByValue(svc: ServiceContext, token: string): PersonalAccessToken | undefined {
  return cachedLookup(
    svc.db,
    'token',
    token,
    () => svc.db.prepare('SELECT * FROM personal_access_tokens WHERE token_digest = ?').get(tokenDigest(token)) as PersonalAccessToken | undefined,
    TOKEN_TABLES,
  );
}

export function findTokenById(svc: ServiceContext, id: number): PersonalAccessToken | undefined {
  return svc.db.prepare('SELECT * FROM personal_access_tokens WHERE id = ?').get(id) as PersonalAccessToken | undefined;
}

/** Parsed once per token row: rows come from the lookup cache, the same object until the next write. */
const parsedScopes = new WeakMap<PersonalAccessToken, string[]>();

export function tokenScopes(token: PersonalAccessToken): string[] {
  let scopes = parsedScopes.get(token);
  if (!scopes) parsedScopes.set(token, (scopes = Object.freeze(JSON.parse(token.scopes)) as string[]));
  return scopes;
}

/** `last_used_at` as a time, parsed once per token row (rows come from the lookup cache). */
const parsedLastUsed = new WeakMap<PersonalAccessToken, number>();

function lastUsedMs(token: PersonalAccessToken): number {
  let ms = parsedLastUsed.get(token);
  if (ms === undefined) parsedLastUsed.set(token, (ms = Date.parse(token.last_used_at!)));
  return ms;
}

/** A token is expired from the start of its `expires_at` day (UTC), as in GitLab. */
export function tokenExpired(svc: ServiceContext, token: PersonalAccessToken, nowMs: number = svc.nowMs()): boolean {
  return token.expires_at !== null && token.expires_at <= isoDateOfMs(nowMs);
}

/** A presented token value's row, its owner (undefined when gone) and its scopes. */
export interface TokenIdentity {
  token: PersonalAccessToken;
  user: User | undefined;
  scopes: string[];
}

/**
 * What a token value authenticates as, resolved together: one remembered lookup per request
 * instead of the token's, the owner's and the scopes' each. Like every cached lookup it lasts
 * until the next write (a revoked token, a blocked or deleted owner); expiry depends on the
 * clock and is checked by the caller on every request.
 */
export function findIdentityByTokenValue(svc: ServiceContext, value: string): TokenIdentity | undefined {
  return cachedLookup(svc.db, 'identity', value, loadIdentity, IDENTITY_TABLES, svc);
}

function loadIdentity(svc: ServiceContext, value: string): TokenIdentity | undefined {
  const token = findTokenByValue(svc, value);
  return token && { token, user: findUserById(svc, token.user_id), scopes: tokenScopes(token) };
}

export interface NewToken {
  userId: number;
  name: string;
  scopes: string[];
  expiresAt: string | null;
  description?: string | null;
  /** The plain value to use (the root token from SANDLAB_ROOT_TOKEN); generated otherwise. */
  value?: string;
  previousTokenId?: number | null;
}

/** Inserts a token (inside the caller's transaction) and returns its row and the plain value. */
export function insertToken(svc: ServiceContext, t: NewToken): { row: PersonalAccessToken; value: string } {
  const value = t.value ?? generateToken();
  const info = svc.db
    .prepare(
      `INSERT INTO personal_access_tokens (user_id, name, description, token_digest, scopes, expires_at, previous_token_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(t.userId, t.name, t.description ?? null, tokenDigest(value), JSON.stringify(t.scopes), t.expiresAt, t.previousTokenId ?? null, isoTime(svc.now()));
  return { row: findTokenById(svc, Number(info.lastInsertRowid))!, value };
}

/** Records use at most once a minute per token, so authenticated reads stay cheap. */
export function touchToken(svc: ServiceContext, token: PersonalAccessToken, nowMs: number = svc.nowMs()): void {
  if (token.last_used_at && nowMs - lastUsedMs(token) < 60_000) return;
  svc.db.prepare('UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ?').run(isoTime(new Date(nowMs)), token.id);
}
