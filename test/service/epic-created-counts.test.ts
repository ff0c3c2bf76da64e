import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, expectUncounted } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * A group's epics by creation date past 10,000 (epics/010): the months wholly inside the range
 * say "more than 10,000" without a count when their non-confidential epics pass it; otherwise the
 * list is counted. Every answer is computed from the seeded records and compared (rows, order,
 * X-Total and paging headers), for a Planner-or-above reader and a Guest who does not see the
 * confidential tenth, through every kind of write the counters follow.
 */
let s: TestService;
let group: number;
let sub: number;
let guest: { user: any; token: string };

interface Seed {
  id: number;
  groupId: number;
  state: string;
  confidential: boolean;
  createdAt: string;
}
let epics: Seed[] = [];
const N = 12_000;
// One epic an hour from 2024-01-01 (to mid-May 2025); every 7th closed, every 10th confidential.
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  guest = await s.createUser();
  group = (await s.createGroup({ visibility: 'private' })).id;
  sub = (await s.createGroup({ parent_id: group, visibility: 'private' })).id;
  await s.addMember('groups', group, guest.user.id, 10);
  const ctx = s.service.context;
  const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)');
  ctx.db.transaction(() => {
    for (let i = 0; i < N; i++) {
      // Every 40th in the subgroup (a group's list holds its descendants' epics).
      const groupId = i % 40 === 3 ? sub : group;
      const { id, iid } = nextEpicIds(ctx, groupId);
      const e = { id, groupId, state: i % 7 === 0 ? 'closed' : 'opened', confidential: i % 10 === 5, createdAt: createdAt(i) };
      insert.run(id, groupId, iid, `Epic ${i}`, e.state, Number(e.confidential), '[]', e.createdAt, e.createdAt);
      epics.push(e);
    }
  })();
}, 180_000);
afterAll(async () => s.stop());

const newestFirst = (xs: Seed[]): Seed[] => [...xs].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);

/** The list the records say, for a reader who sees confidential epics or not. */
function expected(q: { created_after?: string; created_before?: string; state?: string }, seesConfidential: boolean): Seed[] {
  return newestFirst(
    epics.filter(
      (e) =>
        (seesConfidential || !e.confidential) &&
        (!q.state || q.state === 'all' || e.state === q.state) &&
        (!q.created_after || e.createdAt >= q.created_after) &&
        (!q.created_before || e.createdAt <= q.created_before),
    ),
  );
}

/** Compares page 1 and page 3 of the list (rows, order, headers) with the records, for root and the guest; returns the totals. */
async function check(q: { created_after?: string; created_before?: string; state?: string }): Promise<{ root: number; guest: number }> {
  const totals = { root: 0, guest: 0 };
  for (const [who, token, sees] of [
    ['root', undefined, true],
    ['guest', guest.token, false],
  ] as const) {
    const want = expected(q, sees);
    totals[who] = want.length;
    for (const page of [1, 3]) {
      const res = await s.get(`/groups/${group}/epics`, { token, query: { ...q, per_page: '100', page: String(page) } });
      expect(ids(res), `${who} page ${page} of ${JSON.stringify(q)}`).toEqual(want.slice((page - 1) * 100, page * 100).map((e) => e.id));
      if (want.length > 10_000) expectUncounted(res, String(page + 1));
      else expectCounted(res, want.length, 100);
    }
  }
  return totals;
}

