import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { visibleProjectsSql } from '../../src/main/service/areas/core/access';

/**
 * The instance lists (/projects, /users, /groups) with filters: each list writes its conditions
 * twice (ListWhere), is counted through the form an index of the condition may serve and reads a
 * page either by walking the order's index (conditions as `+column`) or by sorting the few matches
 * (SqlList.narrow). Whichever way a page is read, every page must hold the rows, order and headers
 * of a fresh query; plans are pinned where the choice matters (no planner statistics: a plan seen
 * here is the plan at scale).
 */
let s: TestService;
let owner: { user: any; token: string };
let outsider: { user: any; token: string };
const db = () => s.service.context.db;
const ROOT_PROJECTS = 36;

beforeAll(async () => {
  s = await TestService.start();
  owner = await s.createUser({ username: 'heron' });
  outsider = await s.createUser({ username: 'egret' });
  // Half of them public, a quarter each private and internal.
  const visibilities = ['private', 'public', 'internal', 'public'];
  for (let i = 0; i < ROOT_PROJECTS; i++) {
    const p = await s.createProject({ name: `Reed ${String((i * 7) % ROOT_PROJECTS).padStart(2, '0')}`, path: `reed-${i}`, visibility: visibilities[i % 4] });
    if (i % 4 === 0) await s.post(`/projects/${p.id}/archive`);
  }
  for (let i = 0; i < 3; i++) await s.createProject({ name: `Heron ${i}`, path: `heron-${i}`, visibility: 'internal' }, owner.token);
  // created_at runs against id order: the default order is not met by reading ids.
  db().prepare("UPDATE projects SET created_at = strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || ((id * 37) % 101) || ' minutes')").run();
  const groups: number[] = [];
  for (let i = 0; i < 14; i++) groups.push((await s.createGroup({ name: `Marsh ${String((i * 5) % 14).padStart(2, '0')}`, path: `marsh-${i}`, visibility: i % 2 ? 'public' : 'private' })).id);
  for (let i = 0; i < 6; i++) await s.createGroup({ name: `Pool ${i}`, path: `pool-${i}`, parent_id: groups[i % 3], visibility: 'private' });
  for (let i = 0; i < 12; i++) {
    const u = await s.createUser({ username: `wader${i}`, name: `Wader ${(i * 5) % 12}` });
    if (i % 3 === 0) await s.post(`/users/${u.user.id}/block`);
  }
});
afterAll(async () => s.stop());

const ids = (sql: string, ...args: unknown[]): number[] => (db().prepare(sql).all(...args) as { id: number }[]).map((r) => r.id);

/** Every page of `path` (per_page 4, one past the end), each against `all` in order with its headers. */
async function expectEveryPage(path: string, all: number[], token?: string | null): Promise<void> {
  const perPage = 4;
  const pages = Math.max(1, Math.ceil(all.length / perPage));
  for (let page = 1; page <= pages + 1; page++) {
    const res = await s.get(`${path}${path.includes('?') ? '&' : '?'}per_page=${perPage}&page=${page}`, { token });
    expectPage(res, all, page, perPage, `${path} page ${page}`);
  }
}

function expectPage(res: ApiResult, all: number[], page: number, perPage: number, what: string): void {
  expect(res.status, what).toBe(200);
  expect(res.body.map((x: any) => x.id), what).toEqual(all.slice((page - 1) * perPage, page * perPage));
  const pages = Math.max(1, Math.ceil(all.length / perPage));
  expect(res.headers.get('x-total'), what).toBe(String(all.length));
  expect(res.headers.get('x-total-pages'), what).toBe(String(pages));
  expect(res.headers.get('x-page'), what).toBe(String(page));
  expect(res.headers.get('x-next-page'), what).toBe(page < pages ? String(page + 1) : '');
  // A page past the end is out of range (Kaminari): no previous page.
  expect(res.headers.get('x-prev-page'), what).toBe(page > 1 && page <= pages ? String(page - 1) : '');
  const link = res.headers.get('link')!;
  const rel = (to: number, name: string) => new RegExp(`<[^>]*[?&]page=${to}&per_page=${perPage}[^>]*>; rel="${name}"`);
  expect(link, what).toMatch(rel(1, 'first'));
  expect(link, what).toMatch(rel(pages, 'last'));
  if (page < pages) expect(link, what).toMatch(rel(page + 1, 'next'));
  else expect(link, what).not.toContain('rel="next"');
}

const plan = (sql: string, args: unknown[]): string => queryPlan(db(), sql, ...args);

