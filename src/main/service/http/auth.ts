import type { JobTokenIdentity, ServiceContext } from '../context';
import type { PersonalAccessToken, User } from '../areas/core/users';
import { findIdentityByTokenValue, findUserByIdOrUsername, tokenExpired, touchToken } from '../areas/core/users';
import type { HttpRequest } from './server';
import { ApiError, forbidden, insufficientScope, invalidToken, unauthorized } from './errors';

/** Who a request acts as, and with which token. */
export interface Auth {
  /** The user the request acts as (the sudo target when Sudo is used). */
  user: User;
  /** The token's owner (differs from `user` under Sudo). */
  tokenUser: User;
  token: PersonalAccessToken | null;
  scopes: string[];
  /** Set when the request authenticated with a CI job token. */
  jobTokenProjectId: number | null;
}

export interface Credentials {
  privateToken: string | null;
  /** Doorkeeper's token (?access_token=, Bearer, ?bearer_token=), read as a job token first: set only where job tokens are. */
  jobBearer: string | null;
  jobToken: string | null;
  sudo: string | null;
}

/**
 * Reads credentials from parameters and headers, as GitLab's APIGuard does: each parameter before
 * its header (AuthFinders' `params[:private_token].presence || env['HTTP_PRIVATE_TOKEN'].presence ||
 * parsed_oauth_token`, job_token's likewise, and sudo_identifier's `params[:sudo] || env['HTTP_SUDO']`).
 * A job token is read only on a route that takes one (`job_token_allowed`): find_user_from_job_token
 * and find_user_from_job_bearer_token return nil elsewhere, so it is no credential there at all.
 * Each parameter is read by its literal name, each read with feedback of its own: one `params[name]`
 * shared by the four went megamorphic (a generic keyed load a read, on every authenticated request).
 */
export function readCredentials(req: Pick<HttpRequest, 'header'>, params: Record<string, unknown>, jobTokenAllowed = false): Credentials {
  const jobBearer = jobTokenAllowed ? oauthToken(req, params) : null;
  return {
    privateToken: present(params.private_token) ?? header(req, 'private-token', false) ?? (jobTokenAllowed ? jobBearer : oauthToken(req, params)),
    jobBearer,
    // find_user_from_job_token_query_params_or_header: job_token, then the runner's `token`, then the head.
    jobToken: jobTokenAllowed ? (present(params.job_token) ?? present(params.token) ?? header(req, 'job-token', false)) : null,
    // `params[:sudo] || env['HTTP_SUDO']`, no `.presence`: an empty sudo parameter or head still asks for
    // sudo (and finds no user ''), and so does an array or hash (`sudo[]=x`) instead of the head.
    sudo: params.sudo === undefined || params.sudo === null || params.sudo === false ? header(req, 'sudo', true) : sudoIdentifier(params.sudo),
  };
}

/** Doorkeeper's parsed_oauth_token in GitLab's access_token_methods order: ?access_token=, Bearer, ?bearer_token=. */
function oauthToken(req: Pick<HttpRequest, 'header'>, params: Record<string, unknown>): string | null {
  return present(params.access_token) ?? bearer(req) ?? present(params.bearer_token);
}

/**
 * Doorkeeper's from_bearer_authorization: only `Bearer ` is cut off, so spaces after it stay in the token.
 */
function bearer(req: Pick<HttpRequest, 'header'>): string | null {
  const authz = header(req, 'authorization', false);
  return authz && /^Bearer /i.test(authz) ? present(authz.slice(7)) : null;
}

/** A head's value (the first when repeated); an empty one only when `empty` (env['HTTP_SUDO'] has no `.presence`). */
function header(req: Pick<HttpRequest, 'header'>, name: string, empty: boolean): string | null {
  const v = req.header(name);
  return typeof v === 'string' && (empty || v.length) ? v : Array.isArray(v) && v.length ? v[0] : null;
}

/**
 * The sudo parameter as sudo! shows it: a string as sent, a JSON number as its digits, an array or
 * hash (`?sudo[]=x`) as Ruby's `#{}` shows it. That one still asks for sudo, and names no user: no
 * username holds `[` or `"` (GitLab's own UserFinder raises on it, a 500 Sandlab does not copy).
 */
