import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * A group's epics by `labels` and `not[labels]` that exclude each other (a title in both, the
 * same None or Any alone in both) are empty without a read of an epic; the pairs that do not
 * (another case of a title, None against Any, a title against None) answer as before. Pinned:
 * every page, order and header against the epics' own label lists (exact titles, as epic label
 * filters match), for a Planner and a Guest, in three orders, before and after writes.
 */
let s: TestService;
let group: number;
let guestToken = '';
const N = 40;
const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
/** `bug` on every 2nd epic, `Bug` on every 5th, `ux` on every 3rd; every 7th has none. */
const labelsOf = (i: number): string[] =>
  i % 7 === 0 ? [] : [...(i % 2 === 0 ? ['bug'] : []), ...(i % 5 === 0 ? ['Bug'] : []), ...(i % 3 === 0 ? ['ux'] : [])];

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
      insert.run(id, group, iid, `Epic ${i % 9}`, i % 4 === 0 ? 'closed' : 'opened', Number(i % 6 === 0), JSON.stringify(labelsOf(i)), at(Math.floor(i / 2)), at(300 - (i % 11)));
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

function truth(where: string, order: string, guest: boolean): number[] {
  return (
    s.service.context.db
      .prepare(`SELECT e.id FROM epics e WHERE e.group_id = ? AND ${where}${guest ? ' AND e.confidential = 0' : ''} ORDER BY ${order}`)
      .all(group) as { id: number }[]
  ).map((r) => r.id);
}
const has = (title: string): string => `EXISTS (SELECT 1 FROM json_each(e.labels) WHERE value = '${title}')`;

const EMPTY: Record<string, string>[] = [
  { labels: 'bug', 'not[labels]': 'bug' },
  { labels: 'bug,ux', 'not[labels]': 'ux' },
  { labels: 'ux', 'not[labels]': 'Bug,ux', state: 'opened' },
  { labels: 'None', 'not[labels]': 'None' },
  { labels: 'none', 'not[labels]': 'NONE' },
  { labels: 'Any', 'not[labels]': 'any' },
];
const KEPT: { query: Record<string, string>; where: string }[] = [
  { query: { labels: 'bug', 'not[labels]': 'Bug' }, where: `${has('bug')} AND NOT ${has('Bug')}` },
  { query: { labels: 'None', 'not[labels]': 'Any' }, where: "e.labels = '[]'" },
  { query: { labels: 'Any', 'not[labels]': 'None' }, where: "e.labels != '[]'" },
  { query: { labels: 'None', 'not[labels]': 'bug' }, where: "e.labels = '[]'" },
  { query: { labels: 'bug', 'not[labels]': 'None' }, where: has('bug') },
  { query: { labels: 'ux', 'not[labels]': 'bug' }, where: `${has('ux')} AND NOT ${has('bug')}` },
];
const ORDERS: { query: Record<string, string>; order: string }[] = [
  { query: {}, order: 'e.created_at DESC, e.id DESC' },
  { query: { order_by: 'title', sort: 'asc' }, order: 'e.title ASC, e.id ASC' },
  { query: { order_by: 'updated_at', sort: 'asc' }, order: 'e.updated_at ASC, e.id ASC' },
];

async function expectEveryCase(): Promise<void> {
  for (const o of ORDERS) {
    for (const q of EMPTY) {
      await expectEveryPage(s, `/groups/${group}/epics`, { ...q, ...o.query }, [], 4);
      await expectEveryPage(s, `/groups/${group}/epics`, { ...q, ...o.query }, [], 4, guestToken);
    }
    for (const c of KEPT) {
      const where = c.query.state ? `${c.where} AND e.state = '${c.query.state}'` : c.where;
      await expectEveryPage(s, `/groups/${group}/epics`, { ...c.query, ...o.query }, truth(where, o.order, false), 4);
      await expectEveryPage(s, `/groups/${group}/epics`, { ...c.query, ...o.query }, truth(where, o.order, true), 4, guestToken);
    }
  }
}

describe('group epics by labels and not[labels] that exclude each other', () => {
  it('every page, order and header as the epics say; after writes too', async () => {
    expect(truth(has('bug'), 'e.id', false).length).toBeGreaterThan(10);
    await expectEveryCase();
    const db = s.service.context.db;
    db.prepare(`UPDATE epics SET labels = '["bug","ux"]' WHERE id = (SELECT min(id) FROM epics WHERE group_id = ? AND labels = '[]')`).run(group);
    db.prepare(`UPDATE epics SET labels = '[]' WHERE id = (SELECT max(id) FROM epics WHERE group_id = ? AND labels != '[]')`).run(group);
    await expectEveryCase();
  }, 120_000);

  it('the excluding pairs read no epic and no label row', async () => {
    for (const q of EMPTY) {
      const prepared = await preparedBy(s, async () => void (await s.get(`/groups/${group}/epics`, { query: { ...q, order_by: 'title', page: '50' } })));
      expect(prepared.filter((sql) => /FROM epics e (?!WHERE 0)|issuable_labels/.test(sql)), JSON.stringify(q)).toEqual([]);
    }
  });
});
