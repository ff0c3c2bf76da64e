import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectCounted, expectUncounted, preparedBy } from '../helpers/lists';

/**
 * An administrator's issues of a group (and the instance's scope=all), unfiltered or by state,
 * take their total from the state counters of the scope's projects (core/017) instead of walking
 * 10,001 issues: an administrator sees every confidential issue, so the counters are exact for
 * them. Anyone else still gets the walked count of what they may see. Rows, order and headers
 * are those of the list's own SQL either side of 10,000, whatever wrote the issues.
 */
let s: TestService;
let group: number;
let sub: number;
const projects: number[] = [];
let outside: number;
let planner: { id: number; token: string };

const db = () => s.service.context.db;
let iid = 1000;
const insertIssues = (projectId: number, n: number, state = 'opened', confidential = 0): void => {
  const insert = db().prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, confidential, labels, created_at, updated_at)
     VALUES (?, ?, 'Bulk', ?, 1, ?, '[]', ?, ?)`,
  );
  db().transaction(() => {
    for (let i = 0; i < n; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + ++iid * 1000).toISOString();
      insert.run(projectId, iid, state, confidential, at, at);
    }
  })();
};
const inGroup = () => `x.project_id IN (SELECT id FROM projects WHERE namespace_id IN (${group}, ${sub}))`;
const expected = (where: string): number[] =>
  (db().prepare(`SELECT x.id FROM issues x WHERE ${where} ORDER BY x.created_at DESC, x.id DESC`).all() as { id: number }[]).map((r) => r.id);
const walked = (q: string) => /count\(\*\) AS n FROM \(SELECT 1 FROM issues/.test(q);

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ path: 'counted', visibility: 'private' })).id;
  sub = (await s.createGroup({ path: 'below', parent_id: group, visibility: 'private' })).id;
  projects.push((await s.createProject({ name: 'one', namespace_id: group, visibility: 'private' })).id);
  projects.push((await s.createProject({ name: 'two', namespace_id: sub, visibility: 'private' })).id);
  outside = (await s.createProject({ name: 'elsewhere', visibility: 'private' })).id;
  const u = await s.createUser();
  planner = { id: u.user.id, token: u.token };
  await s.addMember('projects', projects[0], planner.id, 15);
  for (const title of ['Open', 'Secret']) expect((await s.post(`/projects/${projects[0]}/issues`, { title, confidential: title === 'Secret' })).status).toBe(201);
  expect((await s.post(`/projects/${projects[1]}/issues`, { title: 'Closed soon' })).status).toBe(201);
  expect((await s.put(`/projects/${projects[1]}/issues/1`, { state_event: 'close' })).status).toBe(200);
  insertIssues(projects[1], 30);
  insertIssues(projects[0], 6, 'closed', 1);
  insertIssues(outside, 12);
}, 60_000);
afterAll(async () => s.stop());

describe("an administrator's group issues counted from the state counters", () => {
  it('unfiltered and by state: exact totals, rows and order, with no walk', async () => {
    const sql = await preparedBy(s, async () => {
      for (const [state, cond] of [
        [undefined, '1 = 1'],
        ['opened', "x.state = 'opened'"],
        ['closed', "x.state = 'closed'"],
        ['all', '1 = 1'],
      ] as const) {
        const all = expected(`${inGroup()} AND ${cond}`);
        const res = await s.get(`/groups/${group}/issues`, { query: { per_page: '7', page: '2', ...(state ? { state } : {}) } });
        expectCounted(res, all.length, 7);
        expect(res.body.map((i: any) => i.id)).toEqual(all.slice(7, 14));
      }
      const every = expected('1 = 1');
      const res = await s.get('/issues', { query: { scope: 'all', per_page: '10' } });
      expectCounted(res, every.length, 10);
      expect(res.body.map((i: any) => i.id)).toEqual(every.slice(0, 10));
    });
    expect(sql.filter(walked)).toEqual([]);
  });

  it('follows issues closed, deleted, moved out of the group and inserted outside the API', async () => {
    db().prepare("UPDATE issues SET state = 'closed' WHERE id IN (SELECT id FROM issues WHERE project_id = ? AND state = 'opened' ORDER BY id LIMIT 4)").run(projects[1]);
    db().prepare('DELETE FROM issues WHERE id IN (SELECT id FROM issues WHERE project_id = ? ORDER BY id DESC LIMIT 3)').run(projects[1]);
    db().prepare('UPDATE issues SET project_id = ? WHERE id IN (SELECT id FROM issues WHERE project_id = ? ORDER BY id LIMIT 2)').run(outside, projects[0]);
    insertIssues(projects[0], 5, 'opened', 1);
    for (const [state, cond] of [
      ['opened', "x.state = 'opened'"],
      ['closed', "x.state = 'closed'"],
      ['all', '1 = 1'],
    ] as const) {
      const all = expected(`${inGroup()} AND ${cond}`);
      const res = await s.get(`/groups/${group}/issues`, { query: { per_page: '5', state } });
      expectCounted(res, all.length, 5);
      expect(res.body.map((i: any) => i.id)).toEqual(all.slice(0, 5));
    }
  });

  it('past 10,000: uncounted, and counted again once fewer', async () => {
    insertIssues(projects[1], 10_001 - expected(inGroup()).length);
    const res = await s.get(`/groups/${group}/issues`, { query: { state: 'all' } });
    expectUncounted(res, '2');
    expect(res.body.map((i: any) => i.id)).toEqual(expected(inGroup()).slice(0, 20));
    db().prepare('DELETE FROM issues WHERE id = (SELECT max(id) FROM issues WHERE project_id = ?)').run(projects[1]);
    expectCounted(await s.get(`/groups/${group}/issues`, { query: { state: 'all', per_page: '100' } }), 10_000, 100);
  });

  it('a member who is not an administrator still gets the walked count of what they may see', async () => {
    // A Planner in project one sees its confidential issues; nothing of project two.
    const all = expected(`x.project_id = ${projects[0]} AND x.state = 'opened'`);
    const sql = await preparedBy(s, async () => {
      const res = await s.get(`/groups/${group}/issues`, { token: planner.token, query: { per_page: '2', state: 'opened' } });
      expectCounted(res, all.length, 2);
      expect(res.body.map((i: any) => i.id)).toEqual(all.slice(0, 2));
    });
    expect(sql.some(walked)).toBe(true);
  });
});
