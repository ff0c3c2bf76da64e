import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService, type Service, type ServiceOptions } from '../../src/main/service';
import { registerDataDir, registerSecret, registerSecretsIn, sweepingAfterRun } from './secrets-registry';

export const ROOT_TOKEN = 'glpat-test-root-token-000000';

export interface ApiResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** The body of a successful answer; anything else throws with the status and text, so a set-up step fails where it went wrong. */
export const ok = <T>(res: { status: number; text: string; body: T }): T => {
  if (res.status >= 300) throw new Error(`${res.status} ${res.text}`);
  return res.body;
};

export interface CallOptions {
  token?: string | null;
  /** JSON body (default), or `form` for x-www-form-urlencoded, or `multipart`. */
  body?: unknown;
  form?: Record<string, string | string[]>;
  multipart?: FormData;
  query?: Record<string, string | number | boolean | string[]>;
  headers?: Record<string, string>;
}

/** A real service on a free port with a fresh data dir, and a small HTTP client for it. */
export class TestService {
  private constructor(
    readonly service: Service,
    readonly url: string,
    readonly dataDir: string,
  ) {}

  static async start(opts: Partial<ServiceOptions> = {}): Promise<TestService> {
    const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'sandlab-test-'));
    registerDataDir(dataDir);
    registerSecret(ROOT_TOKEN, opts.rootToken);
    const service = await createService({ dataDir, port: 0, rootToken: ROOT_TOKEN, ...opts });
    const url = await service.listen();
    return new TestService(service, url, dataDir);
  }

  async stop(): Promise<void> {
    await this.service.close();
    // Kept for the secrets sweep after the run, which removes it.
    if (!sweepingAfterRun()) rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** Calls `/api/v4<path>` as root unless `token` says otherwise (null = anonymous). */
  async api<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResult<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? ROOT_TOKEN : opts.token;
    if (token) headers['private-token'] = token;
    registerSecret(token);
    registerSecretsIn(opts.body);
    registerSecretsIn(opts.form);
    let body: string | FormData | undefined;
    if (opts.multipart) body = opts.multipart;
    else if (opts.form) {
      const usp = new URLSearchParams();
      for (const [k, v] of Object.entries(opts.form)) for (const x of Array.isArray(v) ? v : [v]) usp.append(k, x);
      body = usp.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    let url = path.startsWith('http') ? path : `${this.url}${path.startsWith('/api/') || path.startsWith('/-/') ? '' : '/api/v4'}${path}`;
    if (opts.query) {
      const usp = new URLSearchParams();
      for (const [k, v] of Object.entries(opts.query)) for (const x of Array.isArray(v) ? v : [v]) usp.append(k, String(x));
      url += (url.includes('?') ? '&' : '?') + usp.toString();
    }
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    // A token the service hands out once (personal, project, deploy, alert, job tokens).
    registerSecretsIn(parsed);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  /** GET as root through a Host header of our choosing (fetch cannot set one): the body and its text. */
  getWithHost(path: string, host: string): Promise<{ status: number; body: any; text: string }> {
    const { hostname, port } = new URL(this.url);
    return new Promise((resolve, reject) => {
      const req = request({ hostname, port, path: `/api/v4${path}`, headers: { host, 'private-token': ROOT_TOKEN }, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), text }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  get = <T = any>(path: string, opts?: CallOptions) => this.api<T>('GET', path, opts);
  post = <T = any>(path: string, body?: unknown, opts?: CallOptions) => this.api<T>('POST', path, { body, ...opts });
  put = <T = any>(path: string, body?: unknown, opts?: CallOptions) => this.api<T>('PUT', path, { body, ...opts });
  patch = <T = any>(path: string, body?: unknown, opts?: CallOptions) => this.api<T>('PATCH', path, { body, ...opts });
  del = <T = any>(path: string, opts?: CallOptions) => this.api<T>('DELETE', path, opts);

  private seq = 0;

  /** Creates a user (as root) and a token for it; returns both. */
  async createUser(overrides: Record<string, unknown> = {}, scopes: string[] = ['api']): Promise<{ user: any; token: string }> {
    const n = ++this.seq;
    const username = (overrides.username as string) ?? `user${n}_${Math.random().toString(36).slice(2, 7)}`;
    const created = await this.post('/users', { username, name: `User ${n}`, email: `${username}@example.com`, password: 'password123', ...overrides });
    if (created.status !== 201) throw new Error(`createUser: ${created.status} ${created.text}`);
    const tok = await this.post(`/users/${created.body.id}/personal_access_tokens`, { name: 'test', scopes });
    if (tok.status !== 201) throw new Error(`createToken: ${tok.status} ${tok.text}`);
    return { user: created.body, token: tok.body.token };
  }

  async createGroup(overrides: Record<string, unknown> = {}, token?: string): Promise<any> {
    const n = ++this.seq;
    const path = (overrides.path as string) ?? `group-${n}-${Math.random().toString(36).slice(2, 7)}`;
    const res = await this.post('/groups', { name: path, path, ...overrides }, { token });
    if (res.status !== 201) throw new Error(`createGroup: ${res.status} ${res.text}`);
    return res.body;
  }

  async createProject(overrides: Record<string, unknown> = {}, token?: string): Promise<any> {
    const n = ++this.seq;
    const name = (overrides.name as string) ?? `project-${n}-${Math.random().toString(36).slice(2, 7)}`;
    const res = await this.post('/projects', { name, ...overrides }, { token });
    if (res.status !== 201) throw new Error(`createProject: ${res.status} ${res.text}`);
    return res.body;
  }

  /** Adds a user to a project or group at a level (as root). */
  async addMember(kind: 'projects' | 'groups', id: number, userId: number, accessLevel: number): Promise<void> {
    const res = await this.post(`/${kind}/${id}/members`, { user_id: userId, access_level: accessLevel });
    if (res.status !== 201) throw new Error(`addMember: ${res.status} ${res.text}`);
  }
}
