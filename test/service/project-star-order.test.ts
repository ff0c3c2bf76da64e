import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';

/**
 * GET /projects and a group's projects by star_count (starCountRows): the starred projects sorted
 * by their count, the others in id order, read apart instead of every project counted and sorted.
 * Every page and its headers as the list's ORDER BY says (ties on the count by id, the same way),
 * asc and desc, for an administrator and a user who sees some private projects, with filters, and
 * after stars come and go.
 */
let s: TestService;
let group: number;
const projects: number[] = [];
let viewer: { id: number; token: string };
const stargazers: string[] = [];
const db = () => s.service.context.db;

const STARS = 'SELECT count(*) FROM project_stars WHERE project_id = p.id';
/** The ids the list's ORDER BY gives, straight from the tables. */
const want = (where: string, sort: string, token?: string): number[] =>
  (
    db()
      .prepare(
        `SELECT p.id FROM projects p WHERE ${where}${token === viewer.token ? ` AND (p.visibility IN ('public', 'internal') OR p.id IN (SELECT source_id FROM members WHERE source_type = 'Project' AND user_id = ${viewer.id}))` : ''} ORDER BY (${STARS}) ${sort}, p.id ${sort}`,
      )
      .all() as { id: number }[]
  ).map((r) => r.id);

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  const v = await s.createUser();
  viewer = { id: v.user.id, token: v.token };
  const stargazerIds: number[] = [];
  for (let i = 0; i < 4; i++) {
    const u = await s.createUser();
    stargazers.push(u.token);
    stargazerIds.push(u.user.id);
  }
  for (let i = 0; i < 26; i++) {
    const p = await s.createProject({ name: `star ${i}`, visibility: i % 3 === 0 ? 'private' : 'public', ...(i % 2 ? { namespace_id: group } : {}) });
    projects.push(p.id);
    if (i % 9 === 0) await s.addMember('projects', p.id, viewer.id, 20);
    // Stargazers see every project they star.
    if (i % 3 === 0) for (const u of stargazerIds) await s.addMember('projects', p.id, u, 10);
  }
  // Counts of 1 to 4 with ties, on public and private projects, first and last by id among them.
  const starred: [number, number][] = [[0, 2], [1, 1], [4, 3], [7, 1], [12, 4], [13, 2], [20, 1], [25, 3], [9, 2]];
  for (const [i, n] of starred) for (let k = 0; k < n; k++) expect((await s.post(`/projects/${projects[i]}/star`, {}, { token: stargazers[k] })).status).toBe(201);
}, 60_000);
afterAll(async () => s?.stop());

describe('projects by star_count', () => {
  const everyList = async (): Promise<void> => {
    for (const token of [undefined, viewer.token]) {
      for (const sort of ['desc', 'asc']) {
        await expectEveryPage(s, '/projects', { order_by: 'star_count', sort }, want('1 = 1', sort, token), 4, token);
        await expectEveryPage(s, '/projects', { order_by: 'star_count', sort, visibility: 'public' }, want("p.visibility = 'public'", sort, token), 3, token);
        await expectEveryPage(s, `/groups/${group}/projects`, { order_by: 'star_count', sort }, want(`p.namespace_id = ${group}`, sort, token), 4, token);
      }
    }
  };

  it('every page and its headers as the ORDER BY says, for an administrator and a member of some', async () => {
    await everyList();
  }, 60_000);

  it('reads the starred apart from the others: no page counts every project its stars to sort them', async () => {
    for (const sort of ['desc', 'asc']) {
      const sql = await preparedBy(s, async () => {
        for (const page of ['1', '3', '6']) ok(await s.get('/projects', { query: { order_by: 'star_count', sort, per_page: '4', page } }));
      });
      const sorted = sql.filter((q) => q.includes(`ORDER BY (${STARS})`));
      expect(sorted.length, sort).toBeGreaterThan(0);
      for (const q of sorted) expect(q, sort).toContain('AND p.id IN (SELECT project_id FROM project_stars)');
      expect(sql.some((q) => q.includes('AND p.id NOT IN (SELECT project_id FROM project_stars) ORDER BY p.id')), sort).toBe(true);
    }
  });

  it('follows stars given and taken back', async () => {
    expect((await s.post(`/projects/${projects[3]}/star`, {}, { token: stargazers[0] })).status).toBe(201);
    expect((await s.post(`/projects/${projects[12]}/unstar`, {}, { token: stargazers[3] })).status).toBe(201);
    expect((await s.post(`/projects/${projects[25]}/unstar`, {}, { token: stargazers[0] })).status).toBe(201);
    await everyList();
  }, 60_000);
});
