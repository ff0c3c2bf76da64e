import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { pagedReads, queryPlan } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * A group's epics by title with a date range more than COUNT_LIMIT (10,000) epics meet walk the
 * groups' titles in order (epics_group_title), the range checked on each epic, instead of reading
 * the range from its date's index and sorting it; a range of fewer is still read and sorted. A
 * list the counters count exactly (a state, no label) answers a page past its end without reading.
 * Pinned: the pages' ids, order and headers against the records (title ties broken by id), past
 * COUNT_LIMIT and within it, and the plans.
 */
let s: TestService;
let group: number;
const N = 10_200;
const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
const db = () => s.service.context.db;

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  const ctx = s.service.context;
  const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, 1, ?, ?, ?)');
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const { id, iid } = nextEpicIds(ctx, group);
      // Titles repeat (ties broken by id); every tenth epic closed; updated_at runs against created_at.
      insert.run(id, group, iid, `Epic ${(i * 7919) % 613}`, i % 10 === 0 ? 'closed' : 'opened', '[]', at(i), at(2 * N - i));
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

function truth(extra: string, dir: 'ASC' | 'DESC'): number[] {
  return (db().prepare(`SELECT id FROM epics WHERE group_id = ? ${extra} ORDER BY title ${dir}, id ${dir}`).all(group) as { id: number }[]).map((r) => r.id);
}

const CASES: { query: Record<string, string>; extra: string }[] = [
  { query: { created_after: at(150) }, extra: `AND created_at >= '${at(150)}'` },
  { query: { updated_before: at(2 * N - 120) }, extra: `AND updated_at <= '${at(2 * N - 120)}'` },
  { query: { created_after: at(100), updated_after: at(N + 20) }, extra: `AND created_at >= '${at(100)}' AND updated_at >= '${at(N + 20)}'` },
  { query: { created_before: at(N - 60), state: 'all' }, extra: `AND created_at <= '${at(N - 60)}'` },
  // Fewer than COUNT_LIMIT: read from the date's index and sorted.
  { query: { created_after: at(N - 300) }, extra: `AND created_at >= '${at(N - 300)}'` },
  { query: { created_after: at(50), state: 'closed' }, extra: `AND created_at >= '${at(50)}' AND state = 'closed'` },
];

describe("a group's epics by title with a date range", () => {
  it('every page read, deep and past the end, as the records say', async () => {
    for (const c of CASES) {
      for (const sort of ['asc', 'desc'] as const) {
        const want = truth(c.extra, sort === 'asc' ? 'ASC' : 'DESC');
        const last = Math.ceil(want.length / 100);
        for (const page of [1, 2, 37, last - 1, last, last + 1]) {
          const res = await s.get(`/groups/${group}/epics`, { query: { ...c.query, order_by: 'title', sort, per_page: '100', page: String(page) } });
          const what = `${JSON.stringify(c.query)} ${sort} page ${page}`;
          expect(res.status, what).toBe(200);
          expect((res.body as { id: number }[]).map((e) => e.id), what).toEqual(want.slice((page - 1) * 100, page * 100));
          expect(res.headers.get('x-total'), what).toBe(want.length > 10_000 ? null : String(want.length));
          expect(res.headers.get('x-next-page'), what).toBe(page < last ? String(page + 1) : '');
        }
      }
    }
  }, 120_000);

  it("walks the groups' titles when more than COUNT_LIMIT epics meet the range; sorts a range of fewer", async () => {
    const planOf = async (query: Record<string, string>): Promise<string> => {
      const reads = await pagedReads(s, async () => {
        expect((await s.get(`/groups/${group}/epics`, { query: { ...query, order_by: 'title', per_page: '7', page: '3' } })).status).toBe(200);
      });
      expect(reads).toHaveLength(1);
      return queryPlan(db(), reads[0].sql, ...reads[0].args);
    };
    for (const query of [{ created_after: at(160) }, { updated_before: at(2 * N - 130) }, { created_before: at(N - 70), updated_after: at(50) }] as Record<string, string>[]) {
      const plan = await planOf(query);
      expect(plan, JSON.stringify(query)).toMatch(/INDEX epics_group_title \(group_id=\?\)/);
      expect(plan, JSON.stringify(query)).not.toContain('TEMP B-TREE');
    }
    const plan = await planOf({ created_after: at(N - 310) });
    expect(plan).toMatch(/INDEX epics_group_created \(group_id=\? AND created_at>\?\)/);
    expect(plan).toContain('TEMP B-TREE');
  });

  it('a page past the end of a list the counters count exactly (past COUNT_LIMIT) reads nothing', async () => {
    for (const query of [{ state: 'all' }, { state: 'all', author_id: '1' }] as Record<string, string>[]) {
      const reads = await pagedReads(s, async () => {
        const res = await s.get(`/groups/${group}/epics`, { query: { ...query, order_by: 'title', per_page: '100', page: '150' } });
        expect(res.status).toBe(200);
        expect(res.body).toEqual([]);
        expect(res.headers.has('x-total')).toBe(false);
        expect(res.headers.get('x-next-page')).toBe('');
        expect(res.headers.get('link')).not.toContain('rel="last"');
      });
      expect(reads, JSON.stringify(query)).toHaveLength(0);
      // The last page still reads its rows.
      const res = await s.get(`/groups/${group}/epics`, { query: { ...query, order_by: 'title', per_page: '100', page: '102' } });
      expect((res.body as { id: number }[]).map((e) => e.id)).toEqual(truth('', 'DESC').slice(10_100, 10_200));
      expect(res.headers.get('x-next-page')).toBe('');
    }
  });
});
