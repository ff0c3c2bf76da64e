/**
 * Direct transfer between two local instances: a source (its own `serve` process) seeded through
 * its API with a group tree of about 5,000 records, migrated by a destination (another process)
 * through POST /bulk_imports. Prints records migrated per second (stats' `imported`, summed),
 * beside the seeding rate of the same source as a yardstick. No pass/fail.
 * Run: npm run build && npx tsx bench/bulk-import.ts
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawnServer, stop } from './lib';

const TOKEN = 'glpat-bench-root-token-00000';
const CLI = join(__dirname, '..', 'out', 'main', 'cli.js');

type Call = (method: string, path: string, body?: unknown) => Promise<any>;

/** CPU seconds a process has used so far (user + system, Linux /proc). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function client(url: string): Call {
  return async (method, path, body) => {
    const res = await fetch(`${url}/api/v4${path}`, {
      method,
      headers: { 'private-token': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

/** Runs `work(i)` for i < n, `lanes` at a time. */
async function times(n: number, lanes: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: lanes }, async () => {
    while (next < n) await work(next++);
  }));
}

/** The tree: bench > {a, b}; two projects in bench, one in each subgroup. */
async function seed(call: Call): Promise<number> {
  let records = 0;
  const users: { id: number; username: string }[] = [];
  for (let i = 0; i < 10; i++) users.push(await call('POST', '/users', { username: `dev${i}`, email: `dev${i}@bench.example`, name: `Dev ${i}`, password: 'password123' }));
  const root = await call('POST', '/groups', { name: 'Bench', path: 'bench' });
  const groups = [root, await call('POST', '/groups', { name: 'A', path: 'a', parent_id: root.id }), await call('POST', '/groups', { name: 'B', path: 'b', parent_id: root.id })];
  for (const [gi, g] of groups.entries()) {
    for (const u of users) await call('POST', `/groups/${g.id}/members`, { user_id: u.id, access_level: 30 });
    records += users.length;
    await times(20, 8, (i) => call('POST', `/groups/${g.id}/labels`, { name: `g${gi}-label-${i}`, color: '#336699' }));
    await times(40, 8, async (i) => {
      const epic = await call('POST', `/groups/${g.id}/epics`, { title: `Epic ${i}`, labels: `g${gi}-label-${i % 20}` });
      await call('POST', `/groups/${g.id}/epics/${epic.id}/notes`, { body: `Note on epic ${i}` });
    });
    records += 20 + 40 * 2;
  }
  const projects = [
    await call('POST', '/projects', { name: 'one', namespace_id: root.id }),
    await call('POST', '/projects', { name: 'two', namespace_id: root.id }),
    await call('POST', '/projects', { name: 'three', namespace_id: groups[1].id }),
    await call('POST', '/projects', { name: 'four', namespace_id: groups[2].id }),
  ];
  for (const p of projects) {
    await times(10, 8, (i) => call('POST', `/projects/${p.id}/labels`, { name: `p-label-${i}`, color: '#993366' }));
    await times(5, 5, (i) => call('POST', `/projects/${p.id}/badges`, { link_url: `https://ci.example/${i}`, image_url: `https://ci.example/${i}.svg` }));
    await times(550, 8, async (i) => {
      const issue = await call('POST', `/projects/${p.id}/issues`, { title: `Issue ${i}`, description: `Body of issue ${i}`, labels: `p-label-${i % 10}` });
      if (i % 2 === 0) await call('POST', `/projects/${p.id}/issues/${issue.iid}/notes`, { body: `Comment on ${i}` });
    });
    await times(150, 8, async (i) => {
      const mr = await call('POST', `/projects/${p.id}/merge_requests`, { title: `MR ${i}`, source_branch: `feature-${i}`, target_branch: 'main' });
      await call('POST', `/projects/${p.id}/merge_requests/${mr.iid}/notes`, { body: `Review of ${i}` });
    });
    await times(10, 5, (i) => call('POST', `/projects/${p.id}/snippets`, { title: `Snippet ${i}`, visibility: 'private', files: [{ file_path: `s${i}.txt`, content: `snippet ${i}\n` }] }));
    records += 10 + 5 + 550 + 275 + 150 * 2 + 10;
  }
  return records;
}

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
