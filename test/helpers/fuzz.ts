import { createHash } from 'node:crypto';
import { request } from 'node:http';
import type { Db } from '../../src/main/service/db/connection';
import fc from 'fast-check';
import type { Field } from '../../src/main/service/http/params';
import { observeDeclaredParameters } from '../../src/main/service/http/params';
import type { World } from './world';
import { inWalkOrder, pathFor, routeKey } from './world';

/**
 * Property-based fuzzing of every route of a live service (the fuzz test and `bench/fuzz.ts`).
 * Each route's parameters are learned from the route itself: `declared()` reports the specs it
 * checks while a discovery request runs. Cases are generated from those names and kinds: wrong
 * types, nulls, huge numbers, empty, huge and control-character strings, invalid UTF-8, deep
 * nesting, duplicate keys, malformed JSON and multipart, hostile `:id` encodings and `../`.
 */

type AnyField = Field<any, boolean>;

export interface FuzzRoute {
  method: string;
  url: string;
  key: string;
  /** Parameter name -> kind, as `declared()` saw them. */
  params: Map<string, string>;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** What was tried, for the report. */
  shape: string;
}

/** Sends bytes exactly as given (no client-side validation of the body), one connection each. */
export function sendRaw(base: string, req: FuzzRequest, timeoutMs = 30_000): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers: { ...req.headers, connection: 'close', ...(req.body ? { 'content-length': String(req.body.length) } : {}) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => reject(new Error(`dropped while reading: ${err.message}`)));
      },
    );
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    r.on('error', (err) => reject(new Error(`dropped: ${err.message}`)));
    if (req.body) r.write(req.body);
    r.end();
  });
}

/**
 * Runs one request inside a transaction the test rolls back afterwards, so a route that deletes
 * or revokes leaves the world as it was for the next one. The service answers on the same
 * connection, one request at a time, and its own transactions become savepoints inside this one
 * (its lookup cache is bypassed inside a transaction, so nothing uncommitted is remembered).
 */
export async function rolledBack<T>(world: World, work: () => Promise<T>): Promise<T> {
  const db = world.s.service.context.db;
  db.exec('BEGIN');
  try {
    return await work();
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
  }
}

/** The routes of a live service, each with the parameters `declared()` checks (learned by asking once). */
export async function discoverRoutes(world: World, adminHeaders: Record<string, string>): Promise<FuzzRoute[]> {
  const routes: FuzzRoute[] = [];
  for (const r of inWalkOrder(world.s.service.routes)) {
    if (r.method === 'HEAD') continue;
    const params = new Map<string, string>();
    observeDeclaredParameters((spec) => {
      for (const [name, field] of Object.entries(spec)) if (!params.has(name) || params.get(name) === 'any') params.set(name, (field as AnyField).kind);
    });
    try {
      await rolledBack(world, () => sendRaw(world.s.url, { method: r.method, path: pathFor(world, r.url), headers: { ...adminHeaders }, shape: 'discovery' }));
    } finally {
      observeDeclaredParameters(null);
    }
    routes.push({ method: r.method, url: r.url, key: routeKey(r.method, r.url), params });
  }
  return routes;
}

// ------------------------------------------------------------------------------------------------
// Generators
// ------------------------------------------------------------------------------------------------

const HOSTILE_STRINGS = [
  '',
  ' ',
  'null',
  'undefined',
  'true',
  '-1',
  '0',
  '1.5',
  '1e308',
  '-9223372036854775809',
  '99999999999999999999999999',
  'NaN',
  '0x10',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  '\u0000',
  '\u0007\u001b[31m',
  '\r\nX-Injected: 1',
  '\u202e\ufeff',
  '\ud800',
  '😀'.repeat(50),
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '%{project_path}%{',
  '[object Object]',
  '__proto__',
  'constructor',
];

const hostileString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)), maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 70_000 }).map((n) => 'x'.repeat(n)) },
  );

