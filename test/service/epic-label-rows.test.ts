import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * A group's epics by label titles read from the rarest title's label rows in the list's date order
 * (epics/014 gives epic label rows their epic's dates; labelRowsWalk): every page, order and header
 * as the epics' own label lists say (exact titles, as epic label filters match), for a Planner and
 * a Guest (no confidential epic), through writes; the plan pinned (the title's rows in order, each
 * epic looked up by id, nothing sorted); and an older data dir's epic label rows dated.
 */
let s: TestService;
let group: number;
let sub: number;
let guestToken = '';
const N = 90;
const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
/** `bug` on every 2nd epic (`Bug` too on every 10th), `ux` on every 3rd, `rare` on every 7th. */
const labelsOf = (i: number): string[] => [...(i % 2 === 0 ? ['bug'] : []), ...(i % 10 === 0 ? ['Bug'] : []), ...(i % 3 === 0 ? ['ux'] : []), ...(i % 7 === 0 ? ['rare'] : [])];

beforeAll(async () => {
  s = await TestService.start();
  const guest = await s.createUser();
  guestToken = guest.token;
  group = (await s.createGroup({ visibility: 'private' })).id;
  sub = (await s.createGroup({ visibility: 'private', parent_id: group })).id;
  const other = (await s.createGroup({ visibility: 'private' })).id;
  await s.addMember('groups', group, guest.user.id, 10);
  const ctx = s.service.context;
  const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)');
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      // Three epics share each created_at; updated_at goes back and forth; every 11th in the subgroup, every 13th in another group.
      const g = i % 13 === 0 ? other : i % 11 === 0 ? sub : group;
      const { id, iid } = nextEpicIds(ctx, g);
      insert.run(id, g, iid, `Epic ${i % 17}`, i % 4 === 0 ? 'closed' : 'opened', Number(i % 5 === 0), JSON.stringify(labelsOf(i)), at(Math.floor(i / 3)), at(500 - (i % 40)));
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

/** The epics' answer: ids in list order, exact titles on the epics' own JSON lists. */
function truth(where: string, order: string, guest: boolean): number[] {
  const groups = [group, sub].join(',');
  return (
    s.service.context.db
      .prepare(`SELECT e.id FROM epics e WHERE e.group_id IN (${groups}) AND ${where}${guest ? ' AND e.confidential = 0' : ''} ORDER BY ${order}`)
      .all() as { id: number }[]
  ).map((r) => r.id);
}
const has = (title: string): string => `EXISTS (SELECT 1 FROM json_each(e.labels) WHERE value = '${title}')`;

const CASES: { query: Record<string, string>; where: string }[] = [
  { query: { labels: 'bug' }, where: has('bug') },
  { query: { labels: 'Bug' }, where: has('Bug') },
  { query: { labels: 'bug', state: 'opened' }, where: `${has('bug')} AND e.state = 'opened'` },
  { query: { labels: 'bug,ux' }, where: `${has('bug')} AND ${has('ux')}` },
  { query: { labels: 'rare,bug', state: 'closed' }, where: `${has('bug')} AND ${has('rare')} AND e.state = 'closed'` },
  { query: { labels: 'ux', 'not[labels]': 'bug' }, where: `${has('ux')} AND NOT ${has('bug')}` },
  { query: { labels: 'bug', author_id: '1' }, where: `${has('bug')} AND e.author_id = 1` },
  { query: { labels: 'bug,nothing' }, where: '0' },
];
const ORDERS: { query: Record<string, string>; order: string }[] = [
  { query: {}, order: 'e.created_at DESC, e.id DESC' },
  { query: { sort: 'asc' }, order: 'e.created_at ASC, e.id ASC' },
  { query: { order_by: 'updated_at' }, order: 'e.updated_at DESC, e.id DESC' },
  { query: { order_by: 'updated_at', sort: 'asc' }, order: 'e.updated_at ASC, e.id ASC' },
];

async function expectEveryCase(): Promise<void> {
  for (const c of CASES) {
    for (const o of ORDERS) {
      const query = { ...c.query, ...o.query };
      await expectEveryPage(s, `/groups/${group}/epics`, query, truth(c.where, o.order, false), 8);
      await expectEveryPage(s, `/groups/${group}/epics`, query, truth(c.where, o.order, true), 8, guestToken);
    }
  }
}

describe('epics by label titles from their label rows', () => {
  it('every page as the epics say, each order, a Planner and a Guest, through relabels, edits, closes and deletes', async () => {
    await expectEveryCase();
    const iids = (s.service.context.db.prepare('SELECT iid FROM epics WHERE group_id = ? ORDER BY id').all(group) as { iid: number }[]).map((r) => r.iid);
    ok(await s.put(`/groups/${group}/epics/${iids[0]}`, { labels: 'bug,ux' }));
    ok(await s.put(`/groups/${group}/epics/${iids[3]}`, { title: 'Edited: updated now' }));
    ok(await s.put(`/groups/${group}/epics/${iids[5]}`, { state_event: 'close' }));
    ok(await s.put(`/groups/${group}/epics/${iids[7]}`, { remove_labels: 'bug' }));
    ok(await s.post(`/groups/${group}/epics`, { title: 'New', labels: 'rare,bug' }));
    expect((await s.del(`/groups/${group}/epics/${iids[9]}`)).status).toBe(204);
    await expectEveryCase();
  }, 120_000);

  it('reads the rarest title\'s label rows in the order\'s date, each epic by id, nothing sorted', async () => {
    const db = s.service.context.db;
    for (const query of [{ labels: 'bug,rare' }, { labels: 'rare', state: 'opened', order_by: 'updated_at', sort: 'asc' }, { labels: 'rare', 'not[labels]': 'ux' }] as Record<string, string>[]) {
      const reads = await pagedReads(s, async () => void ok(await s.get(`/groups/${group}/epics`, { query })));
      expect(reads.length).toBe(1);
      const plan = queryPlan(db, reads[0].sql, ...reads[0].args);
      expect(plan, JSON.stringify(query)).toMatch(/^SEARCH il USING (COVERING )?INDEX issuable_labels_title_(created|updated) \(issuable_type=\? AND title=\?/);
      expect(plan, JSON.stringify(query)).toContain('SEARCH e USING INTEGER PRIMARY KEY (rowid=?)');
      expect(plan, JSON.stringify(query)).not.toMatch(/TEMP B-TREE|SCAN/);
      expect(reads[0].args[0]).toBe('rare');
    }
  });
});

describe("an author's epics with a title carried by more of the group's epics", () => {
  it("reads the author's epics in created_at order by the (group, author) index, each epic's title probed; every page as the epics say", async () => {
    const ctx = s.service.context;
    const author = (await s.createUser()).user.id as number;
    const lone = (await s.createGroup({ visibility: 'private' })).id;
    const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)');
    ctx.db.transaction(() => {
      // 'bug' on 3 of 4 epics; the author writes every 5th (two of them a minute apart sharing a created_at).
      for (let i = 1; i <= 120; i++) {
        const { id, iid } = nextEpicIds(ctx, lone);
        insert.run(id, lone, iid, `Epic ${i}`, i % 6 === 0 ? 'closed' : 'opened', i % 5 === 0 ? author : 1, JSON.stringify(i % 4 === 0 ? ['ux'] : ['bug']), at(Math.floor(i / 2)), at(300 - i));
      }
    })();
    const want = (where: string, order: string): number[] =>
      (ctx.db.prepare(`SELECT e.id FROM epics e WHERE e.group_id = ? AND ${where} ORDER BY ${order}`).all(lone) as { id: number }[]).map((r) => r.id);
    for (const o of ORDERS) {
      for (const [query, where] of [
        [{ labels: 'bug', author_id: String(author) }, `${has('bug')} AND e.author_id = ${author}`],
        [{ labels: 'bug', author_id: String(author), state: 'opened' }, `${has('bug')} AND e.author_id = ${author} AND e.state = 'opened'`],
      ] as [Record<string, string>, string][]) {
        await expectEveryPage(s, `/groups/${lone}/epics`, { ...query, ...o.query }, want(where, o.order), 5);
      }
    }
    const reads = await pagedReads(s, async () => void ok(await s.get(`/groups/${lone}/epics`, { query: { labels: 'bug', author_id: String(author) } })));
    expect(reads.length).toBe(1);
    const plan = queryPlan(ctx.db, reads[0].sql, ...reads[0].args);
    expect(plan).toMatch(/SEARCH e USING (COVERING )?INDEX epics_group_author_created \(group_id=\? AND author_id=\?\)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });
});

describe('epics/014 on an older data dir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-epic-label-dates-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('dates the epic label rows it has, and later writes keep them', () => {
    const file = join(dir, 'sandlab.db');
    const before = openBefore(file, 'epics/014_epic_label_dates');
    const insert = before.prepare("INSERT INTO epics (id, group_id, iid, title, labels, created_at, updated_at) VALUES (?, 5, ?, 'E', ?, ?, ?)");
    insert.run(1, 1, '["bug","ux"]', at(1), at(9));
    insert.run(2, 2, '["bug"]', at(2), at(3));
    before.close();
    const db = openToday(file);
    db.pragma('foreign_keys = OFF');
    const rows = (): unknown[] => db.prepare("SELECT issuable_id, title, created_at, updated_at FROM issuable_labels WHERE issuable_type = 'Epic' ORDER BY 1, 2").all();
    expect(rows()).toEqual([
      { issuable_id: 1, title: 'bug', created_at: at(1), updated_at: at(9) },
      { issuable_id: 1, title: 'ux', created_at: at(1), updated_at: at(9) },
      { issuable_id: 2, title: 'bug', created_at: at(2), updated_at: at(3) },
    ]);
    db.prepare('UPDATE epics SET updated_at = ? WHERE id = 2').run(at(20));
    db.prepare("UPDATE epics SET labels = '[\"ux\"]', updated_at = ? WHERE id = 1").run(at(30));
    db.prepare("INSERT INTO epics (id, group_id, iid, title, labels, created_at, updated_at) VALUES (3, 5, 3, 'E', '[\"rare\"]', ?, ?)").run(at(40), at(41));
    expect(rows()).toEqual([
      { issuable_id: 1, title: 'ux', created_at: at(1), updated_at: at(30) },
      { issuable_id: 2, title: 'bug', created_at: at(2), updated_at: at(20) },
      { issuable_id: 3, title: 'rare', created_at: at(40), updated_at: at(41) },
    ]);
    db.close();
  });
});
