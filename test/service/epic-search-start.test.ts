import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, expectUncounted, pagedReads } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * A group's epics by a search term the newest epics do not hold: page 1 remembers the list's
 * first epic (PageAnchors.startBound) while the group's epics stay unwritten, and early pages
 * start there instead of checking every newer epic again. Every page is compared with the list
 * the records say (rows, order, X-Total or its absence past 10,000, next page), asked again, for
 * a reader who sees confidential epics and a Guest who does not, through every kind of write.
 */
let s: TestService;
let group: number;
let guest: { user: any; token: string };
let project: number;
let touches = 0;

interface Seed {
  id: number;
  iid: number;
  title: string;
  description: string | null;
  confidential: boolean;
  createdAt: string;
  updatedAt: string;
}
let epics: Seed[] = [];
// The newest NEWEST epics hold neither term; of the others three in four hold "performance"
// (more than 10,000: the common-term path), one in eight "zq" (two characters: no trigram).
const N = 14_000;
const NEWEST = 600;
// Three epics share each created_at (ties broken by id); updated_at runs the other way.
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();
const updatedAt = (i: number): string => new Date(Date.UTC(2026, 0, 1) - Math.floor(i / 2) * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  guest = await s.createUser();
  group = (await s.createGroup({ visibility: 'private' })).id;
  await s.addMember('groups', group, guest.user.id, 10);
  project = (await s.createProject({ name: 'touched' })).id;
  const ctx = s.service.context;
  const insert = ctx.db.prepare(
    'INSERT INTO epics (id, group_id, iid, title, description, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)',
  );
  ctx.db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const { id, iid } = nextEpicIds(ctx, group);
      const old = i < N - NEWEST;
      const title = old && i % 4 === 0 ? `Performance ${i}` : old && i % 8 === 1 ? `Epic ${i} zq` : `Epic ${i}`;
      const description = old && (i % 4 === 1 || i % 4 === 2) ? `about PERFORMANCE ${i}` : null;
      const e = { id, iid, title, description, confidential: i % 10 === 5, createdAt: createdAt(i), updatedAt: updatedAt(i) };
      insert.run(id, group, iid, title, description, 'opened', Number(e.confidential), '[]', e.createdAt, e.updatedAt);
      epics.push(e);
    }
  })();
}, 180_000);
afterAll(async () => s.stop());

const reload = (): void => {
  epics = s.service.context.db
    .prepare('SELECT id, iid, title, description, confidential, created_at AS createdAt, updated_at AS updatedAt FROM epics WHERE group_id = ?')
    .all(group)
    .map((e: any) => ({ ...e, confidential: !!e.confidential }));
};

/** A write outside the group's epics: answers remembered until a write are read again. */
const touch = async (): Promise<void> => {
  expect((await s.put(`/projects/${project}`, { description: `touched ${++touches}` })).status).toBe(200);
};

type Query = { search: string; sort?: string; order_by?: string };
/** The list the records say. */
function expected(q: Query, seesConfidential: boolean): Seed[] {
  const column = q.order_by === 'updated_at' ? 'updatedAt' : q.order_by === 'title' ? 'title' : 'createdAt';
  const dir = q.sort === 'asc' ? 1 : -1;
  const term = q.search.toLowerCase();
  return epics
    .filter((e) => (seesConfidential || !e.confidential) && (e.title.toLowerCase().includes(term) || (e.description ?? '').toLowerCase().includes(term)))
    .sort((a, b) => (a[column] < b[column] ? -dir : a[column] > b[column] ? dir : (a.id - b.id) * dir));
}
const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);

async function check(q: Query, page: number, perPage: number, token?: string): Promise<void> {
  await touch();
  const res = await s.get(`/groups/${group}/epics`, { query: { ...q, page: String(page), per_page: String(perPage) }, token });
  const list = expected(q, token === undefined);
  expect(ids(res)).toEqual(list.slice((page - 1) * perPage, page * perPage).map((e) => e.id));
  if (list.length > 10_000) expectUncounted(res, String(page + 1));
  else expectCounted(res, list.length, perPage);
}

const queries: Query[] = [
  { search: 'performance' },
  { search: 'Performance', sort: 'asc' },
  { search: 'performance', order_by: 'updated_at' },
  { search: 'performance', order_by: 'title', sort: 'asc' },
  { search: 'zq' },
  { search: 'zq', order_by: 'updated_at', sort: 'asc' },
];

describe("a group's epics by a term the newest epics do not hold", () => {
  it('page 1 asked again, and every early page, is the slice the records say', async () => {
    expect(expected({ search: 'performance' }, true).length).toBeGreaterThan(10_000);
    for (const q of queries) {
      for (const token of [undefined, guest.token]) {
        for (const [page, perPage] of [
          [1, 20],
          [1, 20],
          [2, 20],
          [1, 100],
          [3, 100],
          [1, 20],
        ]) {
          await check(q, page, perPage, token);
        }
      }
    }
  });

  it('page 1 asked again starts at the first match instead of checking the newer epics again', async () => {
    const first = expected({ search: 'performance' }, true)[0];
    await check({ search: 'performance' }, 1, 20);
    const reads = await pagedReads(s, () => check({ search: 'performance' }, 1, 20));
    const page = reads.find((r) => r.sql.includes('FROM epics e'))!;
    expect(page.args).toContain(first.id);
    expect(page.args).toContain(first.createdAt);
  });

  it('follows every write to the group\'s epics: created, retitled, described, dated anew, made confidential, deleted', async () => {
    const db = s.service.context.db;
    const q = { search: 'performance' };
    const pages = async (): Promise<void> => {
      reload();
      for (const token of [undefined, guest.token]) for (const [page, perPage] of [[1, 20], [1, 20], [2, 20], [1, 100]]) await check(q, page, perPage, token);
    };
    await pages();
    // Through the API: a new epic holding the term (the newest), the first match retitled without it, another deleted.
    expect((await s.post(`/groups/${group}/epics`, { title: 'New performance work' })).status).toBe(201);
    await pages();
    let first = expected(q, true)[0];
    expect((await s.put(`/groups/${group}/epics/${first.iid}`, { title: 'Retitled' })).status).toBe(200);
    await pages();
    first = expected(q, true)[0];
    expect((await s.put(`/groups/${group}/epics/${first.iid}`, { description: 'nothing here' })).status).toBe(200);
    await pages();
    first = expected(q, true)[0];
    expect((await s.del(`/groups/${group}/epics/${first.iid}`)).status).toBe(204);
    await pages();
    // Directly: a newest epic described with the term, an old match dated newest, the first match made confidential.
    const newest = epics.filter((e) => !e.title.toLowerCase().includes('performance')).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))[5];
    db.prepare("UPDATE epics SET description = 'Performance, at last' WHERE id = ?").run(newest.id);
    await pages();
    const old = expected(q, true).at(-1)!;
    db.prepare("UPDATE epics SET created_at = '2030-01-01T00:00:00.000Z' WHERE id = ?").run(old.id);
    await pages();
    first = expected(q, true)[0];
    db.prepare('UPDATE epics SET confidential = 1 WHERE id = ?').run(first.id);
    await pages();
  });
});
