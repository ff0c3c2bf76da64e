/**
 * CI lint throughput on a real-world-sized configuration: 500 jobs over 6 stages with `default`,
 * hidden templates and multi-level `extends`, `needs`, `rules`, environments and a local include
 * read from the project's repository. Prints figures for the validator alone (in process), then
 * requests per second for POST /projects/:id/ci/lint under `wrk`, beside a bare node:http server
 * that reads the same request body and answers fixed JSON, measured in the same run.
 *
 * Run: npx tsx bench/ci-lint.ts [seconds=15] [connections=4]
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createService } from '../src/main/service';
import { lintCiConfig, type LintContext } from '../src/main/service/areas/ci_lint/validator';
import { fmt, spawnServer, stop } from './lib';

const JOBS = 500;
const seconds = Number(process.argv[2] ?? 15);
const connections = Number(process.argv[3] ?? 4);
const stages = ['prepare', 'build', 'test', 'package', 'deploy', 'verify'];
const TEMPLATES_PATH = 'ci/templates.yml';

function buildConfig(jobs: number): string {
  const lines: string[] = [
    'include:',
    `  - local: ${TEMPLATES_PATH}`,
    `stages: [${stages.join(', ')}]`,
    'default:',
    '  image: ruby:3.3',
    '  before_script: [bundle install]',
    '  tags: [docker]',
    'variables:',
    '  RAILS_ENV: test',
    'workflow:',
    '  rules:',
    '    - if: $CI_COMMIT_BRANCH',
  ];
  for (let i = 0; i < jobs; i++) {
    const stage = stages[i % stages.length];
    lines.push(`job_${i}:`);
    lines.push(`  extends: ${i % 3 === 0 ? '.ruby' : '.base'}`);
    lines.push(`  stage: ${stage}`);
    lines.push('  script:');
    lines.push(`    - echo job ${i}`);
    lines.push(`    - ./run.sh --shard ${i}`);
    if (i >= stages.length) lines.push(`  needs: [job_${i - stages.length}]`);
    if (i % 4 === 0) lines.push('  rules:\n    - if: $CI_MERGE_REQUEST_ID && $CI_COMMIT_REF_NAME =~ /^feature-.*$/\n      when: never\n    - when: on_success');
    if (stage === 'deploy') lines.push(`  environment:\n    name: env-${i}\n    url: https://env-${i}.example.com`);
    if (i % 7 === 0) lines.push('  allow_failure: true');
    if (i % 5 === 0) lines.push('  timeout: 1h 30m\n  retry:\n    max: 2\n    when: [runner_system_failure, stuck_or_timeout_failure]');
  }
  return `${lines.join('\n')}\n`;
}

const TEMPLATES = ['.base:', '  retry: 1', '  interruptible: true', '.ruby:', '  extends: .base', '  cache:', '    key: gems', '    paths: [vendor/ruby]', ''].join('\n');

function figures(name: string, samples: number[]): void {
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  const p = (q: number): number => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  console.log(`  ${name}: n=${samples.length} mean=${fmt(mean)}ms p50=${fmt(p(0.5))}ms p95=${fmt(p(0.95))}ms`);
}

/** A server that reads the whole request body and answers a fixed JSON document. */
const BARE_SERVER = `
const http = require('node:http');
const body = JSON.stringify({ valid: true, errors: [], warnings: [], merged_yaml: null, includes: [] });
const s = http.createServer((req, res) => {
  let n = 0;
  req.on('data', (c) => { n += c.length; });
  req.on('end', () => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); });
});
s.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + s.address().port));
process.on('SIGTERM', () => s.close(() => process.exit(0)));
`;

interface WrkResult {
  rps: number;
  p50: string;
  p99: string;
  non2xx: number;
  timeouts: number;
  requests: number;
}

/** `wrk` POSTing `body` (JSON) with `headers` to `url` for `seconds` (asynchronously: the service answers in this process). */
async function wrk(url: string, body: string, headers: Record<string, string>, dir: string, secs: number): Promise<WrkResult> {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error('wrk only aims at loopback');
  const bodyFile = join(dir, 'body.json');
  writeFileSync(bodyFile, body);
  const script = join(dir, 'post.lua');
  const headerLines = Object.entries({ 'Content-Type': 'application/json', ...headers }).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  writeFileSync(script, ['wrk.method = "POST"', `local f = io.open(${JSON.stringify(bodyFile)}, "rb")`, 'wrk.body = f:read("*a")', 'f:close()', ...headerLines, ''].join('\n'));
  const { stdout: out } = await promisify(execFile)('wrk', ['-t', '2', '-c', String(connections), '-d', `${secs}s`, '--timeout', '60s', '--latency', '-s', script, url], { encoding: 'utf8' });
  if (!/ [1-9]\d* requests in/.test(out)) throw new Error(`wrk made no request:\n${out}`);
  const pct = (q: string): string => new RegExp(`^\\s+${q}%\\s+(\\S+)`, 'm').exec(out)?.[1] ?? '?';
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN),
    p50: pct('50'),
    p99: pct('99'),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    timeouts: Number(/timeout (\d+)/.exec(out)?.[1] ?? 0),
  };
}

