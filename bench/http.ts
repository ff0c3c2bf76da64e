/**
 * The request hot path against its ceiling. Sandlab (the built server, in its own process), a
 * bare `node:http` server answering a same-sized fixed JSON body, and fastify alone answering it
 * the way Sandlab's routes do (the floor of Sandlab's stack) are driven in turn by Debian's `wrk`,
 * round after round in the same run; each request prints req/s, p50/p99, the server's CPU time
 * per request, and the ratios to bare (median of the per-round ratios). Then RSS idle and after
 * load, and sustained issue creation through the API (1 and 8 clients) beside a bare server
 * reading the same POST.
 *
 * Run: npx tsx bench/http.ts [--seconds 5] [--connections 32] [--rounds 3] [--writes-only|--reads-only]
 *      [--cpu-prof DIR]   (profile the Sandlab process with node --cpu-prof)
 *      [--node-args='--flag ...']   (node and V8 flags for the first build's process only, not --compare's:
 *      a flag's effect beside the same build without it, in the same rounds)
 *      [--cli out/main/cli.js of another build] [--only REGEX of request names]
 *      [--compare out/main/cli.js of another build]   (that build too, in the same rounds: before/after
 *      figures from the same minutes, each beside the same bare runs)
 *      [--headers-floor]   (also a bare node:http server sending Sandlab's head: what node charges for it)
 *      [--twin]   (also a second, identical bare server: its ratio to bare is the run's own noise; on
 *      2 shared cores single rounds of two identical servers differ by up to ±0.3-0.5, see bench/RESULTS.md)
 * Each side's line also gives its main thread's wake-ups (the loop slept with nothing to read) and
 * preemptions (another process took the core) per request: a server's CPU per request falls as
 * more requests arrive per wake-up and rises after preemptions, and those two, not the handler,
 * are what swings a round. Many short rounds (`--seconds 1 --rounds 9`) alternate the sides more
 * often than a few long ones, and from 5 rounds on each ratio also prints the middle half of its rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type WrkResult, contextSwitches, cpuMs, ensureBuilt, ensureWrk, fmt, machineLine, median, num, rssMb, runWrk, spawnBare, spawnFastifyFloor, spawnSandlab, stop } from './lib';
import { TOKEN, type Target, bareRoutes, prepareTargets, requestHeaders } from './targets';

const { values: opts } = parseArgs({
  options: {
    // Another build to measure (an older checkout's out/main/cli.js), for before/after figures.
    cli: { type: 'string' },
    // A second build measured in the same rounds ("before"), beside the first ("after").
    compare: { type: 'string' },
    // Also bare node:http with Sandlab's head (its headers, keep-alive timeout).
    'headers-floor': { type: 'boolean', default: false },
    // Also a second bare node:http server, identical to the first: how far two equal servers' rounds differ.
    twin: { type: 'boolean', default: false },
    // Only the requests whose name matches this regular expression.
    only: { type: 'string' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    'writes-only': { type: 'boolean', default: false },
    'reads-only': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'node-args': { type: 'string', default: '' },
  },
});
const seconds = Number(opts.seconds);
const connections = Number(opts.connections);
const rounds = Number(opts.rounds);

/** A round of one side: wrk's figures, the server's CPU per request, and its main thread's wake-ups and preemptions per request. */
type Measured = WrkResult & { cpuUs: number; wakeups: number; preempted: number };

