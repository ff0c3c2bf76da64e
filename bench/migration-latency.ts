/**
 * Do long jobs stall requests? A destination instance answers a closed loop of API reads
 * (GET /projects/:id and GET /projects/:id/issues) first while idle, then while it runs a direct
 * transfer of a ~5,000-record group tree from a source instance (both real `serve` processes).
 * Prints p50/p99 for both runs and their ratio (issue 18's goal: p99 during a migration within
 * 2x of idle). No pass/fail.
 * Run: npm run build && npx tsx bench/migration-latency.ts [--cpu-prof <dir>]
 * (--cpu-prof: the destination writes a V8 CPU profile there when it stops, for a look at what
 * holds its event loop during the migration.)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fmt, load, percentile, spawnServer, stop, type LoadResult } from './lib';
import { TOKEN, client, seed } from './group-tree';

const CLI = join(__dirname, '..', 'out', 'main', 'cli.js');
const CONCURRENCY = 4;

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error('out/main/cli.js is missing: run `npm run build` first');
  const dirs = [mkdtempSync(join(tmpdir(), 'sandlab-bench-src-')), mkdtempSync(join(tmpdir(), 'sandlab-bench-dst-'))];
  const env = { SANDLAB_ROOT_TOKEN: TOKEN };
  const source = await spawnServer(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dirs[0]], env);
  const profDir = process.argv.includes('--cpu-prof') ? process.argv[process.argv.indexOf('--cpu-prof') + 1] : null;
  const profArgs = profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
  const dest = await spawnServer(process.execPath, [...profArgs, CLI, 'serve', '--port', '0', '--data-dir', dirs[1]], env);
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

    const idle = await reads(8);

    const started = await dst('POST', '/bulk_imports', {
      configuration: { url: source.url, access_token: TOKEN },
      entities: [{ source_type: 'group_entity', source_full_path: 'bench', destination_namespace: '', destination_slug: 'bench-copy' }],
    });
    let status = started.status;
    let rounds = 0;
    // Measure in short rounds while the migration runs; keep the rounds it was running through.
    const during: LoadResult[][] = [];
    while (status === 'created' || status === 'started') {
      const busy = await reads(3);
      status = (await dst('GET', `/bulk_imports/${started.id}`)).status;
      if (status === 'created' || status === 'started') during.push(busy);
      rounds++;
    }
    const entities: any[] = await dst('GET', `/bulk_imports/${started.id}/entities?per_page=100`);
    const failures = entities.reduce((n, e) => n + e.failures.length, 0);

    console.log(`machine: ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (shared with other work)`);
    console.log(`source: ${seeded} records; migration ${started.id}: ${status}, ${entities.length} entities, ${failures} failures, ${rounds} rounds of reads`);
    console.log(`reads: ${CONCURRENCY} keep-alive clients, GET /projects/:id and GET /projects/:id/issues?per_page=20, as root`);
    const show = (label: string, results: LoadResult[]) => {
      const all = results.flatMap((x) => x.latencies).sort((x, y) => x - y);
      const errors = results.reduce((n, x) => n + x.errors, 0);
      const figures = { p50: percentile(all, 0.5), p99: percentile(all, 0.99) };
      console.log(`  ${label.padEnd(18)} ${String(all.length).padStart(6)} requests, ${errors} errors, p50 ${fmt(figures.p50)} ms, p99 ${fmt(figures.p99)} ms`);
      return figures;
    };
    const idleFigures = show('idle', idle);
    if (!during.length) {
      console.log('  the migration ended before a full round of reads: no figure under load (seed more)');
      return;
    }
    const busyFigures = show('during migration', during.flat());
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
