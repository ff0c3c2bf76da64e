import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

describe('users as administrators manage them', () => {
  it("blocks and unblocks; a blocked user's token answers 403 with GitLab's reason", async () => {
    const u = await s.createUser();
    const block = await s.post(`/users/${u.user.id}/block`);
    expect(block.status).toBe(201);
    expect(block.body).toBe(true);
    expect((await s.get(`/users/${u.user.id}`)).body.state).toBe('blocked');
    const refused = await s.get('/user', { token: u.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
    expect((await s.post(`/users/${u.user.id}/block`)).text).toBe('null');
    expect((await s.get('/users', { query: { blocked: true } })).body.map((x: any) => x.id)).toEqual([u.user.id]);
    expect((await s.post(`/users/${u.user.id}/activate`)).body).toEqual({ message: '403 Forbidden - Error occurred. A blocked user must be unblocked to be activated' });
    expect((await s.post(`/users/${u.user.id}/unblock`)).body).toBe(true);
    expect((await s.post(`/users/${u.user.id}/unblock`)).body).toBe(false);
    expect((await s.get('/user', { token: u.token })).status).toBe(200);
    expect((await s.post('/users/1/block')).body).toEqual({ message: '403 Forbidden - The API initiating user cannot be blocked by the API' });
    expect((await s.post(`/users/${u.user.id}/block`, undefined, { token: u.token })).status).toBe(403);
    expect((await s.post('/users/999999/block')).body).toEqual({ message: '404 User Not Found' });
  });

  it('deactivates users without recent activity and activates them again', async () => {
    const quiet = await s.createUser();
    const res = await s.post(`/users/${quiet.user.id}/deactivate`);
    expect(res.body).toBe(true);
    const refused = await s.get('/user', { token: quiet.token });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      `403 Forbidden - Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${s.url}`,
    );
    expect((await s.post(`/users/${quiet.user.id}/unblock`)).body).toEqual({ message: '403 Forbidden - Deactivated users cannot be unblocked by the API' });
    expect((await s.post(`/users/${quiet.user.id}/activate`)).body).toBe(true);
    // Someone active in the last 90 days cannot be deactivated.
    const busy = await s.createUser();
    await s.createProject({ name: 'busy-work' }, busy.token);
    expect((await s.post(`/users/${busy.user.id}/deactivate`)).body).toEqual({
      message: '403 Forbidden - The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated',
    });
  });

  it('bans and unbans active users only', async () => {
    const u = await s.createUser();
    expect((await s.post(`/users/${u.user.id}/ban`)).body).toBe(true);
    expect((await s.get(`/users/${u.user.id}`)).body.state).toBe('banned');
    expect((await s.get('/user', { token: u.token })).body).toEqual({ message: '403 Forbidden - Your account has been blocked.' });
    expect((await s.post(`/users/${u.user.id}/ban`)).body).toEqual({ message: '403 Forbidden - You cannot ban banned users.' });
    expect((await s.post(`/users/${u.user.id}/unban`)).body).toBe(true);
    expect((await s.post(`/users/${u.user.id}/unban`)).body).toEqual({ message: '403 Forbidden - You cannot unban active users.' });
  });

  it('filters users by username, search, active and admins', async () => {
    const u = await s.createUser({ username: 'findme' });
    expect((await s.get('/users', { query: { username: 'FINDME' } })).body.map((x: any) => x.id)).toEqual([u.user.id]);
    expect((await s.get('/users', { query: { search: 'findm' } })).body.map((x: any) => x.username)).toEqual(['findme']);
    expect((await s.get('/users', { query: { admins: true } })).body.map((x: any) => x.username)).toEqual(['root']);
    expect((await s.get('/users', { query: { active: true } })).body.every((x: any) => x.state === 'active')).toBe(true);
  });
});

describe('identities', () => {
  it('sets a provider identity through PUT /users/:id and removes it', async () => {
    const u = await s.createUser();
    const res = await s.put(`/users/${u.user.id}`, { provider: 'test_provider', extern_uid: '1' });
    expect(res.body.identities).toEqual([{ provider: 'test_provider', extern_uid: '1', saml_provider_id: null }]);
    expect((await s.put(`/users/${u.user.id}`, { provider: 'test_provider', extern_uid: '2' })).body.identities.map((i: any) => i.extern_uid)).toEqual(['2']);
    expect((await s.del(`/users/${u.user.id}/identities/test_provider`)).status).toBe(204);
    expect((await s.del(`/users/${u.user.id}/identities/test_provider`)).body).toEqual({ message: '404 Identity Not Found' });
  });
});

describe('user activities', () => {
  it('lists who was active since a date, for administrators', async () => {
    const u = await s.createUser({ username: 'active_one' });
    await s.createProject({ name: 'activity' }, u.token);
    const res = await s.get('/user/activities', { query: { from: '2019-01-01' } });
    expect(res.status).toBe(200);
    expect(res.body.find((a: any) => a.username === 'active_one')).toMatchObject({ last_activity_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect((await s.get('/user/activities', { token: u.token })).status).toBe(403);
  });
});

describe('user status', () => {
  it('sets, reads and clears the current user status', async () => {
    const u = await s.createUser({ username: 'statusful' });
    expect((await s.get('/user/status', { token: u.token })).body).toEqual({ emoji: null, availability: null, message: null, message_html: '', clear_status_at: null });
    const set = await s.put('/user/status', { message: 'Test', emoji: 'thumbsup' }, { token: u.token });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ emoji: 'thumbsup', message: 'Test', availability: 'not_set', clear_status_at: null });
    expect((await s.get('/users/statusful/status', { token: null })).body.message).toBe('Test');
    const patched = await s.patch('/user/status', { availability: 'busy', clear_status_after: '1_day' }, { token: u.token });
    expect(patched.body).toMatchObject({ emoji: 'thumbsup', message: 'Test', availability: 'busy' });
    expect(patched.body.clear_status_at).not.toBeNull();
    expect((await s.put('/user/status', { message: 'only a message' }, { token: u.token })).body).toMatchObject({ emoji: 'speech_balloon', availability: 'not_set' });
    expect((await s.put('/user/status', { emoji: 'not_an_emoji_name' }, { token: u.token })).body).toEqual({ message: { emoji: ['is not a valid emoji name'] } });
    expect((await s.put('/user/status', {}, { token: u.token })).body.message).toBeNull();
  });
});

describe('GET /users/:user_id/memberships', () => {
  it("lists a user's direct memberships of groups and projects for administrators, filtered by type", async () => {
    const { user, token } = await s.createUser();
    const group = await s.createGroup({ name: 'Members club' });
    const project = await s.createProject({ name: 'Members project' });
    await s.addMember('groups', group.id, user.id, 30);
    await s.addMember('projects', project.id, user.id, 20);
    const all = await s.get(`/users/${user.id}/memberships`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual([
      { source_id: group.id, source_name: 'Members club', source_type: 'Namespace', access_level: 30 },
      { source_id: project.id, source_name: 'Members project', source_type: 'Project', access_level: 20 },
    ]);
    expect((await s.get(`/users/${user.id}/memberships`, { query: { type: 'Project' } })).body.map((m: any) => m.source_id)).toEqual([project.id]);
    expect((await s.get(`/users/${user.id}/memberships`, { query: { type: 'Invalid' } })).body).toEqual({ error: 'type does not have a valid value' });
    expect((await s.get(`/users/${user.id}/memberships`, { token })).status).toBe(403);
    expect((await s.get('/users/999999/memberships')).body).toEqual({ message: '404 User Not Found' });
  });
});
