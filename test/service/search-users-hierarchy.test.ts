import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

/**
 * Whose members the Search API's users scope names: a group's are the members of its hierarchy
 * (the groups above, itself, the subgroups below) in the groups the caller can read, and no
 * project members (Gitlab::GroupSearchResults#users); a project's are its team, those a share
 * reaches too (Gitlab::ProjectSearchResults#users: project.team.members).
 */
let s: TestService;
let child: number;
let project: number;
const ids: Record<string, number> = {};
let siblingToken: string;

beforeAll(async () => {
  s = await TestService.start();
  const parent = (await s.createGroup({ visibility: 'public' })).id;
  child = (await s.createGroup({ visibility: 'public', parent_id: parent })).id;
  const hidden = (await s.createGroup({ visibility: 'private', parent_id: child })).id;
  const open = (await s.createGroup({ visibility: 'public', parent_id: child })).id;
  const invited = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'p', namespace_id: child, visibility: 'public' })).id;
  const joins: [string, string | null][] = [
    ['inparent', `/groups/${parent}`],
    ['inchild', `/groups/${child}`],
    ['inhidden', `/groups/${hidden}`],
    ['inopen', `/groups/${open}`],
    ['inproject', `/projects/${project}`],
    ['ininvited', `/groups/${invited}`],
    ['nowhere', null],
  ];
  for (const [name, source] of joins) {
    const u = await s.createUser({ username: `kestrel_${name}`, name: `Kestrel ${name}` });
    ids[name] = u.user.id;
    if (source) ok(await s.post(`${source}/members`, { user_id: u.user.id, access_level: 30 }));
    if (name === 'inopen') siblingToken = u.token;
  }
  const requester = await s.createUser({ username: 'kestrel_requester', name: 'Kestrel requester' });
  ids.requester = requester.user.id;
  ok(await s.post(`/groups/${child}/access_requests`, {}, { token: requester.token }));
  ok(await s.post(`/projects/${project}/share`, { group_id: invited, group_access: 20 }));
}, 60_000);
afterAll(async () => s.stop());

async function found(path: string, token?: string): Promise<string[]> {
  const res = await s.get(path, { query: { scope: 'users', search: 'kestrel' }, token });
  expect(res.status).toBe(200);
  const names = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
  expect(res.headers.get('x-total')).toBe(String(res.body.length));
  return res.body.map((u: { id: number }) => names[u.id]);
}

describe('GET /groups/:id/search and /projects/:id/search, scope=users', () => {
  it('a group: members of the groups above, itself and the subgroups below, in id order', async () => {
    expect(await found(`/groups/${child}/search`)).toEqual(['inparent', 'inchild', 'inhidden', 'inopen']);
  });

  it('a group: only the subgroups the caller can read (a sibling subgroup\'s member does not see the private one)', async () => {
    expect(await found(`/groups/${child}/search`, siblingToken)).toEqual(['inparent', 'inchild', 'inopen']);
  });

  it('a project: its team, the members a share reaches too', async () => {
    expect(await found(`/projects/${project}/search`)).toEqual(['inparent', 'inchild', 'inproject', 'ininvited']);
  });
});
