import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, type ApiResult } from '../helpers/service';
import { preparedBy } from '../helpers/lists';

/**
 * A search the trigram index answers (GET /projects, /groups/:id/projects and /users with a term
 * few records hold) reads the matching ids once in the list's order, then the page's rows by id:
 * every page, order, sort and viewer gets the rows, order and headers (X-Total, X-Total-Pages,
 * X-Page, X-Next-Page, X-Prev-Page, Link) the list's own SQL gives, ties in the order included.
 */
let s: TestService;
let group: number;
let outsider: { id: number; token: string };
const db = () => s.service.context.db;

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ path: 'wetland', visibility: 'public' })).id;
  const u = await s.createUser({ username: 'walker', name: 'Walker' });
  outsider = { id: u.user.id, token: u.token };
  for (let i = 0; i < 23; i++) {
    const visibility = i % 5 === 0 ? 'private' : 'public';
    const p = await s.createProject({
      name: i % 3 ? `Heron ${i}` : `bird ${i}`,
      description: i % 3 ? null : `a grey HERON, number ${i}`,
      visibility,
      ...(i % 2 ? { namespace_id: group } : {}),
    });
    if (i === 5) await s.addMember('projects', p.id, outsider.id, 30);
    if (i % 4 === 1) expect((await s.post(`/projects/${p.id}/star`, {})).status).toBe(201);
  }
  await s.createProject({ name: 'egret', visibility: 'public' });
  // Ties in the order: the id decides among them.
  db().prepare("UPDATE projects SET created_at = '2024-05-05T00:00:00.000Z', last_activity_at = '2024-05-05T00:00:00.000Z' WHERE name LIKE '%1%'").run();
  for (let i = 0; i < 14; i++) await s.createUser({ username: i % 2 ? `heronwatch${i}` : `walker${i}`, name: i % 2 ? `Walker ${i}` : `Heron Fan ${i}`, email: `hw${i}@example.org` });
});
afterAll(async () => s.stop());

/** What the list's SQL answers, straight from the tables: the ids in order. */
const expectedIds = (sql: string, ...args: unknown[]): number[] => (db().prepare(sql).all(...args) as { id: number }[]).map((r) => r.id);

/** Rows, order and every paging header of one page against the expected ids. */
function expectPage(res: ApiResult, all: number[], page: number, perPage: number, path: string): void {
  expect(res.status).toBe(200);
  expect(res.body.map((x: any) => x.id)).toEqual(all.slice((page - 1) * perPage, page * perPage));
  const pages = Math.max(1, Math.ceil(all.length / perPage));
  expect(res.headers.get('x-total')).toBe(String(all.length));
  expect(res.headers.get('x-total-pages')).toBe(String(pages));
  expect(res.headers.get('x-page')).toBe(String(page));
  expect(res.headers.get('x-per-page')).toBe(String(perPage));
  expect(res.headers.get('x-next-page')).toBe(page < pages ? String(page + 1) : '');
  // A page past the end is out of range (Kaminari): no previous page.
  expect(res.headers.get('x-prev-page')).toBe(page > 1 && page <= pages ? String(page - 1) : '');
  const link = res.headers.get('link')!;
  // The request's own parameters with page and per_page, sorted by name as Rails' to_query sorts them.
  const [pathname, query = ''] = path.split('?');
  const rel = (to: number, name: string) => {
    const params = [...new URLSearchParams(query), ['page', String(to)], ['per_page', String(perPage)]].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    return `<${s.service.url}/api/v4${pathname}?${params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}>; rel="${name}"`;
  };
  expect(link).toContain(rel(1, 'first'));
  expect(link).toContain(rel(pages, 'last'));
  if (page < pages) expect(link).toContain(rel(page + 1, 'next'));
  else expect(link).not.toContain('rel="next"');
}

const ORDERS: Record<string, string> = {
  created_at: 'p.created_at',
  id: 'p.id',
  name: 'p.name',
  path: 'p.path',
  last_activity_at: 'p.last_activity_at',
  star_count: '(SELECT count(*) FROM project_stars WHERE project_id = p.id)',
};
const HERON = "(p.name LIKE '%heron%' OR p.path LIKE '%heron%' OR p.description LIKE '%heron%')";
const seenBy = (viewer: 'admin' | 'outsider'): string =>
  viewer === 'admin' ? '1 = 1' : `(p.visibility IN ('public', 'internal') OR p.id IN (SELECT source_id FROM members WHERE source_type = 'Project' AND user_id = ${outsider.id}))`;

