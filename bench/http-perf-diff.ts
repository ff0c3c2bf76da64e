/**
 * Where Sandlab's CPU per request goes beyond bare node:http's: a bare server sending Sandlab's
 * head (bench/lib.ts spawnBare with sandlabHeaders) and Sandlab (the built server) each run under
 * Linux `perf record` (CPU samples, JIT frames named through --perf-basic-prof) while wrk drives
 * them in turn; each symbol's samples become CPU microseconds per request, side by side, sorted
 * by the difference, then totals per kind (Sandlab's JavaScript, node's, V8 builtins, native code,
 * the kernel). One run of each: noisy on a loaded machine, read the larger differences.
 *
 * Run: npx tsx bench/http-perf-diff.ts [--path /api/v4/version | --target REGEX] [--seconds 6] [--top 60] [--cli out/main/cli.js]
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
  options: { path: { type: 'string', default: '/api/v4/version' }, target: { type: 'string' }, seconds: { type: 'string', default: '6' }, top: { type: 'string', default: '60' }, cli: { type: 'string' } },
});
let P = opts.path!;
const secs = Number(opts.seconds);
const FREQ = 1999;
/** Bare node:http answering Sandlab's answer to P (fetched once) with Sandlab's head. */
function bareSrc(body: string) {
  return `
const http = require('node:http');
const body = Buffer.from(${JSON.stringify(body)});
const s = http.createServer((req, res) => { res.writeHead(200, { 'x-frame-options': 'SAMEORIGIN', 'x-content-type-options': 'nosniff', 'content-type': 'application/json', 'content-length': String(body.length) }); res.end(body); });
s.keepAliveTimeout = 72000;
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
process.on('SIGTERM', () => { s.closeAllConnections(); s.close(() => process.exit(0)); });`;
}
const flags = ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack'];
async function profile(name: string, srv: { child: import('node:child_process').ChildProcess; url: string }, path: string, dir: string) {
  const url = srv.url.replace('localhost', '127.0.0.1') + path;
  runWrk(url, { seconds: 3, connections: 32, headers: { 'PRIVATE-TOKEN': TOKEN } });
  const data = join(dir, `${name}.data`);
  const perf = spawn('perf', ['record', '-F', String(FREQ), '-p', String(srv.child.pid!), '-o', data], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 300));
  const w = runWrk(url, { seconds: secs, connections: 32, headers: { 'PRIVATE-TOKEN': TOKEN } });
  perf.kill('SIGINT');
  await new Promise((r) => perf.on('exit', r));
  const rep = execFileSync('perf', ['report', '-i', data, '--stdio', '--no-children', '--sort', 'sym', '-F', 'sample,sym'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const m = new Map<string, number>();
  let total = 0;
  for (const line of rep.split('\n')) {
    const mm = /^\s+(\d+)\s+\[(.)\]\s+(.*)$/.exec(line);
    if (!mm) continue;
    const sym = mm[3].replace(/\/work\/\S+\/chunks\/service-\w+\.js:\d+:\d+/, 'SVC').replace(/^JS:[*~^]?/, 'JS:').trim();
    const n = Number(mm[1]);
    total += n;
    m.set(sym, (m.get(sym) ?? 0) + n);
  }
  // samples were taken over (secs + ~0.3 s) but requests only during secs: scale by the wrk requests
  const perReq = new Map([...m].map(([k, v]) => [k, (v / FREQ) * 1e6 / w.requests]));
  console.log(`${name}: ${w.requests} requests, ${Math.round(w.rps)} req/s, ${((total / FREQ) * 1e6 / w.requests).toFixed(1)} us CPU/req sampled`);
  return perReq;
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
  const answer = await (await fetch(`${sandlab.url}${P}`, { headers: { 'private-token': TOKEN } })).text();
  const bare = await spawnServer(process.execPath, [...flags, '-e', bareSrc(answer)]);
  try {
    const a = await profile('bare', bare, '/x', dir);
    const b = await profile('sandlab', sandlab, P, dir);
    const keys = new Set([...a.keys(), ...b.keys()]);
    const rows = [...keys].map((k) => [k, a.get(k) ?? 0, b.get(k) ?? 0] as const).sort((x, y) => (y[2] - y[1]) - (x[2] - x[1]));
    const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
    console.log('total us/req bare', sum([...a.values()]).toFixed(1), 'sandlab', sum([...b.values()]).toFixed(1));
    console.log(' bare  sandlab  diff  symbol');
    for (const [k, x, y] of rows.slice(0, Number(opts.top))) console.log(x.toFixed(2).padStart(6), y.toFixed(2).padStart(7), (y - x).toFixed(2).padStart(6), ' ', k.slice(0, 120));
    console.log('... most negative');
    for (const [k, x, y] of rows.slice(-10)) console.log(x.toFixed(2).padStart(6), y.toFixed(2).padStart(7), (y - x).toFixed(2).padStart(6), ' ', k.slice(0, 120));
    // by category
    const cat = (k: string) => k.startsWith('JS:') ? (k.includes('SVC') ? 'js-sandlab' : 'js-node') : k.startsWith('Builtins_') ? 'builtins' : /^\[k\]|^[a-z_]+$/.test(k) ? 'other' : 'native';
    const byCat = (m: Map<string, number>) => { const c = new Map<string, number>(); for (const [k, v] of m) c.set(cat(k), (c.get(cat(k)) ?? 0) + v); return c; };
    const ca = byCat(a), cb = byCat(b);
    for (const k of new Set([...ca.keys(), ...cb.keys()])) console.log('category', k.padEnd(12), (ca.get(k) ?? 0).toFixed(1).padStart(6), (cb.get(k) ?? 0).toFixed(1).padStart(6));
  } finally {
    await stop(bare.child);
    await stop(sandlab.child);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
