import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

async function samlUser(groupId: number, uid: string) {
  const res = await s.post('/users', {
    username: `saml_${uid}`,
    name: 'Saml',
    email: `saml_${uid}@example.com`,
    password: 'password123',
    provider: 'group_saml',
    extern_uid: uid,
    group_id_for_saml: groupId,
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe('SAML identities', () => {
  it('lists identities created through the users API', async () => {
    const g = await s.createGroup();
    const u = await samlUser(g.id, 'uid-1');
    const res = await s.get(`/groups/${g.id}/saml/identities`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ extern_uid: 'uid-1', user_id: u.id }]);
    expect(res.headers.get('x-total')).toBeNull();
  });

  it('gets, updates and deletes one by external UID', async () => {
    const g = await s.createGroup();
    const u = await samlUser(g.id, 'uid-2');
    expect((await s.get(`/groups/${g.id}/saml/uid-2`)).body).toEqual({ extern_uid: 'uid-2', user_id: u.id });
    const upd = await s.patch(`/groups/${g.id}/saml/uid-2`, { extern_uid: 'uid-2b' });
    expect(upd.status).toBe(200);
    expect(upd.body).toEqual({ extern_uid: 'uid-2b', user_id: u.id });
    expect((await s.get(`/groups/${g.id}/saml/uid-2`)).body).toEqual({ message: '404 Identity Not Found' });
    expect((await s.patch(`/groups/${g.id}/saml/uid-2b`, {})).body).toEqual({ error: 'extern_uid is missing' });
    expect((await s.del(`/groups/${g.id}/saml/uid-2b`)).status).toBe(204);
    expect((await s.del(`/groups/${g.id}/saml/uid-2b`)).status).toBe(404);
  });

  it('refuses a clashing external UID', async () => {
    const g = await s.createGroup();
    await samlUser(g.id, 'uid-3');
    await samlUser(g.id, 'uid-4');
    const res = await s.patch(`/groups/${g.id}/saml/uid-4`, { extern_uid: 'uid-3' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Extern uid has already been taken' });
  });

  it('needs the Owner role', async () => {
    const g = await s.createGroup();
    const { user, token } = await s.createUser();
    expect((await s.get(`/groups/${g.id}/saml/identities`, { token })).body).toEqual({ message: '404 Group Not Found' });
    await s.addMember('groups', g.id, user.id, 40);
    expect((await s.get(`/groups/${g.id}/saml/identities`, { token })).body).toEqual({ message: '403 Forbidden' });
    expect((await s.get(`/groups/${g.id}/saml/identities`, { token: null })).status).toBe(401);
    // The Owner check comes before parameter validation.
    expect((await s.patch(`/groups/${g.id}/saml/uid-x`, {}, { token })).body).toEqual({ message: '403 Forbidden' });
    expect((await s.patch(`/groups/${g.id}/saml/uid-x`, {})).body).toEqual({ error: 'extern_uid is missing' });
  });

  it('answers 400 for a subgroup, which has no SAML provider', async () => {
    const g = await s.createGroup();
    const sub = await s.createGroup({ parent_id: g.id });
    expect((await s.get(`/groups/${sub.id}/saml/identities`)).body).toEqual({ message: '400 Bad request' });
  });
});

describe('SAML group links', () => {
  it('creates, lists, gets and deletes a link', async () => {
    const g = await s.createGroup();
    const res = await s.post(`/groups/${g.id}/saml_group_links`, { saml_group_name: ' saml-group-1 ', access_level: 10 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'saml-group-1', access_level: 10, member_role_id: null, provider: null });
    expect((await s.get(`/groups/${g.id}/saml_group_links`)).body).toEqual([res.body]);
    expect((await s.get(`/groups/${g.id}/saml_group_links/saml-group-1`)).body).toEqual(res.body);
    expect((await s.del(`/groups/${g.id}/saml_group_links/saml-group-1`)).status).toBe(204);
    expect((await s.get(`/groups/${g.id}/saml_group_links/saml-group-1`)).body).toEqual({ message: '404 Not Found' });
  });

  it('keeps member_role_id and provider, and disambiguates by provider', async () => {
    const g = await s.createGroup();
    const a = await s.post(`/groups/${g.id}/saml_group_links`, { saml_group_name: 'dev', access_level: 30, provider: 'okta', member_role_id: 7 });
    expect(a.body).toEqual({ name: 'dev', access_level: 30, member_role_id: 7, provider: 'okta' });
    await s.post(`/groups/${g.id}/saml_group_links`, { saml_group_name: 'dev', access_level: 20 });
    const ambiguous = await s.get(`/groups/${g.id}/saml_group_links/dev`);
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.body).toEqual({ message: 'Multiple group links found with the same name. Please specify a provider parameter to disambiguate.' });
    expect((await s.del(`/groups/${g.id}/saml_group_links/dev`)).status).toBe(422);
    expect((await s.get(`/groups/${g.id}/saml_group_links/dev`, { query: { provider: 'okta' } })).body.access_level).toBe(30);
    expect((await s.get(`/groups/${g.id}/saml_group_links/dev`, { query: { provider: '' } })).body.access_level).toBe(20);
    expect((await s.del(`/groups/${g.id}/saml_group_links/dev`, { query: { provider: 'okta' } })).status).toBe(204);
    expect((await s.get(`/groups/${g.id}/saml_group_links/dev`)).body.access_level).toBe(20);
  });

  it('finds a link by its URL-encoded name', async () => {
    const g = await s.createGroup();
    await s.post(`/groups/${g.id}/saml_group_links`, { saml_group_name: 'cn=devs,ou=groups', access_level: 30 });
    const res = await s.get(`/groups/${g.id}/saml_group_links/${encodeURIComponent('cn=devs,ou=groups')}`);
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('cn=devs,ou=groups');
  });

  it('validates the access level and duplicates', async () => {
    const g = await s.createGroup();
    const path = `/groups/${g.id}/saml_group_links`;
    expect((await s.post(path, { saml_group_name: 'x', access_level: 11 })).body).toEqual({ error: 'access_level does not have a valid value' });
    expect((await s.post(path, { saml_group_name: 'x', access_level: 0 })).body).toEqual({ message: 'Access level is invalid' });
    expect((await s.post(path, { access_level: 10 })).body).toEqual({ error: 'saml_group_name is missing' });
    await s.post(path, { saml_group_name: 'dup', access_level: 10 });
    const dup = await s.post(path, { saml_group_name: 'dup', access_level: 20 });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: 'Saml group name has already been taken' });
  });

  it('answers permission failures with 401, as GitLab does', async () => {
    const g = await s.createGroup();
    const { user, token } = await s.createUser();
    await s.addMember('groups', g.id, user.id, 40);
    expect((await s.get(`/groups/${g.id}/saml_group_links`, { token })).body).toEqual({ message: '401 Unauthorized' });
    expect((await s.post(`/groups/${g.id}/saml_group_links`, { saml_group_name: 'a', access_level: 10 }, { token })).status).toBe(401);
    expect((await s.get('/groups/999999/saml_group_links')).status).toBe(401);
  });
});
