import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * GET /projects/:id/users (API::Projects `get ":id/users"`): the project's team as UserBasic,
 * by user id: direct members, members of its group and the groups above, and members of groups
 * the project is shared with; `search` and `skip_users`; paginated; hidden from outsiders of a
 * private project.
 */
let s: TestService;
let project: number;
const ids: Record<string, number> = {};
let outsiderToken: string;
let memberToken: string;

beforeAll(async () => {
  s = await TestService.start();
  const parent = (await s.createGroup({ visibility: 'private' })).id;
  const child = (await s.createGroup({ visibility: 'private', parent_id: parent })).id;
  const shared = (await s.createGroup({ visibility: 'private' })).id;
  project = (await s.createProject({ namespace_id: child, visibility: 'private' })).id;
  for (const name of ['direct', 'childm', 'parentm', 'sharedm', 'outsider']) {
    const u = await s.createUser({ username: `pu_${name}`, name: `Person ${name}` });
    ids[name] = u.user.id;
    if (name === 'outsider') outsiderToken = u.token;
    if (name === 'direct') memberToken = u.token;
  }
  await s.addMember('projects', project, ids.direct, 30);
  await s.addMember('groups', child, ids.childm, 20);
  await s.addMember('groups', parent, ids.parentm, 40);
  await s.addMember('groups', shared, ids.sharedm, 30);
  const share = await s.post(`/projects/${project}/share`, { group_id: shared, group_access: 20 });
  expect(share.status).toBe(201);
}, 60_000);
afterAll(async () => s.stop());

describe('GET /projects/:id/users', () => {
  it('lists the team once each, by user id, as UserBasic', async () => {
    const res = await s.get(`/projects/${project}/users`, { token: memberToken });
    expect(res.status).toBe(200);
    const team = [1, ids.direct, ids.childm, ids.parentm, ids.sharedm].sort((a, b) => a - b);
    expect(res.body.map((u: any) => u.id)).toEqual(team);
    expect(res.headers.get('x-total')).toBe(String(team.length));
    const direct = res.body.find((u: any) => u.id === ids.direct);
    expect(Object.keys(direct).sort()).toEqual(['avatar_url', 'id', 'locked', 'name', 'state', 'username', 'web_url']);
    expect(direct).toMatchObject({ username: 'pu_direct', name: 'Person direct', state: 'active', locked: false });
  });

  it('filters by search and skip_users, and pages', async () => {
    const byName = await s.get(`/projects/${project}/users`, { query: { search: 'PERSON PARENTM' } });
    expect(byName.body.map((u: any) => u.id)).toEqual([ids.parentm]);
    const byEmail = await s.get(`/projects/${project}/users`, { query: { search: 'pu_sharedm@example.com' } });
    expect(byEmail.body.map((u: any) => u.id)).toEqual([ids.sharedm]);
    const skipped = await s.get(`/projects/${project}/users`, { query: { search: 'pu_', skip_users: `${ids.direct},${ids.childm}` } });
    expect(skipped.body.map((u: any) => u.id)).toEqual([ids.parentm, ids.sharedm]);
    const page2 = await s.get(`/projects/${project}/users`, { query: { per_page: 2, page: 2 } });
    const all = [1, ids.direct, ids.childm, ids.parentm, ids.sharedm].sort((a, b) => a - b);
    expect(page2.body.map((u: any) => u.id)).toEqual(all.slice(2, 4));
    expect(page2.headers.get('x-total-pages')).toBe('3');
  });

  it('hides a private project from a non-member and from anonymous callers (404); lists a public one to anyone', async () => {
    expect((await s.get(`/projects/${project}/users`, { token: outsiderToken })).status).toBe(404);
    expect((await s.get(`/projects/${project}/users`, { token: null })).status).toBe(404);
    const open = await s.createProject({ visibility: 'public' });
    const anonymous = await s.get(`/projects/${open.id}/users`, { token: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.map((u: any) => u.username)).toEqual(['root']);
  });
});
