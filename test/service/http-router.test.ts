import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';

/**
 * The HTTP layer's routing and body reading, through real HTTP with exact request targets
 * (node:http sends the path as written: no URL normalisation on the way).
 */
let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => {
  await s.stop();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function raw(method: string, path: string, headers: Record<string, string> = { 'private-token': ROOT_TOKEN }, body?: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = (a: RawAnswer): unknown => JSON.parse(a.text);

describe('routing', () => {
  it('routes a path with a trailing slash or doubled slashes as the plain path', async () => {
    for (const path of ['/api/v4/version', '/api/v4/version/', '//api//v4///version', '/api/v4/version?x=1']) {
      const a = await raw('GET', path);
      expect([path, a.status]).toEqual([path, 200]);
      expect(json(a)).toMatchObject({ revision: 'sandlab' });
    }
  });

  it('prefers a static segment over a parameter at the same place', async () => {
    const self = await raw('GET', '/api/v4/personal_access_tokens/self');
    expect(self.status).toBe(200);
    const id = (json(self) as { id: number }).id;
    const byId = await raw('GET', `/api/v4/personal_access_tokens/${id}`);
    expect(byId.status).toBe(200);
    expect(json(byId)).toMatchObject({ id });
  });

  it('backtracks out of a static branch into parameter routes (alert receivers at project paths)', async () => {
    // `/api/v4/x/alerts/notify` is no API route; it is the receiver of a project `api/v4/x`.
    const a = await raw('POST', '/api/v4/x/alerts/notify', {});
    expect(a.status).toBe(404);
    expect(json(a)).toEqual({ message: '404 Project Not Found' });
  });

  it('decodes a parameter once: an encoded slash is part of the value, %25 stays a percent', async () => {
    const created = await s.post('/projects', { name: 'routed' });
    expect(created.status).toBe(201);
    const byPath = await raw('GET', '/api/v4/projects/root%2Frouted');
    expect(byPath.status).toBe(200);
    expect(json(byPath)).toMatchObject({ id: created.body.id });
    const lower = await raw('GET', '/api/v4/projects/root%2frouted');
    expect(lower.status).toBe(200);
    // `%252F` is a literal "%2F" in the name: no such project.
    expect((await raw('GET', '/api/v4/projects/root%252Frouted')).status).toBe(404);
    // A static segment matches its decoded form.
    expect((await raw('GET', '/api/v4/ver%73ion')).status).toBe(200);
  });

  it('answers a malformed escape as a bad URL, and an over-long parameter as 414', async () => {
    const bad = await raw('GET', '/api/v4/projects/%zz/badges');
    expect(bad.status).toBe(400);
    expect(json(bad)).toEqual({ error: 'Bad Request', code: 'FST_ERR_BAD_URL', message: "'/api/v4/projects/%zz/badges' is not a valid url component", statusCode: 400 });
    const long = 'a'.repeat(2049);
    const tooLong = await raw('GET', `/api/v4/projects/${long}`);
    expect(tooLong.status).toBe(414);
    expect(json(tooLong)).toMatchObject({ code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 414 });
    expect((await raw('GET', `/api/v4/projects/${'a'.repeat(2048)}`)).status).toBe(404);
  });

  it('matches a segment that is a static prefix and a parameter (archive.:format)', async () => {
    expect((await s.post('/projects', { name: 'archived', initialize_with_readme: true })).status).toBe(201);
    for (const format of ['zip', 'tar.gz']) {
      const a = await raw('GET', `/api/v4/projects/root%2Farchived/repository/archive.${format}`);
      expect(a.status).toBe(200);
      expect(a.headers['content-disposition']).toMatch(new RegExp(`\\.${format.replace('.', '\\.')}"$`));
    }
    // The plain segment is its own route (tar.gz by default).
    const plain = await raw('GET', '/api/v4/projects/root%2Farchived/repository/archive');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-disposition']).toMatch(/\.tar\.gz"$/);
  });

  it('gives a trailing * the rest of the path, slashes and all, decoded once', async () => {
    const created = await s.post('/snippets', { title: 'nested', visibility: 'private', files: [{ file_path: 'dir/sub/a b.txt', content: 'deep' }] });
    expect(created.status).toBe(201);
    const a = await raw('GET', `/-/snippets/${created.body.id}/raw/main/dir/sub/a%20b.txt`);
    expect(a.status).toBe(200);
    expect(a.text).toBe('deep');
  });

  it('answers HEAD with the GET route: same headers, no body', async () => {
    const get = await raw('GET', '/api/v4/user');
    const head = await raw('HEAD', '/api/v4/user');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['content-type']).toBe('application/json');
  });

  it('answers a known path with another method 405 listing the allowed ones, unknown paths 404, v3 410', async () => {
    const a = await raw('DELETE', '/api/v4/version');
    expect(a.status).toBe(405);
    expect(a.headers.allow).toBe('GET, HEAD');
    expect(json(a)).toEqual({ error: '405 Not Allowed' });
    const nope = await raw('GET', '/api/v4/nope');
    expect(nope.status).toBe(404);
    expect(json(nope)).toEqual({ error: '404 Not Found' });
    expect(nope.headers['x-content-type-options']).toBe('nosniff');
    expect((await raw('GET', '/api/v3/projects')).status).toBe(410);
  });
});

describe('the route table, built at its first lookups (http/router.ts)', () => {
  /** A path of a route's pattern: each parameter a value no static segment is, the wildcard a file path. */
  const pathOf = (pattern: string): string => pattern.replace(/:[^/]*/g, 'z9').replace(/\*$/, 'a/b');
  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  /** The paths `pattern` routes, as the table matches them (a static, a parameter, a prefix and a parameter, a trailing *). */
  const matcherOf = (pattern: string): RegExp =>
    new RegExp(`^${pattern.split('/').map((seg) => (seg === '*' ? '.+' : seg.includes(':') ? `${escape(seg.slice(0, seg.indexOf(':')))}[^/]+` : escape(seg))).join('/')}$`);
  const ROUTER_404 = '{"error":"404 Not Found"}';

  it('routes every registered route, and every other method at an API path is 405 with the methods it has, from a fresh start', async () => {
    // A fresh service: its first request is a 405 (the table of every method's paths first), then
    // one method's routes after another, each method's table built by its first request.
    const fresh = await TestService.start();
    try {
      const { hostname, port } = new URL(fresh.url);
      const call = (method: string, path: string): Promise<RawAnswer> =>
        new Promise((resolve, reject) => {
          const req = request({ host: hostname, port, method, path, agent: false }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }));
          });
          req.on('error', reject);
          req.end();
        });
      const routes = fresh.service.routes;
      const matchers = routes.map((r) => ({ method: r.method, matches: matcherOf(r.url) }));
      const methodsAt = (path: string): Set<string> => new Set(matchers.filter((m) => m.matches.test(path)).map((m) => m.method));
      const apiPaths = [...new Set(routes.map((r) => pathOf(r.url)))].filter((p) => p.startsWith('/api/v4/'));
      const refusals: string[] = [];
      for (const path of apiPaths) {
        const has = methodsAt(path);
        const other = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => !has.has(m));
        if (!other) continue;
        const a = await call(other, path);
        const allow = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => has.has(m));
        if (has.has('GET')) allow.push('HEAD');
        if (a.status !== 405 || a.headers.allow !== allow.join(', ') || a.text !== '{"error":"405 Not Allowed"}') refusals.push(`${other} ${path}: ${a.status} ${String(a.headers.allow)}`);
      }
      const byMethod = ['DELETE', 'PUT', 'GET', 'PATCH', 'POST'].flatMap((m) => routes.filter((r) => r.method === m));
      for (const r of [...byMethod, ...routes.filter((x) => x.method === 'GET').map((x) => ({ ...x, method: 'HEAD' }))]) {
        const a = await call(r.method, pathOf(r.url));
        // Without credentials: a route that requires them is routed exactly when it answers 401.
        const routed = r.auth === 'required' ? a.status === 401 : a.status !== 405 && !(a.status === 404 && a.text === ROUTER_404) && !(r.method === 'HEAD' && a.status === 404 && a.headers['content-length'] === String(ROUTER_404.length));
        if (!routed) refusals.push(`${r.method} ${r.url}: ${a.status} ${a.text}`);
      }
      expect(refusals).toEqual([]);
      expect(routes.length).toBeGreaterThan(700);
    } finally {
      await fresh.stop();
    }
  }, 120_000);
});

