import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = resolve(__dirname, '..');
export const CLI = join(ROOT, 'out/main/cli.js');

/** Builds `out/` when it is missing (benchmarks run the built server, as `npm run serve` does). */
export function ensureBuilt(): void {
  if (existsSync(CLI)) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

/** Resident set size of a process, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/**
 * Where a server's resident memory is (MB): V8's heap and what it counts outside it (external: the
 * Buffers' bytes), from the process itself (bench/memory-probe.mjs, preloaded with
 * memoryProbeArgs); malloc's main arena ([heap]: SQLite's page cache and statements, the native
 * addon's memory), the node binary's text, and the rest of the anonymous memory (V8's heap is in
 * there, with large mallocs and the threads' arenas), from /proc/<pid>/smaps.
 */
export async function memorySplit(pid: number, probeFile: string): Promise<string> {
  rmSync(probeFile, { force: true });
  process.kill(pid, 'SIGUSR2');
  let v8: { heapTotal: number; heapUsed: number; external: number; arrayBuffers: number } | undefined;
  for (let i = 0; i < 100 && !v8; i++) {
    await new Promise((r) => setTimeout(r, 20));
    if (existsSync(probeFile)) v8 = JSON.parse(readFileSync(probeFile, 'utf8'));
  }
  const kb: Record<string, number> = { heap: 0, text: 0, anon: 0, other: 0 };
  let kind = 'other';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const map = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (map) kind = map[1] === '[heap]' ? 'heap' : map[1] === '' ? 'anon' : map[1] === process.execPath || map[1].endsWith('/node') ? 'text' : 'other';
    else if (line.startsWith('Rss:')) kb[kind] += Number(line.split(/\s+/)[1]);
  }
  const mb = (n: number): string => (n / 1024).toFixed(1);
  const heap = v8 ? `V8 heap ${(v8.heapUsed / 2 ** 20).toFixed(1)} used of ${(v8.heapTotal / 2 ** 20).toFixed(1)}, external ${(v8.external / 2 ** 20).toFixed(1)}; ` : '';
  return `${heap}resident: malloc [heap] ${mb(kb.heap)}, other anonymous ${mb(kb.anon)}, node text ${mb(kb.text)}, files ${mb(kb.other)}`;
}

/** Node options that preload bench/memory-probe.mjs (memorySplit's view from inside; it writes where $SANDLAB_MEMORY_FILE says). */
export function memoryProbeArgs(): string[] {
  return ['--import', pathToFileURL(join(__dirname, 'memory-probe.mjs')).href];
}

/** CPU time (user + system, all threads) a process has used so far, in ms (Linux /proc). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // After "pid (comm) ": state is field 3, utime 14 and stime 15 (in clock ticks, 100 per second).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * CPU time the process's main thread has run, in ms, to the nanosecond (Linux schedstat). The
 * service does its SQL and JavaScript on that thread, so this is a request's cost whatever else
 * loads the machine.
 */
export function mainThreadCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

/**
 * Context switches of the process's main thread so far (Linux /proc): voluntary ones are the
 * event loop going to sleep with nothing to read (a wake-up follows each), involuntary ones are
 * the thread preempted by another process. Per request they tell how a round ran: fewer wake-ups
 * per request means more requests read per wake-up (cheaper each), more preemptions means other
 * processes took the core (caches cold after each).
 */
export function contextSwitches(pid: number): { voluntary: number; involuntary: number } {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return {
    voluntary: Number(/\nvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0),
    involuntary: Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0),
  };
}

/** One line about the machine, for the figures' context: CPUs, load, versions. */
export function machineLine(): string {
  const cpu = cpus();
  const v = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  const wrkVersion = /wrk (\S+)/.exec(`${v.stdout}${v.stderr}`)?.[1] ?? '?';
  return `${cpu.length} x ${cpu[0]?.model.trim()}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}, wrk ${wrkVersion}`;
}

