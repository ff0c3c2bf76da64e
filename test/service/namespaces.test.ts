import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let alice: { user: any; token: string };
let bob: { user: any; token: string };
let top: any;
let sub: any;
let other: any;
beforeAll(async () => {
  s = await TestService.start();
  alice = await s.createUser({ username: 'alice' });
  bob = await s.createUser({ username: 'bob' });
  top = await s.createGroup({ name: 'Namespace 1', path: 'namespace-1' });
  sub = await s.createGroup({ name: 'Sub Namespace 1', path: 'sub-namespace-1', parent_id: top.id });
  other = await s.createGroup({ name: 'Other', path: 'other' });
  await s.addMember('groups', top.id, alice.user.id, 50);
  await s.addMember('groups', other.id, alice.user.id, 10);
  await s.createProject({ name: 'p1', namespace_id: sub.id });
});
afterAll(async () => s.stop());

describe('GET /namespaces', () => {
  it('needs a signed-in caller', async () => {
    const res = await s.get('/namespaces', { token: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
  });

  it('lists every namespace to an admin, by id, with pagination headers', async () => {
    const res = await s.get('/namespaces');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe(String(res.body.length));
    const ids = res.body.map((n: any) => n.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    const kinds = new Set(res.body.map((n: any) => n.kind));
    expect(kinds).toEqual(new Set(['user', 'group']));
    const group = res.body.find((n: any) => n.id === top.id);
    expect(group).toMatchObject({
      id: top.id,
      name: 'Namespace 1',
      path: 'namespace-1',
      kind: 'group',
      full_path: 'namespace-1',
      parent_id: null,
      avatar_url: null,
      web_url: `${s.url}/groups/namespace-1`,
      members_count_with_descendants: 2,
      projects_count: 1,
      plan: 'default',
    });
    const root = res.body.find((n: any) => n.path === 'root');
    expect(root).toMatchObject({ kind: 'user', full_path: 'root', parent_id: null, web_url: `${s.url}/root` });
    expect(root).not.toHaveProperty('members_count_with_descendants');
  });

  it('lists a user their own namespace and the groups they joined; owned_only keeps the owned ones', async () => {
    const res = await s.get('/namespaces', { token: alice.token });
    expect(res.body.map((n: any) => n.full_path)).toEqual(['alice', 'namespace-1', 'other']);
    const guestGroup = res.body.find((n: any) => n.path === 'other');
    expect(Object.keys(guestGroup)).toEqual(['id', 'name', 'path', 'kind', 'full_path', 'parent_id', 'avatar_url', 'web_url', 'billable_members_count']);
    expect(res.body.find((n: any) => n.path === 'namespace-1').members_count_with_descendants).toBe(2);
    const owned = await s.get('/namespaces', { token: alice.token, query: { owned_only: true } });
    expect(owned.body.map((n: any) => n.full_path)).toEqual(['alice', 'namespace-1']);
    const lonely = await s.get('/namespaces', { token: bob.token });
    expect(lonely.body.map((n: any) => n.full_path)).toEqual(['bob']);
  });

  it('searches names and paths, top_level_only and full_path_search', async () => {
    const sub1 = await s.get('/namespaces', { query: { search: 'sub-namespace' } });
    expect(sub1.body.map((n: any) => n.full_path)).toEqual(['namespace-1/sub-namespace-1']);
    const top1 = await s.get('/namespaces', { query: { search: 'namespace', top_level_only: true } });
    expect(top1.body.map((n: any) => n.full_path)).toEqual(['namespace-1']);
    const full = await s.get('/namespaces', { query: { search: 'namespace-1/sub', full_path_search: true } });
    expect(full.body.map((n: any) => n.full_path)).toEqual(['namespace-1/sub-namespace-1']);
    // Fewer than three characters match a whole name or path only.
    expect((await s.get('/namespaces', { query: { search: 'bo' } })).body).toEqual([]);
    expect((await s.get('/namespaces', { query: { search: 'bob' } })).body.map((n: any) => n.path)).toEqual(['bob']);
  });
});

describe('GET /namespaces/:id', () => {
  it('finds a group by id or URL-encoded full path, and a personal namespace by path', async () => {
    const byId = await s.get(`/namespaces/${sub.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ id: sub.id, kind: 'group', full_path: 'namespace-1/sub-namespace-1', parent_id: top.id });
    const byPath = await s.get('/namespaces/namespace-1%2Fsub-namespace-1');
    expect(byPath.body.id).toBe(sub.id);
    const mine = await s.get('/namespaces/alice', { token: alice.token });
    expect(mine.body).toMatchObject({ kind: 'user', path: 'alice', web_url: `${s.url}/alice` });
  });

  it('answers 404 Namespace Not Found for namespaces the caller has no membership in, 401 anonymously', async () => {
    expect((await s.get(`/namespaces/${top.id}`, { token: bob.token })).body).toEqual({ message: '404 Namespace Not Found' });
    expect((await s.get('/namespaces/alice', { token: bob.token })).status).toBe(404);
    expect((await s.get('/namespaces/0')).body).toEqual({ message: '404 Namespace Not Found' });
    expect((await s.get(`/namespaces/${top.id}`, { token: null })).status).toBe(401);
    // Inherited membership is enough.
    expect((await s.get(`/namespaces/${sub.id}`, { token: alice.token })).status).toBe(200);
  });
});

describe('GET /namespaces/:id/exists', () => {
  it('says whether a path is taken among top-level namespaces, with a suggestion', async () => {
    expect((await s.get('/namespaces/namespace-1/exists')).text).toBe('{"exists":true,"suggests":["namespace-11"]}');
    expect((await s.get('/namespaces/NAMESPACE-1/exists')).body).toEqual({ exists: true, suggests: ['NAMESPACE-11'] });
    expect((await s.get('/namespaces/nothing-here/exists')).body).toEqual({ exists: false, suggests: [] });
    expect((await s.get('/namespaces/sub-namespace-1/exists')).body).toEqual({ exists: false, suggests: [] });
    expect((await s.get('/namespaces/alice/exists')).body).toEqual({ exists: true, suggests: ['alice1'] });
  });

  it('looks within parent_id only, skipping suggestions taken there', async () => {
    await s.createGroup({ name: 'mygroup', path: 'mygroup', parent_id: top.id });
    await s.createGroup({ name: 'mygroup1', path: 'mygroup1', parent_id: top.id });
    await s.createGroup({ name: 'mygroup2', path: 'mygroup2', parent_id: other.id });
    expect((await s.get('/namespaces/mygroup/exists', { query: { parent_id: top.id } })).body).toEqual({ exists: true, suggests: ['mygroup2'] });
    expect((await s.get('/namespaces/namespace-1/exists', { query: { parent_id: top.id } })).body).toEqual({ exists: false, suggests: [] });
    expect((await s.get('/namespaces/x/exists', { token: null })).status).toBe(401);
  });
});
