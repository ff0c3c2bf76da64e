/**
 * Start-up to the first authenticated answer: spawn -> `GET /api/v4/user` answered 200, through
 * `npm run serve` and `node scripts/serve.mjs`, on a fresh data dir and on one that already
 * exists (migrated, root created). `node -e 0` is the floor (a Node process that does nothing).
 * Each figure is the wall time and the CPU time the server's processes had used by then: every
 * thread's time on a CPU from /proc/<pid>/task/<tid>/schedstat (nanoseconds; the 10 ms clock ticks
 * of /proc/<pid>/stat where schedstat is missing). On a busy machine the wall time waits for the
 * other processes; the CPU time is what a start costs.
 * With `--before <checkout>` (a built checkout of another revision: its out/main/cli.js and
 * scripts/serve.mjs), both revisions run in turn, round after round, in the same minutes.
 * With `--data <dir>` (a data dir made by bench/build-scale.ts: a million issues), the existing
 * data dir is a copy of it per revision (never the original) and the token its manifest's; the
 * copy's first open, which may run new migrations once, is printed apart and not counted.
 * NODE_EXTRA_CA_CERTS, when set, costs every Node start (npm's too) the parsing of its
 * certificates: `env -u NODE_EXTRA_CA_CERTS npx tsx bench/startup.ts ...` measures without it.
 *
 *   npx tsx bench/startup.ts [--runs 7] [--before /path/to/checkout] [--data /path/to/big]
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, ensureBuilt, fmt, machineLine, median } from './lib';

const { values: opts } = parseArgs({ options: { runs: { type: 'string', default: '7' }, before: { type: 'string' }, data: { type: 'string' } } });
const runs = Number(opts.runs);
const manifest = opts.data && existsSync(join(opts.data, 'bench-manifest.json')) ? JSON.parse(readFileSync(join(opts.data, 'bench-manifest.json'), 'utf8')) : undefined;
const TOKEN: string = manifest?.token ?? 'glpat-startup-bench-token-0001';

/** CPU time of every live process in a process group, in ms (Linux /proc): schedstat's nanoseconds, else clock ticks. */
function groupCpuMs(pgid: number): number {
  let ms = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      // After "pid (comm) ": pgrp is field 5, utime 14 and stime 15 (clock ticks, 100 per second).
      if (Number(fields[2]) !== pgid) continue;
      ms += threadsCpuMs(pid) ?? ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      // The process ended meanwhile.
    }
  }
  return ms;
}

/** The time on a CPU of every thread of a process (schedstat's first field, ns), or null without schedstat. */
function threadsCpuMs(pid: string): number | null {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e6;
  } catch {
    return null;
  }
}

interface Start {
  wallMs: number;
  cpuMs: number;
}

/** Wall time from spawn to the first 200 of an authenticated request, and the CPU used by then. */
function firstAnswer(cmd: string, args: string[], cwd: string, dataDir: string): Promise<Start> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, [...args, '--port', '0', '--data-dir', dataDir], { cwd, env: { ...process.env, SANDLAB_ROOT_TOKEN: TOKEN }, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    let out = '';
    child.stdout!.on('data', async (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (!url) return;
      child.stdout!.removeAllListeners('data');
      try {
        const res = await fetch(`${url}/api/v4/user`, { headers: { 'private-token': TOKEN } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`first answer ${res.status}`);
        const wallMs = performance.now() - started;
        const cpuMs = groupCpuMs(child.pid!);
        // npm runs the server as its child: end the whole group.
        child.once('exit', () => resolve({ wallMs, cpuMs }));
        process.kill(-child.pid!, 'SIGTERM');
      } catch (err) {
        process.kill(-child.pid!, 'SIGKILL');
        reject(err);
      }
    });
    child.once('error', reject);
  });
}

