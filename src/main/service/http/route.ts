import { AsyncLocalStorage } from 'node:async_hooks';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { RouteInfo } from '../app';
import type { ServiceContext } from '../context';
import type { User } from '../areas/core/users';
import { type Auth, applySudo, authenticate, checkScopes, readCredentials } from './auth';
import { ApiError, forbidden, unauthorized } from './errors';
import { guardWrites, jsonBody } from '../db/connection';
import { MULTIPART_BODY, readMultipart } from './multipart';
import { type FilePart, type Params, isFilePart, nestPairs, parsePairs } from './params';
import type { HttpApp, HttpRequest, Reply } from './server';

export const API_PREFIX = '/api/v4';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteOptions {
  /**
   * 'required' (default): 401 without credentials. 'optional': anonymous allowed (public reads).
   * 'none': credentials are not read at all; the handler authenticates the request itself
   * (webhook receivers whose `Authorization` header carries their own key, not a user token).
   */
  auth?: 'required' | 'optional' | 'none';
  /**
   * Token scopes that suffice besides `api`. Default: `read_api` for GET, none for writes.
   * `/user`, `/users` and `/events` add `read_user`.
   */
  scopes?: readonly string[];
  /** Keep the raw request body on `rc.rawBody` (webhook receivers). */
  rawBody?: boolean;
  /**
   * GitLab's `route_setting :authentication, job_token_allowed: true`: the route takes a CI job token
   * (JOB-TOKEN, ?job_token=, ?token=, or as the Bearer / access_token). Elsewhere none is read, so a
   * request with only a job token is anonymous (401 where a user is required). The routes are
   * doc/ci/jobs/ci_job_token.md's "Job token access" list (each marked in lib/api/*.rb).
   */
  jobToken?: boolean;
}

/** A refusal decided before the request's own checks have run (RequestContext.refuseAfterChecks). */
interface PendingRefusal {
  error: ApiError;
  /** The request finds its record before it is authorized: that record's 404 comes first. */
  notFoundFirst: boolean;
}

/** One request as a handler sees it: merged parameters, who is asking, and the reply. */
export class RequestContext {
  status: number | null = null;
  refusal: PendingRefusal | null = null;
  constructor(
    readonly svc: ServiceContext,
    readonly req: HttpRequest,
    readonly reply: Reply,
    readonly params: Params,
    /** Route parameters (`:id`), already URL-decoded once. */
    readonly path: Record<string, string>,
    readonly queryPairs: [string, string][],
    readonly auth: Auth | null,
  ) {}

  get user(): User | null {
    return this.auth?.user ?? null;
  }

  /**
   * Refuses the request where GitLab's authorize! would: after Grape's parameter checks (their
   * 400 runs before any endpoint code) and, when `notFoundFirst`, after the record's lookup (its
   * 404). Thrown at the handler's first write (nothing is written), in place of any other
   * failure, or when the handler ends (runWrite).
   */
  refuseAfterChecks(error: ApiError, notFoundFirst: boolean): void {
    this.refusal ??= { error, notFoundFirst };
  }

  /** The user, or 401 when the request is anonymous. */
  requireUser(): User {
    if (!this.auth) throw unauthorized();
    return this.auth.user;
  }

  requireAdmin(): User {
    const user = this.requireUser();
    if (!user.admin) throw forbidden();
    return user;
  }

  /** scheme://host[:port] exactly as the client reached us, for web_url and Link headers. */
  get baseUrl(): string {
    return this.req.baseUrl;
  }

  /** The request path without the query string, still URL-encoded. */
  get pathname(): string {
    const q = this.req.url.indexOf('?');
    return q < 0 ? this.req.url : this.req.url.slice(0, q);
  }

  get rawBody(): string | undefined {
    return this.req.rawBody;
  }

  /** The request body as the stream it arrived as (content types the app leaves unparsed: git's packs). */
  get bodyStream(): Readable {
    return this.req.body instanceof Readable ? this.req.body : this.req.raw;
  }
}

/**
 * Sends a JSON body with exactly `Content-Type: application/json`, as GitLab does: python-gitlab
 * 3.12 compares the header for equality and treats anything else (even with a charset) as raw.
 */
export function sendJson(reply: Reply, status: number, body: unknown): Reply {
  return withSecurityHeaders(reply.code(status).lowerCaseHeader('content-type', 'application/json')).send(jsonBody(body));
}

/**
 * The headers every answer carries (Rails' defaults on GitLab). Set before a route's handler runs and
 * by sendJson (answers from outside a route: errors, unknown paths), rather than in an async onSend
 * hook every request would pay for.
 */
