import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, pagedReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { SCOPE_ARMS_LIMITS } from '../../src/main/service/areas/core/order-scope-arms';

/**
 * A page past the first whose list is counted by SQL (no counter holds it) is counted before it is
 * read (paginateSql): a page at or past the list's end reads no rows, a short one reads only the
 * rows left (a walk in the order's index stops at the list's last row). The answer is the one the
 * records say either way: rows, order, X-Total, X-Total-Pages, X-Next-Page and Link.
 */
let s: TestService;
let project: number;
let group: number;
const N = 90;

// Merged: every 3rd (30); of them, the milestone on every 2nd (15 without); `rare` on 5 opened ones, `common` on 60 (none merged).
const stateOf = (i: number): string => (i % 3 === 0 ? 'merged' : 'opened');
const titleOf = (i: number): string => `${['Alpha', 'beta', 'Gamma'][i % 3]} ${(i * 7) % 13}`;

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'counted', namespace_id: group, visibility: 'public' })).id;
  const v1 = (await s.post(`/projects/${project}/milestones`, { title: 'v1' })).body.id as number;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const common = {
        iid: i,
        title: titleOf(i),
        description: null,
        authorId: 1,
        labels: [...(i % 18 === 1 ? ['rare'] : []), ...(i % 3 ? ['common'] : [])],
        milestoneId: i % 6 === 0 ? v1 : null,
        createdAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
        updatedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
        importedFrom: 'none' as const,
      };
      insertImportedMergeRequest(ctx, project, {
        ...common,
        state: stateOf(i) as 'opened',
        sourceBranch: `f-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        mergedAt: stateOf(i) === 'merged' ? common.updatedAt : null,
      });
      insertImportedIssue(ctx, project, { ...common, state: i % 3 === 0 ? 'closed' : 'opened', confidential: false });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const ids = (res: ApiResult): number[] => (res.body as { id: number }[]).map((x) => x.id);

/** The records of `table` meeting `keep`, by title descending (ties by id descending), as GitLab orders order_by=title. */
function byTitle(table: string, keep: (r: { state: string; milestone_id: number | null; labels: string }) => boolean): number[] {
  const rows = s.service.context.db.prepare(`SELECT id, title, state, milestone_id, labels FROM ${table} WHERE project_id = ?`).all(project) as {
    id: number;
    title: string;
    state: string;
    milestone_id: number | null;
    labels: string;
  }[];
  return rows.filter(keep).sort((a, b) => (a.title < b.title ? 1 : a.title > b.title ? -1 : b.id - a.id)).map((r) => r.id);
}

describe('a page past the first of a list counted by SQL', () => {
  it('at or past the end: no rows read, the headers a read gives', async () => {
    const want = byTitle('merge_requests', (r) => r.state === 'merged' && r.milestone_id === null);
    expect(want.length).toBe(15);
    for (const page of [2, 3, 7]) {
      let res!: ApiResult;
      const reads = await pagedReads(s, async () => {
        res = await s.get(`/projects/${project}/merge_requests`, { query: { state: 'merged', milestone: 'None', order_by: 'title', per_page: '20', page: String(page) } });
      });
      expect(reads).toEqual([]);
      expect(ids(res)).toEqual([]);
      expectCounted(res, 15, 20);
      expect(res.headers.get('x-next-page')).toBe('');
      // Out of range (Kaminari): no previous page either.
      expect(res.headers.get('x-prev-page')).toBe('');
    }
  });

  it('a short page reads the rows left, a full one one more: the slice the records say', async () => {
    const want = byTitle('merge_requests', (r) => r.state === 'merged' && r.milestone_id === null);
    for (const [perPage, page, limit] of [[6, 3, 3], [6, 2, 7], [10, 2, 5], [7, 3, 1]] as const) {
      let res!: ApiResult;
      const reads = await pagedReads(s, async () => {
        res = await s.get(`/projects/${project}/merge_requests`, { query: { state: 'merged', milestone: 'None', order_by: 'title', per_page: String(perPage), page: String(page) } });
      });
      expect(reads.map((r) => /LIMIT (\d+) OFFSET \?$/.exec(r.sql)?.[1])).toEqual([String(limit)]);
      expect(ids(res)).toEqual(want.slice((page - 1) * perPage, page * perPage));
      expectCounted(res, 15, perPage);
      expect(res.headers.get('x-next-page')).toBe(page * perPage < 15 ? String(page + 1) : '');
    }
  });

  it('issues by a label and a state, every page and one past the end', async () => {
    const want = byTitle('issues', (r) => r.state === 'opened' && JSON.parse(r.labels).includes('rare'));
    expect(want.length).toBe(5);
    for (let page = 1; page <= 4; page++) {
      const res = await s.get(`/projects/${project}/issues`, { query: { state: 'opened', labels: 'rare', 'not[labels]': 'other', order_by: 'title', per_page: '2', page: String(page) } });
      expect(ids(res), `page ${page}`).toEqual(want.slice((page - 1) * 2, page * 2));
      expectCounted(res, 5, 2);
    }
  });
});

/**
 * A scope of many projects (a group, the instance) ordered by a column no index of it holds (title,
 * merged_at): SQLite sorts every record of the scope, so a label's set is read and sorted instead
 * (idSetLists), or, when its projects are few and walking their order's index reads fewer, the
 * projects' indexes are walked (order-scope-arms.ts). The same rows, order and headers.
 */
describe('a label over many projects, by title or merge date', () => {
  it('reads the label\'s records and sorts them; every page as the records say', async () => {
    const rows = s.service.context.db.prepare('SELECT id, title, merged_at, labels FROM merge_requests WHERE project_id = ?').all(project) as {
      id: number;
      title: string;
      merged_at: string | null;
      labels: string;
    }[];
    const common = rows.filter((r) => JSON.parse(r.labels).includes('common'));
    // Opened or closed (none merged): 60 of the 90, past the bound a walk is chosen by (sqrt(21 x 90) = 43).
    expect(common.length).toBe(60);
    const key = (column: 'title' | 'merged_at', r: (typeof rows)[number]): string => r[column] ?? '';
    for (const [order, sort] of [['title', 'asc'], ['title', 'desc'], ['merged_at', 'desc']] as const) {
      const dir = sort === 'asc' ? 1 : -1;
      const want = [...common].sort((a, b) => dir * (key(order, a) < key(order, b) ? -1 : key(order, a) > key(order, b) ? 1 : a.id - b.id)).map((r) => r.id);
      for (const [path, scope] of [[`/groups/${group}/merge_requests`, {}], ['/merge_requests', { scope: 'all' }]] as const) {
        const query = { labels: 'common', order_by: order, sort, ...scope };
        // Walking the project's order index asks about 90 / 60 entries a row: fewer than the set's 60 read (order-scope-arms.ts labelArms).
        const reads = await pagedReads(s, async () => void (await s.get(path, { query })));
        expect(reads.map((r) => r.sql).join('\n'), `${path} ${order}`).toContain(`INDEXED BY merge_requests_project_${order === 'title' ? 'title' : 'merged'}`);
        // A walk that would read more: the set read and sorted.
        SCOPE_ARMS_LIMITS.walkPerRead = 0.01;
        // At another page length (the page asked again whole is kept at its version: scope-page-rows).
        const sorted = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '10' } })));
        SCOPE_ARMS_LIMITS.walkPerRead = 2;
        expect(sorted.map((r) => r.sql).join('\n'), `${path} ${order}`).toContain('CROSS JOIN');
        // Opened: the 60 opened merge requests are no more than the label's 60, so the state's are read and sorted (the walk).
        const opened = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, state: 'opened' } })));
        expect(opened.map((r) => r.sql).join('\n'), `${path} ${order} opened`).not.toContain('CROSS JOIN');
        for (const walkPerRead of [2, 0.01]) for (let page = 1; page <= 4; page++) {
          SCOPE_ARMS_LIMITS.walkPerRead = walkPerRead;
          const both = await s.get(path, { query: { ...query, state: 'opened', per_page: '25', page: String(page) } });
          expect(ids(both), `${path} ${order} ${sort} opened page ${page}`).toEqual(want.slice((page - 1) * 25, page * 25));
          const res = await s.get(path, { query: { ...query, per_page: '25', page: String(page) } });
          expect(ids(res), `${path} ${order} ${sort} page ${page}`).toEqual(want.slice((page - 1) * 25, page * 25));
          expectCounted(res, 60, 25);
          expect(res.headers.get('x-next-page')).toBe(page < 3 ? String(page + 1) : '');
          SCOPE_ARMS_LIMITS.walkPerRead = 2;
        }
      }
    }
  });
});