const line = (name: string, r: WrkResult): string =>
  `  ${name.padEnd(34)} ${fmt(r.rps, 1).padStart(8)} req/s  p50 ${r.p50.padStart(8)}  p99 ${r.p99.padStart(8)}  (${r.requests} requests, non-2xx ${r.non2xx}, timeouts ${r.timeouts})`;

async function main(): Promise<void> {
  const content = buildConfig(JOBS);
  const small = buildConfig(6);
  console.log(`config: ${JOBS} jobs, ${content.split('\n').length} lines, ${fmt(Buffer.byteLength(content) / 1024)} KiB (+ ${TEMPLATES_PATH}); small config: 6 jobs`);

  const ctx: LintContext = {
    readLocal: (p) => (p === TEMPLATES_PATH ? TEMPLATES : undefined),
    describeLocal: () => ({ blob: null, raw: null, context_project: null, context_sha: null }),
  };
  const first = lintCiConfig(content, ctx);
  if (!first.valid) throw new Error(`bench config invalid: ${first.errors.join('; ')}`);
  console.log(`result: valid=${first.valid} jobs=${first.jobs.length} warnings=${first.warnings.length} merged_yaml=${fmt(first.merged_yaml!.length / 1024)} KiB`);
  for (const [cfg, name] of [[content, '500 jobs'], [small, '6 jobs']]) {
    const direct: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      lintCiConfig(cfg, ctx);
      direct.push(performance.now() - t0);
    }
    figures(`validator alone, ${name} (in process)`, direct);
  }

  const dir = mkdtempSync(join(tmpdir(), 'sandlab-bench-lint-'));
  const token = 'glpat-bench-root-token-00000';
  const service = await createService({ dataDir: join(dir, 'data'), port: 0, rootToken: token });
  const url = (await service.listen()).replace('localhost', '127.0.0.1');
  const bare = await spawnServer(process.execPath, ['-e', BARE_SERVER]);
  try {
    const headers = { 'private-token': token, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown): Promise<Response> =>
      fetch(`${url}/api/v4${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const project = (await (await post('/projects', { name: 'bench' })).json()) as { id: number };
    const committed = await post(`/projects/${project.id}/repository/files/${encodeURIComponent(TEMPLATES_PATH)}`, {
      branch: 'main',
      content: TEMPLATES,
      commit_message: 'CI templates',
    });
    if (committed.status !== 201) throw new Error(`committing ${TEMPLATES_PATH}: ${committed.status} ${await committed.text()}`);
    const lintPath = `/projects/${project.id}/ci/lint`;
    for (const [cfg, jobs] of [[content, JOBS], [small, 6]] as const) {
      const json = (await (await post(lintPath, { content: cfg, include_jobs: true })).json()) as { valid: boolean; errors: string[]; jobs: unknown[] };
      if (!json.valid || json.jobs.length !== jobs) throw new Error(`unexpected lint result over HTTP: ${JSON.stringify(json.errors)}`);
    }

    console.log(`HTTP under wrk, ${seconds}s x ${connections} connections (2 threads), loopback:`);
    const large = JSON.stringify({ content, include_jobs: true });
    const smallBody = JSON.stringify({ content: small, include_jobs: true });
    await wrk(`${bare.url}/`, large, {}, dir, 1); // warm-up
    console.log(line('node:http baseline, 500-job body', await wrk(`${bare.url}/`, large, {}, dir, seconds)));
    console.log(line('node:http baseline, 6-job body', await wrk(`${bare.url}/`, smallBody, {}, dir, seconds)));
    const auth = { 'PRIVATE-TOKEN': token };
    // Requests still in flight when wrk stops are answered before the next run measures anything.
    const drained = async (): Promise<void> => void (await fetch(`${url}/api/v4/version`, { headers })).arrayBuffer();
    await wrk(`${url}/api/v4${lintPath}`, smallBody, auth, dir, 1); // warm-up
    await drained();
    console.log(line('POST ci/lint, 6 jobs', await wrk(`${url}/api/v4${lintPath}`, smallBody, auth, dir, seconds)));
    await drained();
    console.log(line('POST ci/lint, 500 jobs', await wrk(`${url}/api/v4${lintPath}`, large, auth, dir, seconds)));
    console.log(`machine: ${execFileSync('sh', ['-c', 'nproc; cat /proc/loadavg'], { encoding: 'utf8' }).trim().replace('\n', ' cores, loadavg ')}`);
  } finally {
    await stop(bare.child);
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
