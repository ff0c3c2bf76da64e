import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * X-Total of a project's issue and merge request lists, unfiltered or filtered by state alone,
 * comes from counters kept by triggers (core/017) for callers who see every record: it must be
 * what the records say through every write, and a caller who cannot see confidential issues
 * gets the count of what the list shows them.
 */
let s: TestService;
let p: number;
let q: number;
let planner: { user: any; token: string };
let outsider: { user: any; token: string };

const total = async (path: string, query: Record<string, string> = {}, token?: string): Promise<string | null> => {
  const res = await s.get(path, { query: { per_page: '1', ...query }, token });
  expect(res.status).toBe(200);
  return res.headers.get('x-total');
};
const issueTotals = async (project: number, token?: string) =>
  Promise.all(['all', 'opened', 'closed'].map((state) => total(`/projects/${project}/issues`, { state }, token)));

beforeAll(async () => {
  s = await TestService.start();
  p = (await s.createProject({ name: 'p', visibility: 'public' })).id;
  q = (await s.createProject({ name: 'q', visibility: 'public' })).id;
  planner = await s.createUser();
  outsider = await s.createUser();
  await s.addMember('projects', p, planner.user.id, 15);
  await s.post(`/projects/${p}/issues`, { title: 'one' });
  await s.post(`/projects/${p}/issues`, { title: 'two', confidential: true });
  await s.post(`/projects/${p}/issues`, { title: 'three' });
  await s.put(`/projects/${p}/issues/3`, { state_event: 'close' });
});
afterAll(async () => s.stop());

describe('issue list totals', () => {
  it('count every issue for an administrator and a Planner, what the list shows for the others', async () => {
    expect(await issueTotals(p)).toEqual(['3', '2', '1']);
    expect(await total(`/projects/${p}/issues`)).toBe('3');
    expect(await issueTotals(p, planner.token)).toEqual(['3', '2', '1']);
    expect(await issueTotals(p, outsider.token)).toEqual(['2', '1', '1']);
  });

  it('follow creates, closes, reopens, deletes and moves', async () => {
    await s.post(`/projects/${p}/issues`, { title: 'four' });
    expect(await issueTotals(p)).toEqual(['4', '3', '1']);
    await s.put(`/projects/${p}/issues/1`, { state_event: 'close' });
    expect(await issueTotals(p)).toEqual(['4', '2', '2']);
    await s.put(`/projects/${p}/issues/3`, { state_event: 'reopen' });
    expect(await issueTotals(p)).toEqual(['4', '3', '1']);
    expect((await s.del(`/projects/${p}/issues/4`)).status).toBe(204);
    expect(await issueTotals(p)).toEqual(['3', '2', '1']);
    // No REST endpoint moves an issue between projects yet; the counters follow the record whatever moves it.
    const id = (await s.get(`/projects/${p}/issues/3`)).body.id;
    s.service.context.db.prepare('UPDATE issues SET project_id = ?, iid = 1 WHERE id = ?').run(q, id);
    expect(await issueTotals(p)).toEqual(['2', '1', '1']);
    expect(await issueTotals(q)).toEqual(['1', '1', '0']);
  });
});

describe('merge request list totals', () => {
  it('follow creates and state changes', async () => {
    const mrTotals = () => Promise.all(['all', 'opened', 'closed', 'merged'].map((state) => total(`/projects/${p}/merge_requests`, { state })));
    expect(await mrTotals()).toEqual(['0', '0', '0', '0']);
    expect((await s.post(`/projects/${p}/merge_requests`, { source_branch: 'a', target_branch: 'main', title: 'A' })).status).toBe(201);
    expect((await s.post(`/projects/${p}/merge_requests`, { source_branch: 'b', target_branch: 'main', title: 'B' })).status).toBe(201);
    expect(await mrTotals()).toEqual(['2', '2', '0', '0']);
    await s.put(`/projects/${p}/merge_requests/1`, { state_event: 'close' });
    expect(await mrTotals()).toEqual(['2', '1', '1', '0']);
    expect(await total(`/projects/${p}/merge_requests`)).toBe('2');
    // Another filter counts the list itself.
    expect(await total(`/projects/${p}/merge_requests`, { source_branch: 'b' })).toBe('1');
  });
});
