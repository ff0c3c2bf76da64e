/**
 * Where Sandlab's CPU per request goes beyond bare node:http's: a bare server sending Sandlab's
 * head and Sandlab's answer to the same path (its status and body, fetched once) and Sandlab (the
 * built server) each run under Linux `perf record` while wrk drives them, the two alternated round
 * after round; each symbol's samples, summed over the rounds, become CPU microseconds per request,
 * side by side, sorted by the difference, then totals per kind (Sandlab's JavaScript, node's
 * JavaScript, V8's builtins, V8's C++, V8's collector, node's C++ with llhttp and libuv, libc, the
 * kernel).
 * Only each server's main thread is sampled (`-t`; V8's helper threads cost both about the same),
 * by the software clock (`-e cpu-clock`: this VM has no hardware counters), with JIT frames named
 * through --perf-basic-prof. Profiling inflates every figure by about a third on both sides: read
 * the differences, and the larger ones only on a loaded machine.
 *
 * Run: npx tsx bench/http-perf-diff.ts [--path /api/v4/version | --target REGEX] [--seconds 3] [--rounds 4] [--top 60]
 *      [--cli out/main/cli.js] [--node-args='--flag ...']   (node flags for both servers)
 *      --target: the first bench/targets.ts read whose name matches (its project, badge or issue created first)
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, ensureWrk, machineLine, runWrk, spawnSandlab, spawnServer, stop } from './lib';
import { TOKEN, prepareTargets } from './targets';

const { values: opts } = parseArgs({
  options: {
    path: { type: 'string', default: '/api/v4/version' },
    target: { type: 'string' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '4' },
    top: { type: 'string', default: '60' },
    cli: { type: 'string' },
    'node-args': { type: 'string', default: '' },
  },
});
let P = opts.path!;
const secs = Number(opts.seconds);
const FREQ = 4999;
/** Bare node:http answering Sandlab's answer to P (fetched once: status and body) with Sandlab's head. */
function bareSrc(status: number, body: string) {
  return `
const http = require('node:http');
const body = Buffer.from(${JSON.stringify(body)});
const s = http.createServer((req, res) => { res.writeHead(${status}, { 'x-frame-options': 'SAMEORIGIN', 'x-content-type-options': 'nosniff', 'content-type': 'application/json', 'content-length': String(body.length) }); res.end(body); });
s.keepAliveTimeout = 72000;
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
process.on('SIGTERM', () => { s.closeAllConnections(); s.close(() => process.exit(0)); });`;
}
const flags = ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack', ...opts['node-args']!.split(' ').filter(Boolean)];
type Server = { child: import('node:child_process').ChildProcess; url: string };
/** One side's samples per "dso<TAB>symbol", summed over its rounds, and its requests. */
type Side = { samples: Map<string, number>; requests: number };

function drive(srv: Server, path: string, seconds: number) {
  return runWrk(srv.url.replace('localhost', '127.0.0.1') + path, { seconds, connections: 32, headers: { 'PRIVATE-TOKEN': TOKEN } });
}