/** Spawns a server process and resolves with its URL once it prints `listening on <url>`. */
export function spawnServer(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string; startedMs: number }> {
  const t0 = performance.now();
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening on (http:\/\/\S+)/i.exec(out);
      if (m) resolve({ child, url: m[1], startedMs: performance.now() - t0 });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

/** The built headless server (`out/main/cli.js`, what `npm run serve` runs) in its own process. */
export function spawnSandlab(dataDir: string, token: string, o: { nodeArgs?: string[]; wrapper?: string[]; cli?: string } = {}) {
  return spawnNode([...(o.nodeArgs ?? []), o.cli ?? CLI, '--port', '0', '--data-dir', dataDir], { SANDLAB_ROOT_TOKEN: token }, o.wrapper);
}

/** `node args...`, or `wrapper... node args...` (valgrind). */
function spawnNode(args: string[], env: NodeJS.ProcessEnv, wrapper: string[] = []) {
  return wrapper.length ? spawnServer(wrapper[0], [...wrapper.slice(1), process.execPath, ...args], env) : spawnServer(process.execPath, args, env);
}

export interface BareRoute {
  status: number;
  body: string;
}

/**
 * The ceiling: a bare `node:http` server answering each path with a fixed JSON body (the same
 * size as Sandlab's answer it stands beside). POST bodies are read before answering.
 * `sandlabHeaders`: the same, with the head Sandlab sends (its security headers, Content-Type,
 * Content-Length as a string, keep-alive 72 s): what node itself charges for Sandlab's head.
 */
export function spawnBare(routes: Record<string, BareRoute>, wrapper: string[] = [], o: { sandlabHeaders?: boolean } = {}) {
  const head = o.sandlabHeaders
    ? `{ 'x-frame-options': 'SAMEORIGIN', 'x-content-type-options': 'nosniff', 'content-type': 'application/json', 'content-length': String(r.body.length) }`
    : `{ 'content-type': 'application/json', 'content-length': r.body.length }`;
  const source = `
const http = require('node:http');
const routes = new Map(Object.entries(JSON.parse(process.env.BARE_ROUTES)).map(([p, r]) => [p, { status: r.status, body: Buffer.from(r.body) }]));
const s = http.createServer((req, res) => {
  const r = routes.get(req.url) || { status: 404, body: Buffer.from('{"error":"404 Not Found"}') };
  const answer = () => { res.writeHead(r.status, ${head}); res.end(r.body); };
  if (req.method === 'GET') answer(); else { req.resume(); req.on('end', answer); }
});
s.keepAliveTimeout = ${o.sandlabHeaders ? 72000 : 60000};
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
process.on('SIGTERM', () => { s.closeAllConnections(); s.close(() => process.exit(0)); });
`;
  return spawnNode(['-e', source], { BARE_ROUTES: JSON.stringify(routes) }, wrapper);
}

/**
 * The ceiling of Sandlab's own stack: a fastify app with Sandlab's router options answering each
 * path as the bare server does, the way Sandlab's routes answer (an async handler, the security
 * headers, `application/json`, a Buffer body). What separates it from the bare server is fastify's
 * per-request cost; what separates Sandlab from it is Sandlab's own.
 */
export function spawnFastifyFloor(routes: Record<string, BareRoute>) {
  const source = `
const app = require(${JSON.stringify(join(ROOT, 'node_modules/fastify'))})({ logger: false, routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 2048 } });
for (const [path, r] of Object.entries(JSON.parse(process.env.BARE_ROUTES))) {
  const body = Buffer.from(r.body);
  app.route({ method: ['GET', 'POST'], url: path, handler: async (req, reply) =>
    reply.code(r.status).header('x-frame-options', 'SAMEORIGIN').header('x-content-type-options', 'nosniff').header('content-type', 'application/json').send(body) });
}
app.listen({ port: 0, host: '127.0.0.1' }).then((url) => console.log('listening on ' + url));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
`;
  return spawnNode(['-e', source], { BARE_ROUTES: JSON.stringify(routes) });
}

/** A fixed JSON body of exactly `bytes` bytes. */
export function jsonOfSize(bytes: number): string {
  const shell = '{"pad":""}';
  return `{"pad":"${'x'.repeat(Math.max(0, bytes - shell.length))}"}`;
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** `wrk` on PATH, installed from Debian when missing (bench only; CI tests never need it). */
export function ensureWrk(): void {
  if (spawnSync('wrk', ['-v']).error === undefined) return;
  console.error('wrk is missing: apt-get install -y wrk');
  execFileSync('apt-get', ['install', '-y', '-q', 'wrk'], { stdio: 'inherit' });
}

export interface WrkResult {
  requests: number;
  rps: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface WrkOptions {
  seconds: number;
  connections: number;
  threads?: number;
  headers?: Record<string, string>;
  /** POST/PUT with this body. */
  method?: string;
  body?: string;
}

/**
 * Debian's `wrk` (a C load generator that does not saturate before a Node server does) against a
 * loopback URL; its Lua `done` hook prints the figures as JSON.
 */
export function runWrk(url: string, o: WrkOptions): WrkResult {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error('wrk only aims at 127.0.0.1');
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-wrk-'));
  const script = join(dir, 'run.lua');
  const lines: string[] = [];
  if (o.method) lines.push(`wrk.method = ${JSON.stringify(o.method)}`);
  if (o.body !== undefined) lines.push(`wrk.body = ${JSON.stringify(o.body)}`);
  for (const [k, v] of Object.entries(o.headers ?? {})) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format("WRKJSON {\\"requests\\":%d,\\"us\\":%d,\\"p50\\":%d,\\"p99\\":%d,\\"non2xx\\":%d,\\"errors\\":%d}\\n",',
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))',
    'end',
  );
  writeFileSync(script, lines.join('\n'));
  try {
    const out = execFileSync('wrk', ['-t', String(o.threads ?? 1), '-c', String(o.connections), '-d', `${o.seconds}s`, '-s', script, url], {
      encoding: 'utf8',
      timeout: (o.seconds + 30) * 1000,
    });
    const m = /WRKJSON (\{.*\})/.exec(out);
    if (!m) throw new Error(`wrk printed no figures:\n${out}`);
    const r = JSON.parse(m[1]) as { requests: number; us: number; p50: number; p99: number; non2xx: number; errors: number };
    return { requests: r.requests, rps: r.requests / (r.us / 1e6), p50: r.p50 / 1000, p99: r.p99 / 1000, non2xx: r.non2xx, errors: r.errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export const fmt = (n: number, digits = 1): string => n.toFixed(digits);

/** `12345.6` -> `12,346`. */
export const num = (n: number): string => Math.round(n).toLocaleString('en-US');

/**
 * Exactly `count` requests over `concurrency` keep-alive connections (for instruction counts,
 * where a fixed amount of work matters, not a duration). Resolves with the statuses seen.
 */
export async function sendRequests(
  url: string,
  o: { count: number; concurrency: number; headers?: Record<string, string>; method?: string; body?: string },
): Promise<Map<number, number>> {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error('only 127.0.0.1');
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
  const statuses = new Map<number, number>();
  let left = o.count;
  // A keep-alive socket the server closed while idle (slow under valgrind) fails once: retry.
  const one = async (): Promise<void> => {
    try {
      await attempt();
    } catch (err) {
      if ((err as { code?: string }).code !== 'ECONNRESET') throw err;
      await attempt();
    }
  };
  const attempt = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, method: o.method ?? 'GET', headers: o.headers, agent },
        (res) => {
          res.resume();
          res.on('end', () => {
            statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(o.body);
    });
  await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      while (left > 0) {
        left--;
        await one();
      }
    }),
  );
  agent.destroy();
  return statuses;
}

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  /** Every request's latency in ms, sorted (to merge runs into one percentile). */
  latencies: number[];
}

