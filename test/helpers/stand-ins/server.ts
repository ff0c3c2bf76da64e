import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gitEndpoint, serveGit } from './git';

/**
 * A tiny HTTP server on 127.0.0.1 that the provider stand-ins build on: it records every request
 * (so tests can check what Sandlab asked for: page sizes, credentials, paths) and answers through
 * the stand-in's `handle`.
 */
export interface StandInRequest {
  method: string;
  /** Path without the query string, URL-decoded once. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
}

export interface StandInResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw bytes or text instead of JSON. */
  raw?: string | Buffer;
}

export abstract class StandInServer {
  url = '';
  readonly requests: StandInRequest[] = [];
  /** Answers to force, for failure tests: the first fault whose pattern matches a path answers instead of the stand-in. */
  readonly faults: { path: RegExp; status: number; body?: unknown; headers?: Record<string, string> }[] = [];
  /** Bare repositories served over git's smart HTTP at their clone URL's path (without `.git`): `/octo/rocket`. */
  readonly repositories = new Map<string, string>();
  private server: Server | null = null;

  protected abstract handle(req: StandInRequest): Promise<StandInResponse> | StandInResponse;

  /** Whether a git request carries credentials the provider takes (HTTP Basic, as git sends them). */
  protected abstract gitAuthorized(req: StandInRequest): boolean;

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  /** Requests whose path matches, for assertions. */
  requestsTo(pattern: RegExp): StandInRequest[] {
    return this.requests.filter((r) => pattern.test(r.path));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const request: StandInRequest = { method: req.method ?? 'GET', path: decodeURIComponent(url.pathname), query: url.searchParams, headers: req.headers };
    this.requests.push(request);
    const fault = this.faults.find((f) => f.path.test(request.path));
    const git = gitEndpoint(request.path);
    const repository = git && this.repositories.get(git[0]);
    if (!fault && git && repository) {
      if (this.gitAuthorized(request)) return serveGit(req, res, repository, git[1]);
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="stand-in"' }).end('Authentication failed');
      return;
    }
    req.resume();
    let out: StandInResponse;
    try {
      out = fault ? { status: fault.status, body: fault.body ?? { message: `stand-in fault ${fault.status}` }, headers: fault.headers } : await this.handle(request);
    } catch (err) {
      out = { status: 500, body: { message: String(err) } };
    }
    if (res.destroyed) return;
    const headers: Record<string, string> = { ...out.headers };
    let payload: string | Buffer = '';
    if (out.raw !== undefined) payload = out.raw;
    else if (out.body !== undefined) {
      payload = JSON.stringify(out.body);
      headers['content-type'] ??= 'application/json; charset=utf-8';
    }
    res.writeHead(out.status, headers);
    res.end(payload);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Basic credentials of a request, or null. */
export function basicAuth(req: StandInRequest): { user: string; password: string } | null {
  const m = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return null;
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0 ? null : { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** A Bearer or `token` credential of a request, or null. */
export function bearerToken(req: StandInRequest): string | null {
  const m = /^(?:Bearer|token)\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return m ? m[1] : null;
}

/** A page of `items` for 1-based `page` of size `perPage`. */
export function slicePage<T>(items: T[], page: number, perPage: number): T[] {
  return items.slice((page - 1) * perPage, page * perPage);
}
