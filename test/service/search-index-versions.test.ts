import { afterAll, beforeAll, expect, it } from 'vitest';
import { preparedBy } from '../helpers/lists';
import { TestService } from '../helpers/service';

/**
 * A user, group, project or members search for a rare term reads its candidates from the trigram
 * index (db/trigram.ts) and keeps them while core/189's version of that index stays: a write
 * elsewhere, or to a column the index does not hold, leaves them; a record created, renamed or
 * deleted reads them again (a project joins them by the projects' write log), and the answer shows it.
 */
let s: TestService;
let project: number;
let group: number;
const users: { id: number; username: string }[] = [];

const names = (res: { body: unknown }) => (res.body as { id: number; name?: string; username?: string }[]).map((r) => r.username ?? r.name ?? '').sort();

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'findme-project', path: 'findme-project' })).id;
  group = (await s.createGroup({ name: 'findme-group', path: 'findme-group' })).id;
  await s.createGroup({ name: 'other-group', path: 'other-group' });
  for (const name of ['findme-ann', 'findme-bob', 'carol']) {
    const u = await s.createUser({ username: name, name, email: `${name}@example.com` });
    users.push({ id: u.user.id, username: name });
    await s.addMember('groups', group, u.user.id, 30);
  }
});
afterAll(() => s.stop());

const LISTS: [string, string, Record<string, string>][] = [
  ['users_search', '/users', { search: 'findme' }],
  ['users_search', '/groups/:group/members', { query: 'findme' }],
  ['groups_search', '/groups', { search: 'findme' }],
  ['projects_search', '/projects', { search: 'findme' }],
];

/** Each list's names, and which of them read their index (a MATCH prepared: the candidates were not kept). */
async function read(): Promise<{ names: string[][]; matched: boolean[] }> {
  const out = { names: [] as string[][], matched: [] as boolean[] };
  for (const [index, path, query] of LISTS) {
    const prepared = await preparedBy(s, async () => out.names.push(names(await s.get(path.replace(':group', String(group)), { query }))));
    out.matched.push(prepared.some((sql) => sql.includes(`${index} MATCH`)));
  }
  return out;
}

it("keeps a rare term's candidates across writes the index does not hold, and reads them again when it changes", async () => {
  const first = await read();
  expect(first.names).toEqual([['findme-ann', 'findme-bob'], ['findme-ann', 'findme-bob'], ['findme-group'], ['findme-project']]);
  // Writes elsewhere, and to columns no index holds: the candidates stay.
  expect((await s.put(`/projects/${project}`, { merge_method: 'rebase_merge' })).status).toBe(200);
  expect((await s.put(`/users/${users[2].id}`, { bio: 'written' })).status).toBe(200);
  expect((await s.put(`/groups/${group}`, { description: 'written' })).status).toBe(200);
  expect(await read()).toEqual({ names: first.names, matched: [false, false, false, false] });
  // A user renamed into the term, a group and a project created with it: each index read again, the answer shows them.
  expect((await s.put(`/users/${users[2].id}`, { name: 'findme-carol', username: 'findme-carol' })).status).toBe(200);
  await s.createGroup({ name: 'findme-second', path: 'findme-second' });
  await s.createProject({ name: 'findme-other', path: 'findme-other' });
  expect(await read()).toEqual({
    names: [['findme-ann', 'findme-bob', 'findme-carol'], ['findme-ann', 'findme-bob', 'findme-carol'], ['findme-group', 'findme-second'], ['findme-other', 'findme-project']],
    // The members query's candidates are the user search's own (the same term in the same index),
    // read just before; the project search's candidates are joined by the projects written since
    // (core/146's log: loggedCandidates, test/service/project-search-writes), not read again.
    matched: [true, false, true, false],
  });
  // A project's description holds the term (the index holds it too): read again.
  expect((await s.put(`/projects/${project}`, { name: 'plain', path: 'plain', description: 'still findme' })).status).toBe(200);
  expect((await read()).names[3]).toEqual(['findme-other', 'plain']);
  // A user deleted, a group renamed out of the term.
  expect((await s.del(`/users/${users[0].id}`, { query: { hard_delete: 'true' } })).status).toBe(204);
  expect((await s.put(`/groups/${group}`, { name: 'renamed', path: 'renamed' })).status).toBe(200);
  const after = await read();
  await expect.poll(async () => (await read()).names[0]).toEqual(['findme-bob', 'findme-carol']);
  expect(after.names[2]).toEqual(['findme-second']);
});
