import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/** Sharing projects and groups with groups (POST/DELETE /projects/:id/share, /groups/:id/share) and the access it grants. */
describe('sharing with groups', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  /** A private project in its own group, a private invited group with `user` as a Developer in it. */
  async function setUp() {
    const home = await s.createGroup({ visibility: 'private' });
    const project = await s.createProject({ namespace_id: home.id, visibility: 'private' });
    const invited = await s.createGroup({ visibility: 'private' });
    const user = await s.createUser();
    await s.addMember('groups', invited.id, user.user.id, 30);
    return { home, project, invited, user };
  }

  it('shares a project with a group: 201 with the link, shared_with_groups, and access at the lower level', async () => {
    const { project, invited, user } = await setUp();
    expect((await s.get(`/projects/${project.id}`, { token: user.token })).status).toBe(404);
    const res = await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 20, expires_at: '2099-01-31' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), project_id: project.id, group_id: invited.id, group_access: 20, expires_at: '2099-01-31' });
    const seen = await s.get(`/projects/${project.id}`, { token: user.token });
    expect(seen.status).toBe(200);
    expect(seen.body.shared_with_groups).toEqual([
      { group_id: invited.id, group_name: invited.name, group_full_path: invited.full_path, group_access_level: 20, expires_at: '2099-01-31' },
    ]);
    // Reporter through the share (min(Developer, Reporter)): listed at 20, not at 30.
    const at20 = await s.get('/projects?min_access_level=20&simple=true', { token: user.token });
    expect(at20.body.map((p: any) => p.id)).toEqual([project.id]);
    const at30 = await s.get('/projects?min_access_level=30&simple=true', { token: user.token });
    expect(at30.body).toEqual([]);
    const membership = await s.get('/projects?membership=true&simple=true', { token: user.token });
    expect(membership.body.map((p: any) => p.id)).toEqual([project.id]);
    // Reporter may not manage the project.
    const share = await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 10 }, { token: user.token });
    expect(share.status).toBe(403);

    const del = await s.del(`/projects/${project.id}/share/${invited.id}`);
    expect(del.status).toBe(204);
    expect((await s.get(`/projects/${project.id}`, { token: user.token })).status).toBe(404);
    expect((await s.get('/projects?membership=true&simple=true', { token: user.token })).body).toEqual([]);
    const again = await s.del(`/projects/${project.id}/share/${invited.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Group Link Not Found' });
  });

  it('gives a Maintainer share the project admin rights of the invited members', async () => {
    const { project, invited, user } = await setUp();
    await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 40 });
    // Developer in the invited group: min(30, 40) = 30, still not a Maintainer.
    expect((await s.put(`/projects/${project.id}`, { description: 'x' }, { token: user.token })).status).toBe(403);
    await s.put(`/groups/${invited.id}/members/${user.user.id}`, { access_level: 40 });
    const put = await s.put(`/projects/${project.id}`, { description: 'shared maintainer' }, { token: user.token });
    expect(put.status).toBe(200);
    expect(put.body.description).toBe('shared maintainer');
  });

  it("refuses a project share as GitLab does: params, duplicates, the project's own groups, unknown groups, the lock", async () => {
    const { home, project, invited } = await setUp();
    const missing = await s.post(`/projects/${project.id}/share`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'group_id is missing, group_access is missing' });
    const bad = await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 33 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'group_access does not have a valid value' });
    expect((await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 30 })).status).toBe(201);
    const dup = await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 30 });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ message: 'Group already shared with this group' });
    const own = await s.post(`/projects/${project.id}/share`, { group_id: home.id, group_access: 30 });
    expect(own.status).toBe(409);
    expect(own.body).toEqual({ message: 'Project cannot be shared with the group it is in or one of its ancestors.' });
    const unknown = await s.post(`/projects/${project.id}/share`, { group_id: 999999, group_access: 30 });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Not Found' });
    await s.put(`/groups/${home.id}`, { share_with_group_lock: true });
    const other = await s.createGroup();
    const locked = await s.post(`/projects/${project.id}/share`, { group_id: other.id, group_access: 30 });
    expect(locked.status).toBe(400);
    expect(locked.body).toEqual({ message: 'The project sharing with group is disabled' });
  });

  it('shares a group with a group: the group detail, and access to its subgroups and projects at the lower level', async () => {
    const shared = await s.createGroup({ visibility: 'private' });
    const sub = await s.createGroup({ visibility: 'private', parent_id: shared.id });
    const project = await s.createProject({ namespace_id: sub.id, visibility: 'private' });
    const invited = await s.createGroup({ visibility: 'private' });
    const user = await s.createUser();
    await s.addMember('groups', invited.id, user.user.id, 40);
    expect((await s.get(`/groups/${sub.id}`, { token: user.token })).status).toBe(404);

    const res = await s.post(`/groups/${shared.id}/share`, { group_id: invited.id, group_access: 30 });
    expect(res.status).toBe(201);
    expect(res.body.id).toBe(shared.id);
    expect(res.body.shared_with_groups).toEqual([
      { group_id: invited.id, group_name: invited.name, group_full_path: invited.full_path, group_access_level: 30, expires_at: null },
    ]);
    expect((await s.get(`/groups/${sub.id}`, { token: user.token })).status).toBe(200);
    expect((await s.get(`/projects/${project.id}`, { token: user.token })).status).toBe(200);
    // GET /groups lists what the share reaches (User#authorized_groups); min_access_level only the
    // user's own memberships and the groups below them (GroupsFinder#groups_with_min_access_level).
    const groups = await s.get('/groups', { token: user.token });
    expect(groups.body.map((g: any) => g.id).sort()).toEqual([invited.id, shared.id, sub.id].sort());
    expect((await s.get('/groups?min_access_level=30', { token: user.token })).body.map((g: any) => g.id)).toEqual([invited.id]);
    const at30 = await s.get('/projects?min_access_level=30&simple=true', { token: user.token });
    expect(at30.body.map((p: any) => p.id)).toEqual([project.id]);
    expect((await s.get('/projects?min_access_level=40&simple=true', { token: user.token })).body).toEqual([]);
    // Developer through the share: may not share the group further (Owner only).
    const other = await s.createGroup();
    expect((await s.post(`/groups/${shared.id}/share`, { group_id: other.id, group_access: 10 }, { token: user.token })).status).toBe(404);

    const dup = await s.post(`/groups/${shared.id}/share`, { group_id: invited.id, group_access: 30 });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ message: 'Shared group The group has already been shared with this group' });
    const unknown = await s.post(`/groups/${shared.id}/share`, { group_id: 999999, group_access: 30 });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 Group Not Found' });

    // A non-Owner's unshare: Groups::GroupLinks::DestroyService refuses, API::Groups answers 204 anyway.
    expect((await s.del(`/groups/${shared.id}/share/${invited.id}`, { token: user.token })).status).toBe(204);
    expect((await s.get(`/projects/${project.id}`, { token: user.token })).status).toBe(200);

    expect((await s.del(`/groups/${shared.id}/share/${invited.id}`)).status).toBe(204);
    expect((await s.get(`/projects/${project.id}`, { token: user.token })).status).toBe(404);
    expect((await s.get(`/groups/${sub.id}`, { token: user.token })).status).toBe(404);
    const again = await s.del(`/groups/${shared.id}/share/${invited.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Group Link Not Found' });
    expect((await s.get(`/groups/${shared.id}`)).body.shared_with_groups).toEqual([]);
  });

  it('grants nothing through an expired share', async () => {
    const { project, invited, user } = await setUp();
    const res = await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 30, expires_at: '2000-01-01' });
    expect(res.status).toBe(201);
    expect((await s.get(`/projects/${project.id}`, { token: user.token })).status).toBe(404);
  });
  it("lists a group's shared projects (with_shared, by default) and shows them in its detail with_projects", async () => {
    const { home, project, invited, user } = await setUp();
    const own = await s.createProject({ namespace_id: invited.id, visibility: 'private' });
    await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 30 });
    const ids = async (query: string) => (await s.get(`/groups/${invited.id}/projects?simple=true${query}`, { token: user.token })).body.map((p: any) => p.id);
    expect(await ids('')).toEqual([own.id, project.id]); // created_at desc
    expect(await ids('&with_shared=false')).toEqual([own.id]);
    const detail = await s.get(`/groups/${invited.id}`, { token: user.token });
    expect(detail.body.projects.map((p: any) => p.id)).toEqual([own.id]);
    expect(detail.body.shared_projects.map((p: any) => p.id)).toEqual([project.id]);
    // The shared project's private group becomes readable to those the share reaches.
    expect((await s.get(`/groups/${home.id}`, { token: user.token })).status).toBe(200);
    await s.del(`/projects/${project.id}/share/${invited.id}`);
    expect((await s.get(`/groups/${home.id}`, { token: user.token })).status).toBe(404);
  });
  it('lists the invited members in members/all at the level the share gives them, and only there', async () => {
    const { project, invited, user } = await setUp();
    const inheritedOnly = await s.get(`/projects/${project.id}/members/all`);
    await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 20 });
    const all = await s.get(`/projects/${project.id}/members/all`);
    const levels = Object.fromEntries(all.body.map((m: any) => [m.id, m.access_level]));
    expect(levels[user.user.id]).toBe(20);
    expect(all.body.length).toBe(inheritedOnly.body.length + 1);
    expect(all.headers.get('x-total')).toBe(String(inheritedOnly.body.length + 1));
    expect((await s.get(`/projects/${project.id}/members/all/${user.user.id}`)).body).toMatchObject({ id: user.user.id, access_level: 20 });
    expect((await s.get(`/projects/${project.id}/members`)).body.map((m: any) => m.id)).not.toContain(user.user.id);

    const shared = await s.createGroup({ visibility: 'private' });
    const sub = await s.createGroup({ visibility: 'private', parent_id: shared.id });
    await s.post(`/groups/${shared.id}/share`, { group_id: invited.id, group_access: 40 });
    for (const id of [shared.id, sub.id]) {
      const m = (await s.get(`/groups/${id}/members/all`)).body.find((x: any) => x.id === user.user.id);
      expect(m?.access_level).toBe(30); // min(Developer, Maintainer)
    }
    await s.del(`/groups/${shared.id}/share/${invited.id}`);
    expect((await s.get(`/groups/${sub.id}/members/all`)).body.map((m: any) => m.id)).not.toContain(user.user.id);
  });
  it('lists the invited groups in /projects/:id/groups with_shared and the inviting groups in /groups/:id/groups/shared', async () => {
    const { home, project, invited } = await setUp();
    const other = await s.createGroup({ visibility: 'private' });
    await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 20 });
    await s.post(`/projects/${project.id}/share`, { group_id: other.id, group_access: 40 });
    const ids = async (query: string) => (await s.get(`/projects/${project.id}/groups${query}`)).body.map((g: any) => g.id).sort();
    expect(await ids('')).toEqual([home.id]);
    expect(await ids('?with_shared=true')).toEqual([home.id, invited.id, other.id].sort());
    expect(await ids('?with_shared=true&shared_min_access_level=30')).toEqual([home.id, other.id].sort());

    const a = await s.createGroup({ name: 'b-shared', path: `b-shared-${home.id}` });
    const b = await s.createGroup({ name: 'a-shared', path: `a-shared-${home.id}` });
    await s.post(`/groups/${a.id}/share`, { group_id: invited.id, group_access: 30 });
    await s.post(`/groups/${b.id}/share`, { group_id: invited.id, group_access: 30 });
    const shared = await s.get(`/groups/${invited.id}/groups/shared`);
    expect(shared.status).toBe(200);
    expect(shared.body.map((g: any) => g.id)).toEqual([b.id, a.id]);
    expect(shared.headers.get('x-total')).toBe('2');
    expect((await s.get(`/groups/${invited.id}/groups/shared?order_by=id&sort=desc`)).body.map((g: any) => g.id)).toEqual([b.id, a.id].sort((x, y) => y - x));
    expect((await s.get(`/groups/${invited.id}/groups/shared?skip_groups[]=${b.id}`)).body.map((g: any) => g.id)).toEqual([a.id]);
  });
  it('drops the links of a deleted invited group, and refuses an Owner share from a Maintainer', async () => {
    const { project, invited, user } = await setUp();
    await s.post(`/projects/${project.id}/share`, { group_id: invited.id, group_access: 30 });
    expect((await s.del(`/groups/${invited.id}`)).status).toBe(202);
    expect((await s.get(`/projects/${project.id}`)).body.shared_with_groups).toEqual([]);
    expect((await s.get(`/projects/${project.id}`, { token: user.token })).status).toBe(404);

    const maintainer = await s.createUser();
    await s.addMember('projects', project.id, maintainer.user.id, 40);
    const mine = await s.createGroup({}, maintainer.token);
    const owner = await s.post(`/projects/${project.id}/share`, { group_id: mine.id, group_access: 50 }, { token: maintainer.token });
    expect(owner.status).toBe(403);
    expect(owner.body).toEqual({ message: '403 Forbidden' });
    expect((await s.post(`/projects/${project.id}/share`, { group_id: mine.id, group_access: 40 }, { token: maintainer.token })).status).toBe(201);
  });
  it('offers the groups a project may be shared with in share_locations (path order), none to a Developer', async () => {
    const home = await s.createGroup({ visibility: 'private' });
    const project = await s.createProject({ namespace_id: home.id, visibility: 'private' });
    const user = await s.createUser();
    await s.addMember('projects', project.id, user.user.id, 40);
    const zeta = await s.createGroup({ path: `zeta-${home.id}`, name: 'zeta' });
    const alpha = await s.createGroup({ path: `alpha-${home.id}`, name: 'alpha' });
    const linked = await s.createGroup({ path: `linked-${home.id}`, name: 'linked' });
    const notMine = await s.createGroup({ path: `other-${home.id}`, name: 'other' });
    for (const g of [zeta, alpha, linked]) await s.addMember('groups', g.id, user.user.id, 10);
    await s.addMember('groups', home.id, user.user.id, 10);
    await s.post(`/projects/${project.id}/share`, { group_id: linked.id, group_access: 10 });
    const res = await s.get(`/projects/${project.id}/share_locations`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.map((g: any) => g.id)).toEqual([alpha.id, zeta.id]);
    expect(res.body.map((g: any) => g.id)).not.toContain(notMine.id);
    expect((await s.get(`/projects/${project.id}/share_locations?search=zet`, { token: user.token })).body.map((g: any) => g.id)).toEqual([zeta.id]);
    await s.put(`/projects/${project.id}/members/${user.user.id}`, { access_level: 30 });
    expect((await s.get(`/projects/${project.id}/share_locations`, { token: user.token })).body).toEqual([]);
  });
  it('lists invited groups of a project and of a group, direct and inherited, newest first', async () => {
    const parent = await s.createGroup();
    const child = await s.createGroup({ parent_id: parent.id });
    const project = await s.createProject({ namespace_id: child.id });
    const [g1, g2, g3] = [await s.createGroup(), await s.createGroup(), await s.createGroup()];
    await s.post(`/groups/${parent.id}/share`, { group_id: g1.id, group_access: 30 });
    await s.post(`/groups/${child.id}/share`, { group_id: g2.id, group_access: 30 });
    await s.post(`/projects/${project.id}/share`, { group_id: g3.id, group_access: 30 });
    const ids = async (path: string) => (await s.get(path)).body.map((g: any) => g.id);
    expect(await ids(`/projects/${project.id}/invited_groups`)).toEqual([g3.id, g2.id, g1.id]);
    expect(await ids(`/projects/${project.id}/invited_groups?relation=direct`)).toEqual([g3.id]);
    expect(await ids(`/projects/${project.id}/invited_groups?relation=inherited`)).toEqual([g2.id, g1.id]);
    expect(await ids(`/groups/${child.id}/invited_groups`)).toEqual([g2.id, g1.id]);
    expect(await ids(`/groups/${child.id}/invited_groups?relation=direct`)).toEqual([g2.id]);
    expect(await ids(`/groups/${child.id}/invited_groups?relation=inherited`)).toEqual([g1.id]);
    expect(await ids(`/groups/${child.id}/invited_groups?search=${g1.path}`)).toEqual([g1.id]);
    const bad = await s.get(`/groups/${child.id}/invited_groups?relation=sideways`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'relation does not have a valid value' });
  });
  it("keeps a member's highest level in members/all, and lists a personal project's invited members", async () => {
    const invited = await s.createGroup({ visibility: 'private' });
    const user = await s.createUser();
    await s.addMember('groups', invited.id, user.user.id, 40);
    const personal = await s.createProject({ visibility: 'private' });
    await s.post(`/projects/${personal.id}/share`, { group_id: invited.id, group_access: 30 });
    const all = (await s.get(`/projects/${personal.id}/members/all`)).body;
    expect(all.find((m: any) => m.id === user.user.id)?.access_level).toBe(30);
    // A direct Reporter membership (20) below the share's Developer (30): the share's level is the one listed.
    await s.addMember('projects', personal.id, user.user.id, 20);
    expect((await s.get(`/projects/${personal.id}/members/all/${user.user.id}`)).body.access_level).toBe(30);
    await s.put(`/projects/${personal.id}/members/${user.user.id}`, { access_level: 40 });
    expect((await s.get(`/projects/${personal.id}/members/all/${user.user.id}`)).body.access_level).toBe(40);
    expect((await s.get(`/projects/${personal.id}`, { token: user.token })).body.permissions.project_access.access_level).toBe(40);
  });
});