async function main(): Promise<void> {
  ensureWrk();
  ensureBuilt();
  console.log(`machine: ${machineLine()}`);
  console.log(`wrk -t1 -c${connections} -d${seconds}s, ${rounds} rounds, Sandlab, bare node:http and the fastify floor in turn\n`);
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-bench-'));
  const nodeArgs = [...opts['node-args']!.split(' ').filter(Boolean), ...(opts['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', opts['cpu-prof']] : [])];
  const sandlab = await spawnSandlab(dataDir, TOKEN, { nodeArgs, cli: opts.cli });
  const compareDir = opts.compare ? mkdtempSync(join(tmpdir(), 'sandlab-bench-')) : null;
  const before = opts.compare ? await spawnSandlab(compareDir!, TOKEN, { cli: opts.compare }) : null;
  let bare: Awaited<ReturnType<typeof spawnBare>> | null = null;
  let floor: Awaited<ReturnType<typeof spawnFastifyFloor>> | null = null;
  let heads: Awaited<ReturnType<typeof spawnBare>> | null = null;
  let twin: Awaited<ReturnType<typeof spawnBare>> | null = null;
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const idleRss = rssMb(sandlab.child.pid!);
    const which = { reads: !opts['writes-only'], writes: !opts['reads-only'] };
    const targets = (await prepareTargets(sandlab.url, which)).filter((t) => !opts.only || new RegExp(opts.only).test(t.name));
    if (before) {
      // The same records on the other build's fresh data dir: the same paths, the same answers' sizes.
      const theirs = await prepareTargets(before.url, which);
      for (const t of targets) {
        const twin = theirs.find((x) => x.name === t.name);
        if (twin?.path !== t.path) throw new Error(`${t.name}: ${twin?.path} on the compared build, ${t.path} here`);
        if (twin.bare.body.length !== t.bare.body.length) console.log(`note: ${t.name} answers ${twin.bare.body.length} B on the compared build, ${t.bare.body.length} B here`);
      }
    }
    bare = await spawnBare(bareRoutes(targets));
    floor = await spawnFastifyFloor(bareRoutes(targets));
    heads = opts['headers-floor'] ? await spawnBare(bareRoutes(targets), [], { sandlabHeaders: true }) : null;
    twin = opts.twin ? await spawnBare(bareRoutes(targets)) : null;
    const servers = { sandlab, bare, floor, ...(before ? { before } : {}), ...(heads ? { heads } : {}), ...(twin ? { twin } : {}) } as Record<
      'sandlab' | 'bare' | 'floor' | 'before' | 'heads' | 'twin',
      { child: import('node:child_process').ChildProcess; url: string }
    >;

    // Server CPU time per request beside the wall-clock figures: far steadier when other
    // processes load the machine, and its ratio is the throughput ratio of a CPU-bound server.
    const run = (side: keyof typeof servers, i: number, t: Target, secs: number): Measured => {
      const server = servers[side];
      const before = cpuMs(server.child.pid!);
      const switches = contextSwitches(server.child.pid!);
      const url = side === 'sandlab' || side === 'before' ? `${server.url}${t.path}` : `${server.url.replace('localhost', '127.0.0.1')}/r${i}`;
      const r = runWrk(url, { seconds: secs, connections: t.connections ?? connections, headers: requestHeaders(t), method: t.method, body: t.body });
      const n = Math.max(1, r.requests);
      const after = contextSwitches(server.child.pid!);
      return {
        ...r,
        cpuUs: ((cpuMs(server.child.pid!) - before) * 1000) / n,
        wakeups: (after.voluntary - switches.voluntary) / n,
        preempted: (after.involuntary - switches.involuntary) / n,
      };
    };

    const sides = ['bare', 'floor', 'sandlab', ...(before ? ['before'] : []), ...(heads ? ['heads'] : []), ...(twin ? ['twin'] : [])] as (keyof typeof servers)[];
    const results = targets.map(() => ({ sandlab: [] as Measured[], bare: [] as Measured[], floor: [] as Measured[], before: [] as Measured[], heads: [] as Measured[], twin: [] as Measured[] }));
    for (const [i, t] of targets.entries()) for (const side of sides) run(side, i, t, 1); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const [i, t] of targets.entries()) {
        // Alternate which goes first, so drift in the machine's speed falls on both sides.
        const order = round % 2 ? [...sides].reverse() : sides;
        for (const side of order) results[i][side].push(run(side, i, t, seconds));
      }
    }
    const loadedRss = rssMb(sandlab.child.pid!);

    const line = (r: Measured[]): string =>
      `${num(median(r.map((x) => x.rps))).padStart(7)} req/s  p50 ${fmt(median(r.map((x) => x.p50)), 2)} ms  p99 ${fmt(median(r.map((x) => x.p99)), 2)} ms  ` +
      `server CPU ${fmt(median(r.map((x) => x.cpuUs)), 1)} us/req  wake-ups ${fmt(median(r.map((x) => x.wakeups)), 2)}/req  preempted ${fmt(median(r.map((x) => x.preempted)), 2)}/req`;
    // The middle half of the rounds' ratios: with 5 rounds or more, a steadier spread than min-max.
    const spread = (xs: number[]): string => {
      if (xs.length < 5) return '';
      const s = [...xs].sort((a, b) => a - b);
      return `, middle half ${fmt(s[Math.floor(s.length / 4)], 2)}-${fmt(s[Math.ceil((s.length * 3) / 4) - 1], 2)}`;
    };
    for (const [i, t] of targets.entries()) {
      const { sandlab: s, bare: b, floor: f, before: o, heads: h, twin: w } = results[i];
      const ratios = s.map((x, k) => x.rps / b[k].rps);
      const cpuRatios = s.map((x, k) => b[k].cpuUs / x.cpuUs);
      const socketErrors = s.reduce((n, x) => n + x.errors, 0);
      console.log(`${t.name}  [${t.bare.status}, ${t.bare.body.length} B body, ${t.connections ?? connections} connections]`);
      console.log(`  sandlab   ${line(s)}${socketErrors ? `  socket errors ${socketErrors}` : ''}`);
      console.log(`  node:http ${line(b)}`);
      console.log(`  fastify   ${line(f)}`);
      if (w.length) {
        const noise = w.map((x, k) => b[k].cpuUs / x.cpuUs);
        console.log(`  node:http's twin  ${line(w)}  CPU per request ${fmt(median(noise), 2)} of bare (rounds: ${noise.map((r) => fmt(r, 2)).join(' ')}${spread(noise)}): the run's noise`);
      }
      if (h.length) console.log(`  node:http with Sandlab's head  ${line(h)}  CPU per request ${fmt(median(h.map((x, k) => b[k].cpuUs / x.cpuUs)), 2)} of bare`);
      if (o.length) {
        const oCpu = o.map((x, k) => b[k].cpuUs / x.cpuUs);
        console.log(`  compared  ${line(o)}`);
        console.log(`  compared build: ratio req/s ${fmt(median(o.map((x, k) => x.rps / b[k].rps)), 2)}, CPU per request ${fmt(median(oCpu), 2)} (rounds: ${oCpu.map((r) => fmt(r, 2)).join(' ')}${spread(oCpu)})`);
        // This build against the compared one round by round (both beside the same bare run).
        const paired = s.map((x, k) => o[k].cpuUs / x.cpuUs);
        console.log(`  this build's CPU per request against the compared build's: ${fmt(median(paired), 2)} (rounds: ${paired.map((r) => fmt(r, 2)).join(' ')}${spread(paired)})`);
      }
      console.log(
        `  ratio req/s ${fmt(median(ratios), 2)} (rounds: ${ratios.map((r) => fmt(r, 2)).join(' ')}), ` +
          `CPU per request ${fmt(median(cpuRatios), 2)} (rounds: ${cpuRatios.map((r) => fmt(r, 2)).join(' ')}${spread(cpuRatios)})${t.goal ? `  goal >= ${t.goal}` : ''}`,
      );
      // The stack's own ceiling: fastify alone, with nothing of Sandlab's.
      const floorRatios = f.map((x, k) => x.rps / b[k].rps);
      const floorCpuRatios = f.map((x, k) => b[k].cpuUs / x.cpuUs);
      console.log(`  fastify floor: ratio req/s ${fmt(median(floorRatios), 2)}, CPU per request ${fmt(median(floorCpuRatios), 2)}\n`);
    }
    console.log(`RSS idle ${fmt(idleRss)} MB, after load ${fmt(loadedRss)} MB`);
  } finally {
    if (floor) await stop(floor.child);
    if (heads) await stop(heads.child);
    if (twin) await stop(twin.child);
    if (bare) await stop(bare.child);
    if (before) await stop(before.child);
    await stop(sandlab.child);
    rmSync(dataDir, { recursive: true, force: true });
    if (compareDir) rmSync(compareDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