describe('search pages read by id', () => {
  it('GET /projects?search=: every page in every order and sort, for an administrator and an outsider', async () => {
    for (const viewer of ['admin', 'outsider'] as const) {
      for (const [orderBy, col] of Object.entries(ORDERS)) {
        for (const sort of ['asc', 'desc']) {
          const all = expectedIds(`SELECT p.id FROM projects p WHERE ${seenBy(viewer)} AND ${HERON} ORDER BY ${col} ${sort}, p.id ${sort}`);
          expect(all.length).toBeGreaterThan(10);
          for (const page of [1, 2, 3, 4]) {
            const path = `/projects?order_by=${orderBy}&search=heron&sort=${sort}`;
            const res = await s.get(`${path}&page=${page}&per_page=5`, { token: viewer === 'admin' ? undefined : outsider.token });
            expectPage(res, all, page, 5, path);
          }
        }
      }
    }
  });

  it("a group's projects and the default order", async () => {
    const all = expectedIds(`SELECT p.id FROM projects p WHERE p.namespace_id = ? AND ${HERON} ORDER BY p.created_at desc, p.id desc`, group);
    for (const page of [1, 2, 3]) expectPage(await s.get(`/groups/${group}/projects?search=HERON&page=${page}&per_page=3`), all, page, 3, `/groups/${group}/projects?search=HERON`);
  });

  it('GET /users?search=: username, name and a whole e-mail, every page and order', async () => {
    for (const [term, cond] of [
      ['heron', "(username LIKE '%heron%' OR name LIKE '%heron%')"],
      ['hw3@example.org', "lower(email) = 'hw3@example.org'"],
    ] as const) {
      for (const [orderBy, order] of [['id', 'id'], ['name', 'name'], ['username', 'username']]) {
        for (const sort of ['asc', 'desc']) {
          const all = expectedIds(`SELECT id FROM users WHERE ${cond} ORDER BY ${order} ${sort}${order === 'id' ? '' : `, id ${sort}`}`);
          expect(all.length).toBeGreaterThan(0);
          for (const page of [1, 2, 3]) {
            const path = `/users?order_by=${orderBy}&search=${encodeURIComponent(term)}&sort=${sort}`;
            expectPage(await s.get(`${path}&page=${page}&per_page=3`), all, page, 3, path);
          }
        }
      }
    }
  });

  it('reads the ids once, the page by id, and counts nothing more', async () => {
    const seen = await preparedBy(s, async () => {
      expect((await s.get('/projects?search=heron&per_page=2')).status).toBe(200);
      // A term no page read before: its ids are not kept yet (idsAtVersion).
      expect((await s.get('/users?search=walker&per_page=2')).status).toBe(200);
    });
    expect(seen.some((q) => /^SELECT p\.id AS id FROM projects p WHERE .* ORDER BY p\.created_at desc, p\.id desc LIMIT 10001$/s.test(q))).toBe(true);
    // The page's project rows come by id: from the rows kept by id (findProjectById's store, e9c59a1), or read by id.
    expect(seen.filter((q) => /^SELECT p\.\* FROM projects p WHERE (?!p\.id IN \(SELECT value FROM json_each\(\?\)\))/.test(q))).toEqual([]);
    expect(seen.some((q) => /^SELECT id AS id FROM users WHERE .* ORDER BY id desc LIMIT 10001$/s.test(q))).toBe(true);
    expect(seen.filter((q) => /count\(\*\) AS n FROM \(SELECT 1 FROM (projects|users)/.test(q))).toEqual([]);
  });

  it("keeps a users search's ids while no user is written (a write elsewhere reads none again), and follows a user written", async () => {
    const path = '/users?order_by=username&search=fan&sort=asc';
    const want = () => expectedIds("SELECT id FROM users WHERE (username LIKE '%fan%' OR name LIKE '%fan%') ORDER BY username asc, id asc");
    const idReads = (seen: string[]) => seen.filter((q) => /^SELECT id AS id FROM users WHERE .* LIMIT 10001$/s.test(q));
    const everyPage = async () => {
      const all = want();
      for (const page of [1, 2, 3, 4]) expectPage(await s.get(`${path}&page=${page}&per_page=2`), all, page, 2, path);
    };
    expect(idReads(await preparedBy(s, everyPage)).length).toBeGreaterThan(0);
    const project = (db().prepare('SELECT id FROM projects ORDER BY id LIMIT 1').get() as { id: number }).id;
    expect((await s.put(`/projects/${project}`, { description: 'a write to no user' })).status).toBe(200);
    expect(idReads(await preparedBy(s, everyPage))).toEqual([]);
    // Users renamed into and out of the search, in the API and in SQL: read again, as the table says.
    const plain = await s.createUser({ username: 'plainbird', name: 'Plain Bird' });
    expect((await s.put(`/users/${plain.user.id}`, { name: 'Aardvark Fan' })).status).toBe(200);
    expect(idReads(await preparedBy(s, everyPage)).length).toBeGreaterThan(0);
    db().prepare("UPDATE users SET name = 'Nobody' WHERE username = 'walker2'").run();
    await everyPage();
    expect(want()).toContain(plain.user.id);
  });
});
