import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

describe('instance service accounts', () => {
  it('creates one with the reference defaults', async () => {
    const res = await s.post('/service_accounts');
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['email', 'id', 'name', 'username']);
    expect(res.body.name).toBe('Service account user');
    expect(res.body.username).toMatch(/^service_account_[0-9a-f]{32}$/);
    expect(res.body.email).toBe(`${res.body.username}@noreply.127.0.0.1`);
    const user = await s.get(`/users/${res.body.id}`);
    expect(user.body.bot).toBe(true);
  });

  it('answers 400 when the e-mail is already in use', async () => {
    await s.post('/service_accounts', { email: 'taken@example.com', username: 'sa_taken' });
    const res = await s.post('/service_accounts', { email: 'taken@example.com' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: '400 Bad request - Email has already been taken' });
  });

  it('lists only id, username and name, ordered by the given field', async () => {
    await s.post('/service_accounts', { username: 'aaa_sa', name: 'A' });
    await s.post('/service_accounts', { username: 'zzz_sa', name: 'Z' });
    const desc = await s.get('/service_accounts', { query: { order_by: 'username' } });
    expect(desc.status).toBe(200);
    expect(Object.keys(desc.body[0]).sort()).toEqual(['id', 'name', 'username']);
    expect(desc.body[0].username).toBe('zzz_sa');
    const asc = await s.get('/service_accounts', { query: { order_by: 'username', sort: 'asc' } });
    expect(asc.body[0].username).toBe('aaa_sa');
    expect(desc.headers.get('x-total')).toBe(String(desc.body.length));
  });

  it('updates name, username and e-mail with PATCH', async () => {
    const sa = (await s.post('/service_accounts')).body;
    const res = await s.patch(`/service_accounts/${sa.id}`, { name: 'Renamed', username: 'renamed_sa', email: 'renamed@example.com' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: sa.id, name: 'Renamed', username: 'renamed_sa', email: 'renamed@example.com' });
  });

  it('is for administrators only', async () => {
    const { token } = await s.createUser();
    expect((await s.get('/service_accounts', { token })).status).toBe(403);
    expect((await s.post('/service_accounts', {}, { token })).body).toEqual({ message: '403 Forbidden' });
    expect((await s.get('/service_accounts', { token: null })).status).toBe(401);
  });
});

