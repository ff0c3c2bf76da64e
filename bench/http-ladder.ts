/**
 * An ablation ladder of the hot path (round 29): where Sandlab's server CPU per request goes
 * against bare node:http under the same wrk load, stage by stage. The cut-offs are not in the
 * product: bench/http-ladder.patch adds them (src/main/service/http/ladder.ts; LADDER_FILE and
 * SIGUSR2 pick the rung), applied to a scratch worktree built for the purpose:
 *   git worktree add /tmp/ladder main && cd /tmp/ladder && git apply bench/http-ladder.patch \
 *     && cp -al /work/main/node_modules . && npm run -s build && cd - \
 *     && npx tsx bench/http-ladder.ts --cli /tmp/ladder/out/main/cli.js
 * (a patch that no longer applies: its five cut-offs are one line each, put them back by hand.)
 * One Sandlab process serves every rung (same heap, same JIT state); a rung is switched by writing
 * the ladder file and sending SIGUSR2, so no rung pays a per-request check for another.
 *   bare      bench/lib.ts's bare node:http server, its own process
 *   twin      a second, identical bare process (the run's noise)
 *   env       the same bare handler on a second server inside Sandlab's process
 *   request   Sandlab's server answers the bare bytes at the 'request' event
 *   routed    ... after routing (and HttpRequest/Reply made)
 *   authed    ... after credentials, authentication, rate limits, scopes
 *   handled   ... after the handler ran (access checks, the kept answer taken)
 *   bufbody   Sandlab's head, a ready Buffer of the bare body in place of the real one
 *   full      the real answer
 * Each line: server CPU per request (and the main thread's alone), req/s, bare's CPU over the
 * rung's by round, preemptions and minor page faults per request. With --callgrind, Sandlab and
 * bare run under valgrind and each rung prints instructions per request instead (the first
 * window of each process holds TurboFan's compiles: read a rung after the first, or take GC and
 * compiler symbols out of the kept dumps). Round 29's ladder: /work/notes/s29/ladder29.md.
 * Run: npx tsx bench/http-ladder.ts --cli <patched build>/out/main/cli.js [--seconds 2] [--rounds 3] [--only REGEX] [--rungs a,b,..]
 *      [--node-args='--flag ...']   (node flags for Sandlab's process)
 *      [--callgrind [--count 2000] [--warmup 3000] [--keep DIR]]   (instructions per request, not CPU time)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { contextSwitches, cpuMs, mainThreadCpuMs, ensureWrk, fmt, machineLine, median, num, runWrk, sendRequests, spawnBare, spawnServer, stop } from './lib';
import { TOKEN, type Target, bareRoutes, prepareTargets, requestHeaders } from './targets';

const { values: opts } = parseArgs({
  options: {
    cli: { type: 'string', default: 'out/main/cli.js' },
    only: { type: 'string' },
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    rungs: { type: 'string', default: 'bare,twin,env,request,routed,authed,handled,bufbody,full' },
    // Instructions instead of CPU time: Sandlab and bare under callgrind, `--count` requests a rung after `--warmup`.
    callgrind: { type: 'boolean', default: false },
    count: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '3000' },
    keep: { type: 'string' },
    // node flags for the ladder's Sandlab process, space-separated (`--min-semi-space-size=4`).
    'node-args': { type: 'string', default: '' },
  },
});

const cgDir = opts.callgrind ? (opts.keep ?? mkdtempSync(join(tmpdir(), 'sandlab-ladder-cg-'))) : '';
const callgrind = (name: string): string[] =>
  opts.callgrind ? ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(cgDir, `${name}.out`)}`, `--log-file=${join(cgDir, `${name}.log`)}`] : [];
const control = (pid: number, ...args: string[]): void => void execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });

const instrumented = new Set<number>();

/** The process's minor page faults so far (/proc/PID/stat field 10): pages the kernel mapped in on first touch. */
const minorFaults = (pid: number): number => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[7]);

/** Instructions per request of `count` requests to `url` on the callgrind-run process `pid`. */
async function instructions(name: string, pid: number, url: string, t: Target): Promise<number> {
  const o = { concurrency: 8, headers: requestHeaders(t) };
  // On from before the warm-up, and left on: the first window after switching it on counts ~3x.
  if (!instrumented.has(pid)) control(pid, '-i', 'on');
  instrumented.add(pid);
  await sendRequests(url, { ...o, count: Number(opts.warmup) });
  const before = new Set(readdirSync(cgDir));
  control(pid, '-z');
  const statuses = await sendRequests(url, { ...o, count: Number(opts.count) });
  control(pid, '-d');
  if ((statuses.get(t.bare.status) ?? 0) !== Number(opts.count)) throw new Error(`${name} ${t.name}: statuses ${JSON.stringify([...statuses])}`);
  const dump = readdirSync(cgDir).find((f) => f.startsWith(`${name}.out`) && !before.has(f));
  if (!dump) throw new Error('callgrind wrote no dump');
  return Number(/^(?:totals|summary): (\d+)/m.exec(readFileSync(join(cgDir, dump), 'utf8'))?.[1] ?? NaN) / Number(opts.count);
}