/** A Node process that does nothing: spawn to its first line of code, and the CPU it used by then. */
function floor(): Promise<Start> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['-e', "process.stdout.write('up'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    child.stdout!.once('data', () => {
      const start = { wallMs: performance.now() - started, cpuMs: groupCpuMs(child.pid!) };
      child.once('exit', () => resolve(start));
      process.kill(-child.pid!, 'SIGTERM');
    });
    child.once('error', reject);
  });
}

interface Variant {
  name: string;
  label: string;
  root: string;
  cmd: string;
  args: string[];
}

async function main(): Promise<void> {
  ensureBuilt();
  console.log(machineLine());
  // Node 20 parses this file's certificates at every start, before any of our code (OpenSSL 3 is
  // slow at it: ~85 ms of CPU for the 144 of Debian's bundle here, in npm and in the server alike).
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  console.log(`NODE_EXTRA_CA_CERTS: ${extraCa ? `${extraCa} (parsed by every Node start: npm's and the server's)` : 'not set'}`);
  console.log(`start-up to the first authenticated 200 (GET /api/v4/user), median of ${runs} runs\n`);
  const roots: [string, string][] = [['now', ROOT]];
  if (opts.before) roots.unshift(['before', opts.before]);
  const variants: Variant[] = roots.flatMap(([label, root]) => [
    { name: `${label}: npm run serve`, label, root, cmd: 'npm', args: ['run', '--silent', 'serve', '--'] },
    { name: `${label}: node scripts/serve.mjs`, label, root, cmd: process.execPath, args: ['scripts/serve.mjs'] },
  ]);
  // One existing data dir per revision (an older revision may not know a newer one's migrations).
  const existing = new Map(roots.map(([label]) => [label, mkdtempSync(join(tmpdir(), 'sandlab-startup-'))]));
  if (opts.data) {
    for (const dir of existing.values()) cpSync(opts.data, dir, { recursive: true, verbatimSymlinks: true });
    console.log(`existing data dir: copies of ${opts.data}${manifest ? ` (${JSON.stringify(manifest.counts)})` : ''}`);
  }
  const starts = new Map<string, Start[]>();
  const record = (key: string, start: Start): void => void starts.set(key, [...(starts.get(key) ?? []), start]);
  // The existing data dirs are made (migrated, root created) before the first timed round; a copy
  // of --data may migrate once here.
  for (const [label, root] of roots) {
    const first = await firstAnswer(process.execPath, ['scripts/serve.mjs'], root, existing.get(label)!);
    console.log(`${label}: first open of the existing data dir (one-time migrations, not counted): ${fmt(first.wallMs, 0)} ms`);
  }
  for (const v of variants) await firstAnswer(v.cmd, v.args, v.root, existing.get(v.label)!);
  for (let round = 0; round < runs; round++) {
    record('node -e 0 (floor)', await floor());
    for (const v of variants) {
      const fresh = mkdtempSync(join(tmpdir(), 'sandlab-startup-'));
      record(`${v.name}, fresh data dir`, await firstAnswer(v.cmd, v.args, v.root, fresh));
      rmSync(fresh, { recursive: true, force: true });
      record(`${v.name}, existing data dir`, await firstAnswer(v.cmd, v.args, v.root, existing.get(v.label)!));
    }
  }
  for (const dir of existing.values()) rmSync(dir, { recursive: true, force: true });
  console.log(`\nload average after the runs: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const width = Math.max(...[...starts.keys()].map((k) => k.length));
  console.log(`  ${''.padEnd(width)}  wall ms (min-max)      CPU ms (every thread)`);
  for (const [key, xs] of starts) {
    const wall = xs.map((x) => x.wallMs);
    const cpu = xs.map((x) => x.cpuMs);
    console.log(`  ${key.padEnd(width)}  ${fmt(median(wall), 0).padStart(5)} (${fmt(Math.min(...wall), 0)}-${fmt(Math.max(...wall), 0)})`.padEnd(width + 26) + `  ${fmt(median(cpu), 0).padStart(5)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
