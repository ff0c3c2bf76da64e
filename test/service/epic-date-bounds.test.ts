import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * A group's epics with a date bound (created_after/before, updated_after/before) that every epic of
 * its groups meets, or none does (core/date-bounds.ts): the same epics, pages and headers as the
 * records say, the list read as without the bound (a bound every epic met sent a rare author's list
 * through a walk of every epic of the group: a million at scale, 250 ms for none); one no epic meets
 * reads no page. A subgroup's older epic keeps a bound its group's epics all meet.
 */
let s: TestService;
let group: number;
let subgroup: number;

interface Seed {
  id: number;
  groupId: number;
  authorId: number;
  closed: boolean;
  createdAt: string;
  updatedAt: string;
}
const epics: Seed[] = [];
const hour = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  const author = (await s.createUser()).user.id as number;
  group = (await s.createGroup()).id;
  subgroup = (await s.createGroup({ parent_id: group })).id;
  const ctx = s.service.context;
  const insert = ctx.db.prepare('INSERT INTO epics (id, group_id, iid, title, state, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const seed = (groupId: number, i: number, createdAt: string, updatedAt: string) => {
    const { id, iid } = nextEpicIds(ctx, groupId);
    const e = { id, groupId, authorId: i % 7 === 3 ? author : 1, closed: i % 10 === 0, createdAt, updatedAt };
    insert.run(id, groupId, iid, `Epic ${i}`, e.closed ? 'closed' : 'opened', e.authorId, '[]', createdAt, updatedAt);
    epics.push(e);
  };
  ctx.db.transaction(() => {
    for (let i = 0; i < 120; i++) seed(group, i, hour(i), hour(i + (i % 13)));
    // The subgroup's one epic, from 2019.
    seed(subgroup, 999, '2019-06-01T00:00:00.000Z', '2019-06-02T00:00:00.000Z');
  })();
}, 60_000);
afterAll(async () => s?.stop());

type Query = Record<string, string>;

/** The epics a query lists, newest created first, from the records. */
function expected(q: Query): number[] {
  return epics
    .filter(
      (e) =>
        (q.include_descendant_groups !== 'false' || e.groupId === group) &&
        (!q.author_id || e.authorId === Number(q.author_id)) &&
        (!q.state || q.state === 'all' || (q.state === 'closed') === e.closed) &&
        (!q.created_after || e.createdAt >= q.created_after) &&
        (!q.created_before || e.createdAt <= q.created_before) &&
        (!q.updated_after || e.updatedAt >= q.updated_after) &&
        (!q.updated_before || e.updatedAt <= q.updated_before),
    )
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id))
    .map((e) => e.id);
}

/** The SQL of the page reads a request made. */
async function readsOf(q: Query): Promise<string[]> {
  return (await pagedReads(s, async () => void (await s.get(`/groups/${group}/epics`, { query: { ...q, per_page: '20', page: '2' } })))).map((r) => r.sql);
}

const author = (): string => String(epics.find((e) => e.authorId !== 1)!.authorId);

describe('epic date bounds every epic meets, or none does', () => {
  it('a bound every epic of the groups meets: the same epics, read as the list without it', async () => {
    const everyEpic = { created_after: '2019-01-01T00:00:00.000Z', updated_before: '2030-01-01T00:00:00.000Z' };
    for (const base of [{}, { author_id: author() }, { state: 'closed' }, { include_descendant_groups: 'false' }] as Query[]) {
      for (const bound of [{ created_after: everyEpic.created_after }, { updated_before: everyEpic.updated_before }, everyEpic] as Query[]) {
        const q = { ...base, ...bound };
        await expectEveryPage(s, `/groups/${group}/epics`, q, expected(q), 20);
        expect(await readsOf(q), JSON.stringify(q)).toEqual(await readsOf(base));
      }
    }
  });

  it('a bound only the subgroup\'s epic fails is kept where the subgroup is in the list', async () => {
    const q = { created_after: '2020-01-01T00:00:00.000Z' };
    expect(expected(q)).toHaveLength(120);
    await expectEveryPage(s, `/groups/${group}/epics`, q, expected(q), 20);
    expect((await readsOf(q)).join('\n')).toContain('e.created_at >= ?');
    // Without the subgroup every epic meets it.
    const own = { ...q, include_descendant_groups: 'false' };
    await expectEveryPage(s, `/groups/${group}/epics`, own, expected(own), 20);
    expect((await readsOf(own)).join('\n')).not.toContain('e.created_at >= ?');
  });

  it('a bound some epics fail filters them', async () => {
    for (const q of [{ created_after: hour(50) }, { updated_before: hour(70) }, { author_id: author(), updated_after: hour(30), created_before: hour(100) }] as Query[]) {
      expect(expected(q).length).toBeGreaterThan(0);
      await expectEveryPage(s, `/groups/${group}/epics`, q, expected(q), 20);
    }
  });

  it('a bound no epic meets empties the list without reading or counting it', async () => {
    for (const q of [{ created_after: '2030-01-01T00:00:00.000Z' }, { updated_before: '2018-01-01T00:00:00.000Z' }, { author_id: author(), created_before: '2018-01-01T00:00:00.000Z' }] as Query[]) {
      await expectEveryPage(s, `/groups/${group}/epics`, q, [], 20);
      // Neither a page nor a count: nothing reads the epics but the bound's probes of the date index.
      const read = await preparedBy(s, async () => void (await s.get(`/groups/${group}/epics`, { query: q })));
      expect(read.filter((sql) => /\bFROM epics\b/.test(sql) && !/INDEXED BY epics_group_(created|updated) WHERE group_id IN/.test(sql)), JSON.stringify(q)).toEqual([]);
    }
  });
});
