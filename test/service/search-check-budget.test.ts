import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectUncounted, preparedBy, queryPlan } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A common term's deep page whose records lie past the check's first budget (checkedList): the
 * newest records of the list lack the term (merge requests made after an import), so the first
 * 10 records per row wanted hold none of the page. The walk goes on (2 records per match of the
 * scope) instead of reading every match; the rows and headers are the ones the records say. And
 * the count of a list with a date bound, read from the matches in the order that finds it soonest.
 */
let s: TestService;
let group: number;
let project: number;

interface Seed {
  id: number;
  iid: number;
  title: string;
  createdAt: string;
}
const seeds: Seed[] = [];
// The older half holds `alpha` (more than 10,000 matches: past counting); the newer half, more
// records than the first budget of a page past the walk's (10 per row wanted), does not.
const MATCHED = 10_500;
const NEWER = 10_500;
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ name: 'budget', path: 'budget', visibility: 'public' })).id;
  project = (await s.createProject({ name: 'searched', namespace_id: group, visibility: 'public' })).id;
  s.service.context.db.transaction(() => {
    for (let i = 1; i <= MATCHED + NEWER; i++) {
      const title = i <= MATCHED ? `Alpha change ${i}` : `Change ${i}`;
      const mr = insertImportedMergeRequest(s.service.context, project, {
        iid: i,
        title,
        description: null,
        state: 'opened',
        authorId: 1,
        sourceBranch: `feature-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        createdAt: createdAt(i),
        updatedAt: createdAt(i),
        importedFrom: 'none',
      });
      seeds.push({ id: mr.id, iid: i, title, createdAt: createdAt(i) });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const alphaNewestFirst = (): Seed[] => seeds.filter((x) => x.title.toLowerCase().includes('alpha')).sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
const iids = (res: ApiResult): number[] => res.body.map((x: any) => x.iid);

describe("a common term none of the list's newest records holds, past the walk's pages", () => {
  it('project and group pages: the check walks on past its first budget, the same rows and headers, no read of the matches', async () => {
    const want = alphaNewestFirst();
    expect(want.length).toBeGreaterThan(10_000);
    for (const [path, query] of [
      [`/projects/${project}/merge_requests`, { per_page: '20', page: '51' }],
      [`/projects/${project}/merge_requests`, { per_page: '100', page: '11' }],
      [`/projects/${project}/merge_requests`, { per_page: '100', page: '11', order_by: 'updated_at' }],
      [`/groups/${group}/merge_requests`, { per_page: '20', page: '55' }],
    ] as [string, Record<string, string>][]) {
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await s.get(path, { query: { search: 'ALPHA', ...query } });
      });
      const per = Number(query.per_page);
      const n = Number(query.page);
      // The page's rows lie past the first budget (10 records per row wanted): the newer records, then the page's own.
      expect(NEWER + n * per).toBeGreaterThan(10 * n * per);
      expect(iids(res), `${path} ${JSON.stringify(query)}`).toEqual(want.slice((n - 1) * per, n * per).map((x) => x.iid));
      expectUncounted(res, String(n + 1));
      expect(reads.filter((sql) => sql.includes('x.id IN (SELECT s.rowid & 4294967295')), path).toEqual([]);
      // The first budget's walk and the one that goes on from it.
      expect(reads.filter((sql) => sql.includes(') AS m FROM merge_requests x WHERE') && sql.includes('ORDER BY')), path).toHaveLength(2);
    }
  });
});

describe("the grown walk's count of the matches", () => {
  it('is remembered until the write log moves past it by more than it can lose; the same rows', async () => {
    // The matches counted past the plan's own count (COUNT_LIMIT + 1 + 1,000): as far as the grown walk may go.
    const matchCount = (reads: string[]): string[] =>
      reads.filter((sql) => sql.startsWith('SELECT count(*) AS n FROM (SELECT 1 FROM merge_requests_search s WHERE') && Number(/LIMIT (\d+)\)$/.exec(sql)?.[1]) > 11_001);
    const page = async (): Promise<string[]> => {
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await s.get(`/projects/${project}/merge_requests`, { query: { search: 'alpha', per_page: '20', page: '52' } });
      });
      expect(iids(res)).toEqual(alphaNewestFirst().slice(1020, 1040).map((x) => x.iid));
      return matchCount(reads);
    };
    expect(await page()).toHaveLength(1);
    expect(await page()).toEqual([]);
    // A merge request written: the count, less the one it may have lost, still grows the walk as far.
    const newest = seeds[seeds.length - 1];
    expect((await s.put(`/projects/${project}/merge_requests/${newest.iid}`, { title: `${newest.title} again` })).status).toBe(200);
    newest.title = `${newest.title} again`;
    expect(await page()).toEqual([]);
  });
});

describe("a common term's count with a date bound, read from its matches joined to their records", () => {
  it('a lower bound alone reads the matches from the highest key down (the newest records); the same count and rows', async () => {
    const db = s.service.context.db;
    for (const [query, keep, newestFirst] of [
      [{ created_after: createdAt(5_000) }, (x: Seed) => x.createdAt >= createdAt(5_000), true],
      [{ updated_after: createdAt(9_000), state: 'opened' }, (x: Seed) => x.createdAt >= createdAt(9_000), true],
      [{ created_before: createdAt(3_000) }, (x: Seed) => x.createdAt <= createdAt(3_000), false],
      [{ created_after: createdAt(2_000), created_before: createdAt(7_000) }, (x: Seed) => x.createdAt >= createdAt(2_000) && x.createdAt <= createdAt(7_000), false],
    ] as [Record<string, string>, (x: Seed) => boolean, boolean][]) {
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await s.get(`/projects/${project}/merge_requests`, { query: { search: 'alpha', per_page: '20', page: '2', ...query } });
      });
      const want = alphaNewestFirst().filter(keep);
      const where = JSON.stringify(query);
      expect(want.length, where).toBeGreaterThan(200);
      expect(res.headers.get('x-total'), where).toBe(String(want.length));
      expect(iids(res), where).toEqual(want.slice(20, 40).map((x) => x.iid));
      const count = reads.find((sql) => sql.startsWith('SELECT count(*)') && sql.includes('FROM merge_requests_search s CROSS JOIN merge_requests x'));
      expect(count, where).toBeDefined();
      expect(count!.includes('ORDER BY s.rowid DESC'), where).toBe(newestFirst);
      // The index hands its matches over in that order: nothing sorted.
      const plan = queryPlan(db, count!, ...Array.from(count!.matchAll(/\?/g), (_, k) => (k === 0 ? '"alpha"' : k < 3 ? project : createdAt(5_000))));
      expect(plan, where).not.toContain('TEMP B-TREE');
    }
  });
});

describe("a search walk in created_at order with updated_before: the bound on created_at it implies", () => {
  it('walks from the bound while no record was updated before it was created; without it once one was; the same rows', async () => {
    const db = s.service.context.db;
    const bound = createdAt(8_000);
    // Each record's updated_at as the seeds (and the one write below) say.
    const updated = new Map(seeds.map((x) => [x.id, x.createdAt]));
    const pages = async (expectBound: boolean): Promise<void> => {
      const want = alphaNewestFirst().filter((x) => updated.get(x.id)! <= bound);
      // Page 3 may come from the walk page 1 left (remembered: searchWalkKept): the reads of the three pages together.
      const reads: string[] = [];
      for (const [per, n] of [[20, 1], [20, 3], [20, 60]]) {
        let res!: ApiResult;
        reads.push(
          ...(await preparedBy(s, async () => {
            res = await s.get(`/projects/${project}/merge_requests`, { query: { search: 'alpha', updated_before: bound, per_page: String(per), page: String(n) } });
          })),
        );
        const where = `${per}x${n} ${expectBound}`;
        expect(iids(res), where).toEqual(want.slice((n - 1) * per, n * per).map((x) => x.iid));
      }
      // The walk's windows (a page within the first 1,000 rows) or the checked records (deeper).
      const walked = reads.filter((sql) => sql.includes('FROM merge_requests x WHERE') && sql.includes('ORDER BY x.created_at desc') && !sql.includes('MATCH ? AND s.rowid BETWEEN'));
      expect(walked.length, String(expectBound)).toBeGreaterThan(0);
      expect(walked.every((sql) => sql.includes('x.created_at <= ?')), String(expectBound)).toBe(expectBound);
      expect(walked.some((sql) => sql.includes('x.created_at <= ?')), String(expectBound)).toBe(expectBound);
    };
    await pages(true);
    // A record updated before it was created (an import's dates, say), created after the bound: in the list, first.
    const early = seeds.find((x) => x.iid === 9_500)!;
    db.prepare('UPDATE merge_requests SET updated_at = ? WHERE id = ?').run('2020-01-01T00:00:00.000Z', early.id);
    updated.set(early.id, '2020-01-01T00:00:00.000Z');
    await pages(false);
    db.prepare('UPDATE merge_requests SET updated_at = created_at WHERE id = ?').run(early.id);
    updated.set(early.id, early.createdAt);
    await pages(true);
    // Oldest update first with created_after: the bound on updated_at it implies.
    const after = createdAt(3_000);
    const oldestFirst = alphaNewestFirst().filter((x) => x.createdAt >= after).reverse();
    for (const n of [1, 60]) {
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await s.get(`/projects/${project}/merge_requests`, { query: { search: 'alpha', created_after: after, order_by: 'updated_at', sort: 'asc', per_page: '20', page: String(n) } });
      });
      expect(iids(res)).toEqual(oldestFirst.slice((n - 1) * 20, n * 20).map((x) => x.iid));
      expect(reads.some((sql) => sql.includes('ORDER BY x.updated_at asc') && sql.includes('x.updated_at >= ?'))).toBe(true);
    }
  });
});

describe("a common term with a label on more records than the term's counted matches", () => {
  it("counts from the label's records, each checked, once the matches counted on show them the fewer reads; the same total and rows", async () => {
    const db = s.service.context.db;
    const labelled = (await s.createProject({ name: 'labelled', visibility: 'public' })).id;
    const rows: { iid: number; alpha: boolean; bug: boolean; at: string }[] = [];
    db.transaction(() => {
      // 11,000 hold the term (past COUNT_LIMIT), 4,000 do not; `bug` on 9,000 of the first and all of the rest: 13,000 records.
      for (let i = 1; i <= 15_000; i++) {
        const alpha = i <= 11_000;
        const bug = alpha ? i % 11 !== 0 && i <= 9_900 : true;
        const at = createdAt(i);
        insertImportedMergeRequest(s.service.context, labelled, {
          iid: i,
          title: alpha ? `Alpha ${i}` : `Beta ${i}`,
          description: null,
          state: 'opened',
          authorId: 1,
          labels: bug ? ['bug'] : [],
          sourceBranch: `b-${i}`,
          targetBranch: 'main',
          baseSha: '0'.repeat(40),
          headSha: '1'.repeat(40),
          createdAt: at,
          updatedAt: at,
          importedFrom: 'none',
        });
        rows.push({ iid: i, alpha, bug, at });
      }
    })();
    const want = rows.filter((r) => r.alpha && r.bug).sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : b.iid - a.iid));
    expect(want.length).toBeLessThan(10_000);
    // Deep pages: the label's records, counted as far as the page needs, outnumber the matches counted (idSetLists, searchAfterSets).
    for (const page of [90, 100]) {
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await s.get(`/projects/${labelled}/merge_requests`, { query: { search: 'alpha', labels: 'bug', per_page: '100', page: String(page) } });
      });
      expect(res.headers.get('x-total')).toBe(String(want.length));
      expect(iids(res)).toEqual(want.slice((page - 1) * 100, page * 100).map((r) => r.iid));
      const counts = reads.filter((sql) => sql.startsWith('SELECT count(*)') && sql.includes('CROSS JOIN merge_requests x'));
      // Counted on the first of them; the next finds that count kept at the records' version (count-versions.ts countAtLeast, keepExact).
      expect(counts.some((sql) => sql.includes('FROM issuable_labels il'))).toBe(page === 90);
      expect(counts.filter((sql) => sql.includes('FROM merge_requests_search s CROSS JOIN merge_requests x'))).toEqual([]);
    }
  });
});
