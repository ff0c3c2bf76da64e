import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { pagedReads, statementReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A page past COUNT_LIMIT of a project's list in a state its records are few in (SqlList.countToPage,
 * count-versions.ts issuableCountToPage): the list is counted to the page's end first, so a page past
 * its end reads nothing and its last page reads only its rows. Every page and header is the records'.
 */
let s: TestService;
let project: number;

interface Seed {
  id: number;
  state: 'opened' | 'closed';
  labels: string[];
  due: string | null;
}
const issues: Seed[] = [];
const N = 10_800;
const COUNT_LIMIT = 10_000;
// 10,530 closed, 270 opened; all labelled but one in sixty; one in seven dated (days repeat: ties broken by id).
const stateOf = (i: number): 'opened' | 'closed' => (i % 40 === 0 ? 'opened' : 'closed');
const labelsOf = (i: number): string[] => (i % 60 === 0 ? [] : ['bug']);
const dueOf = (i: number): string | null => (i % 7 === 0 ? new Date(Date.UTC(2025, 0, 1) + (i % 40) * 86_400_000).toISOString().slice(0, 10) : null);

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'deep-count', visibility: 'public' })).id;
  s.service.context.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      const seed = { state: stateOf(i), labels: labelsOf(i), due: dueOf(i) };
      const row = insertImportedIssue(s.service.context, project, {
        iid: i, title: `Item ${i}`, description: null, authorId: 1, createdAt: at, updatedAt: at, importedFrom: 'none', state: seed.state, labels: seed.labels, confidential: false, dueDate: seed.due,
      });
      issues.push({ id: row.id, ...seed });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const ids = (res: ApiResult): number[] => res.body.map((x: { id: number }) => x.id);

/** The list by due date (NULL the lowest, as SQLite sorts it), then id, in `sort`'s direction. */
function byDue(list: Seed[], sort: 'asc' | 'desc'): number[] {
  const up = [...list].sort((a, b) => (a.due === b.due ? a.id - b.id : a.due === null ? -1 : b.due === null ? 1 : a.due < b.due ? -1 : 1));
  return (sort === 'asc' ? up : up.reverse()).map((x) => x.id);
}

/** A page's ids and headers as the paginator answers them: counted up to COUNT_LIMIT, "more than" past it. */
function expectPage(res: ApiResult, want: number[], page: number, perPage: number, what: string): void {
  const offset = (page - 1) * perPage;
  const fetched = want.slice(offset, offset + perPage + 1);
  const hasNext = fetched.length > perPage;
  expect(res.status, what).toBe(200);
  expect(ids(res), what).toEqual(fetched.slice(0, perPage));
  // GitLab counts the list up to 10,001 whatever the page (total_count_with_limit).
  const total = Math.min(want.length, COUNT_LIMIT + 1);
  expect(res.headers.get('x-page'), what).toBe(String(page));
  if (total <= COUNT_LIMIT) {
    const pages = Math.max(1, Math.ceil(total / perPage));
    expect(res.headers.get('x-total'), what).toBe(String(total));
    expect(res.headers.get('x-total-pages'), what).toBe(String(pages));
    expect(res.headers.get('x-next-page'), what).toBe(page < pages ? String(page + 1) : '');
  } else {
    expect(res.headers.has('x-total'), what).toBe(false);
    expect(res.headers.has('x-total-pages'), what).toBe(false);
    expect(res.headers.get('link'), what).not.toContain('rel="last"');
    expect(res.headers.get('x-next-page'), what).toBe(hasNext ? String(page + 1) : '');
  }
  // A page past the end is out of range (Kaminari): no previous page.
  expect(res.headers.get('x-prev-page'), what).toBe(page > 1 && (res.body as unknown[]).length > 0 ? String(page - 1) : '');
}