export function withSecurityHeaders(reply: Reply): Reply {
  return reply.lowerCaseHeader('x-frame-options', 'SAMEORIGIN').lowerCaseHeader('x-content-type-options', 'nosniff');
}

export type Handler = (rc: RequestContext) => unknown | Promise<unknown>;

/**
 * Who acts, for writes that also run outside a request (a migration writing as the user who
 * started it): a request context satisfies it.
 */
export type Actor = Pick<RequestContext, 'svc' | 'user'>;

export interface Router {
  get(path: string, handler: Handler, opts?: RouteOptions): void;
  post(path: string, handler: Handler, opts?: RouteOptions): void;
  put(path: string, handler: Handler, opts?: RouteOptions): void;
  patch(path: string, handler: Handler, opts?: RouteOptions): void;
  delete(path: string, handler: Handler, opts?: RouteOptions): void;
  /** Routes outside /api/v4 (alert receivers at GitLab's project URLs). */
  rootRoute(method: Method, path: string, handler: Handler, opts?: RouteOptions): void;
}

/** A route as the pipeline runs it: its handler, and its options resolved once at registration. */
interface RouteSpec {
  handler: Handler;
  auth: 'required' | 'optional' | 'none';
  /** Scopes any one of which suffices besides `api`. */
  scopes: readonly string[];
  /** The status of a JSON answer when the handler sets none. */
  status: number;
  /** Whether Sudo is read: an API route's (API::Helpers#sudo!), not a web page's (GitLab's Rails controllers read none). */
  sudo: boolean;
  /** Whether a CI job token is read (RouteOptions.jobToken). */
  jobToken: boolean;
}

const READ_SCOPES: readonly string[] = Object.freeze(['read_api']);
const NO_SCOPES: readonly string[] = Object.freeze([]);
const NO_PAIRS: [string, string][] = Object.freeze([]) as unknown as [string, string][];

/** Builds the Router an area registers its routes on. */
export function createRouter(app: HttpApp, svc: ServiceContext, routes: RouteInfo[] = []): Router {
  const add = (method: Method, url: string, handler: Handler, opts: RouteOptions = {}): void => {
    const spec: RouteSpec = {
      handler,
      auth: opts.auth ?? 'required',
      scopes: opts.scopes ?? (method === 'GET' ? READ_SCOPES : NO_SCOPES),
      status: method === 'POST' ? 201 : 200,
      sudo: url.startsWith(`${API_PREFIX}/`),
      jobToken: opts.jobToken === true,
    };
    app.route(method, url, (req, reply) => runHandler(svc, req, reply, spec));
    routes.push({ method, url, auth: spec.auth });
  };
  return {
    get: (p, h, o) => add('GET', API_PREFIX + p, h, o),
    post: (p, h, o) => add('POST', API_PREFIX + p, h, o),
    put: (p, h, o) => add('PUT', API_PREFIX + p, h, o),
    patch: (p, h, o) => add('PATCH', API_PREFIX + p, h, o),
    delete: (p, h, o) => add('DELETE', API_PREFIX + p, h, o),
    rootRoute: (m, p, h, o) => add(m, p, h, o),
  };
}

/**
 * One request through a route: parameters, authentication, rate limits, scopes, the handler, the
 * answer. Synchronous until a handler (or a multipart body) is asynchronous: most reads answer in
 * the tick their request arrived in, without a promise per request.
 */
function runHandler(svc: ServiceContext, req: HttpRequest, reply: Reply, route: RouteSpec): unknown {
  const url = req.url;
  const q = url.indexOf('?');
  const queryPairs = q < 0 ? NO_PAIRS : parsePairs(url.slice(q + 1));
  const params: Params = queryPairs.length ? nestPairs(queryPairs) : {};
  if (req.body === MULTIPART_BODY) return runWithUploads(svc, req, reply, route, queryPairs, params);
  mergeBody(req.body, params);
  return answer(svc, req, reply, route, queryPairs, params);
}

/** A multipart request: its files are on disk while the handler runs, and deleted after unless it moved them. */
async function runWithUploads(svc: ServiceContext, req: HttpRequest, reply: Reply, route: RouteSpec, queryPairs: [string, string][], params: Params): Promise<unknown> {
  const files: FilePart[] = [];
  try {
    const limits = { maxFileBytes: svc.limits.maxUploadBytes, maxFieldBytes: svc.limits.maxBodyBytes, tmpDir: join(svc.dataDir, 'tmp') };
    nestPairs(await readMultipart(req.raw, limits, files), params);
    return await answer(svc, req, reply, route, queryPairs, params);
  } finally {
    if (files.length) await Promise.all(files.map((f) => unlink(f.path).catch(() => undefined)));
  }
}

