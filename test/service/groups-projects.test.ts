import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

const GUEST = 10;
const DEVELOPER = 30;
const MAINTAINER = 40;

describe('groups', () => {
  it('creates a group with its creator as owner, and subgroups under it', async () => {
    const g = await s.post('/groups', { name: 'Top', path: 'top', description: 'd' });
    expect(g.status).toBe(201);
    expect(g.body).toMatchObject({ name: 'Top', path: 'top', full_path: 'top', parent_id: null, visibility: 'private', web_url: `${s.url}/groups/top` });
    const sub = await s.post('/groups', { name: 'Child', path: 'child', parent_id: g.body.id });
    expect(sub.body).toMatchObject({ full_path: 'top/child', full_name: 'Top / Child', parent_id: g.body.id });
    const members = await s.get(`/groups/${g.body.id}/members`);
    expect(members.body.map((m: any) => [m.username, m.access_level])).toEqual([['root', 50]]);
    const subs = await s.get(`/groups/${g.body.id}/subgroups`);
    expect(subs.body.map((x: any) => x.full_path)).toEqual(['top/child']);
    const desc = await s.get(`/groups/${g.body.id}/descendant_groups`);
    expect(desc.body.map((x: any) => x.full_path)).toEqual(['top/child']);
  });

  it('answers a taken path and a bad path with 400', async () => {
    const dup = await s.post('/groups', { name: 'Top again', path: 'top' });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toContain('has already been taken');
    const bad = await s.post('/groups', { name: 'x', path: '-bad path' });
    expect(bad.status).toBe(400);
  });

  it('renames a group and moves the full paths below it', async () => {
    const g = await s.createGroup({ path: 'old-name' });
    const sub = await s.createGroup({ path: 'inner', parent_id: g.id });
    const p = await s.createProject({ name: 'proj', namespace_id: sub.id });
    const upd = await s.put(`/groups/${g.id}`, { path: 'new-name', name: 'New' });
    expect(upd.status).toBe(200);
    expect(upd.body.full_path).toBe('new-name');
    expect((await s.get(`/groups/${sub.id}`)).body.full_path).toBe('new-name/inner');
    expect((await s.get(`/projects/${p.id}`)).body.path_with_namespace).toBe('new-name/inner/proj');
    expect((await s.get('/projects/new-name%2Finner%2Fproj')).body.id).toBe(p.id);
  });

  it('deletes a group with its subgroups and projects (202)', async () => {
    const g = await s.createGroup();
    const sub = await s.createGroup({ parent_id: g.id });
    const p = await s.createProject({ namespace_id: sub.id });
    const res = await s.del(`/groups/${g.id}`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ message: '202 Accepted' });
    expect((await s.get(`/groups/${sub.id}`)).status).toBe(404);
    expect((await s.get(`/projects/${p.id}`)).status).toBe(404);
  });
});