describe('instance lists with filters', () => {
  it('/projects: owned, visibility, archived, starred and orders, every page as a fresh query gives', async () => {
    const ownedByRoot = "namespace_id IN (SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = 1)";
    await s.post(`/projects/${ids(`SELECT id FROM projects WHERE ${ownedByRoot} ORDER BY id LIMIT 1 OFFSET 5`)[0]}/star`);
    const cases: [string, string, string][] = [
      ['/projects?owned=true', ownedByRoot, 'created_at DESC, id DESC'],
      ['/projects?owned=true&order_by=name&sort=asc', ownedByRoot, 'name ASC, id ASC'],
      ['/projects?owned=true&order_by=id', ownedByRoot, 'id DESC'],
      ['/projects?visibility=public', "visibility = 'public'", 'created_at DESC, id DESC'],
      ['/projects?visibility=private&order_by=path&sort=asc', "visibility = 'private'", 'path ASC, id ASC'],
      ['/projects?archived=false', 'archived = 0', 'created_at DESC, id DESC'],
      ['/projects?archived=true&order_by=name', 'archived = 1', 'name DESC, id DESC'],
      ['/projects?archived=false&visibility=internal&owned=true', `archived = 0 AND visibility = 'internal' AND ${ownedByRoot}`, 'created_at DESC, id DESC'],
      ['/projects?starred=true', 'id IN (SELECT project_id FROM project_stars WHERE user_id = 1)', 'created_at DESC, id DESC'],
      ['/users/1/projects?order_by=name', ownedByRoot, 'name DESC, id DESC'],
      [`/users/${owner.user.id}/projects`, `namespace_id IN (SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = ${owner.user.id})`, 'created_at DESC, id DESC'],
    ];
    for (const [path, where, order] of cases) {
      const all = ids(`SELECT id FROM projects WHERE ${where} ORDER BY ${order}`);
      expect(all.length, path).toBeGreaterThan(0);
      await expectEveryPage(path, all);
    }
    // As the owner (few projects of the instance: sorted) and anonymously.
    await expectEveryPage('/projects?owned=true', ids(`SELECT id FROM projects WHERE namespace_id IN (SELECT id FROM namespaces WHERE owner_id = ?) ORDER BY created_at DESC, id DESC`, owner.user.id), owner.token);
    await expectEveryPage('/projects?archived=false&order_by=name&sort=asc', ids("SELECT id FROM projects WHERE visibility = 'public' AND archived = 0 ORDER BY name, id"), null);
    await expectEveryPage('/projects', ids("SELECT id FROM projects WHERE visibility = 'public' ORDER BY created_at DESC, id DESC"), null);
    // An outsider sees public and internal projects.
    await expectEveryPage('/projects?visibility=internal', ids("SELECT id FROM projects WHERE visibility = 'internal' ORDER BY created_at DESC, id DESC"), outsider.token);
  });

  it('/projects?owned=true walks the order index when most projects match, and sorts the few when few do', async () => {
    const many = await pagedReads(s, async () => void (await s.get('/projects?owned=true&per_page=4&page=2')));
    const walked = many.find((r) => /FROM projects p WHERE/.test(r.sql))!;
    expect(walked.sql).toContain('+p.namespace_id');
    const walkPlan = plan(walked.sql, walked.args);
    expect(walkPlan).toContain('projects_created');
    expect(walkPlan).not.toContain('TEMP B-TREE FOR ORDER BY');

    const few = await pagedReads(s, async () => void (await s.get('/projects?owned=true&per_page=4', { token: owner.token })));
    const sorted = few.find((r) => /FROM projects p WHERE/.test(r.sql))!;
    expect(sorted.sql).not.toContain('+p.namespace_id');
    expect(plan(sorted.sql, sorted.args)).toContain('projects_namespace');
  });

  it('counts /projects?visibility= and archived= from their indexes and reads pages in the order index', async () => {
    // Page 1 of 4 rows: 19 public and 27 unarchived of 39 projects are many against the 5 rows a walk reads.
    for (const path of ['/projects?visibility=public&per_page=4', '/projects?archived=false&per_page=4']) {
      const index = path.includes('visibility') ? 'projects_visibility' : 'projects_archived';
      // A write to a listed column first: the count is kept while the projects' listed version holds
      // (PageAnchors.countsAtVersion, core/130: a write of updated_at alone keeps it).
      db().prepare("UPDATE projects SET name = name || ' ' WHERE id = (SELECT min(id) FROM projects)").run();
      db().prepare('UPDATE projects SET name = rtrim(name) WHERE id = (SELECT min(id) FROM projects)').run();
      const sql = await preparedBy(s, () => s.get(path));
      const count = sql.find((x) => x.startsWith('SELECT count(*)') && x.includes('FROM projects p'))!;
      expect(plan(count, path.includes('visibility') ? ['public'] : [0])).toContain(`COVERING INDEX ${index}`);
      const reads = await pagedReads(s, async () => void (await s.get(path)));
      const page = reads.find((r) => /FROM projects p WHERE/.test(r.sql))!;
      const pagePlan = plan(page.sql, page.args);
      expect(pagePlan, path).toContain('projects_created');
      expect(pagePlan, path).not.toContain('TEMP B-TREE');
    }
  });

  it('no other list of projects is planned through projects_visibility (anonymous, members)', () => {
    const svc = s.service.context;
    for (const user of [null, { ...outsider.user, admin: false, external: false }]) {
      const vis = visibleProjectsSql(svc, user);
      const listPlan = plan(`SELECT p.* FROM projects p WHERE ${vis.sql} ORDER BY p.created_at DESC, p.id DESC LIMIT 21`, vis.args);
      expect(listPlan).not.toContain('projects_visibility');
      expect(listPlan).not.toContain('TEMP B-TREE');
    }
  });

  it('/users: active, blocked and orders, every page as a fresh query gives; active counted from users_state', async () => {
    const cases: [string, string, string][] = [
      ['/users?active=true', "state = 'active'", 'id DESC'],
      ['/users?active=true&order_by=name&sort=asc', "state = 'active'", 'name ASC, id ASC'],
      ['/users?blocked=true', "state IN ('blocked', 'banned')", 'id DESC'],
      ['/users?blocked=true&order_by=username', "state IN ('blocked', 'banned')", 'username DESC, id DESC'],
    ];
    for (const [path, where, order] of cases) await expectEveryPage(path, ids(`SELECT id FROM users WHERE ${where} ORDER BY ${order}`));
    // A write first: the count is kept while the users' list version holds (PageAnchors.countsAtVersion).
    db().prepare("UPDATE users SET name = name || ' ' WHERE id = 1").run();
    db().prepare('UPDATE users SET name = rtrim(name) WHERE id = 1').run();
    const sql = await preparedBy(s, () => s.get('/users?active=true&per_page=4&page=2'));
    const count = sql.find((x) => x.startsWith('SELECT count(*)') && x.includes('FROM users'))!;
    expect(plan(count, [])).toContain('COVERING INDEX users_state');
    // The users' personal namespaces of a page, by owner: not through another index in id order.
    const ns = sql.find((x) => x.includes("kind = 'user' AND owner_id IN"))!;
    expect(plan(ns, ['[1,2]'])).toContain('namespaces_owner');
  });

  it('/groups: top_level_only, order_by=id and path, every page as a fresh query gives, id order from its index', async () => {
    const cases: [string, string, string, string | null | undefined][] = [
      ['/groups?top_level_only=true', 'parent_id IS NULL', 'name ASC, id ASC', undefined],
      ['/groups?order_by=id&sort=desc', '1 = 1', 'id DESC', undefined],
      ['/groups?order_by=id&top_level_only=true', 'parent_id IS NULL', 'id ASC', undefined],
      ['/groups?order_by=path&sort=desc', '1 = 1', 'path DESC, id DESC', undefined],
      ['/groups?top_level_only=true', "parent_id IS NULL AND visibility = 'public'", 'name ASC, id ASC', null],
    ];
    for (const [path, where, order, token] of cases) await expectEveryPage(path, ids(`SELECT id FROM namespaces WHERE kind = 'group' AND ${where} ORDER BY ${order}`), token);
    const reads = await pagedReads(s, async () => void (await s.get('/groups?order_by=id&sort=desc&per_page=4&page=2')));
    const page = reads.find((r) => /FROM namespaces g WHERE/.test(r.sql))!;
    const pagePlan = plan(page.sql, page.args);
    expect(pagePlan).toContain('namespaces_group_ids');
    expect(pagePlan).not.toContain('TEMP B-TREE');
    const top = await pagedReads(s, async () => void (await s.get('/groups?top_level_only=true&per_page=4')));
    const topRead = top.find((r) => /FROM namespaces g WHERE/.test(r.sql))!;
    const topPlan = plan(topRead.sql, topRead.args);
    expect(topPlan).toContain('namespaces_kind_name');
    expect(topPlan).not.toContain('TEMP B-TREE');
  });

  it('keyset pages of filtered lists hold the same rows as the offset pages', async () => {
    const follow = async (first: string, token?: string | null): Promise<number[]> => {
      const seen: number[] = [];
      let url: string | null = first;
      while (url) {
        const res: ApiResult = await s.get(url, { token });
        expect(res.status).toBe(200);
        seen.push(...res.body.map((x: any) => x.id));
        url = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
        if (!res.body.length) break;
      }
      return seen;
    };
    const ownedByRoot = "namespace_id IN (SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = 1)";
    expect(await follow('/projects?pagination=keyset&order_by=id&sort=asc&owned=true&per_page=5')).toEqual(ids(`SELECT id FROM projects WHERE ${ownedByRoot} ORDER BY id`));
    expect(await follow('/projects?pagination=keyset&order_by=id&sort=desc&visibility=public&per_page=5', null)).toEqual(
      ids("SELECT id FROM projects WHERE visibility = 'public' ORDER BY id DESC"),
    );
    expect(await follow('/users?pagination=keyset&order_by=name&sort=asc&active=true&per_page=5')).toEqual(ids("SELECT id FROM users WHERE state = 'active' ORDER BY name, id"));
    expect(await follow('/groups?pagination=keyset&order_by=name&sort=asc&top_level_only=true&per_page=3', null)).toEqual(
      ids("SELECT id FROM namespaces WHERE kind = 'group' AND parent_id IS NULL AND visibility = 'public' ORDER BY name, id"),
    );
  });
});