describe('group service accounts', () => {
  it('creates one provisioned by a top-level group without making it a member', async () => {
    const g = await s.createGroup();
    const res = await s.post(`/groups/${g.id}/service_accounts`, { name: 'Bot' });
    expect(res.status).toBe(201);
    expect(res.body.username).toMatch(new RegExp(`^service_account_group_${g.id}_[0-9a-f]{32}$`));
    expect(res.body.name).toBe('Bot');
    const members = await s.get(`/groups/${g.id}/members`);
    expect(members.body.map((m: any) => m.id)).not.toContain(res.body.id);
    // The documented next step: the Owner adds it through the members API.
    const added = await s.post(`/groups/${g.id}/members`, { user_id: res.body.id, access_level: 30 });
    expect(added.status).toBe(201);
    const list = await s.get(`/groups/${g.id}/service_accounts`);
    expect(list.body).toEqual([res.body]);
    // Not listed among instance accounts.
    const inst = await s.get('/service_accounts', { query: { per_page: 100 } });
    expect(inst.body.map((x: any) => x.id)).not.toContain(res.body.id);
  });

  it('refuses subgroups, maintainers and strangers', async () => {
    const g = await s.createGroup();
    const sub = await s.createGroup({ parent_id: g.id });
    expect((await s.post(`/groups/${sub.id}/service_accounts`)).body).toEqual({ message: '400 Bad request - Group must be a top-level group' });
    const { user, token } = await s.createUser();
    expect((await s.get(`/groups/${g.id}/service_accounts`, { token })).status).toBe(404);
    await s.addMember('groups', g.id, user.id, 40);
    expect((await s.get(`/groups/${g.id}/service_accounts`, { token })).status).toBe(403);
    await s.addMember('groups', sub.id, user.id, 50);
    const owner = await s.createUser();
    await s.addMember('groups', g.id, owner.user.id, 50);
    expect((await s.post(`/groups/${g.id}/service_accounts`, {}, { token: owner.token })).status).toBe(201);
  });

  it('answers 404 for another group\'s account and 400 for a human', async () => {
    const g1 = await s.createGroup();
    const g2 = await s.createGroup();
    const sa = (await s.post(`/groups/${g1.id}/service_accounts`)).body;
    expect((await s.patch(`/groups/${g2.id}/service_accounts/${sa.id}`, { name: 'x' })).body).toEqual({ message: '404 User Not Found' });
    const { user } = await s.createUser();
    expect((await s.patch(`/groups/${g1.id}/service_accounts/${user.id}`, { name: 'x' })).body).toEqual({
      message: '400 Bad request - User is not of type Service Account',
    });
    expect((await s.get(`/groups/${g1.id}/service_accounts/${sa.id}`)).body).toEqual(sa);
    expect((await s.get(`/groups/${g2.id}/service_accounts/${sa.id}`)).status).toBe(404);
    const ok = await s.patch(`/groups/${g1.id}/service_accounts/${sa.id}`, { name: 'New name' });
    expect(ok.status).toBe(200);
    expect(ok.body.name).toBe('New name');
  });

  it('moves contributions to the ghost user on soft delete', async () => {
    const g = await s.createGroup();
    const sa = (await s.post(`/groups/${g.id}/service_accounts`)).body;
    await s.post(`/groups/${g.id}/members`, { user_id: sa.id, access_level: 30 });
    const project = await s.createProject({ namespace_id: g.id });
    const tok = await s.post(`/groups/${g.id}/service_accounts/${sa.id}/personal_access_tokens`, { name: 't', scopes: ['api'] });
    const issue = await s.post(`/projects/${project.id}/issues`, { title: 'by a bot' }, { token: tok.body.token });
    expect(issue.status).toBe(201);
    const del = await s.del(`/groups/${g.id}/service_accounts/${sa.id}`);
    expect(del.status).toBe(204);
    expect((await s.get(`/users/${sa.id}`)).status).toBe(404);
    const after = await s.get(`/projects/${project.id}/issues/${issue.body.iid}`);
    expect(after.body.author.username).toBe('ghost');
    expect(after.body.author).toMatchObject({ name: 'Ghost User', state: 'active' });
    const ghost = await s.get(`/users/${after.body.author.id}`);
    expect(ghost.body.user_type).toBe('ghost');
    // The issue list's author filter (counted from the issue filter counters) follows the move.
    const authored = async (userId: number) => (await s.get(`/projects/${project.id}/issues`, { query: { author_id: String(userId) } })).headers.get('x-total');
    expect([await authored(sa.id), await authored(ghost.body.id)]).toEqual(['0', '1']);
  });

  it('refuses to soft-delete the sole owner of a group, and deletes that group with hard_delete', async () => {
    const g = await s.createGroup();
    const sa = (await s.post(`/groups/${g.id}/service_accounts`)).body;
    const tok = (await s.post(`/groups/${g.id}/service_accounts/${sa.id}/personal_access_tokens`, { name: 't', scopes: ['api'] })).body;
    const owned = await s.post('/groups', { name: 'sa-owned', path: `sa-owned-${sa.id}` }, { token: tok.token });
    expect(owned.status).toBe(201);
    const soft = await s.del(`/groups/${g.id}/service_accounts/${sa.id}`);
    expect(soft.status).toBe(409);
    expect(soft.body).toEqual({ message: 'User cannot be removed while is the sole-owner of a group' });
    expect((await s.del(`/groups/${g.id}/service_accounts/${sa.id}`, { query: { hard_delete: 'true' } })).status).toBe(204);
    expect((await s.get(`/groups/${owned.body.id}`)).status).toBe(404);
  });

  it('answers 400 for a taken username on update', async () => {
    const g = await s.createGroup();
    const a = (await s.post(`/groups/${g.id}/service_accounts`)).body;
    const b = (await s.post(`/groups/${g.id}/service_accounts`)).body;
    const res = await s.patch(`/groups/${g.id}/service_accounts/${b.id}`, { username: a.username });
    expect(res.body).toEqual({ message: '400 Bad request - Username has already been taken' });
  });

  it('deletes contributions too with hard_delete', async () => {
    const g = await s.createGroup();
    const sa = (await s.post(`/groups/${g.id}/service_accounts`)).body;
    await s.post(`/groups/${g.id}/members`, { user_id: sa.id, access_level: 30 });
    const project = await s.createProject({ namespace_id: g.id });
    const tok = await s.post(`/groups/${g.id}/service_accounts/${sa.id}/personal_access_tokens`, { name: 't', scopes: ['api'] });
    const issue = await s.post(`/projects/${project.id}/issues`, { title: 'gone' }, { token: tok.body.token });
    expect((await s.del(`/groups/${g.id}/service_accounts/${sa.id}`, { query: { hard_delete: true } })).status).toBe(204);
    expect((await s.get(`/projects/${project.id}/issues/${issue.body.iid}`)).status).toBe(404);
  });
});

