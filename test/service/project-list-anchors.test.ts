import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, expectUncounted, pagedReads, preparedBy } from '../helpers/lists';

/**
 * An administrator's GET /projects (conditions on projects and namespaces only) anchors its deep
 * pages and remembers a count past 10,000 while core/099's versions of projects and namespaces
 * hold. Pinned: the rows, order and paging headers of every order's early and deep pages, and of
 * owned=true, against a fresh query of the table, after writes to projects (API and SQL) and to
 * namespaces (SQL: an owner changed), and the count as it crosses 10,000.
 */
let s: TestService;
let owner: number;
const db = () => s.service.context.db;
const PER_PAGE = 100;
const N = 10_040;

const ORDERS = [
  ['name', 'asc'],
  ['name', 'desc'],
  ['id', 'desc'],
  ['path', 'asc'],
  ['created_at', 'desc'],
  ['updated_at', 'asc'],
  ['last_activity_at', 'desc'],
] as const;

/** The projects' ids in the order, as the table says (`owned`: those in the administrator's personal namespace). */
function want(orderBy: string, sort: string, owned: boolean): number[] {
  const where = owned ? "WHERE namespace_id IN (SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = 1)" : '';
  return (db().prepare(`SELECT id FROM projects NOT INDEXED ${where} ORDER BY ${orderBy} ${sort}, id ${sort}`).all() as { id: number }[]).map((r) => r.id);
}

function expectPage(res: ApiResult, ids: number[], page: number): void {
  expect(res.status).toBe(200);
  expect({ page, ids: (res.body as { id: number }[]).map((p) => p.id) }).toEqual({ page, ids: ids.slice((page - 1) * PER_PAGE, page * PER_PAGE) });
  const next = page * PER_PAGE < ids.length ? String(page + 1) : '';
  if (ids.length > 10_000) expectUncounted(res, next);
  else {
    expectCounted(res, ids.length, PER_PAGE);
    expect(res.headers.get('x-next-page')).toBe(next);
  }
}

async function expectLists(pages: number[] = [1, 11, 12, 11, 60, 100, 101]): Promise<void> {
  for (const [orderBy, sort] of ORDERS) {
    const ids = want(orderBy, sort, false);
    for (const page of pages) expectPage(await s.get('/projects', { query: { order_by: orderBy, sort, per_page: String(PER_PAGE), page: String(page), simple: 'true' } }), ids, page);
  }
  const owned = want('created_at', 'desc', true);
  for (const page of [1, 12, 101, 12]) expectPage(await s.get('/projects', { query: { owned: 'true', per_page: String(PER_PAGE), page: String(page), simple: 'true' } }), owned, page);
}

