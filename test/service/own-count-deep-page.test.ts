import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, statementReads } from '../helpers/lists';

/**
 * A list with no count of its own (paginateSql counts its statement), on a page ending in the last
 * tenth before COUNT_LIMIT, reads its ids in order once (fewRowsByIds): the count is their number
 * and the page a slice, where the count walked the list and the page walked it again. Every page
 * and header as the records say, the deep ones past the list's end too, after writes.
 */
let s: TestService;
let project: number;

beforeAll(async () => {
  s = await TestService.start();
  project = ok(await s.post('/projects', { name: 'own-count', visibility: 'public' })).id;
  for (let n = 0; n < 60; n++) {
    // `ui` on two of three, every seventh a draft (wip=no leaves it out).
    ok(await s.post(`/projects/${project}/merge_requests`, { title: `${n % 7 === 3 ? 'Draft: ' : ''}change ${(n * 37) % 60}`, labels: n % 3 ? 'ui' : '', source_branch: `b${n}`, target_branch: 'main' }));
  }
}, 300_000);
afterAll(async () => s?.stop());

/** The list's own reads (its statement: one label's probe and the drafts left out), not the entities' lookups. */
const listReads = (sql: string): boolean => sql.includes('FROM merge_requests x WHERE') && sql.includes('GLOB') && !sql.includes('json_group_array');

type Row = { id: number; title: string; labels: string; created_at: string };

describe('a deep page of a list with no count of its own', () => {
  it('reads the list once for its count and page; every page and header as the records say', async () => {
    const path = `/projects/${project}/merge_requests`;
    const want = (order: 'created_at' | 'title', dir: 1 | -1): number[] => {
      const records = s.service.context.db.prepare('SELECT id, title, labels, created_at FROM merge_requests WHERE project_id = ?').all(project) as Row[];
      const key = (r: Row): string => (order === 'title' ? r.title : r.created_at);
      return records
        .filter((r) => (JSON.parse(r.labels) as string[]).includes('ui') && !r.title.startsWith('Draft:'))
        .sort((a, b) => dir * (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id))
        .map((r) => r.id);
    };
    const lists: [Record<string, string>, () => number[]][] = [
      [{ labels: 'ui', wip: 'no' }, () => want('created_at', -1)],
      [{ labels: 'ui', wip: 'no', sort: 'asc' }, () => want('created_at', 1)],
      [{ labels: 'ui', wip: 'no', order_by: 'title', sort: 'asc' }, () => want('title', 1)],
    ];
    const check = async (): Promise<void> => {
      for (const [query, ids] of lists) {
        const wanted = ids();
        for (const [perPage, page] of [[20, 450], [100, 91], [20, 500]]) {
          const what = `${JSON.stringify(query)} per_page=${perPage} page=${page}`;
          let res: Awaited<ReturnType<typeof s.get>> | undefined;
          const reads = await statementReads(s, listReads, async () => (res = await s.get(path, { query: { ...query, per_page: String(perPage), page: String(page) } })), ['all', 'get']);
          // One read, the ids in order up to COUNT_LIMIT + 1; no count of its own.
          expect(reads.map((r) => (r.sql.startsWith('SELECT count(') ? 'count' : r.sql.replace(/.* (LIMIT \d+)( OFFSET \?)?$/, '$1$2'))), what).toEqual(['LIMIT 10001']);
          expect(res!.body, what).toEqual([]);
          expect(res!.headers.get('x-total'), what).toBe(String(wanted.length));
          expect(res!.headers.get('x-total-pages'), what).toBe(String(Math.ceil(wanted.length / perPage)));
          expect(res!.headers.get('x-page'), what).toBe(String(page));
          expect(res!.headers.get('x-next-page'), what).toBe('');
        }
        // A page not in the last tenth counts as before: its count, then its page.
        const early = await statementReads(s, listReads, () => s.get(path, { query: { ...query, per_page: '20', page: '2' } }), ['all', 'get']);
        expect(early.length, JSON.stringify(query)).toBe(2);
        await expectEveryPage(s, path, query, wanted, 7);
      }
    };
    await check();
    ok(await s.put(`${path}/2`, { remove_labels: 'ui' }));
    ok(await s.put(`${path}/4`, { title: 'ready now' }));
    ok(await s.put(`${path}/3`, { add_labels: 'ui', title: 'Draft: later' }));
    await check();
  });
});