describe('service account personal access tokens', () => {
  let g: any;
  let sa: any;
  const path = () => `/groups/${g.id}/service_accounts/${sa.id}/personal_access_tokens`;
  beforeAll(async () => {
    g = await s.createGroup();
    sa = (await s.post(`/groups/${g.id}/service_accounts`)).body;
  });

  it('creates a token valid for the maximum lifetime by default, showing its value once', async () => {
    const res = await s.post(path(), { name: 'ci', scopes: ['api'], description: 'for CI' });
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^glpat-/);
    expect(res.body).toMatchObject({ name: 'ci', revoked: false, active: true, scopes: ['api'], user_id: sa.id, description: 'for CI', last_used_at: null });
    const expected = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
    expect(res.body.expires_at).toBe(expected);
    const list = await s.get(path());
    expect(list.body.find((x: any) => x.id === res.body.id).token).toBeUndefined();
  });

  it('requires scopes and checks their values', async () => {
    expect((await s.post(path(), { name: 'x' })).body).toEqual({ error: 'scopes is missing' });
    expect((await s.post(path(), { name: 'x', scopes: ['nope'] })).body).toEqual({ error: 'scopes does not have a valid value' });
  });

  it('filters by every reference filter and sorts', async () => {
    const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);
    const a = (await s.post(path(), { name: 'alpha', scopes: ['read_api'], expires_at: day(300) })).body;
    await new Promise((r) => setTimeout(r, 5));
    const b = (await s.post(path(), { name: 'beta', scopes: ['read_api'], expires_at: day(10) })).body;
    expect((await s.del(`${path()}/${b.id}`)).status).toBe(204);
    const ids = async (query: Record<string, string>) => (await s.get(path(), { query })).body.map((x: any) => x.id);
    expect(await ids({ search: 'alp' })).toEqual([a.id]);
    expect(await ids({ revoked: 'true' })).toEqual([b.id]);
    expect(await ids({ state: 'inactive' })).toEqual([b.id]);
    expect(await ids({ state: 'active' })).not.toContain(b.id);
    expect(await ids({ expires_after: day(299), search: 'a' })).toEqual([a.id]);
    expect(await ids({ expires_before: day(299) })).not.toContain(a.id);
    expect(await ids({ expires_before: day(299) })).toContain(b.id);
    expect(await ids({ created_after: b.created_at })).toEqual([b.id]);
    expect(await ids({ created_before: a.created_at })).toContain(a.id);
    expect(await ids({ created_before: a.created_at })).not.toContain(b.id);
    expect(await ids({ last_used_after: '2000-01-01T00:00:00Z' })).toEqual([]);
    expect(await ids({ last_used_before: '2100-01-01T00:00:00Z' })).toEqual([]);
    const byName = await ids({ sort: 'name_desc', search: 'a' });
    expect(byName.indexOf(b.id)).toBeLessThan(byName.indexOf(a.id));
    expect((await s.get(path(), { query: { sort: 'bogus' } })).body).toEqual({ error: 'sort does not have a valid value' });
  });

  it('updates last_used_at when the token authenticates', async () => {
    const tok = (await s.post(path(), { name: 'used', scopes: ['api'] })).body;
    await s.get('/user', { token: tok.token });
    const list = await s.get(path(), { query: { last_used_after: '2000-01-01T00:00:00Z' } });
    expect(list.body.map((x: any) => x.id)).toEqual([tok.id]);
    expect(list.body[0].last_used_at).not.toBeNull();
  });

  it('rotates: the old token stops authenticating at once and the new one works for a week', async () => {
    const old = (await s.post(path(), { name: 'rot', scopes: ['api'] })).body;
    expect((await s.get('/user', { token: old.token })).status).toBe(200);
    const res = await s.post(`${path()}/${old.id}/rotate`);
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^glpat-/);
    expect(res.body.name).toBe('rot');
    expect(res.body.expires_at).toBe(new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10));
    const denied = await s.get('/user', { token: old.token });
    expect(denied.status).toBe(401);
    expect(denied.body.error).toBe('invalid_token');
    const me = await s.get('/user', { token: res.body.token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(sa.id);
    const list = await s.get(path());
    expect(list.body.find((x: any) => x.id === old.id).revoked).toBe(true);
    expect((await s.post(`${path()}/${old.id}/rotate`)).body).toEqual({ message: '400 Bad request - Token already revoked' });
    const until = await s.post(`${path()}/${res.body.id}/rotate`, { expires_at: '2099-02-02' });
    expect(until.body.expires_at).toBe('2099-02-02');
    expect((await s.post(path(), { name: 'far', scopes: ['api'], expires_at: '2099-01-01' })).status).toBe(422);
  });

  it('answers 404 for a token of another user', async () => {
    const other = (await s.post(`/groups/${g.id}/service_accounts`)).body;
    const tok = (await s.post(`/groups/${g.id}/service_accounts/${other.id}/personal_access_tokens`, { name: 'x', scopes: ['api'] })).body;
    expect((await s.del(`${path()}/${tok.id}`)).body).toEqual({ message: '404 Not Found' });
    expect((await s.post(`${path()}/${tok.id}/rotate`)).status).toBe(404);
  });

  it('answers the path gitbeaker 43 posts tokens to with 405, as GitLab does', async () => {
    const res = await s.post(`/groups/${g.id}/service_accounts/${sa.id}`, { name: 'gb', scopes: ['api'] });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: '405 Not Allowed' });
  });
});
