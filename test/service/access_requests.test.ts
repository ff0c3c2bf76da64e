import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

describe.each(['projects', 'groups'] as const)('%s access requests', (kind) => {
  const source = async (extra: Record<string, unknown> = {}) =>
    kind === 'projects' ? s.createProject({ visibility: 'internal', ...extra }) : s.createGroup({ visibility: 'internal', ...extra });

  it('creates a request for the current user (201) and refuses a second one (400)', async () => {
    const src = await source();
    const u = await s.createUser();
    const res = await s.post(`/${kind}/${src.id}/access_requests`, {}, { token: u.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: u.user.id, username: u.user.username, name: u.user.name, state: 'active', locked: false, avatar_url: null });
    expect(res.body.web_url).toMatch(new RegExp(`/${u.user.username}$`));
    expect(res.body.requested_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(res.body.created_at).toBe(res.body.requested_at);
    const again = await s.post(`/${kind}/${src.id}/access_requests`, undefined, { token: u.token });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: { user_id: ['already exists in source'] } });
  });

  it('refuses a request from an existing member with 403 and hides private sources (404)', async () => {
    const src = await source();
    const member = await s.createUser();
    await s.addMember(kind, src.id, member.user.id, 20);
    expect((await s.post(`/${kind}/${src.id}/access_requests`, {}, { token: member.token })).status).toBe(403);
    const hidden = await source({ visibility: 'private' });
    const res = await s.post(`/${kind}/${hidden.id}/access_requests`, {}, { token: member.token });
    expect(res.status).toBe(404);
  });

  it('refuses requests where requesting access is disabled', async () => {
    const src = await source({ request_access_enabled: false });
    const u = await s.createUser();
    expect((await s.post(`/${kind}/${src.id}/access_requests`, {}, { token: u.token })).status).toBe(403);
  });

  it('lists requests for managers only', async () => {
    const src = await source();
    const u = await s.createUser();
    const dev = await s.createUser();
    await s.addMember(kind, src.id, dev.user.id, 30);
    await s.post(`/${kind}/${src.id}/access_requests`, {}, { token: u.token });
    const list = await s.get(`/${kind}/${src.id}/access_requests`);
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('1');
    expect(list.body).toEqual([
      {
        id: u.user.id, username: u.user.username, name: u.user.name, state: 'active', locked: false, avatar_url: null,
        web_url: expect.any(String), requested_at: expect.any(String),
      },
    ]);
    expect((await s.get(`/${kind}/${src.id}/access_requests`, { token: dev.token })).status).toBe(403);
    expect((await s.get(`/${kind}/${src.id}/access_requests`, { token: u.token })).status).toBe(403);
  });

  it('approves with 201 at Developer by default; the user becomes a member and "joined"', async () => {
    const src = await source();
    const u = await s.createUser();
    await s.post(`/${kind}/${src.id}/access_requests`, {}, { token: u.token });
    const res = await s.put(`/${kind}/${src.id}/access_requests/${u.user.id}/approve`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: u.user.id, username: u.user.username, access_level: 30, expires_at: null });
    const member = await s.get(`/${kind}/${src.id}/members/${u.user.id}`);
    expect(member.body.access_level).toBe(30);
    expect((await s.get(`/${kind}/${src.id}/access_requests`)).body).toEqual([]);
    if (kind === 'projects') {
      const events = await s.get(`/projects/${src.id}/events`, { query: { action: 'joined' } });
      expect(events.body[0]).toMatchObject({ action_name: 'joined', author_id: u.user.id, target_type: null });
    }
  });

  it('approves at a given level and answers 404 when there is no request', async () => {
    const src = await source();
    const u = await s.createUser();
    await s.post(`/${kind}/${src.id}/access_requests`, {}, { token: u.token });
    const res = await s.put(`/${kind}/${src.id}/access_requests/${u.user.id}/approve`, { access_level: 20 });
    expect(res.body.access_level).toBe(20);
    const none = await s.put(`/${kind}/${src.id}/access_requests/${u.user.id}/approve`);
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ message: '404 Not found' });
  });

  it('refuses approval by a non-manager with 403', async () => {
    const src = await source();
    const u = await s.createUser();
    const dev = await s.createUser();
    await s.addMember(kind, src.id, dev.user.id, 30);
    await s.post(`/${kind}/${src.id}/access_requests`, {}, { token: u.token });
    expect((await s.put(`/${kind}/${src.id}/access_requests/${u.user.id}/approve`, {}, { token: dev.token })).status).toBe(403);
    expect((await s.del(`/${kind}/${src.id}/access_requests/${u.user.id}`, { token: dev.token })).status).toBe(403);
  });

  it('looks the request up before the permission check, as GitLab: 404 for a non-manager when there is none', async () => {
    const src = await source();
    const dev = await s.createUser();
    await s.addMember(kind, src.id, dev.user.id, 30);
    const res = await s.put(`/${kind}/${src.id}/access_requests/${dev.user.id}/approve`, {}, { token: dev.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Not found' });
    expect((await s.del(`/${kind}/${src.id}/access_requests/${dev.user.id}`, { token: dev.token })).status).toBe(404);
  });

  it('denies (manager) or withdraws (requester) with 204', async () => {
    const src = await source();
    const a = await s.createUser();
    const b = await s.createUser();
    await s.post(`/${kind}/${src.id}/access_requests`, {}, { token: a.token });
    await s.post(`/${kind}/${src.id}/access_requests`, {}, { token: b.token });
    const deny = await s.del(`/${kind}/${src.id}/access_requests/${a.user.id}`);
    expect(deny.status).toBe(204);
    const withdraw = await s.del(`/${kind}/${src.id}/access_requests/${b.user.id}`, { token: b.token });
    expect(withdraw.status).toBe(204);
    expect((await s.get(`/${kind}/${src.id}/access_requests`)).body).toEqual([]);
    const again = await s.del(`/${kind}/${src.id}/access_requests/${a.user.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Not found' });
    expect((await s.get(`/${kind}/${src.id}/members/${a.user.id}`)).status).toBe(404);
  });
});
