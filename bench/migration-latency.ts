/**
 * Do long jobs stall requests? A destination instance answers a closed loop of API reads
 * (GET /projects/:id and GET /projects/:id/issues) first while idle, then while it runs a direct
 * transfer of a ~5,000-record group tree from a source instance (both real `serve` processes).
 * Prints p50/p99 for both runs and their ratio (issue 18's goal: p99 during a migration within
 * 2x of idle). No pass/fail.
 * Beside the latencies, for each phase: the destination's event-loop delay (how long something
 * held its loop: bench/loop-probe.mjs), the CPU each process used (source, destination, the
 * readers, i.e. this process) in % of one core, and how long the destination's main thread was
 * ready to run but waited for a core (run-queue wait: the other processes' share of the tail).
 *
 * Run: npm run build && npx tsx bench/migration-latency.ts [--cli out-base/main/cli.js] [--profile FILE]
 *   --cli      the build to measure (default out/main/cli.js; a copy of an older out/ to compare)
 *   --profile  writes a V8 CPU profile of the destination's main thread during the migration
 *              rounds only (read it with bench/cpuprofile-summary.ts)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuMs, fmt, load, percentile, spawnServer, stop, type LoadResult } from './lib';
import { TOKEN, client, seed } from './group-tree';

const { values: opts } = parseArgs({ options: { cli: { type: 'string' }, profile: { type: 'string' } } });
const CLI = resolve(opts.cli ?? join(__dirname, '..', 'out', 'main', 'cli.js'));
const PROBE = pathToFileURL(join(__dirname, 'loop-probe.mjs')).href;
const CONCURRENCY = 4;

/** Run-queue wait and CPU of a process's main thread so far, ms (Linux schedstat). */
function mainThread(pid: number): { cpu: number; wait: number } {
  const [cpu, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
  return { cpu: cpu / 1e6, wait: wait / 1e6 };
}

interface Usage {
  at: number;
  source: number;
  dest: number;
  destMain: { cpu: number; wait: number };
  readers: number;
}

/** Where the CPU went between two points of the run, in % of one core. */
function usageLine(a: Usage, b: Usage): string {
  const pct = (ms: number) => `${Math.round((ms * 100) / (b.at - a.at))}%`;
  return (
    `CPU source ${pct(b.source - a.source)}, destination ${pct(b.dest - a.dest)} (main thread ${pct(b.destMain.cpu - a.destMain.cpu)}, ` +
    `waiting for a core ${pct(b.destMain.wait - a.destMain.wait)}), readers ${pct(b.readers - a.readers)}`
  );
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error('out/main/cli.js is missing: run `npm run build` first');
  const dirs = [mkdtempSync(join(tmpdir(), 'sandlab-bench-src-')), mkdtempSync(join(tmpdir(), 'sandlab-bench-dst-'))];
  const env = { SANDLAB_ROOT_TOKEN: TOKEN };
  const source = await spawnServer(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dirs[0]], env);
  const probeFile = join(dirs[1], 'probe.jsonl');
  const dest = await spawnServer(process.execPath, ['--import', PROBE, CLI, 'serve', '--port', '0', '--data-dir', dirs[1]], { ...env, SANDLAB_PROBE_FILE: probeFile });
  /** Ends a phase in the destination's probe (its event-loop delay since the last mark). */
  const mark = async (label: string) => {
    writeFileSync(`${probeFile}.cmd`, label);
    dest.child.kill('SIGUSR2');
    await new Promise((r) => setTimeout(r, 20));
  };
  const usage = (): Usage => {
    const own = process.cpuUsage();
    return { at: performance.now(), source: cpuMs(source.child.pid!), dest: cpuMs(dest.child.pid!), destMain: mainThread(dest.child.pid!), readers: (own.user + own.system) / 1000 };
  };
  try {
    const src = client(source.url);
    const dst = client(dest.url);
    const seeded = await seed(src);
    for (let i = 0; i < 10; i++) await dst('POST', '/users', { username: `dev${i}`, email: `dev${i}@bench.example`, name: `Dev ${i}`, password: 'password123' });
    // What the reads hit: a destination project with some issues of its own.
    const project = await dst('POST', '/projects', { name: 'local' });
    for (let i = 0; i < 50; i++) await dst('POST', `/projects/${project.id}/issues`, { title: `Local ${i}` });
    const headers = { 'private-token': TOKEN };
    const reads = async (seconds: number): Promise<LoadResult[]> =>
      Promise.all([
        load(`${dest.url}/api/v4/projects/${project.id}`, headers, seconds, CONCURRENCY / 2),
        load(`${dest.url}/api/v4/projects/${project.id}/issues?per_page=20`, headers, seconds, CONCURRENCY / 2),
      ]);

    await mark('seeded');
    const idleStart = usage();
    const idle = await reads(8);
    const idleEnd = usage();
    await mark('idle');

    const started = await dst('POST', '/bulk_imports', {
      configuration: { url: source.url, access_token: TOKEN },
      entities: [{ source_type: 'group_entity', source_full_path: 'bench', destination_namespace: '', destination_slug: 'bench-copy' }],
    });
    let status = started.status;
    let last = started;
    let rounds = 0;
    // Measure in short rounds while the migration runs; keep the rounds it was running through.
    const during: LoadResult[][] = [];
    const duringUsage: [Usage, Usage][] = [];
    if (opts.profile) await mark('profile-start');
    while (status === 'created' || status === 'started') {
      const before = usage();
      const busy = await reads(3);
      const after = usage();
      last = await dst('GET', `/bulk_imports/${started.id}`);
      status = last.status;
      const running = status === 'created' || status === 'started';
      await mark(running ? 'during' : 'ended');
      if (running) {
        during.push(busy);
        duringUsage.push([before, after]);
      }
      rounds++;
    }
    if (opts.profile) await mark(`profile-stop ${resolve(opts.profile)}`);
    const probe = readFileSync(probeFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { label: string; p50: number; p99: number; max: number });
    const loopLine = (label: string) => {
      const lines = probe.filter((p) => p.label === label);
      return `event-loop delay p50 ${fmt(Math.max(...lines.map((p) => p.p50)))} / p99 ${fmt(Math.max(...lines.map((p) => p.p99)))} / max ${fmt(Math.max(...lines.map((p) => p.max)))} ms`;
    };
    const entities: any[] = await dst('GET', `/bulk_imports/${started.id}/entities?per_page=100`);
    const failures = entities.reduce((n, e) => n + e.failures.length, 0);

    console.log(`machine: ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (shared with other work)`);
    console.log(`build: ${CLI}`);
    // The import's updated_at is when its last entity ended.
    const took = (Date.parse(last.updated_at) - Date.parse(started.created_at)) / 1000;
    console.log(`source: ${seeded} records; migration ${started.id}: ${status} in ${fmt(took)} s, ${entities.length} entities, ${failures} failures, ${rounds} rounds of reads`);
    console.log(`reads: ${CONCURRENCY} keep-alive clients, GET /projects/:id and GET /projects/:id/issues?per_page=20, as root`);
    const show = (label: string, results: LoadResult[]) => {
      const all = results.flatMap((x) => x.latencies).sort((x, y) => x - y);
      const errors = results.reduce((n, x) => n + x.errors, 0);
      const figures = { p50: percentile(all, 0.5), p99: percentile(all, 0.99) };
      console.log(`  ${label.padEnd(18)} ${String(all.length).padStart(6)} requests, ${errors} errors, p50 ${fmt(figures.p50)} ms, p99 ${fmt(figures.p99)} ms`);
      return figures;
    };
    const idleFigures = show('idle', idle);
    console.log(`    ${loopLine('idle')}; ${usageLine(idleStart, idleEnd)}`);
    if (!during.length) {
      console.log('  the migration ended before a full round of reads: no figure under load (seed more)');
      return;
    }
    const busyFigures = show('during migration', during.flat());
    // Event-loop delay: the worst round's percentiles; CPU: over all the rounds.
    const sum = (pick: (u: Usage) => number) => duringUsage.reduce((n, [a, b]) => n + pick(b) - pick(a), 0);
    const zero: Usage = { at: 0, source: 0, dest: 0, destMain: { cpu: 0, wait: 0 }, readers: 0 };
    const total: Usage = { at: sum((u) => u.at), source: sum((u) => u.source), dest: sum((u) => u.dest), destMain: { cpu: sum((u) => u.destMain.cpu), wait: sum((u) => u.destMain.wait) }, readers: sum((u) => u.readers) };
    console.log(`    ${loopLine('during')} (worst round); ${usageLine(zero, total)}`);
    // The worst single round too: a stall shows there even when the whole run hides it.
    const roundP99 = (round: LoadResult[]) => percentile(round.flatMap((x) => x.latencies).sort((x, y) => x - y), 0.99);
    console.log(`  worst 3 s round during migration: p99 ${fmt(Math.max(...during.map(roundP99)))} ms`);
    console.log(`p99 during migration / idle: ${fmt(busyFigures.p99 / idleFigures.p99, 2)}x (goal: within 2x)`);
  } finally {
    await Promise.all([stop(source.child), stop(dest.child)]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
