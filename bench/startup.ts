/**
 * Start-up to the first authenticated answer: spawn -> `GET /api/v4/user` answered 200, through
 * `npm run serve` and `node scripts/serve.mjs`, on a fresh data dir and on one that already
 * exists (migrated, root created). `node -e 0` is the floor (a Node process that does nothing).
 * With `--before <checkout>` (a built checkout of another revision: its out/main/cli.js and
 * scripts/serve.mjs), both revisions run in turn, round after round, in the same minutes.
 *
 *   npx tsx bench/startup.ts [--runs 7] [--before /path/to/checkout]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, ensureBuilt, fmt, machineLine, median } from './lib';

const TOKEN = 'glpat-startup-bench-token-0001';

const { values: opts } = parseArgs({ options: { runs: { type: 'string', default: '7' }, before: { type: 'string' } } });
const runs = Number(opts.runs);

/** ms from spawn to the first 200 of an authenticated request. */
function firstAnswer(cmd: string, args: string[], cwd: string, dataDir: string): Promise<number> {
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
        const ms = performance.now() - started;
        // npm runs the server as its child: end the whole group.
        child.once('exit', () => resolve(ms));
        process.kill(-child.pid!, 'SIGTERM');
      } catch (err) {
        process.kill(-child.pid!, 'SIGKILL');
        reject(err);
      }
    });
    child.once('error', reject);
  });
}

function floorMs(): number {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - started;
}

interface Variant {
  name: string;
  root: string;
  cmd: string;
  args: string[];
}

async function main(): Promise<void> {
  ensureBuilt();
  console.log(machineLine());
  console.log(`start-up to the first authenticated 200 (GET /api/v4/user), median of ${runs} runs\n`);
  const roots: [string, string][] = [['now', ROOT]];
  if (opts.before) roots.unshift(['before', opts.before]);
  const variants: Variant[] = roots.flatMap(([label, root]) => [
    { name: `${label}: npm run serve`, root, cmd: 'npm', args: ['run', '--silent', 'serve', '--'] },
    { name: `${label}: node scripts/serve.mjs`, root, cmd: process.execPath, args: ['scripts/serve.mjs'] },
  ]);
  const existing = new Map(variants.map((v) => [v.name, mkdtempSync(join(tmpdir(), 'sandlab-startup-'))]));
  const times = new Map<string, number[]>();
  const record = (key: string, ms: number): void => void times.set(key, [...(times.get(key) ?? []), ms]);
  // The existing data dirs are made (migrated, root created) before the first timed round.
  for (const v of variants) await firstAnswer(v.cmd, v.args, v.root, existing.get(v.name)!);
  for (let round = 0; round < runs; round++) {
    record('node -e 0 (floor)', floorMs());
    for (const v of variants) {
      const fresh = mkdtempSync(join(tmpdir(), 'sandlab-startup-'));
      record(`${v.name}, fresh data dir`, await firstAnswer(v.cmd, v.args, v.root, fresh));
      rmSync(fresh, { recursive: true, force: true });
      record(`${v.name}, existing data dir`, await firstAnswer(v.cmd, v.args, v.root, existing.get(v.name)!));
    }
  }
  for (const dir of existing.values()) rmSync(dir, { recursive: true, force: true });
  const width = Math.max(...[...times.keys()].map((k) => k.length));
  for (const [key, xs] of times) console.log(`  ${key.padEnd(width)}  ${fmt(median(xs), 0).padStart(5)} ms  (min ${fmt(Math.min(...xs), 0)}, max ${fmt(Math.max(...xs), 0)})`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