describe("a project's deep page in a state its records are few in", () => {
  const lists: [string, Record<string, string>, (x: Seed) => boolean][] = [
    ['closed labels=Any', { state: 'closed', labels: 'Any' }, (x) => x.state === 'closed' && x.labels.length > 0],
    ['closed labels=None', { state: 'closed', labels: 'None' }, (x) => x.state === 'closed' && x.labels.length === 0],
  ];

  it('answers every page past COUNT_LIMIT as the records say, by due date both ways', async () => {
    expect(issues.filter((x) => x.state === 'closed').length).toBeGreaterThan(COUNT_LIMIT);
    for (const [name, filter, keep] of lists) {
      for (const sort of ['desc', 'asc'] as const) {
        const want = byDue(issues.filter(keep), sort);
        const pages: [number, number][] = [[100, 2], [100, 100], [100, 101], [100, 103], [100, 104], [100, 105], [100, 106], [100, 110], [20, 500], [20, 501], [20, 521], [20, 522], [20, 523], [20, 600]];
        for (const [perPage, page] of pages) {
          const res = await s.get(`/projects/${project}/issues`, { query: { ...filter, order_by: 'due_date', sort, per_page: String(perPage), page: String(page) } });
          expectPage(res, want, page, perPage, `${name} ${sort} ${perPage}/${page}`);
        }
      }
    }
  });

  it('reads no page past the end: the count to the page says the list ends before it, and the last page reads its rows alone', async () => {
    const query = (page: number, perPage = 100) => ({ query: { state: 'closed', labels: 'Any', order_by: 'due_date', per_page: String(perPage), page: String(page) } });
    expect((await s.put(`/projects/${project}`, { description: 'elsewhere' })).status).toBe(200);
    const counts = await statementReads(s, (sql) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM issues x WHERE/.test(sql), async () => {
      const reads = await pagedReads(s, async () => void (await s.get(`/projects/${project}/issues`, query(120))));
      expect(reads).toEqual([]);
    }, 'get');
    expect(counts.length).toBe(1);
    // The last page of closed labels=Any (10,440: page 150 of 70 holds 10) reads those 10 and no row past them (rows the
    // first test did not ask: the pages it read are still remembered at the records' version).
    const want = byDue(issues.filter((x) => x.state === 'closed' && x.labels.length > 0), 'desc');
    expect(want.length).toBe(10_440);
    const last = await pagedReads(s, async () => void (await s.get(`/projects/${project}/issues`, query(150, 70))));
    expect(last.map((r) => r.sql.match(/LIMIT (\d+) OFFSET/)?.[1])).toEqual(['10']);
  });

  it('holds what the records say after they are written: closed issues reopened and labelled in SQL', async () => {
    const db = s.service.context.db;
    for (const x of issues.filter((y) => y.state === 'closed').slice(0, 120)) {
      x.state = 'opened';
      db.prepare('UPDATE issues SET state = ? WHERE id = ?').run('opened', x.id);
    }
    for (const x of issues.filter((y) => y.state === 'closed' && !y.labels.length).slice(0, 100)) {
      x.labels = ['bug'];
      db.prepare('UPDATE issues SET labels = ? WHERE id = ?').run('["bug"]', x.id);
    }
    for (const [name, filter, keep] of lists) {
      const want = byDue(issues.filter(keep), 'desc');
      for (const [perPage, page] of [[100, 99], [100, 100], [100, 103], [100, 104], [20, 500], [20, 501], [20, 513], [20, 514], [100, 120]] as [number, number][]) {
        const res = await s.get(`/projects/${project}/issues`, { query: { ...filter, order_by: 'due_date', sort: 'desc', per_page: String(perPage), page: String(page) } });
        expectPage(res, want, page, perPage, `${name} after writes ${perPage}/${page}`);
      }
    }
  });
});

