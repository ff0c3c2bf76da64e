import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * A page of projects reads the counts its entities show (stars, open issues) for the whole page at
 * once (projectsPage): each project still shows its own, on every list that serves project
 * entities, and they follow every write.
 */
let s: TestService;
let group: number;
const ids: number[] = [];

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  for (const name of ['alpha', 'beta', 'gamma', 'delta']) ids.push((await s.createProject({ name, namespace_id: group, visibility: 'public' })).id);
});
afterAll(async () => s.stop());

/** The project's [star_count, open_issues_count] as a list showed it, by project id. */
const countsOf = (body: any[]): Record<number, [number, number]> =>
  Object.fromEntries(body.filter((p) => ids.includes(p.id)).map((p) => [p.id, [p.star_count, p.open_issues_count]]));

describe('star and open issue counts on a page of projects', () => {
  it("are each project's own, on /projects and a group's projects, and follow stars and issues", async () => {
    const [alpha, beta, gamma, delta] = ids;
    const alice = await s.createUser();
    await s.post(`/projects/${alpha}/star`);
    await s.post(`/projects/${alpha}/star`, undefined, { token: alice.token });
    await s.post(`/projects/${gamma}/star`);
    for (const title of ['one', 'two', 'three']) await s.post(`/projects/${beta}/issues`, { title });
    await s.post(`/projects/${gamma}/issues`, { title: 'one' });
    const closed = (await s.post(`/projects/${gamma}/issues`, { title: 'two' })).body;
    await s.put(`/projects/${gamma}/issues/${closed.iid}`, { state_event: 'close' });
    const expected = { [alpha]: [2, 0], [beta]: [0, 3], [gamma]: [1, 1], [delta]: [0, 0] };
    const everywhere = async (): Promise<Record<number, [number, number]>[]> => [
      countsOf((await s.get('/projects', { query: { order_by: 'id', sort: 'asc' } })).body),
      countsOf((await s.get(`/groups/${group}/projects`)).body),
    ];
    expect(await everywhere()).toEqual([expected, expected]);
    // A star moves, an issue closes: the next page shows it.
    await s.post(`/projects/${alpha}/unstar`, undefined, { token: alice.token });
    await s.post(`/projects/${delta}/star`, undefined, { token: alice.token });
    await s.put(`/projects/${beta}/issues/1`, { state_event: 'close' });
    const after = { [alpha]: [1, 0], [beta]: [0, 2], [gamma]: [1, 1], [delta]: [1, 0] };
    expect(await everywhere()).toEqual([after, after]);
    // `simple` entities show the stars too.
    const simple = (await s.get('/projects', { query: { simple: 'true', order_by: 'id', sort: 'asc' } })).body.filter((p: any) => ids.includes(p.id));
    expect(simple.map((p: any) => p.star_count)).toEqual([1, 0, 1, 1]);
  });
});
