/**
 * Sandlab's own share of a hot-path request, without sockets: the built service (out/, or another
 * build's) answers the requests of bench/targets.ts through its request handler directly, with a
 * stand-in request and response that only record what they are given, so node's HTTP machinery
 * and the kernel are left out. CPU microseconds per request (5 batches after a warm-up; the
 * median and the lowest), for each build given, in turn. Far steadier than wrk on a loaded
 * machine, but only the part Sandlab controls: compare builds with it, not with bare node:http.
 *
 * Run: npx tsx bench/http-inprocess.ts [--out out] [--compare <another build's out dir>] [--count 200000] [--only REGEX] [--repeat 1] [--heads wrk]
 *      --heads wrk|python-gitlab: the raw request head each request carries (node's IncomingMessage
 *      with that head, so reading it is counted as over sockets; default wrk's: Host and the token).
 *      --repeat N: run the builds N times in alternating order (a machine whose load changes from
 *      one minute to the next then weighs on both), each figure the median of the N runs' lowest batches.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, ensureBuilt, machineLine } from './lib';

const { values: opts } = parseArgs({
  options: {
    out: { type: 'string', default: resolve(ROOT, 'out') },
    compare: { type: 'string' },
    count: { type: 'string', default: '200000' },
    only: { type: 'string' },
    repeat: { type: 'string', default: '1' },
    // The request head: wrk's (Host and the token) or python-gitlab's (four fields more).
    heads: { type: 'string', default: 'wrk' },
  },
});

/** Runs in a child per build (a fresh process: builds never share a JIT). */
const CHILD = `
const { mkdtempSync, rmSync, readdirSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const http = require('node:http');
// The service's request handler, caught as it creates its server.
let handler = null;
const createServer = http.createServer;
http.createServer = (listener) => ((handler = listener), createServer(listener));
const [out, count, only, heads] = process.argv.slice(1);
const chunks = join(out, 'main/chunks');
const { createService } = require(join(chunks, readdirSync(chunks).find((f) => f.startsWith('service-'))));
const TOKEN = 'glpat-bench-root-token-00000001';
const { Res } = require(${JSON.stringify(resolve(__dirname, 'in-process-service.cjs'))});
(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-inprocess-'));
  const svc = await createService({ dataDir: dir, rootToken: TOKEN });
  await svc.listen();
  const { prepareTargets } = require(${JSON.stringify(resolve(__dirname, 'targets.ts'))});
  const targets = (await prepareTargets(svc.url, { reads: true, writes: false })).filter((t) => !only || new RegExp(only).test(t.name));
  const socket = { remoteAddress: '127.0.0.1', encrypted: false };
  for (const t of targets) {
    // node's own message with the raw head a client sends (wrk's, or python-gitlab's through
    // requests): what the service reads from it, node's headers object if it asks for it, is counted.
    const rawHead = heads === 'python-gitlab'
      ? ['Host', '127.0.0.1:3000', 'User-Agent', 'python-gitlab/4.4.0', 'Accept-Encoding', 'gzip, deflate', 'Accept', '*/*', 'Connection', 'keep-alive']
      : ['Host', '127.0.0.1:3000'];
    if (t.token) rawHead.push('PRIVATE-TOKEN', TOKEN);
    const one = () => {
      const req = new http.IncomingMessage(socket);
      req.url = t.path;
      req.method = 'GET';
      req._addHeaderLines(rawHead, rawHead.length);
      const res = new Res();
      handler(req, res);
      return res;
    };
    const first = one();
    if (!first.writableEnded || first.status !== t.bare.status) throw new Error(t.name + ': answered ' + first.status);
    const n = Number(count);
    for (let i = 0; i < n / 4; i++) one();
    const batches = [];
    for (let k = 0; k < 5; k++) {
      const t0 = process.cpuUsage();
      for (let i = 0; i < n / 5; i++) one();
      const d = process.cpuUsage(t0);
      batches.push((d.user + d.system) / (n / 5));
    }
    batches.sort((a, b) => a - b);
    console.log(JSON.stringify({ name: t.name, median: batches[2], lowest: batches[0] }));
  }
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
})();
`;

function measure(out: string): Map<string, { median: number; lowest: number }> {
  // tsx in the child: targets.ts is TypeScript.
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', CHILD, resolve(out), opts.count!, opts.only ?? '', opts.heads!], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${out}: ${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('{'));
  return new Map(lines.map((l) => JSON.parse(l) as { name: string; median: number; lowest: number }).map((x) => [x.name, x]));
}

ensureBuilt();
console.log(`machine: ${machineLine()}`);
const builds = [opts.out!, ...(opts.compare ? [opts.compare] : [])];
const repeat = Number(opts.repeat);
const runs = builds.map(() => [] as Map<string, { median: number; lowest: number }>[]);
for (let k = 0; k < repeat; k++) {
  const order = builds.map((_, i) => i);
  if (k % 2) order.reverse();
  for (const i of order) runs[i].push(measure(builds[i]));
}
const mid = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const name of runs[0][0].keys()) {
  const cells = runs.map((r) =>
    repeat === 1
      ? `${r[0].get(name)!.median.toFixed(2).padStart(6)} (lowest ${r[0].get(name)!.lowest.toFixed(2)})`
      : `${mid(r.map((x) => x.get(name)!.lowest)).toFixed(2).padStart(6)} (runs' lowest: ${r.map((x) => x.get(name)!.lowest.toFixed(2)).join(' ')})`,
  );
  console.log(`${name.padEnd(52)} ${cells.join('   ')} us/req`);
}
console.log(`columns: ${builds.join('   ')}`);
