import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * A group's epics filtered by confidentiality (with an author, a state, or neither) are counted
 * from epics/007's counters, which keep confidentiality: an author with no confidential epics has
 * an empty list read from them, not found empty by walking every epic of the group in date order
 * (le17: a million epics, author_id=3&confidential=true by updated_at, 208 ms for no row). Every
 * page and its headers against the records, for an Owner, a Guest and a Guest who wrote some of
 * the confidential epics (each sees the confidential epics they may), before and after writes.
 */
let s: TestService;
let group: number;
let guest: { user: any; token: string };
let writer: { user: any; token: string };
let other: { user: any; token: string };

interface Seed {
  id: number;
  iid: number;
  author: number;
  state: string;
  confidential: boolean;
  createdAt: string;
  updatedAt: string;
}
let epics: Seed[] = [];
const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  guest = await s.createUser();
  writer = await s.createUser();
  other = await s.createUser();
  group = (await s.createGroup({ visibility: 'private' })).id;
  for (const u of [guest, writer, other]) await s.addMember('groups', group, u.user.id, 10);
  const ctx = s.service.context;
  const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  ctx.db.transaction(() => {
    for (let i = 0; i < 90; i++) {
      // The writer's every third epic confidential; the other author's never; root's every fifth.
      const author = i % 3 === 0 ? writer.user.id : i % 3 === 1 ? other.user.id : 1;
      const confidential = author === writer.user.id ? i % 9 === 0 : author === 1 ? i % 5 === 2 : false;
      const { id, iid } = nextEpicIds(ctx, group);
      // Updated out of creation order, so the two orders differ.
      const e = { id, iid, author, state: i % 4 === 0 ? 'closed' : 'opened', confidential, createdAt: at(i), updatedAt: at(200 - ((i * 37) % 90)) };
      insert.run(id, group, iid, `Epic ${i}`, e.state, Number(confidential), author, '[]', e.createdAt, e.updatedAt);
      epics.push(e);
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

type Query = { author_id?: string; confidential?: string; state?: string; order_by?: string; sort?: string };

function expected(q: Query, reader: number | null): number[] {
  const column = q.order_by === 'updated_at' ? 'updatedAt' : 'createdAt';
  const asc = q.sort === 'asc' ? 1 : -1;
  return epics
    .filter(
      (e) =>
        (reader === null || !e.confidential || e.author === reader) &&
        (q.author_id === undefined || e.author === Number(q.author_id)) &&
        (q.confidential === undefined || e.confidential === (q.confidential === 'true')) &&
        (!q.state || q.state === 'all' || e.state === q.state),
    )
    .sort((a, b) => (a[column] < b[column] ? -asc : a[column] > b[column] ? asc : asc * (a.id - b.id)))
    .map((e) => e.id);
}

async function checkAll(): Promise<void> {
  const readers = [
    [undefined, null],
    [guest.token, guest.user.id],
    [writer.token, writer.user.id],
  ] as const;
  for (const [token, reader] of readers) {
    for (const author_id of [undefined, String(writer.user.id), String(other.user.id), '1']) {
      for (const confidential of ['true', 'false']) {
        for (const state of [undefined, 'opened', 'closed']) {
          for (const [order_by, sort] of [
            ['updated_at', 'desc'],
            ['updated_at', 'asc'],
            ['created_at', 'desc'],
          ]) {
            const q: Query = { confidential, order_by, sort };
            if (author_id !== undefined) q.author_id = author_id;
            if (state !== undefined) q.state = state;
            await expectEveryPage(s, `/groups/${group}/epics`, q as Record<string, string>, expected(q, reader), 7, token);
          }
        }
      }
    }
  }
}

describe('group epics filtered by confidentiality', () => {
  it('answer every page and header as the records say, for each reader', async () => {
    expect(expected({ author_id: String(other.user.id), confidential: 'true' }, null)).toEqual([]);
    expect(expected({ author_id: String(writer.user.id), confidential: 'true' }, guest.user.id)).toEqual([]);
    expect(expected({ author_id: String(writer.user.id), confidential: 'true' }, writer.user.id).length).toBeGreaterThan(0);
    await checkAll();
  }, 120_000);

  it('read no page of an author with no confidential epics (the counters say none)', async () => {
    for (const order_by of ['updated_at', 'created_at']) {
      const reads = await pagedReads(s, async () => {
        const res = await s.get(`/groups/${group}/epics`, { query: { author_id: String(other.user.id), confidential: 'true', order_by, state: 'opened' } });
        expect(res.body).toEqual([]);
        expect(res.headers.get('x-total')).toBe('0');
      });
      expect(reads).toEqual([]);
    }
  });

  it('are empty without a read for an author of none of the epics, whatever else filters them (a common term, a deep page)', async () => {
    const nobody = await s.createUser();
    await s.addMember('groups', group, nobody.user.id, 10);
    const path = `/groups/${group}/epics`;
    for (const [token, q] of [
      [undefined, { author_id: String(nobody.user.id), search: 'Epic', order_by: 'updated_at', sort: 'asc', confidential: 'false' }],
      [guest.token, { author_username: nobody.user.username, search: 'Epic', state: 'opened' }],
      [undefined, { author_id: String(nobody.user.id), order_by: 'title' }],
    ] as const) {
      const query = q as Record<string, string>;
      const reads = await pagedReads(s, async () => {
        await expectEveryPage(s, path, query, [], 20, token);
        // Past 10,000 too: counted (none), as GitLab counts the list whatever the page; no next or previous page.
        const deep = await s.get(path, { token, query: { ...query, per_page: '20', page: '2500' } });
        expect(deep.body).toEqual([]);
        expect([deep.headers.get('x-total'), deep.headers.get('x-total-pages'), deep.headers.get('x-next-page'), deep.headers.get('x-prev-page')]).toEqual(['0', '1', '', '']);
      });
      expect(reads).toEqual([]);
    }
    // An author of some epics, none with the term: the same answers, read.
    const q = { author_id: String(other.user.id), search: 'no such words', order_by: 'updated_at' };
    await expectEveryPage(s, path, q, [], 20);
    const deep = await s.get(path, { query: { ...q, per_page: '20', page: '2500' } });
    expect([deep.headers.get('x-total'), deep.headers.get('x-total-pages'), deep.headers.get('x-next-page'), deep.headers.get('x-prev-page')]).toEqual(['0', '1', '', '']);
  });

  it('follow confidentiality, state and author changes', async () => {
    const db = s.service.context.db;
    const some = epics.filter((e) => e.author === other.user.id).slice(0, 3);
    expect((await s.put(`/groups/${group}/epics/${some[0].iid}`, { confidential: true })).status).toBe(200);
    expect((await s.put(`/groups/${group}/epics/${some[1].iid}`, { state_event: 'close', confidential: true })).status).toBe(200);
    db.prepare('UPDATE epics SET author_id = ? WHERE id = ?').run(writer.user.id, some[2].id);
    const conf = epics.find((e) => e.author === writer.user.id && e.confidential)!;
    expect((await s.put(`/groups/${group}/epics/${conf.iid}`, { confidential: false })).status).toBe(200);
    epics = (
      db.prepare('SELECT id, iid, author_id AS author, state, confidential, created_at AS createdAt, updated_at AS updatedAt FROM epics WHERE group_id = ?').all(group) as any[]
    ).map((e) => ({ ...e, confidential: !!e.confidential }));
    expect(expected({ author_id: String(other.user.id), confidential: 'true' }, null).length).toBe(2);
    await checkAll();
  }, 120_000);
});
