/**
 * The hot path in instructions, not seconds: Sandlab and a bare `node:http` server (same-sized
 * fixed JSON bodies) each run under `valgrind --tool=callgrind`; after a warm-up, a fixed number
 * of each request is sent and the instructions the server process executed (every thread: JIT
 * code, GC, SQLite, libuv) are divided by the count. Unlike wall time, the figure holds when
 * other processes load the machine. Slow (valgrind runs Node some 50x slower): minutes.
 *
 * Run: npx tsx bench/http-instructions.ts [--count 400] [--warmup 1500] [--concurrency 8] [--keep DIR]
 *      [--cli out/main/cli.js of another build] [--only REGEX of request names]
 *      --keep keeps the callgrind files (open them with callgrind_annotate).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, fmt, machineLine, num, sendRequests, spawnBare, spawnSandlab, stop } from './lib';
import { TOKEN, type Target, bareRoutes, prepareTargets, requestHeaders } from './targets';

const { values: opts } = parseArgs({
  options: {
    // Another build to measure (an older checkout's out/main/cli.js), for before/after figures.
    cli: { type: 'string' },
    // Only the requests whose name matches this regular expression.
    only: { type: 'string' },
    count: { type: 'string', default: '400' },
    warmup: { type: 'string', default: '1500' },
    concurrency: { type: 'string', default: '8' },
    keep: { type: 'string' },
  },
});
const count = Number(opts.count);
const warmup = Number(opts.warmup);
const concurrency = Number(opts.concurrency);

const callgrind = (dir: string, name: string): string[] => [
  'valgrind',
  '--tool=callgrind',
  '--instr-atstart=no',
  `--callgrind-out-file=${join(dir, `${name}.out`)}`,
  `--log-file=${join(dir, `${name}.log`)}`,
];

const control = (pid: number, ...args: string[]): void => {
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });
};

/** Instructions per request for each target, on one server already warmed up. */
async function measure(dir: string, name: string, pid: number, urls: string[], targets: Target[]): Promise<number[]> {
  control(pid, '-i', 'on');
  const out: number[] = [];
  for (const [i, t] of targets.entries()) {
    const before = new Set(readdirSync(dir));
    control(pid, '-z');
    const statuses = await sendRequests(urls[i], { count, concurrency: t.connections ?? concurrency, headers: requestHeaders(t), method: t.method, body: t.body });
    control(pid, '-d');
    if ((statuses.get(t.bare.status) ?? 0) !== count) throw new Error(`${name} ${t.name}: statuses ${JSON.stringify([...statuses])}`);
    const dump = readdirSync(dir).find((f) => f.startsWith(`${name}.out`) && !before.has(f));
    if (!dump) throw new Error('callgrind wrote no dump');
    const totals = /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(dir, dump), 'utf8'));
    out.push(Number(totals?.[1] ?? NaN) / count);
  }
  control(pid, '-i', 'off');
  return out;
}

async function main(): Promise<void> {
  ensureBuilt();
  console.log(`machine: ${machineLine()}`);
  console.log(`callgrind: ${warmup} warm-up then ${count} counted requests of each, ${concurrency} keep-alive connections\n`);
  const dir = opts.keep ?? mkdtempSync(join(tmpdir(), 'sandlab-callgrind-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-bench-'));
  const sandlab = await spawnSandlab(dataDir, TOKEN, { wrapper: callgrind(dir, 'sandlab'), cli: opts.cli });
  let bare: Awaited<ReturnType<typeof spawnBare>> | null = null;
  try {
    const targets = (await prepareTargets(sandlab.url, { reads: true, writes: true })).filter((t) => !opts.only || new RegExp(opts.only).test(t.name));
    bare = await spawnBare(bareRoutes(targets), callgrind(dir, 'bare'));
    const sandlabUrls = targets.map((t) => `${sandlab.url}${t.path}`);
    const bareUrls = targets.map((_, i) => `${bare!.url}/r${i}`);
    for (const [i, t] of targets.entries()) {
      const o = { count: warmup, concurrency, headers: requestHeaders(t), method: t.method, body: t.body };
      await sendRequests(sandlabUrls[i], o);
      await sendRequests(bareUrls[i], o);
    }
    const s = await measure(dir, 'sandlab', sandlab.child.pid!, sandlabUrls, targets);
    const b = await measure(dir, 'bare', bare.child.pid!, bareUrls, targets);
    for (const [i, t] of targets.entries()) {
      console.log(`${t.name}  [${t.bare.status}, ${t.bare.body.length} B body]`);
      console.log(`  sandlab   ${num(s[i]).padStart(10)} instructions/request`);
      console.log(`  node:http ${num(b[i]).padStart(10)} instructions/request`);
      console.log(`  ratio ${fmt(b[i] / s[i], 2)}${t.goal ? `  goal >= ${t.goal}` : ''}\n`);
    }
  } finally {
    if (bare) await stop(bare.child);
    await stop(sandlab.child);
    rmSync(dataDir, { recursive: true, force: true });
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
