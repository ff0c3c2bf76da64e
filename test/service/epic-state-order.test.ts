import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * A group's epics in one state by title or updated_at read the state's entries in that order
 * (epics/019 epics_group_state_title, epics_group_state_updated), as created_at reads
 * epics_group_state_created. Pinned: every page, order and header against the records (ties
 * broken by id), with a search term and confidentiality, for a Planner and a Guest, before and
 * after writes that move an epic's state, title and date; and the plans (the state's entries, nothing sorted).
 */
let s: TestService;
let group: number;
let guestToken = '';
const N = 64;
const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
const db = () => s.service.context.db;

beforeAll(async () => {
  s = await TestService.start();
  const guest = await s.createUser();
  guestToken = guest.token;
  group = (await s.createGroup({ visibility: 'private' })).id;
  await s.addMember('groups', group, guest.user.id, 10);
  const ctx = s.service.context;
  const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)');
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const { id, iid } = nextEpicIds(ctx, group);
      // Titles and updated_at back and forth, each on several epics.
      insert.run(id, group, iid, `${i % 4 === 0 ? 'Roadmap' : 'Epic'} ${(i * 13) % 9}`, i % 3 === 0 ? 'closed' : 'opened', Number(i % 7 === 0), '[]', at(i), at(200 - Math.floor(((i * 37) % N) / 3)));
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

function truth(state: string, column: string, extra: string, dir: 'ASC' | 'DESC', guest: boolean): number[] {
  return (
    db()
      .prepare(`SELECT id FROM epics WHERE group_id = ? AND state = ? ${extra}${guest ? ' AND confidential = 0' : ''} ORDER BY ${column} ${dir}, id ${dir}`)
      .all(group, state) as { id: number }[]
  ).map((r) => r.id);
}

const CASES: { query: Record<string, string>; extra: string }[] = [
  { query: {}, extra: '' },
  { query: { search: 'Roadmap' }, extra: "AND title LIKE '%Roadmap%'" },
  { query: { confidential: 'false' }, extra: 'AND confidential = 0' },
];

async function expectEveryCase(): Promise<void> {
  for (const state of ['opened', 'closed']) {
    for (const column of ['title', 'updated_at']) {
      for (const c of CASES) {
        for (const sort of ['desc', 'asc'] as const) {
          const query = { ...c.query, state, order_by: column, sort };
          const dir = sort === 'asc' ? 'ASC' : 'DESC';
          await expectEveryPage(s, `/groups/${group}/epics`, query, truth(state, column, c.extra, dir, false), 5);
          await expectEveryPage(s, `/groups/${group}/epics`, query, truth(state, column, c.extra, dir, true), 5, guestToken);
        }
      }
    }
  }
}

describe("a group's epics in one state by title or updated_at", () => {
  it('every page, order and header as the records say; after writes too', async () => {
    await expectEveryCase();
    db().prepare("UPDATE epics SET state = 'closed', updated_at = ? WHERE id = (SELECT min(id) FROM epics WHERE group_id = ? AND state = 'opened')").run(at(500), group);
    db().prepare("UPDATE epics SET title = 'Aardvark' WHERE id = (SELECT max(id) FROM epics WHERE group_id = ? AND state = 'closed')").run(group);
    await expectEveryCase();
  }, 120_000);

  it("reads the state's entries of epics_group_state_title and epics_group_state_updated in order, nothing sorted", async () => {
    for (const [column, index] of [
      ['title', 'epics_group_state_title'],
      ['updated_at', 'epics_group_state_updated'],
    ]) {
      for (const sort of ['desc', 'asc']) {
        const reads = await pagedReads(s, async () => {
          expect((await s.get(`/groups/${group}/epics`, { query: { state: 'closed', order_by: column, sort, per_page: '3', page: '2' } })).status).toBe(200);
        });
        expect(reads).toHaveLength(1);
        const plan = queryPlan(db(), reads[0].sql, ...reads[0].args);
        expect(plan).toMatch(new RegExp(`USING (COVERING )?INDEX ${index} \\(group_id=\\? AND state=\\?\\)`));
        expect(plan).not.toContain('TEMP B-TREE');
      }
    }
  });
});
