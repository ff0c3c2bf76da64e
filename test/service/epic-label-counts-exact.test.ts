import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectCounted, expectUncounted, preparedBy } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * epics/009's epic_label_counts hold, per label title, group, author, state and confidentiality,
 * exactly the epics whose label lists carry the title, after every kind of write through the API
 * (labels added, removed and replaced, a close and a reopen, a confidential flip, an epic created
 * and deleted, a group label renamed and deleted, the author deleted): compared with the epics'
 * own lists after each. A list they count (one label, with a state or confidentiality) is then its
 * length past COUNT_LIMIT too: its first, last and past-the-end pages and their headers answer as
 * the records say, for the administrator and a Guest, and a page past the end reads no page of epics.
 */
let s: TestService;
let group: number;
let guestToken = '';
let guestId = 0;
let writer = 0;
const N = 10_400;
const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
const db = () => s.service.context.db;
/** `bug` on all but every 50th epic (over 10,000 of them), `ux` on every 6th. */
const labelsOf = (i: number): string[] => [...(i % 50 ? ['bug'] : []), ...(i % 6 === 0 ? ['ux'] : [])];

beforeAll(async () => {
  s = await TestService.start();
  const guest = await s.createUser();
  guestToken = guest.token;
  guestId = guest.user.id;
  writer = (await s.createUser()).user.id;
  group = (await s.createGroup({ visibility: 'private' })).id;
  await s.addMember('groups', group, guest.user.id, 10);
  for (const name of ['bug', 'ux']) ok(await s.post(`/groups/${group}/labels`, { name, color: '#428bca' }));
  const ctx = s.service.context;
  const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const { id, iid } = nextEpicIds(ctx, group);
      // updated_at back and forth, each on several epics.
      insert.run(id, group, iid, `Epic ${i}`, i % 4 === 0 ? 'closed' : 'opened', Number(i % 101 === 0), i % 9 === 0 ? writer : 1, JSON.stringify(labelsOf(i)), at(i), at(20_000 - ((i * 37) % 997)));
    }
  })();
}, 300_000);
afterAll(async () => s.stop());

/** The counters' rows (none at 0) and the same counted from the epics' own label lists (each title once per epic). */
function expectCountersExact(step: string): void {
  const counters = db().prepare('SELECT title, group_id, author, state, confidential, n FROM epic_label_counts WHERE n != 0 ORDER BY 1, 2, 3, 4, 5').all();
  const recount = db()
    .prepare(
      `SELECT j.value AS title, e.group_id, ifnull(e.author_id, 0) AS author, e.state, e.confidential, count(DISTINCT e.id) AS n
         FROM epics e, json_each(e.labels) j GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`,
    )
    .all();
  expect(counters, step).toEqual(recount);
}

/** The group's epics carrying `title` (exactly), in the state and confidentiality, as a Guest sees them or all, by updated_at desc then id. */
function truth(title: string, extra: string, guest: boolean): number[] {
  return (
    db()
      .prepare(
        `SELECT e.id FROM epics e WHERE e.group_id = ? AND EXISTS (SELECT 1 FROM json_each(e.labels) WHERE value = ?) ${extra}${guest ? ' AND e.confidential = 0' : ''}
           ORDER BY e.updated_at DESC, e.id DESC`,
      )
      .all(group, title) as { id: number }[]
  ).map((r) => r.id);
}

const CASES: { query: Record<string, string>; title: string; extra: string }[] = [
  { query: { labels: 'bug' }, title: 'bug', extra: '' },
  { query: { labels: 'bug', state: 'closed' }, title: 'bug', extra: "AND e.state = 'closed'" },
  { query: { labels: 'bug', confidential: 'false' }, title: 'bug', extra: 'AND e.confidential = 0' },
  { query: { labels: 'ux', state: 'opened' }, title: 'ux', extra: "AND e.state = 'opened'" },
];

/**
 * The list's `pages` (of 20, by updated_at) in that order, each body and its headers against `want`
 * (counted within 10,000 rows whatever the page, else uncounted); the page `unread` reads no page of epics.
 */
