import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rememberedRowsHeld } from '../../src/main/service/db/connection';
import { MEMORY_BUDGET } from '../../src/main/service/memory';
import { TestService, ok } from '../helpers/service';

// The memory budget (src/main/service/memory.ts) is kept: each cache within its bound, through
// the API where the bound is the service's.

let s: TestService;
let projectId: number;
beforeAll(async () => {
  s = await TestService.start();
  projectId = (await s.createProject({ name: 'memory' })).id;
  for (let i = 0; i < 30; i++) ok(await s.api('POST', `/projects/${projectId}/issues`, { body: { title: `Issue ${i}`, labels: i % 2 ? 'bug' : 'feature' } }));
});
afterAll(async () => {
  await s.stop();
});

describe("the service's memory budget", () => {
  it('keeps the rows read statements remember to those read since the last write, even of statements not called again', async () => {
    // Many different lists: each statement remembers its answers until the next write.
    const lists = [
      `/projects/${projectId}/issues?per_page=100`,
      `/projects/${projectId}/issues?labels=bug&per_page=100`,
      `/projects/${projectId}/issues?order_by=updated_at&sort=asc&per_page=100`,
      `/projects/${projectId}/issues?state=opened&per_page=100`,
      `/projects/${projectId}/labels`,
      `/projects/${projectId}/members/all`,
      `/issues?scope=all&per_page=100`,
      '/projects',
      '/users',
    ];
    for (const path of lists) ok(await s.api('GET', path));
    const afterLists = rememberedRowsHeld(s.service.context.db);
    expect(afterLists).toBeGreaterThan(60);
    // A write, then one small read: the lists' statements are not called again, and what they
    // remembered goes at that first read's remembered answer, but for the statements whose
    // tables (core/099's and core/173's versions) the write left alone: a project's description
    // leaves the issue lists' answers as they were.
    ok(await s.api('PUT', `/projects/${projectId}`, { body: { description: 'written' } }));
    ok(await s.api('GET', `/projects/${projectId}/issues/1`));
    const afterOtherWrite = rememberedRowsHeld(s.service.context.db);
    expect(afterOtherWrite).toBeGreaterThan(60);
    expect(afterOtherWrite).toBeLessThan(afterLists + 40);
    // A write to an issue: what the five issue lists (30 issues each) remembered goes, and what
    // the lists of other tables (users, members) remembered stays.
    ok(await s.api('PUT', `/projects/${projectId}/issues/2`, { body: { title: 'written' } }));
    ok(await s.api('GET', `/projects/${projectId}/issues/1`));
    const afterOneRead = rememberedRowsHeld(s.service.context.db);
    expect(afterOneRead).toBeGreaterThan(0);
    expect(afterOneRead).toBeLessThan(afterOtherWrite - 120);
    // And the lists still answer as before (read afresh).
    expect((await s.api('GET', `/projects/${projectId}/issues?labels=bug&per_page=100`)).body).toHaveLength(15);
  });

  it('keeps a page cache of the budget for the main and temporary databases, after the migrations ran under theirs', () => {
    const db = s.service.context.db;
    expect(db.pragma('main.cache_size', { simple: true })).toBe(-MEMORY_BUDGET.sqlitePageCacheKib);
    expect(db.pragma('temp.cache_size', { simple: true })).toBe(-MEMORY_BUDGET.sqlitePageCacheKib);
  });
});