function answer(svc: ServiceContext, req: HttpRequest, reply: Reply, route: RouteSpec, queryPairs: [string, string][], params: Params): unknown {
  let auth: Auth | null = null;
  if (route.auth !== 'none') {
    const creds = readCredentials(req, params, route.jobToken);
    const sudo = route.sudo ? creds.sudo : null;
    try {
      auth = authenticate(svc, creds, req);
    } catch (err) {
      // A bad token counts against the caller's IP, as an anonymous request does.
      if (svc.rateLimits && svc.rateLimiter.refuse(svc.rateLimits(), null, reply)) return reply;
      throw err;
    }
    if (svc.rateLimits && svc.rateLimiter.refuse(svc.rateLimits(), auth?.tokenUser.id ?? null, reply)) return reply;
    // APIGuard's sudo! refuses a request without a user whatever the route reads (unauthorized! unless initial_current_user).
    if (!auth && (route.auth === 'required' || sudo !== null)) throw unauthorized();
    if (auth) {
      checkScopes(auth, route.scopes);
      if (sudo !== null) auth = applySudo(svc, auth, sudo);
    }
  }
  const rc = new RequestContext(svc, req, reply, params, req.params, queryPairs, auth);
  // Set before the handler runs, so the answers it sends itself (files, git's streams) carry them too.
  withSecurityHeaders(reply);
  const result = req.method === 'GET' ? route.handler(rc) : runWrite(rc, route.handler);
  if (isPromise(result)) return result.then((value) => finish(rc, route, value));
  return finish(rc, route, result);
}

/** The request a write statement runs for, across its handler's awaits: its pending refusal stops the write. */
export const writingRequest = new AsyncLocalStorage<RequestContext>();
guardWrites(() => {
  const refusal = writingRequest.getStore()?.refusal;
  if (refusal) throw refusal.error;
});

/** Write handlers running now (an async one spans awaits): writingRequest is enabled only while there are any. */
let writesRunning = 0;

/**
 * Once run, an AsyncLocalStorage keeps Node 20's promise hooks on for every later await of the
 * process (about 0.1 us each: reads slowed after the first write), until disable(): so it is
 * disabled whenever no write handler is running.
 */
function writeEnded(): void {
  if (--writesRunning === 0) writingRequest.disable();
}

/** A handler that may write, run where its pending refusal (refuseAfterChecks) stops its writes and takes over its answer. */
function runWrite(rc: RequestContext, handler: Handler): unknown {
  let result: unknown;
  writesRunning++;
  try {
    result = writingRequest.run(rc, handler, rc);
  } catch (err) {
    writeEnded();
    throw refusedOver(rc, err);
  }
  if (isPromise(result)) {
    return result.then(
      (value) => (writeEnded(), refusedOr(rc, value)),
      (err: unknown) => {
        writeEnded();
        throw refusedOver(rc, err);
      },
    );
  }
  writeEnded();
  return refusedOr(rc, result);
}

function refusedOr(rc: RequestContext, value: unknown): unknown {
  if (rc.refusal) throw rc.refusal.error;
  return value;
}

/** What a refused request answers for a failure of its own: Grape's parameter errors, and a 404 found first, stand; anything else is refused. */
function refusedOver(rc: RequestContext, err: unknown): unknown {
  const refusal = rc.refusal;
  if (!refusal || !(err instanceof ApiError)) return err;
  if (err.status === 400 && err.body !== null && 'error' in err.body) return err;
  if (err.status === 404 && refusal.notFoundFirst) return err;
  return refusal.error;
}

function finish(rc: RequestContext, route: RouteSpec, result: unknown): Reply {
  const reply = rc.reply;
  if (result === reply || reply.sent) return reply;
  if (result === undefined) return reply.code(rc.status ?? 204).send();
  return sendJson(reply, rc.status ?? route.status, result);
}

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as { then?: unknown } | null)?.then === 'function';

/** Merges a form or JSON body into `params`. */
function mergeBody(body: unknown, params: Params): void {
  // A streamed body (git's packs) is the handler's to read.
  if (body instanceof Readable) return;
  if (body instanceof FormBody) {
    nestPairs(body.pairs, params);
  } else if (body && typeof body === 'object' && !Array.isArray(body)) {
    Object.assign(params, body);
  }
}

/** A form-urlencoded body, kept as ordered pairs so Rack-style nesting can be applied. */
export class FormBody {
  constructor(readonly pairs: [string, string][]) {}
}

export { isFilePart };
