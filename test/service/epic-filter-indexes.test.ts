import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, pagedReads, queryPlan } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * A group's epics by updated/created dates on the other column than the order's, confidential, and
 * my_reaction_emoji (epics/012): each page, order and header compared with the records, for a
 * Planner and a Guest; the plans that make them cheap at a million epics pinned (a plan comes from
 * the query's shape alone, the same here as at scale); and the dates out of order (an epic updated
 * "before" it was created) that turn the implied creation bound off.
 */
let s: TestService;
let group: number;
let guest: { user: any; token: string };

interface Seed {
  id: number;
  iid: number;
  confidential: boolean;
  createdAt: string;
  updatedAt: string;
  title: string;
}
const epics: Seed[] = [];
const N = 3_000;
const hour = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  guest = await s.createUser();
  group = (await s.createGroup({ visibility: 'private' })).id;
  await s.addMember('groups', group, guest.user.id, 10);
  const ctx = s.service.context;
  const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)');
  ctx.db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const { id, iid } = nextEpicIds(ctx, group);
      // One an hour; updated a few hours to two weeks later (so the two orders differ); every 97th confidential.
      const e = { id, iid, confidential: i % 97 === 5, createdAt: hour(i), updatedAt: hour(i + ((i * 7919) % 340)), title: `Epic ${(i * 31) % N}` };
      insert.run(id, group, iid, e.title, 'opened', Number(e.confidential), '[]', e.createdAt, e.updatedAt);
      epics.push(e);
    }
  })();
  // Root's award emoji on a few epics.
  for (const e of epics.filter((_, i) => i % 500 === 7)) expect((await s.post(`/groups/${group}/epics/${e.iid}/award_emoji`, { name: 'thumbsup' })).status).toBe(201);
  expect((await s.post(`/groups/${group}/epics/${epics[100].iid}/award_emoji`, { name: 'rocket' })).status).toBe(201);
}, 120_000);
afterAll(async () => s.stop());

type Query = Record<string, string>;
const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);

function expected(q: Query, seesConfidential: boolean, awarded: Map<number, string[]>): Seed[] {
  const column = q.order_by === 'updated_at' ? 'updatedAt' : q.order_by === 'title' ? 'title' : 'createdAt';
  const dir = q.sort === 'asc' ? 1 : -1;
  const mine = (e: Seed) => awarded.get(e.id) ?? [];
  return epics
    .filter(
      (e) =>
        (seesConfidential || !e.confidential) &&
        (!q.created_after || e.createdAt >= q.created_after) &&
        (!q.created_before || e.createdAt <= q.created_before) &&
        (!q.updated_after || e.updatedAt >= q.updated_after) &&
        (!q.updated_before || e.updatedAt <= q.updated_before) &&
        (q.confidential === undefined || e.confidential === (q.confidential === 'true')) &&
        (q.my_reaction_emoji === undefined ||
          (q.my_reaction_emoji === 'None' ? mine(e).length === 0 : q.my_reaction_emoji === 'Any' ? mine(e).length > 0 : mine(e).includes(q.my_reaction_emoji))),
    )
    .sort((a, b) => (a[column] < b[column] ? -dir : a[column] > b[column] ? dir : (a.id - b.id) * dir));
}

function rootAwards(): Map<number, string[]> {
  const rows = s.service.context.db.prepare('SELECT epic_id, name FROM epic_award_emoji WHERE user_id = 1').all() as { epic_id: number; name: string }[];
  const m = new Map<number, string[]>();
  for (const r of rows) m.set(r.epic_id, [...(m.get(r.epic_id) ?? []), r.name]);
  return m;
}

/** Pages 1, 2 and the last of the list (rows, order, headers) against the records, for root (Owner) and the guest. */
async function check(q: Query): Promise<number> {
  let rootTotal = 0;
  for (const [who, token, sees] of [
    ['root', undefined, true],
    ['guest', guest.token, false],
  ] as const) {
    // The guest's my_reaction_emoji is their own (none): every epic they see for None.
    const want = expected(q, sees, who === 'root' ? rootAwards() : new Map());
    if (who === 'root') rootTotal = want.length;
    const last = Math.max(1, Math.ceil(want.length / 50));
    for (const page of new Set([1, 2, last])) {
      const res = await s.get(`/groups/${group}/epics`, { token, query: { ...q, per_page: '50', page: String(page) } });
      expect(res.status).toBe(200);
      expect(ids(res), `${who} page ${page} of ${JSON.stringify(q)}`).toEqual(want.slice((page - 1) * 50, page * 50).map((e) => e.id));
      expectCounted(res, want.length, 50);
    }
  }
  return rootTotal;
}

const at = (i: number) => hour(i);

/** The plan of the page read a request made (SQLite's EXPLAIN QUERY PLAN with the read's own arguments). */
async function pagePlan(query: Query): Promise<{ sql: string; plan: string }> {
  const reads = await pagedReads(s, async () => {
    expect((await s.get(`/groups/${group}/epics`, { query })).status).toBe(200);
  });
  expect(reads).toHaveLength(1);
  const { sql, args } = reads[0];
  const plan = queryPlan(s.service.context.db, sql, ...args);
  return { sql, plan };
}

