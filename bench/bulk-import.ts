/**
 * Direct transfer between two local instances: a source (its own `serve` process) seeded through
 * its API with a group tree of about 5,000 records, migrated by a destination (another process)
 * through POST /bulk_imports. Prints records migrated per second (stats' `imported`, summed),
 * beside the seeding rate of the same source as a yardstick. No pass/fail.
 * Run: npm run build && npx tsx bench/bulk-import.ts
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawnServer, stop } from './lib';
import { TOKEN, client, cpuSeconds, seed } from './group-tree';

const CLI = join(__dirname, '..', 'out', 'main', 'cli.js');

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error('out/main/cli.js is missing: run `npm run build` first');
  const dirs = [mkdtempSync(join(tmpdir(), 'sandlab-bench-src-')), mkdtempSync(join(tmpdir(), 'sandlab-bench-dst-'))];
  const env = { SANDLAB_ROOT_TOKEN: TOKEN };
  const source = await spawnServer(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dirs[0]], env);
  const dest = await spawnServer(process.execPath, [...(process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []), CLI, 'serve', '--port', '0', '--data-dir', dirs[1]], env);
  try {
    const src = client(source.url);
    const dst = client(dest.url);
    let t0 = performance.now();
    const seeded = await seed(src);
    const seedSeconds = (performance.now() - t0) / 1000;
    for (let i = 0; i < 10; i++) await dst('POST', '/users', { username: `dev${i}`, email: `dev${i}@bench.example`, name: `Dev ${i}`, password: 'password123' });

    t0 = performance.now();
    const cpu0 = [cpuSeconds(source.child.pid!), cpuSeconds(dest.child.pid!)];
    const started = await dst('POST', '/bulk_imports', {
      configuration: { url: source.url, access_token: TOKEN },
      entities: [{ source_type: 'group_entity', source_full_path: 'bench', destination_namespace: '', destination_slug: 'bench-copy' }],
    });
    let status = started.status;
    while (status === 'created' || status === 'started') {
      await new Promise((r) => setTimeout(r, 100));
      status = (await dst('GET', `/bulk_imports/${started.id}`)).status;
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = [cpuSeconds(source.child.pid!) - cpu0[0], cpuSeconds(dest.child.pid!) - cpu0[1]];
    const entities: any[] = await dst('GET', `/bulk_imports/${started.id}/entities?per_page=100`);
    const byRelation = new Map<string, { source: number; imported: number }>();
    for (const e of entities) {
      for (const [rel, s] of Object.entries(e.stats as Record<string, { source: number; imported: number }>)) {
        const t = byRelation.get(rel) ?? { source: 0, imported: 0 };
        byRelation.set(rel, { source: t.source + s.source, imported: t.imported + s.imported });
      }
    }
    const imported = [...byRelation.values()].reduce((n, s) => n + s.imported, 0);
    const failures = entities.reduce((n, e) => n + e.failures.length, 0);
    console.log(`machine: ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (shared with other work)`);
    console.log(`source seeded through its API: ${seeded} records in ${seedSeconds.toFixed(1)} s (${(seeded / seedSeconds).toFixed(0)} records/s, one POST each)`);
    console.log(`migration ${started.id}: ${status}, ${entities.length} entities, ${failures} failures`);
    for (const [rel, s] of [...byRelation].sort()) console.log(`  ${rel.padEnd(24)} ${String(s.imported).padStart(5)} of ${s.source}`);
    console.log(`records migrated: ${imported} in ${seconds.toFixed(2)} s -> ${(imported / seconds).toFixed(0)} records/s`);
    console.log(
      `CPU used meanwhile: source ${cpu[0].toFixed(1)} s, destination ${cpu[1].toFixed(1)} s -> ${(imported / (cpu[0] + cpu[1])).toFixed(0)} records per CPU-second of both`,
    );
  } finally {
    await Promise.all([stop(source.child), stop(dest.child)]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
