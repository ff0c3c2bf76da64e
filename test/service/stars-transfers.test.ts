import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let alice: { user: any; token: string };
beforeAll(async () => {
  s = await TestService.start();
  alice = await s.createUser({ username: 'alice' });
});
afterAll(async () => s.stop());

describe('project stars', () => {
  it('stars and unstars, answering 304 when nothing changes, and counts and lists starrers', async () => {
    const p = await s.createProject({ visibility: 'public' });
    const starred = await s.post(`/projects/${p.id}/star`, undefined, { token: alice.token });
    expect(starred).toMatchObject({ status: 201, body: { id: p.id, star_count: 1 } });
    expect((await s.post(`/projects/${p.id}/star`, undefined, { token: alice.token })).status).toBe(304);
    const rootStar = await s.post(`/projects/${p.id}/star`);
    expect(rootStar.body.star_count).toBe(2);
    const starrers = await s.get(`/projects/${p.id}/starrers`, { query: { search: 'ali' } });
    expect(starrers.body).toEqual([{ starred_since: expect.any(String), user: expect.objectContaining({ username: 'alice' }) }]);
    expect((await s.get('/projects', { token: alice.token, query: { starred: true } })).body.map((x: any) => x.id)).toEqual([p.id]);
    expect((await s.get(`/users/alice/starred_projects`, { token: null })).body.map((x: any) => x.id)).toEqual([p.id]);
    const unstarred = await s.post(`/projects/${p.id}/unstar`, undefined, { token: alice.token });
    expect(unstarred).toMatchObject({ status: 201, body: { star_count: 1 } });
    expect((await s.post(`/projects/${p.id}/unstar`, undefined, { token: alice.token })).status).toBe(304);
    expect((await s.post(`/projects/${p.id}/star`, undefined, { token: null })).status).toBe(401);
  });
});

describe('GET /projects/:id/groups', () => {
  it('lists the groups above a project', async () => {
    const top = await s.createGroup({ name: 'Top', path: 'top' });
    const sub = await s.createGroup({ name: 'Sub', path: 'sub', parent_id: top.id });
    const p = await s.createProject({ namespace_id: sub.id });
    const res = await s.get(`/projects/${p.id}/groups`);
    expect(res.body).toEqual([
      { id: sub.id, web_url: `${s.url}/groups/top/sub`, name: 'Sub', avatar_url: null, full_name: 'Top / Sub', full_path: 'top/sub' },
      { id: top.id, web_url: `${s.url}/groups/top`, name: 'Top', avatar_url: null, full_name: 'Top', full_path: 'top' },
    ]);
    expect((await s.get(`/projects/${p.id}/groups`, { query: { skip_groups: [top.id] } })).body.map((g: any) => g.id)).toEqual([sub.id]);
    const personal = await s.createProject();
    expect((await s.get(`/projects/${personal.id}/groups`)).body).toEqual([]);
  });
});

describe('PUT /projects/:id/transfer', () => {
  it('moves a project into a group and back to a personal namespace', async () => {
    const g = await s.createGroup({ path: 'target', visibility: 'internal' });
    const p = await s.createProject({ name: 'mover', visibility: 'public' });
    const moved = await s.put(`/projects/${p.id}/transfer`, { namespace: g.id });
    expect(moved).toMatchObject({ status: 200, body: { namespace: { full_path: 'target' }, path_with_namespace: 'target/mover', visibility: 'internal' } });
    const again = await s.put(`/projects/${p.id}/transfer`, { namespace: 'target' });
    expect(again).toMatchObject({ status: 400, body: { message: 'Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}' } });
    const back = await s.put(`/projects/${p.id}/transfer`, { namespace: 'root' });
    expect(back.body.namespace.full_path).toBe('root');
    expect((await s.put(`/projects/${p.id}/transfer`, { namespace: 'nowhere' })).body).toEqual({ message: '404 Namespace Not Found' });
    expect((await s.put(`/projects/${p.id}/transfer`, {})).body).toEqual({ error: 'namespace is missing' });
  });

  it('needs Owner on the project and the right to create projects in the target', async () => {
    const own = await s.createProject({}, alice.token);
    const g = await s.createGroup();
    const refused = await s.put(`/projects/${own.id}/transfer`, { namespace: g.id }, { token: alice.token });
    expect(refused).toMatchObject({ status: 404, body: { message: '404 Namespace Not Found' } });
    await s.addMember('groups', g.id, alice.user.id, 10);
    const guest = await s.put(`/projects/${own.id}/transfer`, { namespace: g.id }, { token: alice.token });
    expect(guest.body).toEqual({ message: 'Failed to transfer project {:new_namespace=>["Transfer failed, please contact an admin."]}' });
  });
});

describe('POST /groups/:id/transfer', () => {
  it('moves a group tree under another group and back to the top level', async () => {
    const a = await s.createGroup({ path: 'ga', visibility: 'private' });
    const b = await s.createGroup({ path: 'gb', visibility: 'public' });
    const child = await s.createGroup({ path: 'child', parent_id: b.id, visibility: 'public' });
    const p = await s.createProject({ name: 'deep', namespace_id: child.id, visibility: 'public' });
    const moved = await s.post(`/groups/${b.id}/transfer`, { group_id: a.id });
    expect(moved).toMatchObject({ status: 201, body: { full_path: 'ga/gb', parent_id: a.id, visibility: 'private' } });
    expect((await s.get(`/groups/${child.id}`)).body).toMatchObject({ full_path: 'ga/gb/child', visibility: 'private' });
    expect((await s.get(`/projects/${p.id}`)).body).toMatchObject({ path_with_namespace: 'ga/gb/child/deep', visibility: 'private' });
    expect((await s.post(`/groups/${a.id}/transfer`, { group_id: child.id })).body).toEqual({ message: 'Transfer failed: Cannot transfer group to one of its subgroup.' });
    expect((await s.post(`/groups/${b.id}/transfer`, { group_id: a.id })).body).toEqual({ message: 'Transfer failed: Group is already associated to the parent group.' });
    const top = await s.post(`/groups/${b.id}/transfer`);
    expect(top.body).toMatchObject({ full_path: 'gb', parent_id: null });
    expect((await s.post(`/groups/${b.id}/transfer`)).body).toEqual({ message: 'Transfer failed: Group is already a root group.' });
    await s.createGroup({ path: 'gb', parent_id: a.id }).catch(() => undefined);
    expect((await s.post(`/groups/${b.id}/transfer`, { group_id: a.id })).body).toEqual({
      message: 'Transfer failed: The parent group already has a subgroup or a project with the same path.',
    });
  });
});
