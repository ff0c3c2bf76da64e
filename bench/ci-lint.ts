/**
 * CI lint on a real-world-sized configuration: 500 jobs over 6 stages with `default`, hidden
 * templates and multi-level `extends`, `needs`, `rules`, `only/except`, environments and a local
 * include. Prints figures for the validator alone and for POST /projects/:id/ci/lint over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createService } from '../src/main/service';
import { lintCiConfig } from '../src/main/service/areas/ci_lint/validator';

const JOBS = 500;
const stages = ['prepare', 'build', 'test', 'package', 'deploy', 'verify'];

function buildConfig(): { main: string; include: string } {
  const lines: string[] = [
    'include:',
    '  - local: ci/templates.yml',
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
  for (let i = 0; i < JOBS; i++) {
    const stage = stages[i % stages.length];
    lines.push(`job_${i}:`);
    lines.push(`  extends: ${i % 3 === 0 ? '.ruby' : '.base'}`);
    lines.push(`  stage: ${stage}`);
    lines.push('  script:');
    lines.push(`    - echo job ${i}`);
    lines.push(`    - ./run.sh --shard ${i}`);
    if (i >= stages.length) lines.push(`  needs: [job_${i - stages.length}]`);
    if (i % 4 === 0) lines.push('  rules:\n    - if: $CI_MERGE_REQUEST_ID\n      when: never\n    - when: on_success');
    if (stage === 'deploy') lines.push(`  environment:\n    name: env-${i}\n    url: https://env-${i}.example.com`);
    if (i % 7 === 0) lines.push('  allow_failure: true');
  }
  const include = ['.base:', '  retry: 1', '  interruptible: true', '.ruby:', '  extends: .base', '  cache:', '    key: gems', '    paths: [vendor/ruby]'].join('\n');
  return { main: `${lines.join('\n')}\n`, include: `${include}\n` };
}

function figures(name: string, samples: number[]): void {
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  const p = (q: number): number => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  console.log(`${name}: n=${samples.length} mean=${mean.toFixed(1)}ms p50=${p(0.5).toFixed(1)}ms p95=${p(0.95).toFixed(1)}ms max=${samples[samples.length - 1].toFixed(1)}ms`);
}

async function main(): Promise<void> {
  const { main: content, include } = buildConfig();
  console.log(`config: ${JOBS} jobs, ${content.split('\n').length} lines, ${(Buffer.byteLength(content) / 1024).toFixed(1)} KiB`);
  const ctx = {
    readLocal: (p: string) => (p === 'ci/templates.yml' ? include : undefined),
    describeLocal: () => ({ blob: null, raw: null, context_project: null, context_sha: null }),
  };
  const first = lintCiConfig(content, ctx);
  if (!first.valid) throw new Error(`bench config invalid: ${first.errors.join('; ')}`);
  console.log(`result: valid=${first.valid} jobs=${first.jobs.length} warnings=${first.warnings.length} merged_yaml=${(first.merged_yaml!.length / 1024).toFixed(1)} KiB`);
  const direct: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    lintCiConfig(content, ctx);
    direct.push(performance.now() - t0);
  }
  figures('validator (in process)', direct);

  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-bench-lint-'));
  const token = 'glpat-bench-root-token-00000';
  const service = await createService({ dataDir, port: 0, rootToken: token });
  const url = await service.listen();
  try {
    const headers = { 'private-token': token, 'content-type': 'application/json' };
    const project = (await (await fetch(`${url}/api/v4/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })).json()) as { id: number };
    await fetch(`${url}/api/v4/projects/${project.id}/sandlab/files/${encodeURIComponent('ci/templates.yml')}`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ content: include }),
    });
    const body = JSON.stringify({ content, include_jobs: true });
    const http: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const res = await fetch(`${url}/api/v4/projects/${project.id}/ci/lint`, { method: 'POST', headers, body });
      const json = (await res.json()) as { valid: boolean; jobs: unknown[] };
      http.push(performance.now() - t0);
      if (!json.valid || json.jobs.length !== JOBS) throw new Error('unexpected lint result over HTTP');
    }
    figures('POST /projects/:id/ci/lint include_jobs=true (HTTP)', http);
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
