import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let now = new Date('2026-01-10T12:00:00.000Z');
beforeAll(async () => {
  s = await TestService.start({ clock: () => now });
});
afterAll(async () => s.stop());

describe('users', () => {
  it('starts with root, id 1, admin', async () => {
    const me = await s.get('/user');
    expect(me.body).toMatchObject({ id: 1, username: 'root', is_admin: true, state: 'active' });
    expect(me.body.web_url).toBe(`${s.url}/root`);
  });

  it('lets an admin create a user with or without a password', async () => {
    const withPw = await s.post('/users', { username: 'bob', name: 'Bob', email: 'bob@example.com', password: 'password123' });
    expect(withPw.status).toBe(201);
    expect(withPw.body).toMatchObject({ username: 'bob', name: 'Bob', email: 'bob@example.com', is_admin: false });
    const without = await s.post('/users', { username: 'carol', name: 'Carol', email: 'carol@example.com', reset_password: true });
    expect(without.status).toBe(201);
  });

  it('needs a password, reset_password or force_random_password', async () => {
    const res = await s.post('/users', { username: 'nopw', name: 'N', email: 'nopw@example.com' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'password, reset_password, force_random_password are missing, at least one parameter must be provided' });
    const random = await s.post('/users', { username: 'randpw', name: 'R', email: 'randpw@example.com', force_random_password: true });
    expect(random.status).toBe(201);
  });

  it('answers 409 for a taken username or e-mail and 400 for a short password', async () => {
    const dupName = await s.post('/users', { username: 'BOB', name: 'x', email: 'other@example.com', password: 'password123' });
    expect(dupName.status).toBe(409);
    expect(dupName.body).toEqual({ message: 'Username has already been taken' });
    const dupMail = await s.post('/users', { username: 'bob2', name: 'x', email: 'Bob@example.com', password: 'password123' });
    expect(dupMail.status).toBe(409);
    expect(dupMail.body).toEqual({ message: 'Email has already been taken' });
    const short = await s.post('/users', { username: 'dave', name: 'x', email: 'dave@example.com', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ message: { password: ['is too short (minimum is 8 characters)'] } });
  });

  it('stores provider, extern_uid and group_id_for_saml as an identity', async () => {
    const g = await s.createGroup();
    const res = await s.post('/users', {
      username: 'samluser', name: 'S', email: 'saml@example.com', password: 'password123',
      provider: 'group_saml', extern_uid: 'uid-1', group_id_for_saml: g.id,
    });
    expect(res.status).toBe(201);
    expect(res.body.identities).toEqual([{ provider: 'group_saml', extern_uid: 'uid-1', saml_provider_id: g.id }]);
  });

  it('refuses user creation by non-admins with 403', async () => {
    const { token } = await s.createUser();
    const res = await s.post('/users', { username: 'x1', name: 'x', email: 'x1@example.com', password: 'password123' }, { token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden' });
  });

  it('shows others the public profile only, and 404 for an unknown user', async () => {
    const { token } = await s.createUser();
    const other = await s.get('/users/bob', { token });
    expect(other.status).toBe(200);
    expect(other.body).not.toHaveProperty('email');
    expect(other.body).not.toHaveProperty('is_admin');
    expect((await s.get('/users/99999')).body).toEqual({ message: '404 User Not Found' });
  });

  it('lists users with username and search filters', async () => {
    const byName = await s.get('/users', { query: { username: 'bob' } });
    expect(byName.body.map((u: any) => u.username)).toEqual(['bob']);
    const search = await s.get('/users', { query: { search: 'caro' } });
    expect(search.body.map((u: any) => u.username)).toEqual(['carol']);
  });

  it('updates and deletes users as an admin', async () => {
    const { user } = await s.createUser();
    const upd = await s.put(`/users/${user.id}`, { name: 'Renamed', bio: 'hello' });
    expect(upd.body).toMatchObject({ name: 'Renamed', bio: 'hello' });
    expect((await s.del(`/users/${user.id}`)).status).toBe(204);
    expect((await s.get(`/users/${user.id}`)).status).toBe(404);
  });
});

describe('personal access tokens', () => {
  it('creates a token shown once, stored as a digest, listed without its value', async () => {
    const { user } = await s.createUser();
    const created = await s.post(`/users/${user.id}/personal_access_tokens`, { name: 'ci', scopes: ['api', 'read_user'], expires_at: '2026-06-01' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'ci', scopes: ['api', 'read_user'], revoked: false, active: true, expires_at: '2026-06-01', user_id: user.id });
    expect(created.body.token).toMatch(/^glpat-[A-Za-z0-9_-]{20}$/);
    const got = await s.get(`/personal_access_tokens/${created.body.id}`);
    expect(got.body).not.toHaveProperty('token');
    const row = s.service.context.db.prepare('SELECT token_digest FROM personal_access_tokens WHERE id = ?').get(created.body.id) as { token_digest: string };
    expect(row.token_digest).not.toContain(created.body.token);
    expect(row.token_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('defaults expires_at to 365 days and validates scopes', async () => {
    const { user } = await s.createUser();
    const res = await s.post(`/users/${user.id}/personal_access_tokens`, { name: 'x', scopes: ['api'] });
    expect(res.body.expires_at).toBe('2027-01-10');
    const bad = await s.post(`/users/${user.id}/personal_access_tokens`, { name: 'x', scopes: ['everything'] });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'scopes does not have a valid value' });
    const missing = await s.post(`/users/${user.id}/personal_access_tokens`, { name: 'x' });
    expect(missing.body).toEqual({ error: 'scopes is missing' });
  });

  it('answers 401 token expired once its expiry date arrives', async () => {
    const { user } = await s.createUser();
    const res = await s.post(`/users/${user.id}/personal_access_tokens`, { name: 'short', scopes: ['api'], expires_at: '2026-01-12' });
    const token = res.body.token;
    expect((await s.get('/user', { token })).status).toBe(200);
    now = new Date('2026-01-12T00:00:01.000Z');
    try {
      const expired = await s.get('/user', { token });
      expect(expired.status).toBe(401);
      expect(expired.body).toEqual({
        error: 'invalid_token',
        error_description: 'Token is expired. You can either do re-authorization or token refresh.',
      });
    } finally {
      now = new Date('2026-01-10T12:00:00.000Z');
    }
  });

  it('reads and revokes the token in use through /personal_access_tokens/self', async () => {
    const { token } = await s.createUser();
    const self = await s.get('/personal_access_tokens/self', { token });
    expect(self.body.name).toBe('test');
    expect((await s.del('/personal_access_tokens/self', { token })).status).toBe(204);
    expect((await s.get('/user', { token })).status).toBe(401);
  });

  it('rotates: the old token stops at once, the new one works and expires in a week', async () => {
    const { token } = await s.createUser();
    const self = await s.get('/personal_access_tokens/self', { token });
    const rotated = await s.post(`/personal_access_tokens/${self.body.id}/rotate`, undefined, { token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.token).toMatch(/^glpat-/);
    expect(rotated.body.expires_at).toBe('2026-01-17');
    expect((await s.get('/user', { token })).status).toBe(401);
    expect((await s.get('/user', { token: rotated.body.token })).status).toBe(200);
    const again = await s.post(`/personal_access_tokens/${self.body.id}/rotate`);
    expect(again.status).toBe(400);
  });

  it('hides other users\' tokens from non-admins', async () => {
    const a = await s.createUser();
    const b = await s.createUser();
    const bTok = await s.get('/personal_access_tokens/self', { token: b.token });
    expect((await s.get(`/personal_access_tokens/${bTok.body.id}`, { token: a.token })).status).toBe(404);
    const list = await s.get('/personal_access_tokens', { token: a.token });
    expect(list.body.every((t: any) => t.user_id === a.user.id)).toBe(true);
    expect((await s.del(`/personal_access_tokens/${bTok.body.id}`, { token: a.token })).status).toBe(400);
    expect((await s.get('/user', { token: b.token })).status).toBe(200);
  });

  it('lists every user\'s tokens for an admin, with the reference filters and sort', async () => {
    const { user } = await s.createUser();
    await s.post(`/users/${user.id}/personal_access_tokens`, { name: 'zz-last', scopes: ['api'] });
    const all = await s.get('/personal_access_tokens', { query: { per_page: 100 } });
    expect(new Set(all.body.map((t: any) => t.user_id)).size).toBeGreaterThan(2);
    const mine = await s.get('/personal_access_tokens', { query: { user_id: user.id, sort: 'name_desc' } });
    expect(mine.body.map((t: any) => t.name)).toEqual(['zz-last', 'test']);
    const searched = await s.get('/personal_access_tokens', { query: { user_id: user.id, search: 'zz' } });
    expect(searched.body.map((t: any) => t.name)).toEqual(['zz-last']);
    expect((await s.get('/personal_access_tokens', { query: { sort: 'sideways' } })).body).toEqual({ error: 'sort does not have a valid value' });
  });

  it('records last_used_at when a token authenticates', async () => {
    const { token } = await s.createUser();
    await s.get('/user', { token });
    const self = await s.get('/personal_access_tokens/self', { token });
    expect(self.body.last_used_at).toBe(now.toISOString());
  });
});

describe('version and metadata', () => {
  it('answers version and revision strings, and 401 anonymously', async () => {
    const v = await s.get('/version');
    expect(typeof v.body.version).toBe('string');
    expect(typeof v.body.revision).toBe('string');
    expect((await s.get('/version', { token: null })).status).toBe(401);
    const m = await s.get('/metadata');
    expect(m.body).toMatchObject({ version: v.body.version, kas: { enabled: false } });
  });
});