const hugeNumber = (): fc.Arbitrary<number> =>
  fc.constantFrom(2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, -1, 0, 1.5, Number.MAX_SAFE_INTEGER, 2 ** 64);

/** Nested arrays/objects `depth` levels deep. */
const deep = (depth: number, asObject: boolean): unknown => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = asObject ? { a: v } : [v];
  return v;
};

/** A value of the wrong shape for any declared kind (and sometimes the right one, oddly spelled). */
export const hostileValue = (kind: string): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    fc.boolean(),
    hugeNumber(),
    hostileString(),
    fc.constant([]),
    fc.constant({}),
    fc.array(hostileString(), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'file_path', 'content', 'id', '__proto__', ''), hostileString(), { maxKeys: 3 }),
    fc.constantFrom(deep(200, true), deep(200, false), Array.from({ length: 2000 }, (_, i) => i)),
    kind === 'integer' || kind === 'float' ? fc.constantFrom('12abc', ' 7 ', '+5', '007', '1_000', '1e999') : fc.constant(''),
    kind === 'date' || kind === 'dateTime' ? fc.constantFrom('2024-02-30', '0000-00-00', '9999-99-99T99:99', '2024-13-01') : fc.constant('x'),
  );

type BodyStyle = 'json' | 'form' | 'multipart' | 'query';

/** One generated case for a route. */
export interface FuzzCase {
  style: BodyStyle;
  values: Record<string, unknown>;
  duplicateKey: boolean;
  rawBody: string | null;
  pathParam: string | null;
  pathValue: string;
}

const HOSTILE_PATH_SEGMENTS = [
  '..',
  '%2e%2e',
  '%2e%2e%2f%2e%2e%2fetc',
  '..%2F..%2F..',
  '%00',
  '%FF',
  '%C0%AF',
  '%E2%80%AE',
  '-1',
  '0',
  '99999999999999999999999',
  '1.5',
  '1e3',
  '0x1',
  '%201',
  'null',
  '%252F',
  'a%2Fb%2Fc%2Fd',
  '%7B%7D',
  'x'.repeat(3000),
  '%25',
  '%',
];

const RAW_BODIES = [
  '{"a":',
  '[1,2,3]',
  '"just a string"',
  '42',
  'null',
  '{"__proto__":{"admin":true}}',
  '\u0000\u0001\u0002',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  '{"a":1}garbage',
];

export const fuzzCase = (route: FuzzRoute): fc.Arbitrary<FuzzCase> => {
  const names = [...route.params.keys()];
  const values =
    names.length === 0
      ? fc.constant({} as Record<string, unknown>)
      : fc
          .subarray(names, { minLength: 1, maxLength: Math.min(3, names.length) })
          .chain((chosen) => fc.record(Object.fromEntries(chosen.map((n) => [n, hostileValue(route.params.get(n) ?? 'any')])) as Record<string, fc.Arbitrary<unknown>>));
  const pathParams = route.url.split('/').filter((s) => s.startsWith(':'));
  return fc.record({
    style: fc.constantFrom<BodyStyle>(...(route.method === 'GET' || route.method === 'DELETE' ? (['query', 'query', 'json', 'form'] as const) : (['json', 'json', 'json', 'form', 'multipart', 'query'] as const))),
    values,
    duplicateKey: fc.boolean(),
    rawBody: fc.option(fc.constantFrom(...RAW_BODIES), { freq: 6 }),
    pathParam: pathParams.length ? fc.option(fc.constantFrom(...pathParams), { freq: 3 }) : fc.constant(null),
    pathValue: fc.constantFrom(...HOSTILE_PATH_SEGMENTS),
  });
};

/** One JSON request per declared parameter and value: `{"<name>": <value>}` alone. */
export function sweepCases(route: FuzzRoute, values: unknown[]): FuzzCase[] {
  const style: BodyStyle = 'json';
  return [...route.params.keys()].flatMap((name) =>
    values.map((v) => ({ style, values: { [name]: v }, duplicateKey: false, rawBody: null, pathParam: null, pathValue: '' })),
  );
}

