import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

/**
 * GET /groups for a signed-in user who is not an administrator, as GroupsFinder answers: what the
 * user is authorized for (User#authorized_groups: member groups and below, groups shared with
 * theirs and below, the groups of their projects) and every group above it; min_access_level their
 * own memberships at that level and below them (no shares, no groups above); owned their direct
 * Owner memberships only; all_available adds the groups public to them (internal ones unless external).
 */
let s: TestService;
const g: Record<string, number> = {};
let alice: { user: any; token: string };

beforeAll(async () => {
  s = await TestService.start();
  const group = async (name: string, visibility: string, parent?: string) =>
    (g[name] = (await s.createGroup({ path: name, name, visibility, ...(parent ? { parent_id: g[parent] } : {}) })).id);
  await group('top', 'private');
  await group('mid', 'private', 'top');
  await group('leaf', 'private', 'mid');
  await group('elsewhere', 'private');
  await group('homes', 'private');
  await group('invited', 'private');
  await group('sharedtop', 'private');
  await group('sharedsub', 'private', 'sharedtop');
  await group('projshare', 'private');
  await group('inner', 'internal');
  await group('open', 'public');
  alice = await s.createUser({ username: 'alice_gf' });
  await s.addMember('groups', g.mid, alice.user.id, 30);
  await s.addMember('groups', g.invited, alice.user.id, 50);
  const project = (await s.createProject({ name: 'p', namespace_id: g.homes, visibility: 'private' })).id;
  await s.addMember('projects', project, alice.user.id, 20);
  ok(await s.post(`/groups/${g.sharedtop}/share`, { group_id: g.invited, group_access: 30 }));
  const shared = (await s.createProject({ name: 'q', namespace_id: g.projshare, visibility: 'private' })).id;
  ok(await s.post(`/projects/${shared}/share`, { group_id: g.invited, group_access: 30 }));
}, 60_000);
afterAll(async () => s.stop());

async function names(query: Record<string, string>, token?: string): Promise<string[]> {
  const res = await s.get('/groups', { query: { per_page: '100', ...query }, token });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-total')).toBe(String(res.body.length));
  return res.body.map((x: { path: string }) => x.path);
}

describe('GET /groups as GroupsFinder', () => {
  it('lists what the user is authorized for and every group above it, by name', async () => {
    // mid (member) and leaf below it, top above it; invited (member); sharedtop shared with invited and
    // sharedsub below; homes, a project's group; projshare, the group of a project shared with invited.
    expect(await names({}, alice.token)).toEqual(['homes', 'invited', 'leaf', 'mid', 'projshare', 'sharedsub', 'sharedtop', 'top']);
  });

  it('all_available adds the public and internal groups', async () => {
    expect(await names({ all_available: 'true' }, alice.token)).toEqual(['homes', 'inner', 'invited', 'leaf', 'mid', 'open', 'projshare', 'sharedsub', 'sharedtop', 'top']);
    const external = await s.createUser({ username: 'ext_gf', external: true });
    expect(await names({ all_available: 'true' }, external.token)).toEqual(['open']);
  });

  it('min_access_level: the user\'s memberships at that level and the groups below them', async () => {
    expect(await names({ min_access_level: '30' }, alice.token)).toEqual(['invited', 'leaf', 'mid']);
    expect(await names({ min_access_level: '40' }, alice.token)).toEqual(['invited']);
  });

  it('owned: the groups the user is a direct Owner of, not the groups below them', async () => {
    const bob = await s.createUser({ username: 'bob_gf' });
    await s.addMember('groups', g.top, bob.user.id, 50);
    expect(await names({ owned: 'true' }, bob.token)).toEqual(['top']);
    expect(await names({ owned: 'true' }, alice.token)).toEqual(['invited']);
  });

  it('anonymous: public groups, with min_access_level too; none owned', async () => {
    expect(await names({}, '')).toEqual(['open']);
    expect(await names({ min_access_level: '30' }, '')).toEqual(['open']);
    expect(await names({ owned: 'true' }, '')).toEqual([]);
  });
});
