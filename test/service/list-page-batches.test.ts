import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { preparedBy, queryPlan } from '../helpers/lists';
import { countUpTo } from '../../src/main/service/http/pagination';

/**
 * What a page of a list reads besides its rows is read for the whole page at once (one statement
 * per table, not one per row), and the list statements themselves are prepared once: whatever
 * the reading, each entity of a list is the one its single GET answers.
 */
let s: TestService;
let group: number;
const projects: number[] = [];
let member: { id: number; token: string };
const users: number[] = [];

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  for (let i = 0; i < 4; i++) projects.push((await s.createProject({ name: `grouped-${i}`, namespace_id: group, visibility: 'private' })).id);
  for (let i = 0; i < 3; i++) projects.push((await s.createProject({ name: `own-${i}`, visibility: 'internal' })).id);
  const u = await s.createUser();
  member = { id: u.user.id, token: u.token };
  users.push(member.id);
  // Inherited from the group in some, their own in others (one above the group's level), none in the rest.
  await s.addMember('groups', group, member.id, 20);
  await s.addMember('projects', projects[0], member.id, 40);
  await s.addMember('projects', projects[4], member.id, 30);
  for (let i = 0; i < 3; i++) users.push((await s.createUser()).user.id);
  expect((await s.post(`/projects/${projects[0]}/issues`, { title: 'An issue' })).status).toBe(201);
  // Identities on two users, two on one of them.
  for (const [id, provider, uid] of [[users[1], 'ldapmain', 'cn=one'], [users[1], 'github', '111'], [users[3], 'ldapmain', 'cn=three']] as const) {
    expect((await s.put(`/users/${id}`, { provider, extern_uid: uid })).status).toBe(200);
  }
});
afterAll(async () => s.stop());

/** A write: every remembered read and entity is let go, so the next read builds its page afresh. */
const touch = async (): Promise<void> => void (await s.put(`/projects/${projects[6]}`, { description: `touched ${Date.now()}` }));

describe('list statements', () => {
  it('carry their LIMIT in the SQL, never as a bound parameter (SQLite prepares those again at every run)', async () => {
    const lists = [
      `/projects/${projects[0]}/issues`,
      `/projects/${projects[0]}/issues?page=2&per_page=5`,
      `/projects/${projects[0]}/merge_requests`,
      `/projects/${projects[0]}/merge_requests?labels=bug`,
      `/groups/${group}/merge_requests?labels=bug`,
      '/projects',
      '/projects?pagination=keyset&order_by=id&sort=asc',
      '/users',
      '/users?pagination=keyset&order_by=name&sort=asc',
      '/groups',
      `/groups/${group}/projects`,
      `/groups/${group}/issues`,
      '/projects?search=grouped',
      '/users?search=user',
      '/namespaces',
      '/todos',
      `/projects/${projects[0]}/milestones`,
      `/projects/${projects[0]}/starrers`,
      `/projects/${projects[0]}/issues/1/award_emoji`,
      `/projects/${projects[0]}/issues/1/discussions`,
    ];
    const sql = await preparedBy(s, async () => {
      for (const path of lists) {
        await touch();
        expect((await s.get(path)).status).toBe(200);
      }
    });
    expect(sql.filter((q) => /\bLIMIT \?/i.test(q))).toEqual([]);
    // An issue page reads its ids in list order (its rows by id: SqlList.byId); no more than the
    // list has left when its length is counted (a project's few issues here).
    expect(sql.some((q) => /^SELECT x\.id AS id FROM issues x WHERE .* LIMIT \d+ OFFSET \?$/s.test(q))).toBe(true);
  });
});

