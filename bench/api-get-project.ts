// Authenticated GET /projects/:id on Sandlab vs a bare node:http server answering fixed JSON,
// measured in the same run; plus Sandlab's start-to-first-response time and idle RSS.
// Run: npm run build && npx tsx bench/api-get-project.ts [seconds=5] [concurrency=16]
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fmt, load, rssMb, spawnServer, stop } from './lib';

const ROOT = resolve(__dirname, '..');
const TOKEN = 'glpat-bench-root-token-00000001';
const seconds = Number(process.argv[2] ?? 5);
const concurrency = Number(process.argv[3] ?? 16);

const BARE_SERVER = `
const http = require('node:http');
const body = JSON.stringify(${JSON.stringify({ id: 1, name: 'bench', path_with_namespace: 'root/bench', visibility: 'private' })});
const s = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); });
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
process.on('SIGTERM', () => s.close(() => process.exit(0)));
`;

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, 'out/main/cli.js'))) throw new Error('build first: npm run build');
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-bench-'));
  try {
    // Start to first response: spawn -> "listening" line -> first authenticated 200.
    const t0 = performance.now();
    const sandlab = await spawnServer(process.execPath, [join(ROOT, 'out/main/cli.js'), '--port', '0', '--data-dir', dataDir], {
      SANDLAB_ROOT_TOKEN: TOKEN,
    });
    const headers = { 'private-token': TOKEN };
    const first = await fetch(`${sandlab.url}/api/v4/version`, { headers });
    const startToFirstMs = performance.now() - t0;
    if (first.status !== 200) throw new Error(`first response ${first.status}`);
    await new Promise((r) => setTimeout(r, 500));
    const idleRss = rssMb(sandlab.child.pid!);

    const created = await fetch(`${sandlab.url}/api/v4/projects`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    });
    const project = (await created.json()) as { id: number };

    const bare = await spawnServer(process.execPath, ['-e', BARE_SERVER]);
    await load(`${bare.url}/`, {}, 1, concurrency); // warm-up
    const baseline = await load(`${bare.url}/`, {}, seconds, concurrency);
    await stop(bare.child);

    const path = `${sandlab.url}/api/v4/projects/${project.id}`;
    await load(path, headers, 1, concurrency); // warm-up
    const result = await load(path, headers, seconds, concurrency);
    const loadedRss = rssMb(sandlab.child.pid!);
    await stop(sandlab.child);

    console.log(`GET /projects/:id (authenticated), ${seconds}s x ${concurrency} connections, loopback`);
    console.log(`  sandlab:   ${fmt(result.rps, 0)} req/s  p50 ${fmt(result.p50, 2)} ms  p99 ${fmt(result.p99, 2)} ms  errors ${result.errors}`);
    console.log(`  node:http: ${fmt(baseline.rps, 0)} req/s  p50 ${fmt(baseline.p50, 2)} ms  p99 ${fmt(baseline.p99, 2)} ms  (fixed JSON baseline)`);
    console.log(`  ratio sandlab/baseline: ${fmt(result.rps / baseline.rps, 2)} (goal >= 0.5)`);
    console.log(`  start to first response: ${fmt(startToFirstMs, 0)} ms (goal < 1000; "listening" after ${fmt(sandlab.startedMs, 0)} ms)`);
    console.log(`  RSS idle: ${fmt(idleRss)} MB, after load: ${fmt(loadedRss)} MB (goal < 150)`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
