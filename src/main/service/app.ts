import type { ServiceContext } from './context';
import { ApiError, serviceUnavailable, validationError } from './http/errors';
import { constantJson, isDatabaseBusy } from './db/connection';
import { FormBody, createRouter, sendJson, withSecurityHeaders, type Router } from './http/route';
import { MULTIPART_BODY } from './http/multipart';
import { parsePairs } from './http/params';
import { areas } from './areas';
import { type BodyParser, HttpApp, HttpLayerError, type HttpRequest } from './http/server';
import { GitCommandError, GitMissingError, GitTimeoutError } from './git';

/** Long enough for most locks another connection holds to clear; short enough to keep a client moving. */
const DATABASE_BUSY_RETRY_AFTER_SECONDS = 1;
/** git's words for an object that is not in the repository (bad object, unknown revision, ...). */
const MISSING_GIT_OBJECT = /fatal: (bad object|bad revision|unknown revision|not a valid object name|Not a valid object name|invalid object)/;

/**
 * A write the database refused for a missing or duplicate value is what Rails reports as a
 * validation failure, and the transaction that tried it has rolled back: 400
 * `{"message": {"<column>": ["can't be blank"]}}` / `["has already been taken"]`, not a 500.
 * (Two clients racing for one name both pass the handler's own check; the second lands here.)
 */
function constraintAsValidationError(err: unknown): ApiError | null {
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string') return null;
  const column = /constraint failed: \w+\.(\w+)/.exec(message)?.[1];
  if (!column) return null;
  if (code === 'SQLITE_CONSTRAINT_NOTNULL') return validationError({ [column]: ["can't be blank"] });
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return validationError({ [column]: ['has already been taken'] });
  return null;
}

/** The answers to requests no route takes: the same bodies every time, serialized once. */
const NOT_ALLOWED = constantJson({ error: '405 Not Allowed' });
const API_V3_GONE = constantJson({ error: 'API V3 is no longer supported. Use API V4 instead.' });
const NOT_FOUND = constantJson({ error: '404 Not Found' });

/** A registered route as the hardening suites enumerate it (the role matrix, the fuzz suite). */
export interface RouteInfo {
  method: string;
  /** The route's pattern, with `/api/v4` (`/api/v4/projects/:id/badges/:badge_id`). */
  url: string;
  /** The route's `auth` option ('required', 'optional' or 'none'). */
  auth: string;
}

/** The HTTP app: body parsers, GitLab's error bodies, security headers, every area's routes. */
export function buildApp(svc: ServiceContext, routes: RouteInfo[] = []): { app: HttpApp; router: Router } {
  const keepText = (req: HttpRequest, text: string): undefined => {
    req.rawBody = text;
    return undefined;
  };
  const app: HttpApp = new HttpApp({
    bodyLimit: svc.limits.maxBodyBytes,
    // Requests go before background jobs: the runner holds job work back while requests are answered.
    gauge: svc.jobs,
    parsers: {
      text: new Map<string, BodyParser>([
        // JSON: an empty body is {} (some clients send the header without a body); raw text is kept.
        [
          'application/json',
          (req, text) => {
            req.rawBody = text;
            if (!text.trim()) return {};
            try {
              return JSON.parse(text);
            } catch {
              throw new ApiError(400, { error: 'The request body is not valid JSON' });
            }
          },
        ],
        [
          'application/x-www-form-urlencoded',
          (req, text) => {
            req.rawBody = text;
            return new FormBody(parsePairs(text));
          },
        ],
        // Plain text is the body itself (the alert receivers read it).
        ['text/plain', (_req, text) => text],
      ]),
      // git's smart HTTP bodies (packs, possibly gzip-encoded) stay streams: the handler pipes them into git.
      stream: new Set(['application/x-git-upload-pack-request', 'application/x-git-receive-pack-request']),
      // Multipart bodies are left unread here: the route streams them (files to disk) with readMultipart.
      unread: new Map([['multipart/form-data', MULTIPART_BODY]]),
      // Anything else is kept as text for the routes that read raw bodies (webhook receivers).
      fallback: keepText,
    },
    onError: (thrown, _req, reply) => {
      // A client that went away mid-response (a download cancelled before the file streamed)
      // leaves nothing to answer.
      if (reply.raw.headersSent || reply.raw.destroyed) {
        reply.hijack();
        reply.raw.destroy();
        return;
      }
      // A lock held elsewhere past the busy timeout is a busy answer, not a failure.
      const err = isDatabaseBusy(thrown) ? serviceUnavailable(DATABASE_BUSY_RETRY_AFTER_SECONDS) : (constraintAsValidationError(thrown) ?? thrown);
      if (err instanceof ApiError) {
        reply.headers(err.headers);
        if (err.status === 304 || !err.body) return void withSecurityHeaders(reply.code(err.status)).send();
        return void sendJson(reply, err.status, err.body);
      }
      if (err instanceof GitMissingError) return void sendJson(reply, 503, { message: `503 Service Unavailable - ${err.message}` });
      if (err instanceof GitTimeoutError) return void sendJson(reply, 503, { message: '503 Service Unavailable - the git operation timed out' });
      // A commit a stored record names that the repository no longer holds (Gitaly's NotFound).
      if (err instanceof GitCommandError && MISSING_GIT_OBJECT.test(err.stderr)) return void sendJson(reply, 404, { message: '404 Commit Not Found' });
      if (err instanceof HttpLayerError && err.code === 'BODY_TOO_LARGE') return void sendJson(reply, 413, { message: '413 Request Entity Too Large' });
      if (err instanceof HttpLayerError && err.code === 'INVALID_MEDIA_TYPE') return void sendJson(reply, 415, { message: '415 Unsupported Media Type' });
      const statusCode = (err as { statusCode?: number }).statusCode;
      if (statusCode && statusCode >= 400 && statusCode < 500) return void sendJson(reply, statusCode, { error: (err as Error).message });
      console.error('[sandlab] unhandled error:', err);
      sendJson(reply, 500, { message: '500 Internal Server Error' });
    },
    onNotFound: (req, reply, allowed) => {
      // Grape answers a known path with another method as 405 and lists what it allows.
      if (allowed.length && req.url.startsWith('/api/v4/')) {
        reply.header('allow', [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', '));
        return void sendJson(reply, 405, NOT_ALLOWED);
      }
      if (req.url.startsWith('/api/v3/')) {
        return void sendJson(reply, 410, API_V3_GONE);
      }
      sendJson(reply, 404, NOT_FOUND);
    },
  });
  const router: Router = createRouter(app, svc, routes);
  for (const area of areas) area.register(router, svc);
  return { app, router };
}
