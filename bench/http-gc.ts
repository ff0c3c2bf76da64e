/**
 * What each hot-path request costs V8's collector: Sandlab (and another build with --compare) and
 * a bare node:http server, each started with `--trace-gc-nvp`, are driven by wrk in turn; V8's own
 * lines for the collections within each run give the bytes allocated and promoted per request,
 * the scavenges and full (mark-compact) collections per 100,000 requests and their pauses per
 * request. Reads the same requests as bench/http.ts (bench/targets.ts), with wrk's request head.
 *
 * Run: npx tsx bench/http-gc.ts [--seconds 3] [--rounds 3] [--connections 32] [--only REGEX]
 *      [--compare out/main/cli.js of another build] [--cli out/main/cli.js]
 *      [--after-write]   (a POST of an issue first: round 26's lesson 2, hooks turned on by a write)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CLI, ensureBuilt, ensureWrk, fmt, machineLine, median, runWrk, stop } from './lib';
import { TOKEN, type Target, bareRoutes, prepareTargets, requestHeaders } from './targets';

const { values: opts } = parseArgs({
  options: {
    cli: { type: 'string' },
    compare: { type: 'string' },
    only: { type: 'string' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    'after-write': { type: 'boolean', default: false },
  },
});

/** A server whose V8 reports each collection into `log` (a file: the bench blocks in wrk, a pipe would fill and stall the server). */
interface Traced {
  child: ChildProcess;
  url: string;
  log: string;
}