describe('epics by dates on the other column than the order', () => {
  it('updated_before / updated_after in creation order, wide and narrow ranges, both directions', async () => {
    expect(await check({ updated_before: at(2000) })).toBeGreaterThan(1_000);
    expect(await check({ updated_before: at(2000), sort: 'asc' })).toBeGreaterThan(1_000);
    expect(await check({ updated_after: at(1200) })).toBeGreaterThan(1_000);
    expect(await check({ updated_after: at(1200), sort: 'asc' })).toBeGreaterThan(1_000);
    expect(await check({ updated_before: at(200) })).toBeLessThan(1_000);
    expect(await check({ updated_after: at(2900) })).toBeLessThan(1_000);
    await check({ updated_after: at(1000), updated_before: at(2500) });
    await check({ updated_before: at(2000), created_after: at(300) });
  });

  it('created_after / created_before in update order and by title', async () => {
    expect(await check({ order_by: 'updated_at', created_after: at(900) })).toBeGreaterThan(1_000);
    await check({ order_by: 'updated_at', created_after: at(900), sort: 'asc' });
    await check({ order_by: 'updated_at', created_before: at(2200) });
    await check({ order_by: 'title', updated_before: at(2200) });
    await check({ order_by: 'updated_at', updated_before: at(2200) });
  });

  it('a wide updated_before walks each lag bucket in creation order from its bound (db/date-lag.ts), no sort', async () => {
    const { plan } = await pagePlan({ updated_before: at(2000), page: '2' });
    expect(plan).toMatch(/USING (COVERING )?INDEX epics_group_lag_created \(group_id=\? AND <expr>=\? AND created_at<\?\)/);
    expect(plan).not.toContain('TEMP B-TREE');
  });

  it('an epic updated before it was created is in its updated_before list, and the epics/012 counter follows it', async () => {
    const db = s.service.context.db;
    // Created late, "updated" early (an administrator's updated_at): it belongs to updated_before's list.
    const odd = epics[2900];
    const res = await s.put(`/groups/${group}/epics/${odd.iid}`, { updated_at: at(10) });
    expect(res.status).toBe(200);
    odd.updatedAt = (db.prepare('SELECT updated_at FROM epics WHERE id = ?').get(odd.id) as { updated_at: string }).updated_at;
    expect(odd.updatedAt < odd.createdAt).toBe(true);
    expect(db.prepare('SELECT n FROM epic_dates_out_of_order WHERE group_id = ?').get(group)).toEqual({ n: 1 });
    await check({ updated_before: at(2000) });
    const first = await s.get(`/groups/${group}/epics`, { query: { updated_before: at(2000), per_page: '1' } });
    expect(ids(first)).toEqual([odd.id]);
    // Put right again: the counter follows, and the bound is back.
    await s.put(`/groups/${group}/epics/${odd.iid}`, { updated_at: at(2950) });
    odd.updatedAt = (db.prepare('SELECT updated_at FROM epics WHERE id = ?').get(odd.id) as { updated_at: string }).updated_at;
    expect(db.prepare('SELECT n FROM epic_dates_out_of_order WHERE group_id = ?').get(group)).toEqual({ n: 0 });
    await check({ updated_before: at(2000) });
  });
});

describe('confidential and my_reaction_emoji', () => {
  it('confidential=true reads the confidential epics index; true and false lists match the records', async () => {
    expect(await check({ confidential: 'true' })).toBeGreaterThan(20);
    await check({ confidential: 'true', order_by: 'updated_at', sort: 'asc' });
    await check({ confidential: 'false' });
    const { plan } = await pagePlan({ confidential: 'true' });
    expect(plan).toContain('epics_group_confidential_created');
  });

  it("my_reaction_emoji by name, Any and None; the user's awards read from their index", async () => {
    expect(await check({ my_reaction_emoji: 'thumbsup' })).toBe(6);
    expect(await check({ my_reaction_emoji: 'Any' })).toBe(7);
    expect(await check({ my_reaction_emoji: 'rocket' })).toBe(1);
    await check({ my_reaction_emoji: 'None' });
    await check({ my_reaction_emoji: 'thumbsup', order_by: 'title', sort: 'asc' });
    const { plan } = await pagePlan({ my_reaction_emoji: 'thumbsup' });
    expect(plan).toContain('epic_award_emoji_user');
  });

  it('deep pages of my_reaction_emoji=None follow award changes (no anchors: awards move no list version)', async () => {
    const deep = { my_reaction_emoji: 'None', per_page: '20', page: '120' };
    const before = ids(await s.get(`/groups/${group}/epics`, { query: deep }));
    // Award an epic that sorts before the page: every row of the page moves up by one.
    const newest = expected({}, true, new Map())[0];
    expect((await s.post(`/groups/${group}/epics/${newest.iid}/award_emoji`, { name: 'tada' })).status).toBe(201);
    const after = ids(await s.get(`/groups/${group}/epics`, { query: deep }));
    const want = expected({ my_reaction_emoji: 'None' }, true, rootAwards()).slice(119 * 20, 120 * 20).map((e) => e.id);
    expect(after).toEqual(want);
    expect(after).not.toEqual(before);
  });
});

describe('epics/012 on an older data dir', () => {
  it('counts the epics already updated before their creation, per group', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandlab-epic-dates-'));
    try {
      const file = join(dir, 'sandlab.db');
      const before = openBefore(file, 'epics/012_filter_indexes');
      const insert = before.prepare("INSERT INTO epics (group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, 'E', 'opened', 0, 1, '[]', ?, ?)");
      insert.run(5, 1, '2024-01-02T00:00:00.000Z', '2024-01-01T00:00:00.000Z');
      insert.run(5, 2, '2024-01-02T00:00:00.000Z', '2024-01-03T00:00:00.000Z');
      insert.run(6, 1, '2024-01-05T00:00:00.000Z', '2024-01-04T00:00:00.000Z');
      insert.run(6, 2, '2024-01-05T00:00:00.000Z', '2024-01-04T00:00:00.000Z');
      before.close();
      const today = openToday(file);
      expect(today.prepare('SELECT group_id, n FROM epic_dates_out_of_order ORDER BY group_id').all()).toEqual([
        { group_id: 5, n: 1 },
        { group_id: 6, n: 2 },
      ]);
      today.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
