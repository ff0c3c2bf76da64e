import type { ServiceContext } from '../context';
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
  jobToken: string | null;
  sudo: string | null;
}

/**
 * Reads credentials from parameters and headers, as GitLab's APIGuard does: each parameter before
 * its header (AuthFinders' `params[:private_token].presence || env['HTTP_PRIVATE_TOKEN'].presence ||
 * parsed_oauth_token`, the same for job_token, and sudo_identifier's `params[:sudo] || env['HTTP_SUDO']`).
 * Each parameter is read by its literal name, each read with feedback of its own: one `params[name]`
 * shared by the four went megamorphic (a generic keyed load a read, on every authenticated request).
 */
export function readCredentials(req: Pick<HttpRequest, 'header'>, params: Record<string, unknown>): Credentials {
  return {
    privateToken: present(params.private_token) ?? header(req, 'private-token') ?? present(params.access_token) ?? bearer(req) ?? present(params.bearer_token),
    jobToken: present(params.job_token) ?? header(req, 'job-token'),
    // No `.presence` here: an empty sudo parameter or head still asks for sudo (and finds no user '').
    // A JSON body's number is an id, as Grape keeps it for UserFinder.
    sudo: typeof params.sudo === 'string' ? params.sudo : typeof params.sudo === 'number' ? String(params.sudo) : sudoHeader(req),
  };
}

/**
 * Doorkeeper's from_bearer_authorization, the second of GitLab's access_token_methods (after
 * ?access_token=, before ?bearer_token=): only `Bearer ` is cut off, so spaces after it stay in the token.
 */
function bearer(req: Pick<HttpRequest, 'header'>): string | null {
  const authz = header(req, 'authorization');
  return authz && /^Bearer /i.test(authz) ? present(authz.slice(7)) : null;
}

function header(req: Pick<HttpRequest, 'header'>, name: string): string | null {
  const v = req.header(name);
  return typeof v === 'string' && v.length ? v : Array.isArray(v) && v.length ? v[0] : null;
}

/** The Sudo head as sent, empty too (env['HTTP_SUDO'] with no `.presence`). */
function sudoHeader(req: Pick<HttpRequest, 'header'>): string | null {
  const v = req.header('sudo');
  return typeof v === 'string' ? v : Array.isArray(v) && v.length ? v[0] : null;
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
    return { user: identity.user, tokenUser: identity.user, token: null, scopes: ['api'], jobTokenProjectId: identity.projectId };
  }
  return null;
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