async function main(): Promise<void> {
  ensureWrk();
  console.log(`machine: ${machineLine()}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-ladder-'));
  const ladderFile = join(dataDir, 'ladder');
  // First a plain start to create the records, then the ladder's process with their bare stand-ins.
  const setup = await spawnServer(process.execPath, [opts.cli!, '--port', '0', '--data-dir', join(dataDir, 'd')], { SANDLAB_ROOT_TOKEN: TOKEN });
  const targets = (await prepareTargets(setup.url, { reads: true, writes: false })).filter((t) => !opts.only || new RegExp(opts.only).test(t.name));
  await stop(setup.child);
  const routes = bareRoutes(targets);
  const wrap = callgrind('sandlab');
  const sandlab = await spawnServer(wrap[0] ?? process.execPath, [...wrap.slice(1), ...(wrap.length ? [process.execPath] : []), ...opts['node-args']!.split(' ').filter(Boolean), opts.cli!, '--port', '0', '--data-dir', join(dataDir, 'd')], {
    SANDLAB_ROOT_TOKEN: TOKEN,
    LADDER_FILE: ladderFile,
    BARE_ROUTES: JSON.stringify(routes),
  });
  // The patched build writes its in-process bare server's address; an unpatched one never does.
  for (let i = 0; !existsSync(`${ladderFile}.url`); i++) {
    if (i === 100) throw new Error(`${opts.cli} has no ladder cut-offs: build it with bench/http-ladder.patch applied`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const envUrl = readFileSync(`${ladderFile}.url`, 'utf8');
  const bare = await spawnBare(routes, callgrind('bare'));
  const twin = await spawnBare(routes, callgrind('twin'));
  const rungs = opts.rungs!.split(',');
  const seconds = Number(opts.seconds);
  try {
    if (opts.callgrind) {
      for (const [i, t] of targets.entries()) {
        console.log(`\n${t.name}  [${t.bare.status}, ${t.bare.body.length} B]  instructions/request (${opts.warmup} warm-up, ${opts.count} counted, 8 connections)`);
        const figures: Record<string, number> = {};
        for (const rung of rungs) {
          let url = `${sandlab.url}${t.path}`;
          let pid = sandlab.child.pid!;
          let name = 'sandlab';
          if (rung === 'bare' || rung === 'twin') {
            const s = rung === 'bare' ? bare : twin;
            [pid, name, url] = [s.child.pid!, rung, `${s.url.replace('localhost', '127.0.0.1')}/r${i}`];
          } else if (rung === 'env') url = `${envUrl}/r${i}`;
          else {
            writeFileSync(ladderFile, `${rung} ${t.bare.status} ${Buffer.byteLength(t.bare.body)}`);
            process.kill(pid, 'SIGUSR2');
            await new Promise((r) => setTimeout(r, 200));
          }
          figures[rung] = await instructions(name, pid, url, t);
          console.log(`  ${rung.padEnd(8)} ${num(figures[rung]).padStart(9)}  bare/this ${fmt((figures.bare ?? NaN) / figures[rung], 2)}`);
        }
      }
      return;
    }
    const run = (rung: string, i: number, secs: number) => {
      const t = targets[i];
      let pid = sandlab.child.pid!;
      let url = `${sandlab.url}${t.path}`;
      if (rung === 'bare' || rung === 'twin') {
        const s = rung === 'bare' ? bare : twin;
        pid = s.child.pid!;
        url = `${s.url.replace('localhost', '127.0.0.1')}/r${i}`;
      } else if (rung === 'env') url = `${envUrl}/r${i}`;
      else {
        writeFileSync(ladderFile, `${rung} ${t.bare.status} ${Buffer.byteLength(t.bare.body)}`);
        process.kill(pid, 'SIGUSR2');
      }
      const f0 = minorFaults(pid);
      const m0 = mainThreadCpuMs(pid);
      const c0 = cpuMs(pid);
      const s0 = contextSwitches(pid);
      const r = runWrk(url, { seconds: secs, connections: Number(opts.connections), headers: requestHeaders(t) });
      const n = Math.max(1, r.requests);
      const s1 = contextSwitches(pid);
      if (r.non2xx && t.bare.status < 300) throw new Error(`${rung} ${t.name}: ${r.non2xx} non-2xx answers`);
      return { cpuUs: ((cpuMs(pid) - c0) * 1000) / n, rps: r.rps, preempted: (s1.involuntary - s0.involuntary) / n, faults: (minorFaults(pid) - f0) / n, mainUs: ((mainThreadCpuMs(pid) - m0) * 1000) / n };
    };
    for (const [i, t] of targets.entries()) {
      // Warm every rung's code before measuring.
      for (const rung of rungs) run(rung, i, 1);
      const res: Record<string, ReturnType<typeof run>[]> = Object.fromEntries(rungs.map((r) => [r, []]));
      for (let round = 0; round < Number(opts.rounds); round++) {
        const order = round % 2 ? [...rungs].reverse() : rungs;
        for (const rung of order) res[rung].push(run(rung, i, seconds));
      }
      console.log(`\n${t.name}  [${t.bare.status}, ${t.bare.body.length} B]`);
      for (const rung of rungs) {
        const xs = res[rung];
        const ratios = xs.map((x, k) => res.bare[k].cpuUs / x.cpuUs);
        console.log(
          `  ${rung.padEnd(8)} CPU ${fmt(median(xs.map((x) => x.cpuUs)), 1).padStart(5)} us/req (main thread ${fmt(median(xs.map((x) => x.mainUs)), 1)})  ${Math.round(median(xs.map((x) => x.rps))).toString().padStart(6)} req/s  ` +
            `bare/this ${fmt(median(ratios), 2)} (rounds ${ratios.map((r) => fmt(r, 2)).join(' ')})  preempted ${fmt(median(xs.map((x) => x.preempted)), 2)}/req  page faults ${fmt(median(xs.map((x) => x.faults)), 3)}/req`,
        );
      }
    }
  } finally {
    await stop(twin.child);
    await stop(bare.child);
    await stop(sandlab.child);
    rmSync(dataDir, { recursive: true, force: true });
    if (opts.callgrind && !opts.keep) rmSync(cgDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