describe('request bodies', () => {
  const T = { 'private-token': ROOT_TOKEN };

  it('refuses invalid JSON with 400 and closes the connection; an empty JSON body is {}', async () => {
    const bad = await raw('POST', '/api/v4/projects', { ...T, 'content-type': 'application/json' }, '{bad');
    expect(bad.status).toBe(400);
    expect(bad.headers.connection).toBe('close');
    expect(json(bad)).toEqual({ error: 'The request body is not valid JSON' });
    const empty = await raw('POST', '/api/v4/projects', { ...T, 'content-type': 'application/json' }, '');
    expect(json(empty)).toEqual({ error: 'name, path are missing, at least one parameter must be provided' });
  });

  it('reads JSON whatever the case of its media type, and forms', async () => {
    const a = await raw('POST', '/api/v4/projects', { ...T, 'content-type': 'Application/JSON; charset=utf-8' }, '{"name":"cased"}');
    expect(a.status).toBe(201);
    const f = await raw('POST', '/api/v4/projects', { ...T, 'content-type': 'application/x-www-form-urlencoded' }, 'name=formed');
    expect(f.status).toBe(201);
  });

  it('answers 415 for a Content-Type that is not a media type, 413 past the body limit', async () => {
    const a = await raw('POST', '/api/v4/projects', { ...T, 'content-type': 'nonsense' }, 'x');
    expect(a.status).toBe(415);
    expect(json(a)).toEqual({ message: '415 Unsupported Media Type' });
    const big = await raw('POST', '/api/v4/projects', { ...T, 'content-type': 'application/json', 'content-length': String(21 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect(json(big)).toEqual({ message: '413 Request Entity Too Large' });
  });

  it('reads no body on GET', async () => {
    const a = await raw('GET', '/api/v4/version', { ...T, 'content-type': 'application/json', 'content-length': '4' }, '{bad');
    expect(a.status).toBe(200);
  });
});
