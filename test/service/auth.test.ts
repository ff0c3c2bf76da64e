import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

describe('authentication', () => {
  it('accepts PRIVATE-TOKEN, private_token and Authorization: Bearer', async () => {
    expect((await s.get('/user')).body.username).toBe('root');
    expect((await s.get('/user', { token: null, query: { private_token: ROOT_TOKEN } })).status).toBe(200);
    expect((await s.get('/user', { token: null, headers: { authorization: `Bearer ${ROOT_TOKEN}` } })).status).toBe(200);
  });

  it('answers 401 without credentials and for an unknown token', async () => {
    const anon = await s.get('/user', { token: null });
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ message: '401 Unauthorized' });
    const bad = await s.get('/user', { token: 'glpat-nope' });
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual({ message: '401 Unauthorized' });
  });

  it('answers 401 invalid_token for revoked and expired tokens', async () => {
    const { user, token } = await s.createUser();
    const list = await s.get('/personal_access_tokens', { query: { user_id: user.id } });
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).not.toHaveProperty('token');
    expect((await s.del(`/personal_access_tokens/${list.body[0].id}`)).status).toBe(204);
    const revoked = await s.get('/user', { token });
    expect(revoked.status).toBe(401);
    expect(revoked.body).toEqual({
      error: 'invalid_token',
      error_description: 'Token was revoked. You have to re-authorize from the user.',
    });
    expect(revoked.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('refuses writes with a read_api token (403 insufficient_scope) but allows reads', async () => {
    const { token } = await s.createUser({}, ['read_api']);
    expect((await s.get('/projects', { token })).status).toBe(200);
    const write = await s.post('/projects', { name: 'nope' }, { token });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'api',
    });
  });

  it('lets an admin act as another user with Sudo, and refuses non-admins', async () => {
    const { user, token } = await s.createUser();
    const asUser = await s.get('/user', { headers: { sudo: user.username } });
    expect(asUser.body.id).toBe(user.id);
    const denied = await s.get('/user', { token, headers: { sudo: 'root' } });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ message: '403 Forbidden - Must be admin to use sudo' });
    const unknown = await s.get('/user', { headers: { sudo: 'ghost-user' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: "404 User with ID or username 'ghost-user' Not Found" });
  });
});