async function profile(side: Side, srv: Server, path: string, data: string) {
  // A process's main thread has the process's id as its thread id.
  const perf = spawn('perf', ['record', '-e', 'cpu-clock', '-F', String(FREQ), '-t', String(srv.child.pid!), '-o', data], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 300));
  const w = drive(srv, path, secs);
  perf.kill('SIGINT');
  await new Promise((r) => perf.on('exit', r));
  const rep = execFileSync('perf', ['report', '-i', data, '--stdio', '--no-children', '--sort', 'dso,sym', '-F', 'sample,dso,sym', '-t', '|'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  for (const line of rep.split('\n')) {
    const mm = /^\s*(\d+)\s*\|([^|]*)\|\s*\[.\]\s+(.*)$/.exec(line);
    if (!mm) continue;
    const dso = /^\[JIT\]|^perf-/.test(mm[2].trim()) ? 'JIT' : mm[2].trim();
    const sym = mm[3].replace(/\/work\/\S+\/chunks\/[\w-]+\.js:\d+:\d+/, 'SVC').replace(/^JS:[*~^]?/, 'JS:').trim();
    const key = `${dso}\t${sym}`;
    side.samples.set(key, (side.samples.get(key) ?? 0) + Number(mm[1]));
  }
  side.requests += w.requests;
  rmSync(data, { force: true });
}

/** The kind a sampled symbol is counted under. */
function kind(key: string): string {
  const [dso, sym] = key.split('\t');
  if (dso === 'JIT') return sym.includes('SVC') ? 'Sandlab JS' : 'node JS';
  if (dso !== 'node') return dso;
  if (sym.startsWith('Builtins_')) return 'V8 builtins';
  if (/Scaveng|GarbageCollect|Heap::|MarkCompact|Evacuat|Sweeper|ExternalBackingStoreBytes/.test(sym)) return 'V8 collector';
  if (sym.startsWith('v8::')) return 'V8 C++';
  return 'node C++, llhttp, libuv';
}

async function main() {
  ensureWrk();
  ensureBuilt();
  console.log(`machine: ${machineLine()}`);
  const dir = mkdtempSync(join(tmpdir(), 'perfdiff-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-bench-'));
  const sandlab = await spawnSandlab(dataDir, TOKEN, { nodeArgs: flags, cli: opts.cli });
  if (opts.target) {
    const target = (await prepareTargets(sandlab.url, { reads: true, writes: false })).find((t) => new RegExp(opts.target!).test(t.name));
    if (!target) throw new Error(`no read matches ${opts.target}`);
    P = target.path;
  }
  const res = await fetch(`${sandlab.url}${P}`, { headers: { 'private-token': TOKEN } });
  const bare = await spawnServer(process.execPath, [...flags, '-e', bareSrc(res.status, await res.text())]);
  const sides = { bare: { samples: new Map(), requests: 0 } as Side, sandlab: { samples: new Map(), requests: 0 } as Side };
  try {
    // Untimed first: each side's code compiled before it is sampled.
    drive(sandlab, P, 2);
    drive(bare, '/x', 2);
    for (let r = 0; r < Number(opts.rounds); r++) {
      // Alternated: neither side always runs first after the other.
      const order = r % 2 === 0 ? (['bare', 'sandlab'] as const) : (['sandlab', 'bare'] as const);
      for (const name of order) await profile(sides[name], name === 'bare' ? bare : sandlab, name === 'bare' ? '/x' : P, join(dir, `${name}-${r}.data`));
    }
    const perReq = (s: Side, key: string) => (((s.samples.get(key) ?? 0) / FREQ) * 1e6) / s.requests;
    const keys = new Set([...sides.bare.samples.keys(), ...sides.sandlab.samples.keys()]);
    const rows = [...keys].map((k) => [k, perReq(sides.bare, k), perReq(sides.sandlab, k)] as const).sort((x, y) => y[2] - y[1] - (x[2] - x[1]));
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    console.log(`${P}: ${opts.rounds} rounds of ${secs} s each; requests bare ${sides.bare.requests}, sandlab ${sides.sandlab.requests}`);
    console.log('main thread CPU us/req sampled: bare', sum(rows.map((r) => r[1])).toFixed(2), 'sandlab', sum(rows.map((r) => r[2])).toFixed(2));
    const row = (x: number, y: number, label: string) => console.log(x.toFixed(2).padStart(6), y.toFixed(2).padStart(7), (y - x).toFixed(2).padStart(6), ' ', label);
    console.log(' bare  sandlab  diff  kind');
    const kinds = new Map<string, [number, number]>();
    for (const [k, x, y] of rows) {
      const c = kinds.get(kind(k)) ?? [0, 0];
      kinds.set(kind(k), [c[0] + x, c[1] + y]);
    }
    for (const [k, [x, y]] of [...kinds].sort((p, q) => q[1][1] - p[1][1])) row(x, y, k);
    console.log(' bare  sandlab  diff  dso, symbol');
    for (const [k, x, y] of rows.slice(0, Number(opts.top))) row(x, y, k.slice(0, 140));
    console.log('... most negative');
    for (const [k, x, y] of rows.slice(-10)) row(x, y, k.slice(0, 140));
  } finally {
    await stop(bare.child);
    await stop(sandlab.child);
    // --perf-basic-prof's symbol maps, one per process.
    for (const child of [bare.child, sandlab.child]) rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