describe("a project's deep page in a state whose created_at index the walk reads in order", () => {
  /** The list by created_at (unique here), then id, in `sort`'s direction. */
  const byCreated = (list: Seed[], sort: 'asc' | 'desc'): number[] => {
    const up = list.map((x) => x.id).sort((a, b) => a - b);
    return sort === 'asc' ? up : up.reverse();
  };
  const after = '2024-01-01T00:30:00.000Z';
  // Issue i was created i minutes into 2024 (ids in the same order).
  const createdFrom = (x: Seed): boolean => issues.indexOf(x) + 1 >= 30;
  const lists: [string, Record<string, string>, (x: Seed) => boolean][] = [
    ['closed', { state: 'closed' }, (x) => x.state === 'closed'],
    ['closed created_after', { state: 'closed', created_after: after }, (x) => x.state === 'closed' && createdFrom(x)],
    ['closed labels=Any', { state: 'closed', labels: 'Any' }, (x) => x.state === 'closed' && x.labels.length > 0],
  ];
  const pages: [number, number][] = [[100, 2], [100, 100], [100, 101], [100, 103], [100, 104], [100, 105], [100, 106], [100, 110], [20, 500], [20, 501], [20, 514], [20, 515], [20, 520], [20, 525], [20, 526], [20, 527], [20, 600]];

  const expectLists = async (when: string): Promise<void> => {
    for (const [name, filter, keep] of lists) {
      for (const sort of ['desc', 'asc'] as const) {
        const want = byCreated(issues.filter(keep), sort);
        for (const [perPage, page] of pages) {
          const res = await s.get(`/projects/${project}/issues`, { query: { ...filter, order_by: 'created_at', sort, per_page: String(perPage), page: String(page) } });
          expectPage(res, want, page, perPage, `${name} ${sort} ${perPage}/${page} ${when}`);
        }
      }
    }
  };

  it('reads the page without counting the list to it first: the walk reads what that count would', async () => {
    // created_after: no counter holds the list's length (a closed list alone is read from its end);
    // the walk and the count read the state's (project_id, state, created_at, id) index.
    // labels=Any&issue_type=issue (a list no earlier test counted): the count reads the state's (project_id, state, id)
    // index, the walk its created_at one.
    const filters: Record<string, string>[] = [{ state: 'closed', created_after: after }, { state: 'closed', labels: 'Any', issue_type: 'issue' }];
    for (const filter of filters) {
      const query = { query: { ...filter, order_by: 'created_at', sort: 'asc', per_page: '100', page: '104' } };
      const counts = await statementReads(s, (sql) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM issues x WHERE/.test(sql), async () => {
        const reads = await pagedReads(s, async () => void (await s.get(`/projects/${project}/issues`, query)));
        // One read of the page (with the row before it, to anchor it, where the list keeps anchors).
        expect(reads.length, JSON.stringify(filter)).toBe(1);
        expect(reads[0].args.at(-1), JSON.stringify(filter)).toBeGreaterThanOrEqual(10_299);
      }, 'get');
      expect(counts, JSON.stringify(filter)).toEqual([]);
    }
  });

  it('answers every page past COUNT_LIMIT as the records say, both ways, before and after writes', async () => {
    await expectLists('before writes');
    // Through the API: an issue closed, one reopened, a new one closed.
    const reopened = issues.find((x) => x.state === 'closed')!;
    const closed = issues.find((x) => x.state === 'opened')!;
    for (const [x, event] of [[reopened, 'reopen'], [closed, 'close']] as const) {
      const iid = issues.indexOf(x) + 1;
      expect((await s.put(`/projects/${project}/issues/${iid}`, { state_event: event })).status).toBe(200);
      x.state = event === 'close' ? 'closed' : 'opened';
    }
    const created = await s.post(`/projects/${project}/issues`, { title: 'Item new', created_at: '2024-06-01T00:00:00Z' });
    expect(created.status).toBe(201);
    expect((await s.put(`/projects/${project}/issues/${created.body.iid}`, { state_event: 'close' })).status).toBe(200);
    issues.push({ id: created.body.id, state: 'closed', labels: [], due: null });
    await expectLists('after writes');
  });
});
