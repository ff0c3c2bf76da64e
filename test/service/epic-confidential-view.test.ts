import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * Who sees which epics of a group and its subgroup while none, some or all of the confidential
 * epics are hidden from the reader: a Guest's list reads the groups' epics without a confidential
 * condition while epics/007's counters hold no confidential epic the Guest may not read (le25: a
 * Guest's author_id=3 page 2500 read 50,000 epics' rows for it, 90 ms), and keeps the condition
 * once one is. And `iids[]` of two or more, read by (group_id, iid) and sorted rather than by a
 * walk of the groups' epics in the order (le25: iids[]=5&iids[]=999999 as the admin, 290 ms).
 * Pinned: every page, order and header against the records, for the admin, a Guest of both groups,
 * a Planner of the subgroup and a Guest who wrote some epics, before and after writes.
 */
let s: TestService;
let parent: number;
let child: number;
const readers: Record<string, { id: number; token: string | undefined }> = {};
const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  parent = (await s.createGroup({ visibility: 'private' })).id;
  child = (await s.createGroup({ visibility: 'private', parent_id: parent })).id;
  readers.admin = { id: 1, token: undefined };
  for (const name of ['guest', 'planner', 'writer']) {
    const u = await s.createUser();
    readers[name] = { id: u.user.id, token: u.token };
    await s.addMember('groups', parent, u.user.id, 10);
  }
  await s.addMember('groups', child, readers.planner.id, 15);
  const ctx = s.service.context;
  const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)');
  ctx.db.transaction(() => {
    for (let i = 1; i <= 36; i++) {
      const group = i % 3 === 0 ? child : parent;
      const { id, iid } = nextEpicIds(ctx, group);
      const author = i % 4 === 0 ? readers.writer.id : 1;
      insert.run(id, group, iid, `Epic ${i % 7}`, i % 5 === 0 ? 'closed' : 'opened', author, '[]', at(Math.floor(i / 2)), at(500 - ((i * 13) % 37)));
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

/** The epics `reader` may see, as the records say: a Planner of the epic's group, its author or the admin sees a confidential one. */
function truth(reader: string, where: string, order: string, groups = [parent, child]): number[] {
  const r = readers[reader];
  const sees = reader === 'admin' ? '1' : `(e.confidential = 0 OR e.author_id = ${r.id}${reader === 'planner' ? ` OR e.group_id = ${child}` : ''})`;
  return (
    s.service.context.db.prepare(`SELECT e.id FROM epics e WHERE e.group_id IN (${groups.join(',')}) AND ${sees} AND ${where} ORDER BY ${order}`).all() as { id: number }[]
  ).map((e) => e.id);
}

const CASES: { query: Record<string, string>; where: string; order: string }[] = [
  { query: {}, where: '1', order: 'e.created_at DESC, e.id DESC' },
  { query: { order_by: 'title', sort: 'asc' }, where: '1', order: 'e.title ASC, e.id ASC' },
  { query: { order_by: 'updated_at', state: 'opened' }, where: "e.state = 'opened'", order: 'e.updated_at DESC, e.id DESC' },
  { query: { author_id: 'writer', sort: 'asc' }, where: 'e.author_id = writer', order: 'e.created_at ASC, e.id ASC' },
  { query: { iids: '2,3,5,999' }, where: 'e.iid IN (2, 3, 5, 999)', order: 'e.created_at DESC, e.id DESC' },
  { query: { iids: '1,4,6', order_by: 'title', sort: 'asc', state: 'opened' }, where: "e.iid IN (1, 4, 6) AND e.state = 'opened'", order: 'e.title ASC, e.id ASC' },
  { query: { iids: '3,7', order_by: 'updated_at', sort: 'asc' }, where: 'e.iid IN (3, 7)', order: 'e.updated_at ASC, e.id ASC' },
];

async function expectEveryCase(): Promise<void> {
  for (const reader of Object.keys(readers)) {
    for (const c of CASES) {
      const query: Record<string, string> = Object.fromEntries(Object.entries(c.query).map(([k, v]) => [k, v === 'writer' ? String(readers.writer.id) : v]));
      const where = c.where.replace('writer', String(readers.writer.id));
      const { iids, ...rest } = query;
      const q = iids ? { ...rest, 'iids[]': iids.split(',') } : rest;
      await expectEveryPage(s, `/groups/${parent}/epics`, q, truth(reader, where, c.order), 4, readers[reader].token);
      await expectEveryPage(s, `/groups/${parent}/epics`, { ...q, include_descendant_groups: 'false' }, truth(reader, where, c.order, [parent]), 4, readers[reader].token);
    }
  }
}

/** Whether the paged reads of the Guest's list carry the confidential condition. */
async function guestConditioned(reader: string): Promise<boolean> {
  const reads = await pagedReads(s, async () => {
    expect((await s.get(`/groups/${parent}/epics`, { token: readers[reader].token, query: { order_by: 'updated_at', page: '2', per_page: '3' } })).status).toBe(200);
  });
  expect(reads.length).toBeGreaterThan(0);
  return reads.some((r) => r.sql.includes('e.confidential = 0 OR'));
}

const epicIid = (where: string): { iid: number; group: number } =>
  s.service.context.db.prepare(`SELECT iid, group_id AS "group" FROM epics WHERE ${where} ORDER BY id LIMIT 1`).get() as { iid: number; group: number };

describe('group epics as each reader sees them', () => {
  it('answer every page as the records say while no confidential epic is hidden, once some are, and after they are not', async () => {
    await expectEveryCase();
    expect(await guestConditioned('guest')).toBe(false);

    // The writer's own epic made confidential: hidden from the Guest and the Planner, not from its writer.
    const own = epicIid(`group_id = ${parent} AND author_id = ${readers.writer.id}`);
    expect((await s.put(`/groups/${own.group}/epics/${own.iid}`, { confidential: true })).status).toBe(200);
    await expectEveryCase();
    expect([await guestConditioned('guest'), await guestConditioned('planner'), await guestConditioned('writer')]).toEqual([true, true, false]);

    // The subgroup's: hidden from the Guest and the writer, not from the subgroup's Planner.
    const sub = epicIid(`group_id = ${child} AND author_id = 1`);
    expect((await s.put(`/groups/${sub.group}/epics/${sub.iid}`, { confidential: true, state_event: 'close' })).status).toBe(200);
    await expectEveryCase();
    expect(await guestConditioned('writer')).toBe(true);

    // Made public again, one after the other; a confidential epic deleted.
    expect((await s.put(`/groups/${own.group}/epics/${own.iid}`, { confidential: false })).status).toBe(200);
    await expectEveryCase();
    expect([await guestConditioned('guest'), await guestConditioned('writer')]).toEqual([true, true]);
    expect((await s.del(`/groups/${sub.group}/epics/${sub.iid}`)).status).toBe(204);
    await expectEveryCase();
    expect([await guestConditioned('guest'), await guestConditioned('planner'), await guestConditioned('writer')]).toEqual([false, false, false]);

    // A new confidential epic through the API, and another iid to find.
    const created = await s.post(`/groups/${parent}/epics`, { title: 'Epic new', confidential: true });
    expect(created.status).toBe(201);
    expect(created.body.iid).toBeGreaterThan(7);
    await expectEveryCase();
    expect(await guestConditioned('guest')).toBe(true);
  }, 120_000);

  it('read the epics of two or more iids by (group, iid), not by a walk of the groups in the order', async () => {
    const queries: Record<string, string | string[]>[] = [
      { 'iids[]': ['2', '999'], include_descendant_groups: 'false' },
      { 'iids[]': ['1', '3'], order_by: 'title', include_descendant_groups: 'false' },
      { 'iids[]': ['1', '3', '5'], order_by: 'updated_at', state: 'opened' },
    ];
    for (const query of queries) {
      const reads = await pagedReads(s, async () => {
        expect((await s.get(`/groups/${parent}/epics`, { query })).status).toBe(200);
      });
      expect(reads.length).toBeGreaterThan(0);
      for (const r of reads) expect(queryPlan(s.service.context.db, r.sql, ...r.args)).toContain('epics_group_iid');
    }
  });
});