function sudoIdentifier(v: unknown): string {
  return typeof v === 'number' ? String(v) : rubyInspect(v, true);
}

/** Ruby's `to_s` (`top`) or `inspect` of a Rack parameter: strings, arrays and hashes of them. */
function rubyInspect(v: unknown, top = false): string {
  if (typeof v === 'string') return top ? v : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => rubyInspect(x)).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}=>${rubyInspect(x)}`).join(', ')}}`;
  return String(v);
}

/** A parameter's value when it is a string that is not blank (Ruby's `.presence`). */
function present(v: unknown): string | null {
  return typeof v === 'string' && /\S/.test(v) ? v : null;
}

/**
 * Resolves credentials to an Auth, or null when none were sent. Unknown, expired and revoked
 * tokens answer 401 whatever the route, as GitLab does.
 */
export function authenticate(svc: ServiceContext, creds: Credentials, req: Pick<HttpRequest, 'baseUrl'> | null = null): Auth | null {
  // find_user_from_bearer_token: the OAuth token as a job's first, then as an access token.
  const job = creds.jobBearer ? (svc.resolveJobToken?.(creds.jobBearer) ?? null) : null;
  if (job) return jobAuth(job);
  if (creds.privateToken) {
    const identity = findIdentityByTokenValue(svc, creds.privateToken);
    if (!identity) throw unauthorized();
    const { token, user } = identity;
    if (token.revoked) throw invalidToken('Token was revoked. You have to re-authorize from the user.');
    // In milliseconds: no Date per request unless the token's last use is written.
    const now = svc.nowMs();
    if (tokenExpired(svc, token, now)) throw invalidToken('Token is expired. You can either do re-authorization or token refresh.');
    if (!user) throw unauthorized();
    checkAccountAllowed(user, req);
    touchToken(svc, token, now);
    return { user, tokenUser: user, token, scopes: identity.scopes, jobTokenProjectId: null };
  }
  if (creds.jobToken) {
    const identity = svc.resolveJobToken?.(creds.jobToken) ?? null;
    if (!identity) throw unauthorized();
    return jobAuth(identity);
  }
  return null;
}

function jobAuth(identity: JobTokenIdentity): Auth {
  return { user: identity.user, tokenUser: identity.user, token: null, scopes: ['api'], jobTokenProjectId: identity.projectId };
}

/**
 * APIGuard#find_current_user!: a blocked, banned or deactivated account's tokens authenticate
 * but are refused with Gitlab::Auth::UserAccessDenied's reason (403).
 */
function checkAccountAllowed(user: User, req: Pick<HttpRequest, 'baseUrl'> | null): void {
  if (user.state === 'blocked' || user.state === 'banned') throw forbidden('Your account has been blocked.');
  if (user.state === 'deactivated') {
    throw forbidden(
      `Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${req?.baseUrl ?? ''}`,
    );
  }
}

/**
 * Checks the token's scopes against what the route accepts. `accepted` lists scopes any one of
 * which suffices; `api` always does.
 */
export function checkScopes(auth: Auth, accepted: readonly string[]): void {
  if (auth.scopes.includes('api') || accepted.some((s) => auth.scopes.includes(s))) return;
  throw insufficientScope(['api', ...accepted.filter((s) => s !== 'api')].join(' '));
}

/** `Sudo: <id|username>`: an admin token with the sudo scope acts as another user. */
export function applySudo(svc: ServiceContext, auth: Auth, target: string): Auth {
  if (!auth.tokenUser.admin) throw forbidden('Must be admin to use sudo');
  // A job token is no access token (AuthFinders#access_token finds none for it).
  if (!auth.token) throw forbidden('Must be authenticated using an OAuth or personal access token to use sudo');
  if (!auth.scopes.includes('sudo')) throw insufficientScope('sudo');
  const user = findUserByIdOrUsername(svc, target);
  if (!user) throw new ApiError(404, { message: `404 User with ID or username '${target}' Not Found` });
  return { ...auth, user };
}
