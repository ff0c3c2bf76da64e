import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let alice: { user: any; token: string };
beforeAll(async () => {
  s = await TestService.start();
  alice = await s.createUser({ username: 'alice' });
});
afterAll(async () => s.stop());

// Generated with ssh-keygen; its fingerprints as `ssh-keygen -l [-E md5]` prints them.
const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFV9H8oSozovRsvh9mlJUUh7r8MnuHpsU/NgZl7474ad me@host';
const ED25519_SHA256 = 'SHA256:NjWEGXgpvNz5He4KiJA+MX6wUIXvK/3nTpeh0HnqyMg';
const ED25519_MD5 = '8e:80:3e:f4:59:f7:75:8c:54:11:42:1d:46:97:40:ff';

describe('custom attributes', () => {
  it('sets, reads, filters by and deletes them on users, groups and projects', async () => {
    const group = await s.createGroup();
    const project = await s.createProject();
    const other = await s.createProject();
    for (const [kind, id] of [['users', alice.user.id], ['groups', group.id], ['projects', project.id]] as const) {
      expect((await s.get(`/${kind}/${id}/custom_attributes`)).body).toEqual([]);
      const set = await s.put(`/${kind}/${id}/custom_attributes/team`, { value: 'red' });
      expect(set).toMatchObject({ status: 200, body: { key: 'team', value: 'red' } });
      const changed = await s.put(`/${kind}/${id}/custom_attributes/team`, { value: 'blue' });
      expect(changed.body).toEqual({ key: 'team', value: 'blue' });
      expect((await s.get(`/${kind}/${id}/custom_attributes/team`)).body).toEqual({ key: 'team', value: 'blue' });
      expect((await s.get(`/${kind}/${id}/custom_attributes`)).body).toEqual([{ key: 'team', value: 'blue' }]);
      const filtered = await s.get(`/${kind}`, { query: { 'custom_attributes[team]': 'blue' } });
      expect(filtered.body.map((x: any) => x.id)).toEqual([id]);
      expect((await s.del(`/${kind}/${id}/custom_attributes/team`)).status).toBe(204);
      const gone = await s.get(`/${kind}/${id}/custom_attributes/team`);
      expect(gone).toMatchObject({ status: 404, body: { message: '404 Custom Attribute Not Found' } });
    }
    expect(other.id).not.toBe(project.id);
  });

  it('are for administrators only, and others cannot filter by them', async () => {
    const res = await s.get(`/users/${alice.user.id}/custom_attributes`, { token: alice.token });
    expect(res).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    const missing = await s.put(`/users/${alice.user.id}/custom_attributes/team`, {});
    expect(missing).toMatchObject({ status: 400, body: { error: 'value is missing' } });
    await s.put(`/users/${alice.user.id}/custom_attributes/secret`, { value: 'x' });
    const ignored = await s.get('/users', { token: alice.token, query: { 'custom_attributes[secret]': 'nope' } });
    expect(ignored.body.length).toBeGreaterThan(0);
  });
});

describe('with_custom_attributes', () => {
  // Helpers::CustomAttributes: administrators get each record's attributes where its entity exposes
  // them (UserBasic after avatar_url, Group after max_artifacts_size, BasicProjectDetails after namespace).
  it('shows the attributes on the single records and the lists, to administrators only', async () => {
    const bob = await s.createUser();
    const group = await s.createGroup({ visibility: 'public' });
    const project = await s.createProject({ namespace_id: group.id, visibility: 'public' });
    const subjects = [
      ['users', bob.user.id, 'avatar_url', '/users'],
      ['groups', group.id, 'max_artifacts_size', '/groups'],
      ['projects', project.id, 'namespace', '/projects'],
    ] as const;
    for (const [kind, id] of subjects.map(([k, i]) => [k, i] as const)) {
      await s.put(`/${kind}/${id}/custom_attributes/zone`, { value: 'eu' });
      await s.put(`/${kind}/${id}/custom_attributes/area`, { value: '51' });
    }
    const expected = [{ key: 'area', value: '51' }, { key: 'zone', value: 'eu' }];
    for (const [kind, id, after, list] of subjects) {
      const one = (await s.get(`/${kind}/${id}`, { query: { with_custom_attributes: true } })).body;
      const keys = Object.keys(one);
      expect(keys[keys.indexOf(after) + 1]).toBe('custom_attributes');
      expect(one.custom_attributes).toEqual(expected);
      const rows = (await s.get(list, { query: { with_custom_attributes: true, per_page: 100 } })).body;
      expect(rows.find((r: any) => r.id === id).custom_attributes).toEqual(expected);
      expect(rows.every((r: any) => Array.isArray(r.custom_attributes))).toBe(true);
      // Without the parameter, or for anyone else: no such key.
      expect('custom_attributes' in (await s.get(`/${kind}/${id}`)).body).toBe(false);
      const theirs = await s.get(`/${kind}/${id}`, { token: bob.token, query: { with_custom_attributes: true } });
      expect(theirs.status).toBe(200);
      expect('custom_attributes' in theirs.body).toBe(false);
    }
    const simple = (await s.get('/projects', { query: { with_custom_attributes: true, simple: true, per_page: 100 } })).body;
    expect(simple.find((r: any) => r.id === project.id).custom_attributes).toEqual(expected);
    const inGroup = (await s.get(`/groups/${group.id}/projects`, { query: { with_custom_attributes: true } })).body;
    expect(inGroup.map((r: any) => r.custom_attributes)).toEqual([expected]);
  });
});