beforeAll(async () => {
  s = await TestService.start();
  owner = (await s.createUser()).user.id;
  const first = (await s.createProject({ name: 'seed' })).id;
  const columns = (db().prepare("SELECT name FROM pragma_table_info('projects')").all() as { name: string }[])
    .map((c) => c.name)
    .filter((c) => !['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'].includes(c));
  // Names, paths and times in other orders than the ids, with ties among the times.
  db()
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO projects (name, path, created_at, updated_at, last_activity_at, ${columns.join(', ')})
       SELECT 'Project ' || ((i * 7919) % ${N}), 'p-' || ((i * 104729) % ${N}) || '-' || i,
         strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || (i % 997) || ' minutes'),
         strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || ((i * 31) % 1009) || ' minutes'),
         strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || (i % 13) || ' days'),
         ${columns.join(', ')}
       FROM n, (SELECT * FROM projects WHERE id = ?)`,
    )
    .run(N - 1, first);
}, 120_000);
afterAll(async () => s.stop());

describe("an administrator's projects, deep pages and a count past 10,000", () => {
  it('every order, early and deep pages, twice, with their headers', async () => {
    expect(want('id', 'asc', false).length).toBeGreaterThan(10_000);
    await expectLists();
  }, 120_000);

  it("the same after the personal namespace's owner changes in SQL", async () => {
    const personal = (db().prepare("SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = 1").get() as { id: number }).id;
    db().prepare('UPDATE namespaces SET owner_id = ? WHERE id = ?').run(owner, personal);
    await expectLists([1, 12]);
    db().prepare('UPDATE namespaces SET owner_id = 1 WHERE id = ?').run(personal);
    await expectLists([1, 12]);
  }, 120_000);
  it('the same after API and SQL writes to projects', async () => {
    const ids = want('name', 'asc', false);
    expect((await s.put(`/projects/${ids[1_150]}`, { name: 'Aardvark' })).status).toBe(200);
    db().prepare("UPDATE projects SET last_activity_at = '2030-01-01T00:00:00.000Z' WHERE id = ?").run(want('last_activity_at', 'desc', false)[1_120]);
    db().prepare("UPDATE projects SET path = 'a-first' WHERE id = ?").run(want('path', 'asc', false)[1_180]);
    await expectLists([11, 12, 101]);
    // Down to 10,000: counted again.
    const drop = want('id', 'desc', false).slice(0, want('id', 'desc', false).length - 10_000);
    db().prepare('DELETE FROM projects WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(drop));
    await expectLists([1, 11, 100]);
  }, 120_000);

  it('keeps anchors and the count across description and activity writes (core/130), and follows each write to a listed column', async () => {
    // Back past 10,000, in SQL.
    const seed = want('id', 'asc', false)[0];
    const copy = (n: number) =>
      db()
        .prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
           INSERT INTO projects (namespace_id, creator_id, name, path, description, visibility, archived, request_access_enabled, topics, settings, created_at, updated_at, last_activity_at)
           SELECT namespace_id, creator_id, 'Copy ' || i, 'copy-' || i || '-' || (SELECT count(*) FROM projects), description, visibility, archived, request_access_enabled, topics, settings,
             strftime('%Y-%m-%dT%H:%M:%fZ', '2024-02-01', '+' || i || ' minutes'), updated_at, last_activity_at FROM n, (SELECT * FROM projects WHERE id = ?)`,
        )
        .run(n, seed);
    copy(60);
    await expectLists([1, 60, 101]);
    const byName = want('name', 'asc', false);
    const deepByName = () => s.get('/projects', { query: { order_by: 'name', sort: 'asc', per_page: String(PER_PAGE), page: '101', simple: 'true' } });
    const owned = () => s.get('/projects', { query: { owned: 'true', per_page: String(PER_PAGE), simple: 'true' } });
    // Writes that move no listed column: the deep page starts at its anchor, owned=true counts nothing.
    expect((await s.put(`/projects/${byName[10]}`, { description: 'described again' })).status).toBe(200);
    db().prepare("UPDATE projects SET description = 'in SQL', updated_at = '2031-01-01T00:00:00.000Z', last_activity_at = '2031-01-01T00:00:00.000Z' WHERE id = ?").run(byName[5_000]);
    const reads = await pagedReads(s, async () => expectPage(await deepByName(), want('name', 'asc', false), 101));
    expect(reads.map((r) => r.args[r.args.length - 1])).toEqual([0]);
    expect((await preparedBy(s, async () => expectPage(await owned(), want('created_at', 'desc', true), 1))).filter((sql) => /count\(\*\).*\bFROM projects\b/i.test(sql))).toEqual([]);
    await expectLists([1, 12, 101]);
    // Each listed column written in SQL: the lists follow it.
    const writes: [string, unknown[]][] = [
      ['UPDATE projects SET name = ? WHERE id = ?', ['AAA first by name', byName[9_000]]],
      ['UPDATE projects SET path = ? WHERE id = ?', ['aaa-first-by-path', byName[8_000]]],
      ['UPDATE projects SET created_at = ? WHERE id = ?', ['2000-01-01T00:00:00.000Z', byName[7_000]]],
      ["UPDATE projects SET namespace_id = (SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = ?) WHERE id = ?", [owner, want('created_at', 'desc', true)[50]]],
      ['DELETE FROM projects WHERE id = ?', [byName[150]]],
    ];
    for (const [sql, args] of writes) {
      db().prepare(sql).run(...args);
      await expectLists([1, 2, 101]);
    }
    copy(3);
    await expectLists([1, 2, 101]);
  }, 240_000);

  it('a page past 10,000 rows of a shorter list reads no row while its count holds at the version, and answers as reading did', async () => {
    const archived = want('id', 'asc', false).filter((_, i) => i % 300 === 7);
    const archive = (ids: number[], to: number) => db().prepare(`UPDATE projects SET archived = ? WHERE id IN (${ids.join(', ')})`).run(to);
    archive(archived, 1);
    const deep = () => s.get('/projects', { query: { archived: 'true', per_page: String(PER_PAGE), page: '102', simple: 'true' } });
    const answer = (res: ApiResult) => [res.status, res.body, ...['x-total', 'x-total-pages', 'x-page', 'x-next-page', 'x-prev-page', 'link'].map((h) => res.headers.get(h))];
    for (let round = 0; round < 2; round++) {
      const read = answer(await deep());
      expect(read[1]).toEqual([]);
      // Asked again at the same version (and after a write to no listed column): the count read with it says the page is past the end.
      expect((await s.put(`/projects/${archived[0]}`, { description: `again ${round}` })).status).toBe(200);
      let again: unknown[] = [];
      expect(await pagedReads(s, async () => void (again = answer(await deep())))).toEqual([]);
      expect(again).toEqual(read);
      // Page 1 says how many there are.
      const ids = want('id', 'desc', false).filter((id) => (db().prepare('SELECT archived FROM projects WHERE id = ?').get(id) as { archived: number }).archived === 1);
      expectPage(await s.get('/projects', { query: { archived: 'true', order_by: 'id', per_page: String(PER_PAGE), simple: 'true' } }), ids, 1);
      // A listed column written: the version moves, the page is read again.
      archive([want('id', 'asc', false)[11]], 1);
    }
    archive(want('id', 'asc', false), 0);
  });

});
