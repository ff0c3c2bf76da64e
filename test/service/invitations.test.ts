import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

const future = (days = 30): string => new Date(Date.now() + days * 86400_000).toISOString().slice(0, 10);

describe.each(['projects', 'groups'] as const)('%s invitations', (kind) => {
  const source = async () => (kind === 'projects' ? s.createProject() : s.createGroup());

  it('invites one e-mail and lists the pending invitation with the reference fields and the token', async () => {
    const src = await source();
    const res = await s.post(`/${kind}/${src.id}/invitations`, { email: 'new@example.org', access_level: 30, expires_at: future() });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: 'success' });
    const list = await s.get(`/${kind}/${src.id}/invitations`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: expect.any(Number),
        access_level: 30,
        created_at: expect.stringMatching(/Z$/),
        expires_at: future(),
        invite_email: 'new@example.org',
        invite_token: expect.stringMatching(/^[0-9a-f]{64}$/),
        user_name: null,
        created_by_name: 'Administrator',
      },
    ]);
    expect(list.headers.get('x-total')).toBe('1');
    // Pending invitations are not members.
    expect((await s.get(`/${kind}/${src.id}/members`)).body.every((m: any) => m.username !== undefined)).toBe(true);
  });

  it('invites a comma-separated list and reports failures per e-mail while inviting the rest', async () => {
    const src = await source();
    await s.post(`/${kind}/${src.id}/invitations`, { email: 'taken@example.org', access_level: 30 });
    const res = await s.post(`/${kind}/${src.id}/invitations`, { email: 'taken@example.org,fresh@example.org', access_level: 30 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: 'error', message: { 'taken@example.org': 'Invite email has already been taken' } });
    const emails = (await s.get(`/${kind}/${src.id}/invitations`)).body.map((i: any) => i.invite_email);
    expect(emails).toEqual(['taken@example.org', 'fresh@example.org']);
  });

  it('reports a past expiry per e-mail', async () => {
    const src = await source();
    const res = await s.post(`/${kind}/${src.id}/invitations`, { email: 'late@example.org', access_level: 30, expires_at: '2000-01-01' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: 'error', message: { 'late@example.org': 'Expires at cannot be a date in the past' } });
  });

  it('adds existing users invited by id at once and reports existing members by username', async () => {
    const src = await source();
    const u = await s.createUser();
    const res = await s.post(`/${kind}/${src.id}/invitations`, { user_id: String(u.user.id), access_level: 20 });
    expect(res.body).toEqual({ status: 'success' });
    expect((await s.get(`/${kind}/${src.id}/members/${u.user.id}`)).body.access_level).toBe(20);
    expect((await s.get(`/${kind}/${src.id}/invitations`)).body).toEqual([]);
    const again = await s.post(`/${kind}/${src.id}/invitations`, { user_id: u.user.id, access_level: 20 });
    expect(again.body).toEqual({ status: 'error', message: { [u.user.username]: 'User already exists in source' } });
  });

  it('validates parameters with GitLab\'s errors', async () => {
    const src = await source();
    const noTarget = await s.post(`/${kind}/${src.id}/invitations`, { access_level: 30 });
    expect(noTarget.status).toBe(400);
    expect(noTarget.body).toEqual({ message: '400 Bad request - Must provide either email or user_id as a parameter' });
    const blank = await s.post(`/${kind}/${src.id}/invitations`, { email: '', access_level: 30 });
    expect(blank.body).toEqual({ message: '400 Bad request - Must provide either email or user_id as a parameter' });
    const badEmail = await s.post(`/${kind}/${src.id}/invitations`, { email: 'ok@example.org,not-an-email', access_level: 30 });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body).toEqual({ error: 'email contains an invalid email address' });
    expect((await s.post(`/${kind}/${src.id}/invitations`, { email: 'a@example.org' })).body).toEqual({ error: 'access_level is missing' });
    expect((await s.post(`/${kind}/${src.id}/invitations`, { email: 'a@example.org', access_level: 31 })).body).toEqual({
      error: 'access_level does not have a valid value',
    });
  });

  it('refuses non-managers (403) and hides private sources (404)', async () => {
    const src = await source();
    const dev = await s.createUser();
    const outsider = await s.createUser();
    await s.addMember(kind, src.id, dev.user.id, 30);
    await s.post(`/${kind}/${src.id}/invitations`, { email: 'x@example.org', access_level: 30 });
    expect((await s.post(`/${kind}/${src.id}/invitations`, { email: 'y@example.org', access_level: 30 }, { token: dev.token })).status).toBe(403);
    expect((await s.get(`/${kind}/${src.id}/invitations`, { token: dev.token })).status).toBe(403);
    expect((await s.put(`/${kind}/${src.id}/invitations/x%40example.org`, { access_level: 20 }, { token: dev.token })).status).toBe(403);
    expect((await s.del(`/${kind}/${src.id}/invitations/x%40example.org`, { token: dev.token })).status).toBe(403);
    expect((await s.get(`/${kind}/${src.id}/invitations`, { token: outsider.token })).status).toBe(404);
  });

  it('filters the list by exact e-mail with query', async () => {
    const src = await source();
    await s.post(`/${kind}/${src.id}/invitations`, { email: 'one@example.org,two@example.org', access_level: 30 });
    const res = await s.get(`/${kind}/${src.id}/invitations`, { query: { query: 'two@example.org' } });
    expect(res.body.map((i: any) => i.invite_email)).toEqual(['two@example.org']);
    expect((await s.get(`/${kind}/${src.id}/invitations`, { query: { query: 'two' } })).body).toEqual([]);
  });

  it('updates access_level and expires_at by e-mail', async () => {
    const src = await source();
    await s.post(`/${kind}/${src.id}/invitations`, { email: 'upd@example.org', access_level: 30 });
    const res = await s.put(`/${kind}/${src.id}/invitations/upd%40example.org`, { access_level: 40, expires_at: future(10) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ invite_email: 'upd@example.org', access_level: 40, expires_at: future(10) });
    const nothing = await s.put(`/${kind}/${src.id}/invitations/upd%40example.org`, {});
    expect(nothing.status).toBe(400);
    expect(nothing.body).toEqual({ message: '400 Bad request' });
    const past = await s.put(`/${kind}/${src.id}/invitations/upd%40example.org`, { expires_at: '2001-01-01' });
    expect(past.body).toEqual({ message: { expires_at: ['cannot be a date in the past'] } });
    const unknown = await s.put(`/${kind}/${src.id}/invitations/nobody%40example.org`, { access_level: 20 });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 Not Found' });
  });

  it('deletes an invitation with 204 and answers 404 afterwards', async () => {
    const src = await source();
    await s.post(`/${kind}/${src.id}/invitations`, { email: 'gone@example.org', access_level: 30 });
    const del = await s.del(`/${kind}/${src.id}/invitations/gone%40example.org`);
    expect(del.status).toBe(204);
    expect((await s.get(`/${kind}/${src.id}/invitations`)).body).toEqual([]);
    const again = await s.del(`/${kind}/${src.id}/invitations/gone%40example.org`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Not Found' });
  });

  it('makes a user who registers with the invited e-mail the member', async () => {
    const src = await source();
    const email = `later-${kind}@example.org`;
    await s.post(`/${kind}/${src.id}/invitations`, { email, access_level: 20 });
    const u = await s.createUser({ email, username: `later_${kind}` });
    const member = await s.get(`/${kind}/${src.id}/members/${u.user.id}`);
    expect(member.status).toBe(200);
    expect(member.body.access_level).toBe(20);
    expect((await s.get(`/${kind}/${src.id}/invitations`)).body).toEqual([]);
  });
});