/** Rack-style form pairs from a nested value: `a[b][]=x`. Nesting beyond 64 levels is cut to a string. */
function formPairs(prefix: string, v: unknown, out: [string, string][], depth = 0): void {
  if (v === null || v === undefined) out.push([prefix, '']);
  else if (depth > 64) out.push([prefix, 'deep']);
  else if (Array.isArray(v)) {
    if (v.length === 0) out.push([`${prefix}[]`, '']);
    for (const x of v.slice(0, 200)) formPairs(`${prefix}[]`, x, out, depth + 1);
  } else if (typeof v === 'object') for (const [k, x] of Object.entries(v as object)) formPairs(`${prefix}[${k}]`, x, out, depth + 1);
  else out.push([prefix, String(v)]);
}

const enc = (s: string): string => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'));

/** Turns a case into the bytes sent. */
export function buildRequest(world: World, route: FuzzRoute, c: FuzzCase, headers: Record<string, string>): FuzzRequest {
  const override = c.pathParam ? { [c.pathParam]: c.pathValue } : {};
  let path = pathFor(world, route.url, override);
  const h: Record<string, string> = { ...headers };
  const pairs: [string, string][] = [];
  for (const [k, v] of Object.entries(c.values)) formPairs(k, v, pairs);
  if (c.duplicateKey && pairs.length) pairs.push([pairs[0][0], 'duplicate']);
  let body: Buffer | undefined;
  let shape = `${c.style}(${Object.keys(c.values).join(',')})`;
  if (c.pathParam) shape += ` ${c.pathParam}=${c.pathValue.slice(0, 20)}`;

  if (c.rawBody !== null) {
    h['content-type'] = 'application/json';
    body = Buffer.from(c.rawBody);
    shape += ' raw-json';
  } else if (c.style === 'query') {
    if (pairs.length) path += `?${pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}`;
  } else if (c.style === 'form') {
    h['content-type'] = 'application/x-www-form-urlencoded';
    // Invalid UTF-8 and stray % signs ride along in form bodies.
    body = Buffer.concat([Buffer.from(pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')), Buffer.from(c.duplicateKey ? '&x=%ff%fe%&y=%E0%A4%A' : '')]);
  } else if (c.style === 'json') {
    h['content-type'] = 'application/json';
    let text = JSON.stringify(c.values);
    // JSON.stringify cannot write a duplicate key; splice one in by hand.
    if (c.duplicateKey && text.length > 2) text = `{"${Object.keys(c.values)[0]}":{"nested":[null]},${text.slice(1)}`;
    body = Buffer.concat([Buffer.from(text), c.duplicateKey ? Buffer.from([]) : Buffer.alloc(0)]);
  } else {
    const boundary = 'fuzzboundary1234';
    h['content-type'] = c.duplicateKey ? `multipart/form-data; boundary=${boundary}x` : `multipart/form-data; boundary=${boundary}`;
    const parts = pairs.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k.replace(/"/g, '')}"\r\n\r\n${v}\r\n`);
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="../../evil.txt"\r\nContent-Type: text/plain\r\n\r\nfile body\r\n`);
    body = Buffer.from(`${parts.join('')}--${boundary}${c.duplicateKey ? '' : '--'}\r\n`);
  }
  return { method: route.method, path, headers: h, body, shape };
}

// ------------------------------------------------------------------------------------------------
// Invariants
// ------------------------------------------------------------------------------------------------

/**
 * What is wrong with an answer, or null: no 5xx, and every 4xx of the REST API a JSON body with
 * `message` or `error`. Routes outside `/api/` speak their own protocol (git smart HTTP answers
 * git clients in plain text, as GitLab's Workhorse does).
 */
export function violation(res: RawResponse, path: string): string | null {
  if (res.status >= 500) return `${res.status} ${res.body.slice(0, 200)}`;
  if (res.status < 400 || !path.startsWith('/api/')) return null;
  // GitLab's throttle answers in plain text (Rack::Attack), as Sandlab's does.
  if (res.status === 429) return null;
  const type = String(res.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) return `${res.status} with content-type ${type || 'none'}: ${res.body.slice(0, 120)}`;
  try {
    const parsed = JSON.parse(res.body) as Record<string, unknown>;
    // `errors`: GitLab's own spelling on the import endpoints (`{ errors: result[:message] }`).
    if (!parsed || typeof parsed !== 'object' || !['message', 'error', 'errors'].some((k) => k in parsed)) return `${res.status} body without message/error: ${res.body.slice(0, 120)}`;
  } catch {
    return `${res.status} body is not JSON: ${res.body.slice(0, 120)}`;
  }
  return null;
}

export interface FuzzFailure {
  route: string;
  shape: string;
  path: string;
  problem: string;
}

export interface FuzzStats {
  requests: number;
  routes: number;
  byStatus: Map<number, number>;
  failures: FuzzFailure[];
}

/**
 * Hostile headers, each set sent beside the caller's own on every route (with a small JSON body
 * where the method takes one): GitLab's Sudo header as garbage, a second credential, broken
 * credentials, bodies that lie about their type or encoding, unparseable conditional and range
 * headers, method overrides.
 */
export const HOSTILE_HEADER_SETS: { name: string; headers: Record<string, string>; body?: string }[] = [
  { name: 'sudo garbage', headers: { sudo: '../../etc/passwd' } },
  { name: 'sudo huge id', headers: { sudo: '99999999999999999999999' } },
  { name: 'sudo empty', headers: { sudo: '' } },
  { name: 'two credentials', headers: { 'job-token': 'not-a-job-token', authorization: 'Bearer also-not-a-token' } },
  { name: 'basic not base64', headers: { authorization: 'Basic !!!%%%' } },
  { name: 'basic empty pair', headers: { authorization: `Basic ${Buffer.from(':').toString('base64')}` } },
  { name: 'bearer latin1', headers: { authorization: 'Bearer tökén' } },
  { name: 'json as utf-16', headers: { 'content-type': 'application/json; charset=utf-16' }, body: '{"title":"x"}' },
  { name: 'multipart without boundary', headers: { 'content-type': 'multipart/form-data' }, body: '--x\r\n' },
  { name: 'unknown type', headers: { 'content-type': 'application/x-sandlab-nothing' }, body: '\u0000\u0001' },
  { name: 'plain body claims gzip', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: '{"title":"x"}' },
  { name: 'garbage conditionals', headers: { 'if-unmodified-since': 'yesterday-ish', 'if-modified-since': 'Thu, 99 Foo 99999 99:99:99 XYZ', 'if-none-match': '*' } },
  { name: 'garbage range', headers: { range: 'bytes=999999999999-1' } },
  { name: 'method override', headers: { 'x-http-method-override': 'DELETE' } },
  { name: 'accept html only', headers: { accept: 'text/html', 'accept-encoding': 'br;q=garbage, *;q=0' } },
];

/** `count` hostile header sets (from the `first`, round the list) with the caller's headers, as requests to one route. */
export function headerRequests(world: World, route: FuzzRoute, headers: Record<string, string>, first: number, count: number): FuzzRequest[] {
  const takesBody = route.method !== 'GET' && route.method !== 'HEAD' && route.method !== 'DELETE';
  const sets = Array.from({ length: Math.min(count, HOSTILE_HEADER_SETS.length) }, (_, i) => HOSTILE_HEADER_SETS[(first + i) % HOSTILE_HEADER_SETS.length]);
  return sets.map((set) => {
    const h = { ...headers, ...set.headers };
    let body: Buffer | undefined;
    if (takesBody) {
      body = Buffer.from(set.body ?? '{"title":"x"}');
      if (!set.headers['content-type']) h['content-type'] = 'application/json';
    }
    return { method: route.method, path: pathFor(world, route.url), headers: h, body, shape: `headers: ${set.name}` };
  });
}

/**
 * Runs `casesPerRoute` generated cases against each route (and `headerSetsPerRoute` hostile
 * header sets), one request at a time, each rolled back afterwards (every route meets the
 * world's records intact). The connection's change counter before and after belongs to that
 * request alone: a refused request (4xx) must not have changed a row, even one its own
 * transaction later undid.
 */
export async function fuzzRoutes(
  world: World,
  routes: FuzzRoute[],
  opts: {
    casesPerRoute: number;
    seed: number;
    headers: Record<string, string>;
    /** Values tried in every declared parameter alone, as JSON (null is the classic crash). */
    sweep?: unknown[];
    /** How many hostile header sets each route meets (taking turns round the list, so a run covers them all). */
    headerSetsPerRoute?: number;
    onRoute?: (route: FuzzRoute, stats: FuzzStats) => void;
  },
): Promise<FuzzStats> {
  const db = world.s.service.context.db;
  const changes = (): number => (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
  // Every request starts from this state (each is rolled back), so one baseline serves them all.
  await rolledBack(world, () => sendRaw(world.s.url, { method: 'GET', path: '/api/v4/user', headers: opts.headers, shape: 'warm-up' }));
  await sendRaw(world.s.url, { method: 'GET', path: '/api/v4/user', headers: opts.headers, shape: 'touch token' });
  const baseline = dbFingerprint(db);
  const stats: FuzzStats = { requests: 0, routes: 0, byStatus: new Map(), failures: [] };
  const check = async (route: FuzzRoute, req: FuzzRequest): Promise<void> => {
    const fail = (problem: string) => stats.failures.push({ route: route.key, shape: req.shape, path: req.path.slice(0, 200), problem });
    stats.requests++;
    await rolledBack(world, async () => {
      const before = changes();
      let res: RawResponse;
      try {
        res = await sendRaw(world.s.url, req);
      } catch (err) {
        return fail((err as Error).message);
      }
      stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
      const problem = violation(res, req.path);
      if (problem) fail(problem);
      // The counter also moves for a write the handler's own transaction undid; only a
      // difference from the baseline is a write that stayed.
      else if (res.status >= 400 && changes() !== before) {
        const changed = differingTables(baseline, dbFingerprint(db));
        if (changed.length) fail(`refused with ${res.status} but changed ${changed.join(', ')}`);
      }
    });
  };
  for (const route of routes) {
    stats.routes++;
    const samples = [...sweepCases(route, opts.sweep ?? []), ...fc.sample(fuzzCase(route), { numRuns: opts.casesPerRoute, seed: opts.seed + stats.routes })];
    for (const c of samples) await check(route, buildRequest(world, route, c, opts.headers));
    const sets = opts.headerSetsPerRoute ?? 0;
    for (const req of headerRequests(world, route, opts.headers, stats.routes * sets, sets)) await check(route, req);
    opts.onRoute?.(route, stats);
  }
  return stats;
}

/** A digest of every table's rows (small test databases only). */
export function dbFingerprint(db: Db): Map<string, string> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
  const out = new Map<string, string>();
  for (const { name } of tables) {
    const hash = createHash('sha256');
    for (const row of db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).iterate()) hash.update(JSON.stringify(row, (_k, v) => (Buffer.isBuffer(v) ? v.toString('hex') : typeof v === 'bigint' ? String(v) : v)));
    out.set(name, hash.digest('hex'));
  }
  return out;
}

export function differingTables(a: Map<string, string>, b: Map<string, string>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].filter((t) => a.get(t) !== b.get(t));
}
