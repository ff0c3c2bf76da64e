import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, expectUncounted, pagedReads, preparedBy } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * A group's epics by a search term the newest epics do not hold: page 1 remembers the list's
 * first epic (PageAnchors.startBound), early pages start there instead of checking every newer
 * epic again, and a write moves it to the written epic when that now comes first (epics/011's log). Every page is compared with the list
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

  it('after a write, page 1 starts at the written epic that now comes first, or where it started before', async () => {
    const db = s.service.context.db;
    const q = { search: 'performance' };
    const firstRead = async (): Promise<unknown[]> => {
      await touch();
      const reads = await pagedReads(s, async () => void (await s.get(`/groups/${group}/epics`, { query: q })));
      return reads.find((r) => r.sql.includes('FROM epics e'))!.args;
    };
    reload();
    await check(q, 1, 20);
    // A write that leaves the list's first epic first: the first read after it starts there.
    const plain = epics.find((e) => !e.title.includes('erformance') && !e.description)!;
    expect((await s.put(`/groups/${group}/epics/${plain.iid}`, { title: `${plain.title} again` })).status).toBe(200);
    reload();
    expect(await firstRead()).toContain(expected(q, true)[0].id);
    await check(q, 1, 20);
    // A new epic holding the term comes first: the first read after it starts at it.
    const created = await s.post(`/groups/${group}/epics`, { title: 'Performance first' });
    expect(created.status).toBe(201);
    reload();
    expect(expected(q, true)[0].id).toBe(created.body.id);
    expect(await firstRead()).toContain(created.body.id);
    await check(q, 1, 20);
    await check(q, 1, 20, guest.token);
    // An epic of another group holding the term, dated newest, moved into this one (direct SQL).
    const other = (await s.createGroup({ visibility: 'private' })).id;
    const moved = await s.post(`/groups/${other}/epics`, { title: 'Moved performance' });
    db.prepare("UPDATE epics SET group_id = ?, iid = 900000, created_at = '2031-01-01T00:00:00.000Z' WHERE id = ?").run(group, moved.body.id);
    reload();
    expect(expected(q, true)[0].id).toBe(moved.body.id);
    expect(await firstRead()).toContain(moved.body.id);
    await check(q, 1, 20);
    await check(q, 2, 20, guest.token);
  });

  it('past the writes the log keeps (the last 1,000 of the instance), page 1 walks again', async () => {
    const db = s.service.context.db;
    const q = { search: 'performance' };
    reload();
    await check(q, 1, 20);
    const plain = epics.filter((e) => !e.title.toLowerCase().includes('performance') && !(e.description ?? '').toLowerCase().includes('performance'));
    const touchPlain = db.prepare("UPDATE epics SET description = 'still nothing' WHERE id = ?");
    db.transaction(() => {
      // The first of 1,001 writes puts the term into the newest epic; the log keeps the other 1,000.
      db.prepare("UPDATE epics SET description = 'performance, newest' WHERE id = ?").run([...plain].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))[0].id);
      for (const e of plain.slice(-1_000)) touchPlain.run(e.id);
    })();
    reload();
    for (const token of [undefined, guest.token]) {
      await check(q, 1, 20, token);
      await check(q, 1, 20, token);
      await check(q, 2, 20, token);
    }
    // One write here, then 1,000 to another group's epics push it out of the log.
    const other = (await s.createGroup({ visibility: 'private' })).id;
    const elsewhere = await s.post(`/groups/${other}/epics`, { title: 'elsewhere' });
    const rest = plain.filter((e) => !(e.description ?? '').includes('performance')).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    db.transaction(() => {
      db.prepare("UPDATE epics SET title = 'Performance at the top', created_at = '2032-01-01T00:00:00.000Z' WHERE id = ?").run(rest[0].id);
      const retitle = db.prepare('UPDATE epics SET title = ? WHERE id = ?');
      for (let i = 0; i < 1_000; i++) retitle.run(`elsewhere ${i}`, elsewhere.body.id);
    })();
    reload();
    expect(expected(q, true)[0].id).toBe(rest[0].id);
    await check(q, 1, 20);
    await check(q, 1, 20, guest.token);
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

describe("a group's epics by a rare term", () => {
  it('read its candidates from the index once, kept through writes elsewhere, read again after a write to an epic; rows as the records say', async () => {
    const db = s.service.context.db;
    const q = { search: 'performance 12' };
    const fullText = async (token?: string): Promise<number> => {
      reload();
      const list = expected(q, token === undefined);
      expect(list.length).toBeGreaterThan(5);
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await s.get(`/groups/${group}/epics`, { query: { ...q, per_page: '5', page: '2' }, token });
      });
      expect(ids(res)).toEqual(list.slice(5, 10).map((e) => e.id));
      expectCounted(res, list.length, 5);
      return reads.filter((sql) => sql.includes('epics_search MATCH')).length;
    };
    await touch();
    expect(await fullText()).toBe(1);
    // A write elsewhere (a project's description): the candidates kept, for any reader.
    await touch();
    expect(await fullText()).toBe(0);
    expect(await fullText(guest.token)).toBe(0);
    // A write to an epic, through the API and directly: read again, the new match listed.
    expect((await s.post(`/groups/${group}/epics`, { title: 'Performance 12 anew' })).status).toBe(201);
    expect(await fullText()).toBe(1);
    const some = expected(q, true)[3];
    db.prepare("UPDATE epics SET title = 'Renamed' WHERE id = ?").run(some.id);
    expect(await fullText()).toBe(1);
    expect(await fullText(guest.token)).toBe(0);
  });
});

it('epics/011 logs the writes of a data dir written before it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-epic-writes-'));
  try {
    const file = join(dir, 'sandlab.db');
    const before = openBefore(file, 'epics/011_list_writes');
    const insert = before.prepare("INSERT INTO epics (group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, 'E', 'opened', 0, 1, '[]', ?, ?)");
    const id = Number(insert.run(5, 1, '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:00.000Z').lastInsertRowid);
    before.close();
    const after = openToday(file);
    after.pragma('foreign_keys = OFF');
    expect(after.prepare('SELECT count(*) AS n FROM epic_list_writes').get()).toEqual({ n: 0 });
    after.prepare("UPDATE epics SET title = 'F' WHERE id = ?").run(id);
    after.prepare('UPDATE epics SET group_id = 6 WHERE id = ?').run(id);
    after.prepare('DELETE FROM epics WHERE id = ?').run(id);
    expect(after.prepare('SELECT group_id, epic_id FROM epic_list_writes ORDER BY seq').all()).toEqual([
      { group_id: 5, epic_id: id },
      { group_id: 6, epic_id: id },
      { group_id: 5, epic_id: id },
      { group_id: 6, epic_id: id },
    ]);
    // Each write moved the list versions as many times as it logged rows.
    expect(after.prepare('SELECT sum(version) AS v FROM epic_list_versions').get()).toEqual({ v: 5 });
    after.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