describe('SSH keys', () => {
  it('adds a key for the caller with its fingerprints, finds it by id and fingerprint, and deletes it', async () => {
    const created = await s.post('/user/keys', { title: 'laptop', key: `${ED25519}\n` }, { token: alice.token });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: 'laptop', key: ED25519, usage_type: 'auth_and_signing', expires_at: null, last_used_at: null });
    const id = created.body.id;
    expect((await s.get('/user/keys', { token: alice.token })).body.map((k: any) => k.id)).toEqual([id]);
    expect((await s.get(`/users/alice/keys`, { token: null })).body.map((k: any) => k.id)).toEqual([id]);
    expect((await s.get(`/users/${alice.user.id}/keys/${id}`)).body.key).toBe(ED25519);
    for (const fingerprint of [ED25519_SHA256, ED25519_MD5]) {
      const found = await s.get('/keys', { query: { fingerprint } });
      expect(found.body).toMatchObject({ id, title: 'laptop', user: { id: alice.user.id, username: 'alice' } });
    }
    expect((await s.get(`/keys/${id}`)).body.user.username).toBe('alice');
    expect((await s.get(`/keys/${id}`, { token: alice.token })).status).toBe(403);
    const again = await s.post(`/users/${alice.user.id}/keys`, { title: 'copy', key: ED25519 });
    expect(again).toMatchObject({ status: 400, body: { message: { fingerprint_sha256: ['has already been taken'] } } });
    expect((await s.del(`/user/keys/${id}`, { token: alice.token })).status).toBe(204);
    expect((await s.get(`/user/keys/${id}`, { token: alice.token })).body).toEqual({ message: '404 Key Not Found' });
  });

  it('refuses what is not a public key, and lets only administrators add keys for others', async () => {
    const bad = await s.post('/user/keys', { title: 'x', key: 'ssh-rsa bm90IGEga2V5' }, { token: alice.token });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatchObject({ fingerprint_sha256: ['cannot be generated'] });
    const missing = await s.post('/user/keys', { key: ED25519 }, { token: alice.token });
    expect(missing.body).toEqual({ error: 'title is missing' });
    const bob = await s.createUser();
    expect((await s.post(`/users/${bob.user.id}/keys`, { title: 'x', key: ED25519 }, { token: alice.token })).status).toBe(403);
    const byAdmin = await s.post(`/users/${bob.user.id}/keys`, { title: 'x', key: ED25519, usage_type: 'auth' });
    expect(byAdmin).toMatchObject({ status: 201, body: { usage_type: 'auth' } });
    expect((await s.del(`/users/${bob.user.id}/keys/${byAdmin.body.id}`)).status).toBe(204);
  });
});

describe('emails', () => {
  it('adds, lists and deletes the caller\'s secondary emails; an administrator may confirm on adding', async () => {
    const created = await s.post('/user/emails', { email: 'alice.work@example.com' }, { token: alice.token });
    expect(created).toMatchObject({ status: 201, body: { email: 'alice.work@example.com', confirmed_at: null } });
    expect((await s.get('/user/emails', { token: alice.token })).body).toEqual([created.body]);
    const taken = await s.post('/user/emails', { email: 'ALICE.work@example.com' }, { token: alice.token });
    expect(taken).toMatchObject({ status: 400, body: { message: { email: ['has already been taken'] } } });
    const primary = await s.post('/user/emails', { email: alice.user.email }, { token: alice.token });
    expect(primary.body).toEqual({ message: { email: ['has already been taken'] } });
    expect((await s.del(`/user/emails/${created.body.id}`, { token: alice.token })).status).toBe(204);
    expect((await s.get(`/user/emails/${created.body.id}`, { token: alice.token })).body).toEqual({ message: '404 Email Not Found' });

    const confirmed = await s.post(`/users/${alice.user.id}/emails`, { email: 'alice.home@example.com', skip_confirmation: true });
    expect(confirmed.body.confirmed_at).not.toBeNull();
    expect((await s.get(`/users/${alice.user.id}/emails`)).body.map((e: any) => e.email)).toEqual(['alice.home@example.com']);
    expect((await s.get(`/users/${alice.user.id}/emails`, { token: alice.token })).status).toBe(403);
  });
});
