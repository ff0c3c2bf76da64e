/**
 * Group label and epic lists at scale: 100 labels over 2,000 labelled issues, 1,000 epics in a
 * group tree. Prints latency figures (no pass/fail). Run: npx tsx bench/labels-epics.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createService } from '../src/main/service';

const TOKEN = 'glpat-bench-root-token-00000';

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-bench-'));
  const service = await createService({ dataDir, port: 0, rootToken: TOKEN });
  const url = await service.listen();
  const call = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${url}/api/v4${path}`, {
      method,
      headers: { 'private-token': TOKEN, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.status === 204 ? null : res.json();
  };
  try {
    const group = await call('POST', '/groups', { name: 'bench', path: 'bench' });
    const sub = await call('POST', '/groups', { name: 'sub', path: 'sub', parent_id: group.id });
    const project = await call('POST', '/projects', { name: 'p', namespace_id: group.id });
    let t0 = performance.now();
    for (let i = 0; i < 100; i++) await call('POST', `/groups/${group.id}/labels`, { name: `label-${i}`, color: '#123456' });
    console.log(`create 100 group labels: ${(performance.now() - t0).toFixed(0)} ms`);
    t0 = performance.now();
    for (let i = 0; i < 2000; i++) {
      await call('POST', `/projects/${project.id}/issues`, { title: `i${i}`, labels: `label-${i % 100},label-${(i * 7) % 100}` });
    }
    console.log(`create 2000 labelled issues: ${(performance.now() - t0).toFixed(0)} ms`);
    t0 = performance.now();
    for (let i = 0; i < 1000; i++) {
      await call('POST', `/groups/${i % 2 ? sub.id : group.id}/epics`, { title: `epic ${i}`, labels: `label-${i % 100}` });
    }
    console.log(`create 1000 epics: ${(performance.now() - t0).toFixed(0)} ms`);

    const measure = async (name: string, path: string, n = 30): Promise<void> => {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const s = performance.now();
        await call('GET', path);
        times.push(performance.now() - s);
      }
      times.sort((a, b) => a - b);
      console.log(`${name}: p50 ${times[Math.floor(n / 2)].toFixed(1)} ms, p95 ${times[Math.floor(n * 0.95)].toFixed(1)} ms`);
    };
    await measure('GET group labels per_page=100', `/groups/${group.id}/labels?per_page=100`);
    await measure('GET group labels per_page=100 with_counts', `/groups/${group.id}/labels?per_page=100&with_counts=true`);
    await measure('GET one label (with counts)', `/groups/${group.id}/labels/label-5`);
    await measure('GET epics per_page=100 (group + subgroup)', `/groups/${group.id}/epics?per_page=100`);
    await measure('GET epics labels=label-5 search', `/groups/${group.id}/epics?labels=label-5&search=epic`);
    await measure('GET epics with_labels_details per_page=100', `/groups/${group.id}/epics?per_page=100&with_labels_details=true`);
    await measure('GET /user (token touch at most once a minute)', '/user', 200);
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
