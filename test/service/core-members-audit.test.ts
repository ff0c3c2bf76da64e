import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

describe('core fidelity audit: members API', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it('adds a member by username', async () => {
    const project = await s.createProject();
    const u = await s.createUser();
    const res = await s.post(`/projects/${project.id}/members`, { username: u.user.username, access_level: 30 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: u.user.id, username: u.user.username, access_level: 30 });
  });

  it('answers {"status":"success"} when several user ids are added at once', async () => {
    const group = await s.createGroup();
    const a = await s.createUser();
    const b = await s.createUser();
    await s.addMember('groups', group.id, a.user.id, 10);
    const res = await s.post(`/groups/${group.id}/members`, { user_id: `${a.user.id},${b.user.id}`, access_level: 30 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: 'success' });
    const list = await s.get(`/groups/${group.id}/members`);
    const levels = Object.fromEntries(list.body.map((m: any) => [m.id, m.access_level]));
    expect(levels[a.user.id]).toBe(30);
    expect(levels[b.user.id]).toBe(30);
  });

  it('needs user_id or username, not both, with Grape error strings', async () => {
    const project = await s.createProject();
    const u = await s.createUser();
    const none = await s.post(`/projects/${project.id}/members`, {});
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ error: 'access_level is missing, user_id, username are missing, at least one parameter must be provided' });
    const noUser = await s.post(`/projects/${project.id}/members`, { access_level: 30 });
    expect(noUser.body).toEqual({ error: 'user_id, username are missing, at least one parameter must be provided' });
    const both = await s.post(`/projects/${project.id}/members`, { user_id: u.user.id, username: u.user.username, access_level: 30 });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({ error: 'user_id, username are mutually exclusive' });
  });

  it('requires authentication even to list the members of a public project', async () => {
    const project = await s.createProject({ visibility: 'public' });
    for (const path of ['members', 'members/all', 'members/1', 'members/all/1']) {
      const res = await s.get(`/projects/${project.id}/${path}`, { token: null });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: '401 Unauthorized' });
    }
  });

  it('answers an unknown user on members/all/:user_id with the record-not-found 404', async () => {
    const project = await s.createProject();
    const res = await s.get(`/projects/${project.id}/members/all/99999`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Not found' });
  });
});

describe('core fidelity audit: protected memberships', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it('refuses to demote the last Owner of a top-level group (403)', async () => {
    const owner = await s.createUser();
    const group = await s.createGroup({}, owner.token);
    const res = await s.put(`/groups/${group.id}/members/${owner.user.id}`, { access_level: 30 }, { token: owner.token });
    expect(res.status).toBe(403);
    const other = await s.createUser();
    await s.addMember('groups', group.id, other.user.id, 50);
    const ok = await s.put(`/groups/${group.id}/members/${owner.user.id}`, { access_level: 30 }, { token: owner.token });
    expect(ok.status).toBe(200);
    expect(ok.body.access_level).toBe(30);
  });

  it("refuses to update or remove the namespace holder's membership on a personal project (403)", async () => {
    const holder = await s.createUser();
    const project = await s.createProject({}, holder.token);
    expect((await s.put(`/projects/${project.id}/members/${holder.user.id}`, { access_level: 30 }, { token: holder.token })).status).toBe(403);
    expect((await s.del(`/projects/${project.id}/members/${holder.user.id}`, { token: holder.token })).status).toBe(403);
    expect((await s.del(`/projects/${project.id}/members/${holder.user.id}`)).status).toBe(403);
    const members = await s.get(`/projects/${project.id}/members`, { token: holder.token });
    expect(members.body.map((m: any) => m.id)).toEqual([holder.user.id]);
  });
});
