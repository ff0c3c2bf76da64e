import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * A group's epics by one author in title or updated_at order read the author's own entries in that
 * order (epics/020 epics_group_author_title, epics/016 epics_group_author_updated), as created_at
 * reads epics_group_author_created. Pinned: every page, order and header against the records (ties
 * broken by id), with a state, a search term, confidentiality, for a Planner and a Guest, before
 * and after writes that move an epic's title or date and author; and the plan (the author's
 * entries, nothing sorted).
 */
let s: TestService;
let group: number;
let guestToken = '';
const N = 72;
const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
const db = () => s.service.context.db;

beforeAll(async () => {
  s = await TestService.start();
  const guest = await s.createUser();
  guestToken = guest.token;
  group = (await s.createGroup({ visibility: 'private' })).id;
  await s.addMember('groups', group, guest.user.id, 10);
  const other = (await s.createUser()).user.id as number;
  const ctx = s.service.context;
  const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const { id, iid } = nextEpicIds(ctx, group);
      // Authors 1 and the other interleaved; updated_at back and forth, three epics on each.
      insert.run(id, group, iid, `${i % 4 === 0 ? 'Roadmap' : 'Epic'} ${(i * 13) % 9}`, i % 5 === 0 ? 'closed' : 'opened', Number(i % 6 === 0), i % 3 === 0 ? other : 1, '[]', at(i), at(200 - Math.floor(((i * 37) % N) / 3)));
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const authors = (): number[] => (db().prepare('SELECT DISTINCT author_id AS a FROM epics WHERE group_id = ? ORDER BY 1').all(group) as { a: number }[]).map((r) => r.a);

function truth(order: string, author: number, extra: string, dir: 'ASC' | 'DESC', guest: boolean): number[] {
  return (
    db()
      .prepare(`SELECT id FROM epics e WHERE group_id = ? AND author_id = ? ${extra}${guest ? ' AND confidential = 0' : ''} ORDER BY ${order} ${dir}, id ${dir}`)
      .all(group, author) as { id: number }[]
  ).map((r) => r.id);
}

const CASES: { query: Record<string, string>; extra: string }[] = [
  { query: {}, extra: '' },
  { query: { state: 'opened' }, extra: "AND state = 'opened'" },
  { query: { search: 'Roadmap' }, extra: "AND title LIKE '%Roadmap%'" },
  { query: { confidential: 'false', state: 'all' }, extra: 'AND confidential = 0' },
];

async function expectEveryCase(order: string): Promise<void> {
  for (const author of authors()) {
    for (const c of CASES) {
      for (const sort of ['desc', 'asc'] as const) {
        const query = { ...c.query, author_id: String(author), order_by: order, sort };
        const dir = sort === 'asc' ? 'ASC' : 'DESC';
        await expectEveryPage(s, `/groups/${group}/epics`, query, truth(order, author, c.extra, dir, false), 5);
        await expectEveryPage(s, `/groups/${group}/epics`, query, truth(order, author, c.extra, dir, true), 5, guestToken);
      }
    }
  }
}

const ORDERS = [
  { order: 'title', index: 'epics_group_author_title', move: () => db().prepare('UPDATE epics SET title = ? WHERE id = (SELECT min(id) FROM epics WHERE group_id = ? AND author_id = 1)').run('Aardvark', group) },
  { order: 'updated_at', index: 'epics_group_author_updated', move: () => db().prepare('UPDATE epics SET updated_at = ? WHERE id = (SELECT min(id) FROM epics WHERE group_id = ? AND author_id = 1)').run(at(500), group) },
];

describe.each(ORDERS)("a group's epics by author in $order order", ({ order, index, move }) => {
  it('every page, order and header as the records say; after writes too', async () => {
    expect(authors()).toHaveLength(2);
    await expectEveryCase(order);
    move();
    db().prepare('UPDATE epics SET author_id = 1 WHERE id = (SELECT max(id) FROM epics WHERE group_id = ? AND author_id != 1)').run(group);
    await expectEveryCase(order);
  }, 120_000);

  it(`reads the author's entries of ${index} in order, nothing sorted`, async () => {
    for (const sort of ['desc', 'asc']) {
      const reads = await pagedReads(s, async () => {
        expect((await s.get(`/groups/${group}/epics`, { query: { author_id: '1', order_by: order, sort, per_page: '5', page: '2' } })).status).toBe(200);
      });
      expect(reads).toHaveLength(1);
      const plan = queryPlan(db(), reads[0].sql, ...reads[0].args);
      expect(plan).toMatch(new RegExp(`USING (COVERING )?INDEX ${index} \\(group_id=\\? AND author_id=\\?\\)`));
      expect(plan).not.toContain('TEMP B-TREE');
    }
  });
});