describe("V8's heap", () => {
  /** A turn of the child scripts below: ~2 MB allocated, a tenth of it kept in `kept` for 8 turns. */
  const ALLOCATION_TURN = `
    const batch = [];
    for (let i = 0; i < 20000; i++) {
      const o = { a: i, b: 'x' + i, c: [i, i + 1] };
      if (i % 10 === 0) batch.push(o);
    }
    kept.push(batch);
    if (kept.length > 8) kept.shift();`;

  /**
   * The largest V8's young and old generations grew (MB) in a fresh node process, with or without
   * the bound: objects allocated a turn of the event loop at a time (~2 MB, as a server's request),
   * a tenth of them kept for a few turns (they reach the old generation, then are garbage there).
   */
  const largestHeap = (bounded: boolean, { cacheMadeAt = -1 } = {}): { young: number; old: number } => {
    const script = `
      const v8 = require('node:v8');
      const { boundHeap, withStartFlags } = require(${JSON.stringify(join(__dirname, '../../src/main/service/memory.ts'))});
      if (${bounded}) boundHeap({ youngGenerationMb: 8, oldGenerationGrowthPercent: 20 });
      const size = (space) => v8.getHeapSpaceStatistics().find((x) => x.space_name === space).space_size / 2 ** 20;
      const live = [];
      for (let i = 0; i < 100000; i++) live.push({ i, s: 'live' + i });
      let young = 0;
      let old = 0;
      const kept = [];
      let turn = 0;
      const step = () => {
        ${ALLOCATION_TURN}
        young = Math.max(young, size('new_space'));
        old = Math.max(old, size('old_space'));
        if (turn === ${cacheMadeAt}) withStartFlags(() => new (require('node:vm').Script)('1').createCachedData());
        if (++turn < 300) setImmediate(step);
        else console.log(JSON.stringify({ young, old }));
      };
      step();`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', cwd: join(__dirname, '../..') });
    if (run.status !== 0) throw new Error(run.stderr);
    return JSON.parse(run.stdout.trim()) as { young: number; old: number };
  };

  it('keeps the young generation at its budget and the old one near what it holds, where V8 alone lets both grow', () => {
    const free = largestHeap(false);
    const bounded = largestHeap(true);
    expect(free.young).toBeGreaterThan(8);
    expect(bounded.young).toBeGreaterThan(2);
    expect(bounded.young).toBeLessThanOrEqual(8);
    expect(bounded.old).toBeLessThan(free.old * 0.7);
  });

  /**
   * boundHeap in a fresh node process, counting its looks at the heap (getHeapSpaceStatistics)
   * and the collections: 300 turns of ~2 MB, then (`shrinkAfter`) V8 is made to report a young
   * generation of 1 MB, as after an idle shrink, and 100 turns more.
   */
  const watchedHeap = (youngRecheckMs: number, shrinkAfter: boolean) => {
    const script = `
      const v8 = require('node:v8');
      const { PerformanceObserver } = require('node:perf_hooks');
      const stats = v8.getHeapSpaceStatistics;
      let looks = 0;
      let small = false;
      v8.getHeapSpaceStatistics = () => {
        looks++;
        const all = stats();
        return small ? all.map((s) => (s.space_name === 'new_space' ? { ...s, space_size: 2 ** 20 } : s)) : all;
      };
      const set = v8.setFlagsFromString;
      const flags = [];
      v8.setFlagsFromString = (f) => { flags.push(f); return set(f); };
      const { boundHeap } = require(${JSON.stringify(join(__dirname, '../../src/main/service/memory.ts'))});
      boundHeap({ youngGenerationMb: 8, oldGenerationGrowthPercent: 20, youngRecheckMs: ${youngRecheckMs} });
      let gcs = 0;
      new PerformanceObserver((list) => { gcs += list.getEntries().length; }).observe({ entryTypes: ['gc'] });
      const kept = [];
      const turns = (n, done) => {
        const step = () => {
          ${ALLOCATION_TURN}
          if (--n > 0) setImmediate(step);
          else setTimeout(done, 100);
        };
        step();
      };
      const out = {};
      turns(200, () => {
        const [looks0, gcs0] = [looks, gcs];
        turns(100, () => {
          Object.assign(out, { looks: looks - looks0, gcs: gcs - gcs0, flags: [...flags] });
          if (!${shrinkAfter}) return console.log(JSON.stringify(out));
          small = true;
          setTimeout(() => {
            small = false;
            const [looks1, gcs1] = [looks, gcs];
            turns(100, () => {
              Object.assign(out, { flagsAfter: flags.slice(out.flags.length), looksAfter: looks - looks1, gcsAfter: gcs - gcs1 });
              console.log(JSON.stringify(out));
            });
          }, 200);
        });
      });`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', cwd: join(__dirname, '../..') });
    if (run.status !== 0) throw new Error(run.stderr);
    return JSON.parse(run.stdout.trim()) as { looks: number; gcs: number; flags: string[]; flagsAfter?: string[]; looksAfter?: number; gcsAfter?: number };
  };

  it('stops watching the collections once the young generation is at its budget (node charges ~50 us an observed collection)', () => {
    const r = watchedHeap(60_000, false);
    expect(r.flags).toContain('--semi-space-growth-factor=1');
    expect(r.gcs).toBeGreaterThan(10);
    expect(r.looks).toBe(0);
  });

  it('lets the young generation grow again after it shrank, and watches its collections again', () => {
    const r = watchedHeap(20, true);
    expect(r.flags.at(-1)).toBe('--semi-space-growth-factor=1');
    expect(r.flagsAfter![0]).toBe('--semi-space-growth-factor=2');
    expect(r.gcsAfter).toBeGreaterThan(10);
    expect(r.looksAfter).toBeGreaterThan(0);
  });

  it('keeps both bounds after a code cache is made under the flags the process started with (withStartFlags)', () => {
    const free = largestHeap(false);
    // Early, while the young generation still grows, as scripts/code-cache.cjs makes its cache.
    const bounded = largestHeap(true, { cacheMadeAt: 3 });
    expect(bounded.young).toBeLessThanOrEqual(8);
    expect(bounded.old).toBeLessThan(free.old * 0.7);
  });
});
