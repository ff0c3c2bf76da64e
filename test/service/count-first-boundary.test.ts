import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, expectUncounted, pagedReads, statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A page that ends exactly at COUNT_LIMIT (page 500 of 20, 100 of 100) is counted first like the
 * pages before it (paginateSql): a list shorter than its offset answers without reading its rows
 * (project MRs bug,label-1&milestone=None&updated_before page 500 walked a million records to find
 * none). A list of 10,000 rows or more answers that page as reading it first did: counted at exactly
 * 10,000, uncounted past it. Every answer against the records: rows, order, X-Total, X-Total-Pages,
 * X-Next-Page, X-Prev-Page and Link.
 */
let s: TestService;
let small: number;
let long: number;
const N = 60;
const LONG = 10_001;

const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
const titleOf = (i: number): string => `${['Alpha', 'beta', 'Gamma'][i % 3]} ${(i * 7) % 13}`;

beforeAll(async () => {
  s = await TestService.start();
  const group = (await s.createGroup({ visibility: 'public' })).id;
  small = (await s.createProject({ name: 'small', namespace_id: group, visibility: 'public' })).id;
  long = (await s.createProject({ name: 'long', namespace_id: group, visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const labels = [...(i % 2 === 0 ? ['bug'] : []), ...(i % 5 === 0 ? ['rare'] : [])];
      const common = { iid: i, title: titleOf(i), description: null, authorId: 1, labels, milestoneId: null, createdAt: at(i), updatedAt: at(i), importedFrom: 'none' };
      insertImportedMergeRequest(ctx, small, {
        ...common,
        state: i % 3 === 0 ? 'merged' : 'opened',
        sourceBranch: `f-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        mergedAt: i % 3 === 0 ? at(i) : null,
      });
      insertImportedIssue(ctx, small, { ...common, state: i % 3 === 0 ? 'closed' : 'opened', confidential: false });
    }
    // 10,001 issues, one closed: state=opened holds exactly COUNT_LIMIT, state=all one more; all carry bug and rare.
    for (let i = 1; i <= LONG; i++) {
      insertImportedIssue(ctx, long, {
        iid: i,
        title: `issue ${i % 97}`,
        description: null,
        authorId: 1,
        state: i === 77 ? 'closed' : 'opened',
        // A label pair of 10,001 (past COUNT_LIMIT) counted from its counters.
        labels: ['bug', 'rare'],
        confidential: false,
        createdAt: at(i),
        updatedAt: at(i),
        importedFrom: 'none',
      });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const ids = (res: ApiResult): number[] => (res.body as { id: number }[]).map((x) => x.id);

interface Rec {
  id: number;
  title: string;
  state: string;
  labels: string;
  updated_at: string;
}
const records = (table: string, project: number): Rec[] =>
  s.service.context.db.prepare(`SELECT id, title, state, labels, updated_at FROM ${table} WHERE project_id = ?`).all(project) as Rec[];
const hasLabels = (r: Rec, titles: string[]): boolean => titles.every((t) => (JSON.parse(r.labels) as string[]).includes(t));

/** Pages at and around COUNT_LIMIT's boundary for a list of `want` (its whole order), checked against it. */
async function boundaryPages(path: string, query: Record<string, string>, want: number[]): Promise<void> {
  for (const [perPage, page] of [[20, 499], [20, 500], [20, 501], [100, 99], [100, 100], [50, 200]] as const) {
    const res = await s.get(path, { query: { ...query, per_page: String(perPage), page: String(page) } });
    const label = `${path} ${JSON.stringify(query)} ${perPage} x ${page}`;
    expect(ids(res), label).toEqual(want.slice((page - 1) * perPage, page * perPage));
    // A page past the end is out of range (Kaminari): no previous page.
    expect(res.headers.get('x-prev-page'), label).toBe(want.length > (page - 1) * perPage ? String(page - 1) : '');
    const next = want.length > page * perPage ? String(page + 1) : '';
    if (want.length > 10_000) expectUncounted(res, next);
    else {
      expectCounted(res, want.length, perPage);
      expect(res.headers.get('x-next-page'), label).toBe(next);
      expect(res.headers.get('link'), label).toMatch(new RegExp(`[?&]page=${Math.max(1, Math.ceil(want.length / perPage))}&per_page=${perPage}[^>]*>; rel="last"`));
    }
  }
}

describe('a page ending at COUNT_LIMIT', () => {
  it('of a short list: counted first, its rows not read', async () => {
    const lists: [string, Record<string, string>][] = [
      [`/projects/${small}/merge_requests`, { labels: 'bug,rare', milestone: 'None', order_by: 'updated_at', sort: 'asc', updated_before: '2024-06-01T00:00:00Z' }],
      [`/projects/${small}/issues`, { state: 'opened', labels: 'rare', 'not[labels]': 'other', order_by: 'title' }],
    ];
    for (const [path, query] of lists) {
      for (const [perPage, page] of [[20, 500], [100, 100], [50, 200]] as const) {
        const reads = await pagedReads(s, async () => {
          const res = await s.get(path, { query: { ...query, per_page: String(perPage), page: String(page) } });
          expect(ids(res)).toEqual([]);
        });
        expect(reads, `${path} ${perPage} x ${page}`).toEqual([]);
      }
    }
  });

  it('every answer at the boundary as the records say', async () => {
    const mrs = records('merge_requests', small);
    const pair = mrs.filter((r) => hasLabels(r, ['bug', 'rare'])).sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : a.id - b.id));
    expect(pair.length).toBe(6);
    await boundaryPages(`/projects/${small}/merge_requests`, { labels: 'bug,rare', milestone: 'None', order_by: 'updated_at', sort: 'asc', updated_before: '2024-06-01T00:00:00Z' }, pair.map((r) => r.id));
    const issues = records('issues', small);
    const rare = issues
      .filter((r) => r.state === 'opened' && hasLabels(r, ['rare']))
      .sort((a, b) => (a.title < b.title ? 1 : a.title > b.title ? -1 : b.id - a.id));
    await boundaryPages(`/projects/${small}/issues`, { state: 'opened', labels: 'rare', 'not[labels]': 'other', order_by: 'title' }, rare.map((r) => r.id));

    // 10,000 and 10,001 rows, newest first: the page ending at the boundary is full.
    const all = records('issues', long).sort((a, b) => b.id - a.id);
    await boundaryPages(`/projects/${long}/issues`, { state: 'opened', search: 'issue' }, all.filter((r) => r.state === 'opened').map((r) => r.id));
    await boundaryPages(`/projects/${long}/issues`, { state: 'all', search: 'issue' }, all.map((r) => r.id));
  }, 60_000);

  it('past COUNT_LIMIT, a label pair counted from its counters (10,001 issues): a page past its end reads no row, answers as page 1 does', async () => {
    const group = (s.service.context.db.prepare('SELECT namespace_id AS g FROM projects WHERE id = ?').get(small) as { g: number }).g;
    for (const [path, extra] of [
      [`/projects/${small}/merge_requests`, {}],
      [`/groups/${group}/merge_requests`, {}],
      ['/merge_requests', { scope: 'all' }],
      [`/projects/${small}/issues`, {}],
      [`/projects/${long}/issues`, {}],
      ['/issues', { scope: 'all' }],
    ] as [string, Record<string, string>][]) {
      for (const state of [{}, { state: 'opened' }] as Record<string, string>[]) {
        for (const [perPage, page] of [[100, 102], [100, 500], [20, 2500]] as const) {
          let res!: ApiResult;
          // Any read of rows by an offset (the pair's page reads by LIMIT and a bound OFFSET, or a literal one).
          const reads = await statementReads(s, (sql) => /\bOFFSET\b/.test(sql), async () => {
            res = await s.get(path, { query: { ...extra, ...state, labels: 'bug,rare', order_by: 'title', per_page: String(perPage), page: String(page) } });
          });
          const what = `${path} ${JSON.stringify(state)} ${perPage} x ${page}`;
          expect(reads, what).toEqual([]);
          expect(ids(res), what).toEqual([]);
          // GitLab counts the list (up to 10,001) whatever the page: the totals page 1 shows.
          const first = await s.get(path, { query: { ...extra, ...state, labels: 'bug,rare', order_by: 'title', per_page: String(perPage) } });
          for (const header of ['x-total', 'x-total-pages']) expect(res.headers.get(header), `${what} ${header}`).toBe(first.headers.get(header));
          expect(res.headers.get('link')?.includes('rel="last"'), what).toBe(first.headers.get('link')?.includes('rel="last"'));
          expect(res.headers.get('x-next-page'), what).toBe('');
          // The long project's 10,001 records: its opened ones (exactly COUNT_LIMIT) counted, all of them not.
          if (path === `/projects/${long}/issues`) expect(res.headers.get('x-total'), what).toBe(state.state === 'opened' ? '10000' : null);
          // An empty page is out of range (Kaminari): no previous page.
          expect(res.headers.get('x-prev-page'), what).toBe('');
        }
      }
    }
    // Read, the same answer (the pair's counters left out by a third title the records never carry as not[]).
    const query = { scope: 'all', labels: 'bug,rare', 'not[labels]': 'zzz', per_page: '100' };
    const read = await s.get('/merge_requests', { query: { ...query, page: '102' } });
    expect(ids(read)).toEqual([]);
    const first = await s.get('/merge_requests', { query });
    expect(read.headers.get('x-total')).toBe(first.headers.get('x-total'));
    expect(read.headers.get('x-total-pages')).toBe(first.headers.get('x-total-pages'));
  });
});