async function expectPages(what: string, query: Record<string, string>, token: string | undefined, want: number[], pages: number[], unread: number): Promise<void> {
  const last = Math.max(1, Math.ceil(want.length / 20));
  for (const page of pages) {
    const at = `${what}: ${JSON.stringify(query)} page ${page}${token ? ' as a Guest' : ''}`;
    let res!: Awaited<ReturnType<typeof s.get>>;
    const reads = await preparedBy(s, async () => {
      res = await s.get(`/groups/${group}/epics`, { token, query: { ...query, order_by: 'updated_at', per_page: '20', page: String(page) } });
    });
    expect((res.body as { id: number }[]).map((e) => e.id), at).toEqual(want.slice((page - 1) * 20, page * 20));
    expect(res.headers.get('x-page'), at).toBe(String(page));
    // A page past the end is out of range (Kaminari): no previous page.
    expect(res.headers.get('x-prev-page'), at).toBe(page > 1 && page <= last ? String(page - 1) : '');
    // GitLab counts the list (up to 10,001) whatever the page: a page past 10,000 of a shorter list is counted too.
    if (want.length <= 10_000) expectCounted(res, want.length, 20);
    else expectUncounted(res, page < last ? String(page + 1) : '');
    // No page of rows read there (a count, capped at 10,001, may be: GitLab counts that page too).
    if (page === unread) expect(reads.filter((sql) => /\bFROM epics e\b|\bFROM issuable_labels il\b/.test(sql) && !/\bcount\(/i.test(sql)), at).toEqual([]);
  }
}

/** The first page, the last and the one past it (of 20), against the records; past the end, no epic read. */
async function expectListEnds(step: string): Promise<void> {
  for (const c of CASES) {
    for (const token of [undefined, guestToken]) {
      const want = truth(c.title, c.extra, token !== undefined);
      const last = Math.max(1, Math.ceil(want.length / 20));
      // Past the end first: the other pages' reads would tell the list's end (its anchors).
      await expectPages(step, { ...c.query, state: c.query.state ?? 'all' }, token, want, [last + 1, 1, last], last > 1 ? last + 1 : 0);
    }
  }
}

describe('epic label counters after every kind of write', () => {
  it('equal the epics label lists, and count the lists they serve past 10,000 exactly', async () => {
    expect(truth('bug', '', false).length).toBeGreaterThan(10_000);
    expect(truth('bug', '', true).length).toBeGreaterThan(10_000);
    const iidOf = (sql: string): number => (db().prepare(`SELECT iid FROM epics WHERE group_id = ? AND ${sql} ORDER BY id LIMIT 1`).get(group) as { iid: number }).iid;
    const epic = (iid: number) => `/groups/${group}/epics/${iid}`;
    const steps: [string, () => Promise<unknown>][] = [
      ['as built', async () => undefined],
      ['label added', async () => ok(await s.put(epic(iidOf("labels = '[]'")), { add_labels: 'bug' }))],
      ['label removed', async () => ok(await s.put(epic(iidOf('labels = \'["bug","ux"]\'')), { remove_labels: 'bug' }))],
      ['labels replaced', async () => ok(await s.put(epic(iidOf('labels = \'["bug"]\' AND confidential = 1')), { labels: 'ux,fresh' }))],
      ['closed', async () => ok(await s.put(epic(iidOf("state = 'opened' AND labels = '[\"bug\",\"ux\"]'")), { state_event: 'close' }))],
      ['reopened', async () => ok(await s.put(epic(iidOf("state = 'closed' AND labels = '[\"bug\"]'")), { state_event: 'reopen' }))],
      ['made confidential', async () => ok(await s.put(epic(iidOf("confidential = 0 AND labels = '[\"bug\"]'")), { confidential: true }))],
      ['created', async () => ok(await s.post(`/groups/${group}/epics`, { title: 'New', labels: 'bug,ux' }))],
      ['deleted', async () => expect((await s.del(epic(iidOf("labels = '[\"bug\",\"ux\"]'")))).status).toBe(204)],
      ['label renamed', async () => ok(await s.put(`/groups/${group}/labels/ux`, { new_name: 'ux2' }))],
      ['label renamed back', async () => ok(await s.put(`/groups/${group}/labels/ux2`, { new_name: 'ux' }))],
      ['label deleted', async () => expect((await s.del(`/groups/${group}/labels/fresh`)).status).toBe(204)],
      ['author deleted', async () => expect((await s.del(`/users/${writer}`)).status).toBe(204)],
    ];
    for (const [step, write] of steps) {
      await write();
      expectCountersExact(step);
      await expectListEnds(step);
    }
  });

  it('bound the lists of label filters they do not count: a page past the bound and past 10,000 reads no page of epics', async () => {
    /** The group's epics as `where` says (alias e, `has(title)` for a title carried exactly), updated_at desc, and the counters' bound. */
    const cases: { query: Record<string, string>; where: string; bound: string }[] = [
      { query: { labels: 'Any' }, where: "e.labels != '[]'", bound: '1' },
      { query: { labels: 'Any', 'not[labels]': 'ux' }, where: "e.labels != '[]' AND NOT has('ux')", bound: "title != 'ux'" },
      { query: { labels: 'bug,ux' }, where: "has('bug') AND has('ux')", bound: "title = 'ux'" },
    ];
    const has = (sql: string): string => sql.replace(/has\('(\w+)'\)/g, "EXISTS (SELECT 1 FROM json_each(e.labels) WHERE value = '$1')");
    for (const c of cases) {
      for (const token of [undefined, guestToken]) {
        const view = token ? ' AND e.confidential = 0' : '';
        const want = (db().prepare(`SELECT e.id FROM epics e WHERE e.group_id = ? AND ${has(c.where)}${view} ORDER BY e.updated_at DESC, e.id DESC`).all(group) as { id: number }[]).map((r) => r.id);
        const bound = (db().prepare(`SELECT sum(n) AS n FROM epic_label_counts WHERE group_id = ? AND ${c.bound}${token ? ' AND confidential = 0' : ''}`).get(group) as { n: number }).n;
        const last = Math.max(1, Math.ceil(want.length / 20));
        // Past COUNT_LIMIT too (an offset of 10,000 is still counted).
        const past = Math.max(Math.ceil(bound / 20), 501) + 1;
        expect(past, JSON.stringify(c.query)).toBeGreaterThan(last + 1);
        // Past the bound first: the other pages' reads would tell the list's end (its anchors).
        await expectPages('as written', { ...c.query, state: 'all' }, token, want, [past, last + 1, 1, last], past);
      }
    }
  });

  it("count and bound a Guest's lists with the confidential epics the Guest wrote (the counters' author)", async () => {
    // Confidential epics carrying bug (and ux on some) written by the Guest, as a Planner once: the Guest sees them (the list's author condition).
    const mine = db().prepare("UPDATE epics SET author_id = ? WHERE group_id = ? AND confidential = 1 AND labels LIKE '%bug%'").run(guestId, group).changes;
    expect(mine).toBeGreaterThan(10);
    expectCountersExact('the Guest as author');
    const view = ' AND (e.confidential = 0 OR e.author_id = ?)';
    const seen = (where: string): number[] =>
      (db().prepare(`SELECT e.id FROM epics e WHERE e.group_id = ? AND ${where}${view} ORDER BY e.updated_at DESC, e.id DESC`).all(group, guestId) as { id: number }[]).map((r) => r.id);
    const has = (title: string): string => `EXISTS (SELECT 1 FROM json_each(e.labels) WHERE value = '${title}')`;
    for (const c of CASES) {
      const want = seen(`${has(c.title)} ${c.extra}`);
      expect(want.some((id) => (db().prepare('SELECT confidential FROM epics WHERE id = ?').get(id) as { confidential: number }).confidential === 1) || c.extra.includes('confidential = 0'), JSON.stringify(c.query)).toBe(true);
      const last = Math.max(1, Math.ceil(want.length / 20));
      await expectPages('the Guest as author', { ...c.query, state: c.query.state ?? 'all' }, guestToken, want, [last + 1, 1, last], last > 1 ? last + 1 : 0);
    }
    for (const [query, where] of [
      [{ labels: 'Any' }, "e.labels != '[]'"],
      [{ labels: 'Any', 'not[labels]': 'ux' }, `e.labels != '[]' AND NOT ${has('ux')}`],
      [{ labels: 'bug,ux' }, `${has('bug')} AND ${has('ux')}`],
    ] as [Record<string, string>, string][]) {
      const want = seen(where);
      const last = Math.max(1, Math.ceil(want.length / 20));
      await expectPages('the Guest as author', { ...query, state: 'all' }, guestToken, want, [1, last, last + 1, 502], 0);
    }
  });
});