async function spawnTraced(args: string[], env: NodeJS.ProcessEnv, log: string): Promise<Traced> {
  const fd = openSync(log, 'w');
  // stdbuf: V8 prints through C's stdio, line by line then, so each run's lines are in the file by its end.
  const child = spawn('stdbuf', ['-oL', process.execPath, '--trace-gc-nvp', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', fd, 'inherit'] });
  closeSync(fd);
  let exited = false;
  child.on('exit', () => (exited = true));
  for (;;) {
    await new Promise((r) => setTimeout(r, 50));
    const m = /listening on (http:\/\/\S+)/i.exec(readFileSync(log, 'utf8'));
    if (m) return { child, url: m[1], log };
    if (exited) throw new Error(`server exited: ${log}`);
  }
}

const BARE = `
const http = require('node:http');
const routes = new Map(Object.entries(JSON.parse(process.env.BARE_ROUTES)).map(([p, r]) => [p, { status: r.status, body: Buffer.from(r.body) }]));
const s = http.createServer((req, res) => {
  const r = routes.get(req.url) || { status: 404, body: Buffer.from('{"error":"404 Not Found"}') };
  res.writeHead(r.status, { 'content-type': 'application/json', 'content-length': r.body.length });
  res.end(r.body);
});
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
process.on('SIGTERM', () => { s.closeAllConnections(); s.close(() => process.exit(0)); });
`;

/** The collections V8 printed in `text`: kind (s: scavenge, mc / mmc: full), pause ms, bytes allocated and promoted since the last. */
function collections(text: string): { kind: string; pause: number; allocated: number; promoted: number }[] {
  const found = [];
  for (const line of text.split('\n')) {
    const kind = / gc=(\S+)/.exec(line)?.[1];
    if (!kind) continue;
    const n = (name: string): number => Number(new RegExp(` ${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
    found.push({ kind, pause: n('pause'), allocated: n('allocated'), promoted: n('promoted') });
  }
  return found;
}

interface Figures {
  requests: number;
  allocated: number;
  promoted: number;
  scavenges: number;
  full: number;
  pauseUs: number;
}

async function main(): Promise<void> {
  ensureWrk();
  ensureBuilt();
  console.log(`machine: ${machineLine()}`);
  const seconds = Number(opts.seconds);
  const dirs: string[] = [];
  const sandlabOf = async (cli: string): Promise<Traced> => {
    const dir = mkdtempSync(join(tmpdir(), 'sandlab-gc-'));
    dirs.push(dir);
    return spawnTraced([cli, '--port', '0', '--data-dir', dir], { SANDLAB_ROOT_TOKEN: TOKEN }, join(dir, 'gc.log'));
  };
  const servers: Record<string, Traced> = { sandlab: await sandlabOf(opts.cli ?? CLI) };
  if (opts.compare) servers.compared = await sandlabOf(opts.compare);
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const targets = (await prepareTargets(servers.sandlab.url, { reads: true, writes: false })).filter((t) => !opts.only || new RegExp(opts.only).test(t.name));
    if (opts.compare) await prepareTargets(servers.compared.url, { reads: true, writes: false });
    if (opts['after-write']) {
      for (const side of ['sandlab', 'compared']) {
        if (!servers[side]) continue;
        const res = await fetch(`${servers[side].url}${targets[0].path.replace(/\/badges\/\d+$/, '/issues')}`, {
          method: 'POST',
          headers: { 'private-token': TOKEN, 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'written before the reads' }),
        });
        if (res.status !== 201) throw new Error(`${side}: the write answered ${res.status}`);
      }
    }
    const bareDir = mkdtempSync(join(tmpdir(), 'sandlab-gc-'));
    dirs.push(bareDir);
    servers.bare = await spawnTraced(['-e', BARE], { BARE_ROUTES: JSON.stringify(bareRoutes(targets)) }, join(bareDir, 'gc.log'));
    const sides = Object.keys(servers);
    const run = async (side: string, i: number, t: Target, secs: number): Promise<Figures> => {
      const server = servers[side];
      const url = side === 'bare' ? `${server.url}/r${i}` : `${server.url}${t.path}`;
      const from = statSync(server.log).size;
      const r = runWrk(url, { seconds: secs, connections: Number(opts.connections), headers: requestHeaders(t) });
      await new Promise((res) => setTimeout(res, 300));
      const gcs = collections(readFileSync(server.log).subarray(from).toString('utf8'));
      const sum = (f: (g: (typeof gcs)[number]) => number): number => gcs.reduce((a, g) => a + f(g), 0);
      return {
        requests: r.requests,
        allocated: sum((g) => g.allocated),
        promoted: sum((g) => g.promoted),
        scavenges: gcs.filter((g) => g.kind === 's').length,
        full: gcs.filter((g) => g.kind !== 's').length,
        pauseUs: sum((g) => g.pause) * 1000,
      };
    };
    const results = targets.map(() => Object.fromEntries(sides.map((s) => [s, [] as Figures[]])));
    for (const [i, t] of targets.entries()) for (const side of sides) await run(side, i, t, 1);
    for (let round = 0; round < Number(opts.rounds); round++) {
      for (const [i, t] of targets.entries()) {
        const order = round % 2 ? [...sides].reverse() : sides;
        for (const side of order) results[i][side].push(await run(side, i, t, seconds));
      }
    }
    for (const [i, t] of targets.entries()) {
      console.log(`${t.name}  [${t.bare.status}, ${t.bare.body.length} B body]`);
      for (const side of sides) {
        const rs = results[i][side];
        const per = (f: (x: Figures) => number, scale = 1): number => median(rs.map((x) => (f(x) * scale) / Math.max(1, x.requests)));
        console.log(
          `  ${side.padEnd(9)} allocated ${fmt(per((x) => x.allocated), 0).padStart(6)} B/req  promoted ${fmt(per((x) => x.promoted), 1).padStart(6)} B/req  ` +
            `scavenges ${fmt(per((x) => x.scavenges, 1e5), 0).padStart(5)} and full ${fmt(per((x) => x.full, 1e5), 1).padStart(5)} per 100k req  ` +
            `GC pause ${fmt(per((x) => x.pauseUs), 2)} us/req  (${fmt(median(rs.map((x) => x.requests)), 0)} req a round)`,
        );
      }
    }
  } finally {
    for (const s of Object.values(servers)) await stop(s.child);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
