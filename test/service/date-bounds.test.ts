import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * Date filters every record of the scope meets are left out of the list (date-bounds.ts), and one no
 * record meets empties it without a read: the answer (rows, order, X-Total, X-Total-Pages,
 * X-Next-Page, Link) is the one the records say, the same as without the filter or as an empty list.
 * Created 2024-01-01 + i minutes, updated a day later; the small project's records a year earlier.
 */
let s: TestService;
let group: number;
let big: number;
let small: number;
const N = 45;

const createdOf = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
const updatedOf = (i: number): string => new Date(Date.UTC(2024, 0, 2) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  big = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  small = (await s.createProject({ name: 'small', namespace_id: group, visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (const [project, n, shift] of [[big, N, 0], [small, 3, -365 * 86_400_000]] as const) {
      for (let i = 1; i <= n; i++) {
        const at = (iso: string) => new Date(Date.parse(iso) + shift).toISOString();
        const common = {
          iid: i,
          title: `${['Alpha', 'beta', 'Gamma'][i % 3]} ${(i * 7) % 11}`,
          description: null,
          authorId: 1,
          labels: i % 2 ? ['bug'] : [],
          createdAt: at(createdOf(i)),
          updatedAt: at(updatedOf(i)),
          importedFrom: 'none' as const,
        };
        insertImportedIssue(ctx, project, { ...common, state: i % 4 === 0 ? 'closed' : 'opened', confidential: false });
        insertImportedMergeRequest(ctx, project, { ...common, state: i % 4 === 0 ? 'merged' : 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: i % 4 === 0 ? common.updatedAt : null });
      }
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const ids = (res: ApiResult): number[] => (res.body as { id: number }[]).map((x) => x.id);
const page = (path: string, query: Record<string, string>, n: number) => s.get(path, { query: { ...query, per_page: '20', page: String(n) } });

/** Every page of `path` with `bounds` answers as without them (rows and headers), and the statements name none of their columns' bounds. */
async function expectSameAsWithout(path: string, query: Record<string, string>, bounds: Record<string, string>): Promise<number> {
  const total = Number((await page(path, query, 1)).headers.get('x-total'));
  expect(total).toBeGreaterThan(20);
  for (let n = 1; n <= 4; n++) {
    const plain = await page(path, query, n);
    let res!: ApiResult;
    const sql = await preparedBy(s, async () => (res = await page(path, { ...query, ...bounds }, n)));
    expect(ids(res), `${path} ${JSON.stringify(bounds)} page ${n}`).toEqual(ids(plain));
    for (const h of ['x-total', 'x-total-pages', 'x-next-page', 'x-prev-page', 'x-page']) expect(res.headers.get(h), h).toBe(plain.headers.get(h));
    expect(res.headers.get('link')?.replace(/(created|updated)_(after|before)=[^&>]*/g, '').replace(/&+/g, '&').replace(/\?&/g, '?').replace(/&>/g, '>')).toBe(plain.headers.get('link'));
    expect(sql.filter((q) => /x\.(created|updated)_at [<>]= \?/.test(q))).toEqual([]);
  }
  return total;
}

describe('date bounds every record of the scope meets', () => {
  it("are left out of a project's list: every page and header as without them, in each order", async () => {
    const wide = { created_after: '2023-12-31T00:00:00Z', created_before: '2024-02-01T00:00:00Z', updated_after: '2024-01-01T00:00:00Z', updated_before: '2030-01-01T00:00:00Z' };
    for (const kind of ['issues', 'merge_requests']) {
      for (const order of [{}, { order_by: 'title', sort: 'asc' }, { order_by: 'updated_at' }, { order_by: 'popularity' }] as Record<string, string>[]) {
        expect(await expectSameAsWithout(`/projects/${big}/${kind}`, order, wide)).toBe(N);
        expect(await expectSameAsWithout(`/projects/${big}/${kind}`, { ...order, state: 'opened' }, { created_after: wide.created_after })).toBe(N - 11);
      }
    }
  });

  it('are left out at group and instance scope when every record of the instance meets them', async () => {
    // The small project's records are a year older: 2023-06-01 is met by every record of big, not of the instance.
    const older = { created_after: '2022-06-01T00:00:00Z' };
    expect(await expectSameAsWithout(`/groups/${group}/issues`, {}, older)).toBe(N + 3);
    expect(await expectSameAsWithout('/merge_requests', { scope: 'all', order_by: 'title' }, older)).toBe(N + 3);
  });

  it('are kept when one record fails them: exactly on the bound, and after a write', async () => {
    // created_after at record 1's creation exactly: every record meets it (>=), the bound is left out.
    const path = `/projects/${big}/issues`;
    await expectSameAsWithout(path, {}, { created_after: createdOf(1) });
    // A millisecond later: record 1 fails it.
    const later = new Date(Date.parse(createdOf(1)) + 1).toISOString();
    const res = await page(path, { created_after: later, sort: 'asc' }, 1);
    expectCounted(res, N - 1, 20);
    expect(ids(res)[0]).toBe(ids(await page(path, { sort: 'asc' }, 1))[1]);
    // A record updated in the future: updated_before=2030 no longer met by every record.
    const first = ids(await page(path, { sort: 'asc' }, 1))[0];
    s.service.context.db.prepare("UPDATE issues SET updated_at = '2031-01-01T00:00:00.000Z' WHERE id = ?").run(first);
    try {
      const bounded = await page(path, { updated_before: '2030-01-01T00:00:00Z', sort: 'asc' }, 1);
      expectCounted(bounded, N - 1, 20);
      expect(ids(bounded)).not.toContain(first);
    } finally {
      s.service.context.db.prepare('UPDATE issues SET updated_at = ? WHERE id = ?').run(updatedOf(1), first);
    }
  });
});

describe('the probes of a date bound', () => {
  it("seek the project's (project_id, column, id) index, or the table's (column, id), never a scan", async () => {
    for (const [path, index] of [[`/projects/${big}/issues`, 'issues_project_created'], [`/groups/${group}/merge_requests`, 'merge_requests_updated']] as const) {
      const bound: Record<string, string> = path.includes('/projects/') ? { created_after: '2023-12-31T00:00:00Z' } : { updated_before: '2030-01-01T00:00:00Z' };
      const sql = (await preparedBy(s, () => page(path, bound, 1))).filter((q) => q.includes(' AS meets'));
      expect(sql.length, path).toBe(1);
      const args = path.includes('/projects/') ? [big, bound.created_after, big, bound.created_after] : [bound.updated_before, bound.updated_before];
      const plan = queryPlan(s.service.context.db, sql[0], ...(args as unknown[]));
      expect(plan).toContain(`SEARCH ${path.includes('issues') ? 'issues' : 'merge_requests'} USING COVERING INDEX ${index}`);
      expect(plan).not.toMatch(/SCAN (issues|merge_requests)/);
      expect(plan.match(/SEARCH/g)?.length).toBe(2);
    }
  });
});

describe('a date bound no record of the scope meets', () => {
  it('answers the empty list without reading a page', async () => {
    for (const [path, bounds] of [
      [`/projects/${big}/issues`, { created_after: '2030-01-01T00:00:00Z' }],
      [`/projects/${big}/merge_requests`, { updated_before: '2023-12-31T00:00:00Z', order_by: 'title' }],
      [`/projects/${small}/issues`, { created_before: '2022-12-31T00:00:00Z', order_by: 'popularity' }],
      [`/groups/${group}/merge_requests`, { updated_after: '2030-01-01T00:00:00Z', state: 'opened' }],
      ['/issues', { scope: 'all', created_after: '2030-01-01T00:00:00Z' }],
    ] as const) {
      let res!: ApiResult;
      const reads = await pagedReads(s, async () => {
        res = await page(path, bounds, 1);
      });
      expect(reads, path).toEqual([]);
      expect(ids(res), path).toEqual([]);
      expectCounted(res, 0, 20);
    }
  });

  it("is the project's own records': the small project's older records leave the big project's list empty", async () => {
    // Some record of the table (the small project's) is created before 2023-12-31: only the project's own index shows none of big's is.
    let res!: ApiResult;
    const reads = await pagedReads(s, async () => {
      res = await page(`/projects/${big}/issues`, { created_before: '2023-12-31T00:00:00Z' }, 1);
    });
    expect(reads).toEqual([]);
    expectCounted(res, 0, 20);
    expectCounted(await page(`/projects/${small}/issues`, { created_before: '2023-12-31T00:00:00Z' }, 1), 3, 20);
  });
});