describe('projects', () => {
  it('creates a project in the user namespace with GitLab fields', async () => {
    const res = await s.post('/projects', { name: 'Hello World', description: 'hi', topics: ['a', 'b'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Hello World',
      path: 'hello-world',
      path_with_namespace: 'root/hello-world',
      default_branch: 'main',
      visibility: 'private',
      topics: ['a', 'b'],
      web_url: `${s.url}/root/hello-world`,
      namespace: { kind: 'user', full_path: 'root', path: 'root' },
      owner: { username: 'root' },
    });
    expect(res.body._links.self).toBe(`${s.url}/api/v4/projects/${res.body.id}`);
  });

  it('needs a name or a path', async () => {
    const res = await s.post('/projects', { description: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'name, path are missing, at least one parameter must be provided' });
  });

  it('refuses a taken path in the same namespace with a validation hash', async () => {
    await s.createProject({ name: 'twin' });
    const res = await s.post('/projects', { name: 'twin' });
    expect(res.status).toBe(400);
    expect(res.body.message.path).toEqual(['has already been taken']);
  });

  it('updates and deletes (202)', async () => {
    const p = await s.createProject();
    const upd = await s.put(`/projects/${p.id}`, { description: 'new', issues_enabled: false });
    expect(upd.body).toMatchObject({ description: 'new', default_branch: 'main', issues_enabled: false, issues_access_level: 'disabled' });
    // HEAD moves only to a branch that exists (test/service/git-http.test.ts moves it).
    const head = await s.put(`/projects/${p.id}`, { default_branch: 'develop' });
    expect(head.status).toBe(400);
    expect(head.body).toEqual({ message: { base: ["Could not change HEAD: branch 'develop' does not exist"] } });
    const del = await s.del(`/projects/${p.id}`);
    expect(del.status).toBe(202);
    expect((await s.get(`/projects/${p.id}`)).status).toBe(404);
  });

  it('lists with search, visibility, simple and owned filters', async () => {
    await s.createProject({ name: 'findme-unique', visibility: 'public' });
    const found = await s.get('/projects', { query: { search: 'findme-unique', simple: true } });
    expect(found.body).toHaveLength(1);
    expect(Object.keys(found.body[0])).not.toContain('permissions');
    const pub = await s.get('/projects', { query: { visibility: 'public' } });
    expect(pub.body.every((p: any) => p.visibility === 'public')).toBe(true);
  });
});

describe('roles and visibility', () => {
  it('hides a private project from a non-member with 404, shows it to members', async () => {
    const owner = await s.createUser();
    const stranger = await s.createUser();
    const p = await s.createProject({ name: 'secret' }, owner.token);
    const hidden = await s.get(`/projects/${p.id}`, { token: stranger.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
    expect((await s.get('/projects', { token: stranger.token })).body.map((x: any) => x.id)).not.toContain(p.id);
    expect((await s.get(`/projects/${p.id}`, { token: owner.token })).status).toBe(200);
    expect((await s.get(`/projects/${p.id}`)).status).toBe(200); // admin sees all
    expect((await s.get(`/projects/${p.id}`, { token: null })).status).toBe(404);
  });

  it('lets anonymous users read public projects', async () => {
    const p = await s.createProject({ visibility: 'public' });
    expect((await s.get(`/projects/${p.id}`, { token: null })).status).toBe(200);
    expect((await s.get('/projects', { token: null })).body.every((x: any) => x.visibility === 'public')).toBe(true);
  });

  it('inherits group roles down the tree', async () => {
    const dev = await s.createUser();
    const g = await s.createGroup();
    const sub = await s.createGroup({ parent_id: g.id });
    const p = await s.createProject({ namespace_id: sub.id });
    await s.addMember('groups', g.id, dev.user.id, DEVELOPER);
    const res = await s.get(`/projects/${p.id}`, { token: dev.token });
    expect(res.status).toBe(200);
    expect(res.body.permissions.group_access.access_level).toBe(DEVELOPER);
    expect((await s.get(`/groups/${sub.id}`, { token: dev.token })).status).toBe(200);
    // Developers cannot change project settings: Maintainer needed.
    expect((await s.put(`/projects/${p.id}`, { description: 'x' }, { token: dev.token })).status).toBe(403);
  });

  it('separates Guest, Developer and Maintainer rights on a project', async () => {
    const guest = await s.createUser();
    const dev = await s.createUser();
    const maint = await s.createUser();
    const p = await s.createProject();
    await s.addMember('projects', p.id, guest.user.id, GUEST);
    await s.addMember('projects', p.id, dev.user.id, DEVELOPER);
    await s.addMember('projects', p.id, maint.user.id, MAINTAINER);
    // Guests can open issues but not merge requests.
    expect((await s.post(`/projects/${p.id}/issues`, { title: 'g' }, { token: guest.token })).status).toBe(201);
    const mr = { source_branch: 'a', target_branch: 'main', title: 't' };
    expect((await s.post(`/projects/${p.id}/merge_requests`, mr, { token: guest.token })).status).toBe(403);
    expect((await s.post(`/projects/${p.id}/merge_requests`, mr, { token: dev.token })).status).toBe(201);
    // Only Maintainers manage members and settings; only Owners delete.
    expect((await s.post(`/projects/${p.id}/members`, { user_id: guest.user.id, access_level: 20 }, { token: dev.token })).status).toBe(403);
    expect((await s.put(`/projects/${p.id}`, { description: 'm' }, { token: maint.token })).status).toBe(200);
    expect((await s.del(`/projects/${p.id}`, { token: maint.token })).status).toBe(403);
  });

  it('filters projects by membership and min_access_level, inherited levels included', async () => {
    const u = await s.createUser();
    const g = await s.createGroup();
    const viaGroup = await s.createProject({ namespace_id: g.id });
    const direct = await s.createProject();
    const publicOther = await s.createProject({ visibility: 'public' });
    await s.addMember('groups', g.id, u.user.id, DEVELOPER);
    await s.addMember('projects', direct.id, u.user.id, GUEST);
    const ids = async (query: Record<string, any>) =>
      (await s.get('/projects', { token: u.token, query: { per_page: 100, ...query } })).body.map((p: any) => p.id).sort();
    expect(await ids({ membership: true })).toEqual([viaGroup.id, direct.id].sort());
    expect(await ids({ min_access_level: DEVELOPER })).toEqual([viaGroup.id]);
    expect(await ids({})).toContain(publicOther.id);
  });

  it('shows a private group to its members only', async () => {
    const member = await s.createUser();
    const stranger = await s.createUser();
    const g = await s.createGroup();
    await s.addMember('groups', g.id, member.user.id, GUEST);
    expect((await s.get(`/groups/${g.id}`, { token: member.token })).status).toBe(200);
    const hidden = await s.get(`/groups/${g.id}`, { token: stranger.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Group Not Found' });
    const list = await s.get('/groups', { token: member.token });
    expect(list.body.map((x: any) => x.id)).toContain(g.id);
    expect((await s.get('/groups', { token: stranger.token })).body.map((x: any) => x.id)).not.toContain(g.id);
  });
});

describe('members', () => {
  it('adds, updates, lists (direct and all) and removes members', async () => {
    const u = await s.createUser();
    const g = await s.createGroup();
    const p = await s.createProject({ namespace_id: g.id });
    const add = await s.post(`/projects/${p.id}/members`, { user_id: u.user.id, access_level: DEVELOPER, expires_at: '2099-01-01' });
    expect(add.status).toBe(201);
    expect(add.body).toMatchObject({ id: u.user.id, username: u.user.username, access_level: DEVELOPER, expires_at: '2099-01-01' });
    const dup = await s.post(`/projects/${p.id}/members`, { user_id: u.user.id, access_level: DEVELOPER });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ message: 'Member already exists' });
    const upd = await s.put(`/projects/${p.id}/members/${u.user.id}`, { access_level: MAINTAINER });
    expect(upd.body.access_level).toBe(MAINTAINER);
    expect((await s.get(`/projects/${p.id}/members`)).body.map((m: any) => m.username)).toEqual([u.user.username]);
    const all = await s.get(`/projects/${p.id}/members/all`);
    expect(all.body.map((m: any) => m.username).sort()).toEqual(['root', u.user.username].sort());
    expect((await s.get(`/projects/${p.id}/members/all/1`)).body.access_level).toBe(50);
    expect((await s.del(`/projects/${p.id}/members/${u.user.id}`)).status).toBe(204);
    expect((await s.get(`/projects/${p.id}/members/${u.user.id}`)).status).toBe(404);
  });

  it('refuses unknown users, bad levels and levels below the inherited one', async () => {
    const g = await s.createGroup();
    const p = await s.createProject({ namespace_id: g.id });
    expect((await s.post(`/projects/${p.id}/members`, { user_id: 99999, access_level: 30 })).body).toEqual({ message: '404 User Not Found' });
    const bad = await s.post(`/projects/${p.id}/members`, { user_id: 1, access_level: 35 });
    expect(bad.body).toEqual({ error: 'access_level does not have a valid value' });
    const dev = await s.createUser();
    await s.addMember('groups', g.id, dev.user.id, DEVELOPER);
    const lower = await s.post(`/projects/${p.id}/members`, { user_id: dev.user.id, access_level: GUEST });
    expect(lower.status).toBe(400);
    expect(lower.body.message.access_level[0]).toContain('inherited membership from group');
  });

  it('records joined and left events in the same transaction', async () => {
    const u = await s.createUser();
    const p = await s.createProject();
    await s.addMember('projects', p.id, u.user.id, DEVELOPER);
    await s.del(`/projects/${p.id}/members/${u.user.id}`);
    const rows = s.service.context.db.prepare('SELECT action, author_id FROM events WHERE project_id = ? ORDER BY id').all(p.id);
    expect(rows).toEqual([
      { action: 'created', author_id: 1 },
      { action: 'joined', author_id: u.user.id },
      { action: 'left', author_id: u.user.id },
    ]);
  });
});

describe('ids', () => {
  it('never reuses the id of a deleted group or project, as GitLab does', async () => {
    const g = await s.createGroup();
    const p = await s.createProject();
    await s.del(`/groups/${g.id}`);
    await s.del(`/projects/${p.id}`);
    const g2 = await s.createGroup();
    const p2 = await s.createProject();
    expect(g2.id).toBeGreaterThan(g.id);
    expect(p2.id).toBeGreaterThan(p.id);
    expect((await s.get(`/projects/${p.id}`)).status).toBe(404);
  });
});
