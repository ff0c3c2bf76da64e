/**
 * Where one hot-path request's CPU goes, kernel included: Sandlab (the built server, with
 * `--perf-basic-prof` so JIT frames have names) under Linux `perf record` while `wrk` drives one
 * request of bench/targets.ts, then the top frames by self time (`perf report`). Unlike
 * `--cpu-prof`, whose samples are wall-clock and pile up in syscalls such as writev, these are
 * CPU samples.
 *
 * Run: npx tsx bench/http-profile.ts --only REGEX [--seconds 10] [--warmup 3] [--top 50] [--keep DIR] [--cli out/main/cli.js]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, ensureWrk, machineLine, runWrk, spawnSandlab, stop } from './lib';
import { TOKEN, prepareTargets, requestHeaders } from './targets';

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string', default: 'version' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '32' },
    top: { type: 'string', default: '50' },
    keep: { type: 'string' },
    cli: { type: 'string' },
  },
});

async function main(): Promise<void> {
  ensureWrk();
  ensureBuilt();
  console.log(`machine: ${machineLine()}`);
  const dir = opts.keep ?? mkdtempSync(join(tmpdir(), 'sandlab-perf-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-bench-'));
  const sandlab = await spawnSandlab(dataDir, TOKEN, { nodeArgs: ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack'], cli: opts.cli });
  try {
    const targets = await prepareTargets(sandlab.url, { reads: true, writes: true });
    const t = targets.find((x) => new RegExp(opts.only!).test(x.name));
    if (!t) throw new Error(`no request matches ${opts.only}`);
    const wrk = (seconds: number) =>
      runWrk(`${sandlab.url}${t.path}`, { seconds, connections: t.connections ?? Number(opts.connections), headers: requestHeaders(t), method: t.method, body: t.body });
    wrk(Number(opts.warmup)); // warm-up: let the JIT settle
    const data = join(dir, 'perf.data');
    const perf = (await import('node:child_process')).spawn('perf', ['record', '-F', '1999', '-g', '-p', String(sandlab.child.pid), '-o', data], { stdio: 'ignore' });
    const r = wrk(Number(opts.seconds));
    perf.kill('SIGINT');
    await new Promise((resolve) => perf.on('exit', resolve));
    console.log(`${t.name}: ${r.requests} requests, ${Math.round(r.rps)} req/s\n`);
    const dsos = execFileSync('perf', ['report', '-i', data, '--stdio', '--no-children', '--sort', 'dso', '-g', 'none'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    console.log(`by binary (node = V8's interpreter, builtins and compiler; [JIT] = optimized JavaScript)\n${dsos.split('\n').filter((l) => /^\s+\d/.test(l)).join('\n')}\n`);
    const report = (children: boolean): string[] =>
      execFileSync('perf', ['report', '-i', data, '--stdio', children ? '--children' : '--no-children', '--sort', 'sym', '-g', 'none', '--percent-limit', '0.3'], {
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      })
        .split('\n')
        .filter((l) => /^\s+\d/.test(l));
    console.log('self time');
    console.log(report(false).slice(0, Number(opts.top)).join('\n'));
    // Inclusive time of the JavaScript frames (the service's and fastify's functions).
    console.log('\ninclusive time, JavaScript frames');
    console.log(report(true).filter((l) => l.includes('JS:')).slice(0, Number(opts.top)).join('\n'));
  } finally {
    await stop(sandlab.child);
    rmSync(dataDir, { recursive: true, force: true });
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
