import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * A group's epics by label titles one of which no epic of the group carries (in the state, as the
 * reader sees them: epics/007's counters by title) are empty without a read of an epic; titles
 * every one of which some epic carries answer as the epics' own label lists say (exact titles, as
 * epic label filters match), every page and header, for a Planner and a Guest; and a title put on
 * an epic shows it at once.
 */
let s: TestService;
let group: number;
let guestToken = '';
const N = 30;
const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
/** `bug` on every 2nd epic, `ux` on every 3rd (opened ones only), `secret` on confidential ones only. */
const labelsOf = (i: number): string[] => [...(i % 2 === 0 ? ['bug'] : []), ...(i % 3 === 0 && i % 4 !== 0 ? ['ux'] : []), ...(i % 5 === 0 ? ['secret'] : [])];

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
      insert.run(id, group, iid, `Epic ${i % 7}`, i % 4 === 0 ? 'closed' : 'opened', Number(i % 5 === 0), JSON.stringify(labelsOf(i)), at(i), at(100 - i));
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

/** The group's epics carrying every title (exactly) in the state, as a Guest sees them or all, by title then id. */
function truth(titles: string[], state: string | null, guest: boolean): number[] {
  const has = titles.map((t) => `EXISTS (SELECT 1 FROM json_each(e.labels) WHERE value = '${t}')`).join(' AND ');
  return (
    s.service.context.db
      .prepare(`SELECT e.id FROM epics e WHERE e.group_id = ? AND ${has}${state ? ` AND e.state = '${state}'` : ''}${guest ? ' AND e.confidential = 0' : ''} ORDER BY e.title ASC, e.id ASC`)
      .all(group) as { id: number }[]
  ).map((r) => r.id);
}

/** The group's epics carrying some label but none of `titles` (exactly), in the state, as a Guest sees them or all, by title then id. */
function anyBut(titles: string[], state: string | null, guest: boolean): number[] {
  const none = titles.map((t) => `NOT EXISTS (SELECT 1 FROM json_each(e.labels) WHERE value = '${t}')`).join(' AND ');
  return (
    s.service.context.db
      .prepare(`SELECT e.id FROM epics e WHERE e.group_id = ? AND e.labels != '[]' AND ${none}${state ? ` AND e.state = '${state}'` : ''}${guest ? ' AND e.confidential = 0' : ''} ORDER BY e.title ASC, e.id ASC`)
      .all(group) as { id: number }[]
  ).map((r) => r.id);
}

const listReads = async (query: Record<string, string>, token?: string): Promise<string[]> =>
  (await preparedBy(s, async () => void ok(await s.get(`/groups/${group}/epics`, { query, token })))).filter((sql) => /\bFROM epics e\b|\bFROM issuable_labels il\b/.test(sql));

describe('epics by a label title no epic of the group carries', () => {
  it('are empty without reading an epic; titles some epic carries answer its epics', async () => {
    const empty: [Record<string, string>, string?][] = [
      [{ labels: 'bug,nothing' }],
      [{ labels: 'nothing' }],
      [{ labels: 'bug,ux', state: 'closed' }],
      [{ labels: 'secret' }, guestToken],
      [{ labels: 'bug,secret' }, guestToken],
    ];
    for (const [labels, token] of empty) {
      const query = { ...labels, order_by: 'title', sort: 'asc' };
      await expectEveryPage(s, `/groups/${group}/epics`, query, [], 20, token);
      expect(await listReads(query, token), JSON.stringify(query)).toEqual([]);
    }
    const kept: [string[], string | null, boolean][] = [
      [['bug'], null, false],
      [['bug', 'ux'], null, false],
      [['bug', 'ux'], 'opened', false],
      [['secret'], null, false],
      [['bug', 'secret'], null, false],
      [['ux'], null, true],
    ];
    for (const [titles, state, guest] of kept) {
      const query = { labels: titles.join(','), ...(state ? { state } : {}), order_by: 'title', sort: 'asc' };
      const want = truth(titles, state, guest);
      expect(want.length, JSON.stringify(query)).toBeGreaterThan(0);
      await expectEveryPage(s, `/groups/${group}/epics`, query, want, 2, guest ? guestToken : undefined);
    }
  });

  it('shows an epic once it carries the title', async () => {
    const one = s.service.context.db.prepare("SELECT iid FROM epics WHERE group_id = ? AND labels = '[\"bug\"]' ORDER BY id LIMIT 1").get(group) as { iid: number };
    ok(await s.put(`/groups/${group}/epics/${one.iid}`, { add_labels: 'nothing' }));
    await expectEveryPage(s, `/groups/${group}/epics`, { labels: 'bug,nothing', order_by: 'title', sort: 'asc' }, truth(['bug', 'nothing'], null, false), 20);
    expect(truth(['bug', 'nothing'], null, false)).toHaveLength(1);
  });

  it('labels=Any with not[labels] whose titles every epic (so seen, so in the state) carries are empty without reading an epic', async () => {
    const cases: [string[], string | null, boolean, boolean][] = [
      // titles, state, as a Guest, empty
      [['bug', 'ux', 'secret', 'nothing'], null, false, true],
      [['bug', 'secret'], 'closed', false, true],
      [['bug', 'ux', 'nothing'], null, true, true],
      [['bug', 'ux'], null, false, false],
      [['bug'], null, true, false],
      [['bug'], 'opened', false, false],
      [['Bug', 'ux', 'secret'], null, false, false],
    ];
    for (const [titles, state, guest, empty] of cases) {
      const query = { labels: 'Any', 'not[labels]': titles.join(','), ...(state ? { state } : {}), order_by: 'title', sort: 'asc' };
      const token = guest ? guestToken : undefined;
      const want = anyBut(titles, state, guest);
      expect(want.length === 0, JSON.stringify(query)).toBe(empty);
      await expectEveryPage(s, `/groups/${group}/epics`, query, want, 2, token);
      if (empty) expect(await listReads(query, token), JSON.stringify(query)).toEqual([]);
    }
    // A closed epic whose labels become another title shows at once.
    const closed = s.service.context.db.prepare("SELECT iid FROM epics WHERE group_id = ? AND state = 'closed' ORDER BY id LIMIT 1").get(group) as { iid: number };
    ok(await s.put(`/groups/${group}/epics/${closed.iid}`, { labels: 'other' }));
    const query = { labels: 'Any', 'not[labels]': 'bug,secret', state: 'closed', order_by: 'title', sort: 'asc' };
    expect(anyBut(['bug', 'secret'], 'closed', false)).toHaveLength(1);
    await expectEveryPage(s, `/groups/${group}/epics`, query, anyBut(['bug', 'secret'], 'closed', false), 20);
  });
});