describe('epics by creation date past 10,000', () => {
  it('are uncounted once the months wholly after the date hold more than 10,000 (without reading 10,001 of them)', async () => {
    const totals = await check({ created_after: '2024-01-20T00:00:00.000Z' });
    expect(totals.guest).toBeGreaterThan(10_000);
    const sql: string[] = [];
    const db = s.service.context.db;
    const prepare = db.prepare;
    db.prepare = ((text: string) => (sql.push(text), prepare.call(db, text))) as typeof db.prepare;
    try {
      await s.put(`/groups/${group}`, { description: 'a write, so nothing is remembered' });
      await s.get(`/groups/${group}/epics`, { query: { created_after: '2024-01-20T00:00:00.000Z' } });
    } finally {
      db.prepare = prepare;
    }
    expect(sql.filter((q) => q.includes('count(*)') && q.includes('FROM epics'))).toEqual([]);
    expect(sql.some((q) => q.includes('FROM epic_created_counts'))).toBe(true);
  });

  it('are counted when the whole months fall short, exactly up to 10,000 and uncounted past it', async () => {
    // Months from April hold 9,816 epics: the count decides (10,344 for root, 9,310 for the guest).
    const mid = await check({ created_after: '2024-03-10T00:00:00.000Z' });
    expect(mid.root).toBeGreaterThan(10_000);
    expect(mid.guest).toBeLessThanOrEqual(10_000);
    // The end of February: February itself must not count (the guest's 9,526 are counted exactly).
    const late = await check({ created_after: '2024-02-28T00:00:00.000Z' });
    expect(late.root).toBeGreaterThan(10_000);
    expect(late.guest).toBeLessThanOrEqual(10_000);
    expect((await check({ created_after: '2024-05-01T00:00:00.000Z' })).root).toBeLessThanOrEqual(10_000);
  });

  it('with a state, created_before, both, and a date past every epic', async () => {
    expect((await check({ created_after: '2024-01-01T00:00:00.000Z', state: 'closed' })).root).toBeLessThanOrEqual(10_000);
    expect((await check({ created_after: '2024-01-01T00:00:00.000Z', state: 'opened' })).root).toBeGreaterThan(10_000);
    expect((await check({ created_before: '2025-05-10T00:00:00.000Z' })).guest).toBeGreaterThan(10_000);
    expect((await check({ created_before: '2025-04-01T00:00:00.000Z' })).root).toBeGreaterThan(10_000);
    expect((await check({ created_before: '2025-01-02T00:00:00.000Z' })).guest).toBeLessThanOrEqual(10_000);
    expect((await check({ created_after: '2024-01-10T00:00:00.000Z', created_before: '2025-04-20T00:00:00.000Z' })).guest).toBeGreaterThan(10_000);
    expect((await check({ created_after: '2024-02-10T00:00:00.000Z', created_before: '2025-03-01T00:00:00.000Z' })).root).toBeLessThanOrEqual(10_000);
    expect((await check({ created_after: '2030-01-01T00:00:00.000Z' })).root).toBe(0);
  });

  it('follow creates, deletes, moved dates, state and confidentiality changes and moves between groups', async () => {
    const db = s.service.context.db;
    const reload = () => {
      epics = (db.prepare('SELECT id, group_id AS groupId, state, confidential, created_at AS createdAt FROM epics WHERE group_id IN (?, ?)').all(group, sub) as any[]).map(
        (e) => ({ ...e, confidential: !!e.confidential }),
      );
    };
    // Through the API: new epics (one dated in March 2024), a closed one, a deleted one.
    for (let i = 0; i < 3; i++) expect((await s.post(`/groups/${group}/epics`, { title: `New ${i}`, created_at: '2024-03-15T12:00:00Z' })).status).toBe(201);
    const victim = epics.find((e) => e.createdAt.startsWith('2024-06') && e.groupId === group)!;
    const iid = (db.prepare('SELECT iid FROM epics WHERE id = ?').get(victim.id) as { iid: number }).iid;
    expect((await s.put(`/groups/${group}/epics/${iid}`, { state_event: 'close' })).status).toBe(200);
    const other = epics.find((e) => e.createdAt.startsWith('2024-07') && e.groupId === group)!;
    const otherIid = (db.prepare('SELECT iid FROM epics WHERE id = ?').get(other.id) as { iid: number }).iid;
    expect((await s.del(`/groups/${group}/epics/${otherIid}`)).status).toBe(204);
    // Directly: dates moved out of their months (a thousand from April into 2023), confidentiality, a group change.
    db.prepare("UPDATE epics SET created_at = '2023-06-01T00:00:00.000Z' WHERE id IN (SELECT id FROM epics WHERE group_id = ? AND created_at LIKE '2024-04%' LIMIT 1000)").run(group);
    db.prepare("UPDATE epics SET confidential = 1 - confidential WHERE id IN (SELECT id FROM epics WHERE group_id = ? AND created_at LIKE '2024-05%' LIMIT 300)").run(group);
    db.prepare("UPDATE epics SET created_at = substr(created_at, 1, 8) || '28' || substr(created_at, 11) WHERE group_id = ? AND created_at LIKE '2024-08-0%'").run(group);
    const outside = (await s.createGroup()).id;
    db.prepare("UPDATE epics SET group_id = ? WHERE id IN (SELECT id FROM epics WHERE group_id = ? AND created_at LIKE '2024-09%' LIMIT 200)").run(outside, group);
    db.prepare("DELETE FROM epics WHERE group_id = ? AND created_at LIKE '2024-10-1%'").run(sub);
    reload();
    for (const q of [
      { created_after: '2024-01-20T00:00:00.000Z' },
      { created_after: '2024-03-10T00:00:00.000Z' },
      { created_after: '2024-02-28T00:00:00.000Z' },
      { created_after: '2024-03-01T00:00:00.000Z', state: 'opened' },
      { created_before: '2025-04-01T00:00:00.000Z' },
      { created_after: '2023-01-01T00:00:00.000Z', created_before: '2024-01-01T00:00:00.000Z' },
    ]) {
      await check(q);
    }
    // The counters are what a count of the epics gives.
    const counted = db.prepare('SELECT group_id, month, state, confidential, n FROM epic_created_counts WHERE n > 0 ORDER BY 1, 2, 3, 4').all();
    const fresh = db
      .prepare('SELECT group_id, substr(created_at, 1, 7) AS month, state, confidential, count(*) AS n FROM epics GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4')
      .all();
    expect(counted).toEqual(fresh);
  });
});

it('epics/010 counts the epics a data dir already holds', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-epic-months-'));
  try {
    const file = join(dir, 'sandlab.db');
    const before = openBefore(file, 'epics/010_created_month_counts');
    const insert = before.prepare("INSERT INTO epics (group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, 'E', ?, ?, 1, '[]', ?, ?)");
    insert.run(5, 1, 'opened', 0, '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:00.000Z');
    insert.run(5, 2, 'opened', 0, '2024-01-31T23:59:59.999Z', '2024-01-31T23:59:59.999Z');
    insert.run(5, 3, 'closed', 1, '2024-02-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z');
    insert.run(6, 1, 'opened', 0, '2024-02-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z');
    before.close();
    const after = openToday(file);
    expect(after.prepare('SELECT group_id, month, state, confidential, n FROM epic_created_counts ORDER BY 1, 2, 3, 4').all()).toEqual([
      { group_id: 5, month: '2024-01', state: 'opened', confidential: 0, n: 2 },
      { group_id: 5, month: '2024-02', state: 'closed', confidential: 1, n: 1 },
      { group_id: 6, month: '2024-02', state: 'opened', confidential: 0, n: 1 },
    ]);
    after.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