describe('capped counts', () => {
  it('count a whole table as the table, and any other list up to the cap', async () => {
    const db = s.service.context.db;
    const all = (db.prepare('SELECT count(*) AS n FROM projects').get() as { n: number }).n;
    expect(all).toBeGreaterThan(3);
    let n = 0;
    const sql = await preparedBy(s, () => (n = countUpTo(db, 'FROM projects p WHERE 1 = 1', [], 1000)));
    expect(n).toBe(all);
    expect(sql).toEqual(['SELECT count(*) AS n FROM projects']);
    expect(countUpTo(db, 'FROM projects WHERE 1 = 1', [], 3)).toBe(3);
    expect(countUpTo(db, "FROM projects p WHERE p.visibility = 'internal'", [], 1000)).toBe(3);
    expect(countUpTo(db, "FROM projects p WHERE p.visibility = 'internal'", [], 2)).toBe(2);
    expect(countUpTo(db, 'FROM projects p WHERE p.namespace_id = ?', [group], 1000)).toBe(4);
  });

  it("answer an administrator's unfiltered lists with the table's totals", async () => {
    const db = s.service.context.db;
    for (const [path, table] of [['/projects', 'projects'], ['/users', 'users']]) {
      await touch();
      const res = await s.get(`${path}?per_page=2`);
      expect(res.headers.get('x-total')).toBe(String((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n));
    }
  });
});

describe("an administrator's page of users", () => {
  it('shows each user as GET /users/:id does, identities and namespace included', async () => {
    await touch();
    const page = await s.get('/users?per_page=100');
    expect(page.status).toBe(200);
    for (const id of users) {
      const listed = page.body.find((u: any) => u.id === id);
      await touch();
      const single = await s.get(`/users/${id}`);
      expect(listed).toEqual(single.body);
    }
    const two = page.body.find((u: any) => u.id === users[1]);
    expect(two.identities).toEqual([
      { provider: 'ldapmain', extern_uid: 'cn=one', saml_provider_id: null },
      { provider: 'github', extern_uid: '111', saml_provider_id: null },
    ]);
    expect(page.body.find((u: any) => u.id === users[2]).identities).toEqual([]);
    expect(two.namespace_id).toBe((s.service.context.db.prepare("SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = ?").get(users[1]) as { id: number }).id);
  });

  it('reads the identities and namespaces of the whole page with one statement each', async () => {
    await touch();
    const sql = await preparedBy(s, async () => void (await s.get('/users?per_page=100')));
    expect(sql.filter((q) => /FROM identities/.test(q))).toHaveLength(1);
    expect(sql.filter((q) => /FROM namespaces WHERE kind = 'user'/.test(q))).toHaveLength(1);
  });
});

describe("a page of projects' permissions", () => {
  it("shows the viewer's own and group levels as GET /projects/:id does", async () => {
    await touch();
    const page = await s.get('/projects?membership=true&per_page=100', { token: member.token });
    expect(page.status).toBe(200);
    const byId = new Map(page.body.map((p: any) => [p.id, p]));
    for (const id of [projects[0], projects[1], projects[4]]) {
      await touch();
      const single = await s.get(`/projects/${id}`, { token: member.token });
      expect(byId.get(id)).toEqual(single.body);
    }
    expect((byId.get(projects[0]) as any).permissions).toEqual({ project_access: { access_level: 40, notification_level: 3 }, group_access: { access_level: 20, notification_level: 3 } });
    expect((byId.get(projects[1]) as any).permissions).toEqual({ project_access: null, group_access: { access_level: 20, notification_level: 3 } });
    expect((byId.get(projects[4]) as any).permissions).toEqual({ project_access: { access_level: 30, notification_level: 3 }, group_access: null });
    expect(byId.has(projects[5])).toBe(false);
  });

  it("reads the viewer's memberships of the page by (project, user), one statement for the page", async () => {
    await touch();
    const sql = await preparedBy(s, async () => void (await s.get('/projects?per_page=100', { token: member.token })));
    const own = sql.filter((q) => /FROM json_each\(\?\) j CROSS JOIN members m/.test(q));
    expect(own).toHaveLength(1);
    expect(sql.filter((q) => /FROM members WHERE source_type = 'Project' AND source_id = \? AND user_id = \?/.test(q))).toEqual([]);
    const db = s.service.context.db;
    const plan = queryPlan(db, own[0], JSON.stringify(projects), member.id);
    expect(plan).toContain('SEARCH m USING INDEX members_source_user (source_type=? AND source_id=? AND user_id=?)');
  });
});