/**
 * Closed-loop latency sampling on 127.0.0.1: `concurrency` keep-alive clients issue GETs back to
 * back for `seconds`, keeping every latency (for p99s merged across runs; throughput figures use
 * wrk instead, which never saturates first). Bounded in time and count.
 */
export async function load(url: string, headers: Record<string, string>, seconds: number, concurrency: number, maxRequests = 2_000_000): Promise<LoadResult> {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error('load only aims at 127.0.0.1');
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const req = http.get({ host: target.hostname, port: target.port, path: target.pathname + target.search, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) errors++;
          latencies.push(performance.now() - t0);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && latencies.length + errors < maxRequests) await one();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, rps: latencies.length / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), latencies };
}

/** The `p` percentile (0..1) of sorted values. */
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

/**
 * Who a bench's timed reads act as (`--caller`): the administrator (`admin`), the first member of the
 * manifest's group with a role (guest, reporter, developer) through Sudo on the administrator's token,
 * or no one (`anonymous`). The writes between reads stay the administrator's.
 */
export function callerReads(caller: string) {
  const access = ({ guest: 10, reporter: 20, developer: 30 } as Record<string, number>)[caller];
  if (caller !== 'admin' && caller !== 'anonymous' && access === undefined) throw new Error(`--caller: admin, guest, reporter, developer or anonymous, not ${caller}`);
  /** Each instance's (by its URL's origin) member the reads act as. */
  const ids = new Map<string, number>();
  return {
    /** Finds the member on the instance at `url` (nothing to find for admin or anonymous). */
    async resolve(url: string, m: { groupId: number; token: string }): Promise<void> {
      if (access === undefined) return;
      for (let page = 1; ; page++) {
        const res = await fetch(`${url}/api/v4/groups/${m.groupId}/members?per_page=100&page=${page}`, { headers: { 'private-token': m.token } });
        const members = (await res.json()) as { id: number; access_level: number }[];
        const found = members.find((u) => u.access_level === access);
        if (found) {
          ids.set(new URL(url).origin, found.id);
          console.log(`${url}: reading as user ${found.id} (${caller}, access ${access} in group ${m.groupId})`);
          return;
        }
        if (!res.headers.get('x-next-page')) throw new Error(`no ${caller} in group ${m.groupId} at ${url}`);
      }
    },
    /** The headers of a timed read at `url`: the token, and Sudo for a member; none for anonymous. */
    headers(url: string, token: string): Record<string, string> {
      if (caller === 'anonymous') return {};
      const sudo = ids.get(new URL(url).origin);
      return sudo === undefined ? { 'private-token': token } : { 'private-token': token, sudo: String(sudo) };
    },
  };
}
