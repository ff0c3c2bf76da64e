import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

// A Guest sees the confidential issues they are assigned to (IssuesFinder's confidential view: author,
// assignee, Planner and up), whichever order reads the list: label_priority with no label prioritized
// reads a label's issues from its label rows (a0e2281, 2fff093). rev31's review of round 31.
let s: TestService;
let p: string;
let guest: { user: any; token: string };

beforeAll(async () => {
  s = await TestService.start();
  guest = await s.createUser({ username: 'lpguest' });
  const project = await s.createProject({ name: 'lpguest', visibility: 'public' });
  p = `/projects/${project.id}`;
  await s.addMember('projects', project.id, guest.user.id, 10);
});
afterAll(async () => s?.stop());

const list = async (token: string | null | undefined, extra: Record<string, string> = {}) => {
  const res = await s.get(`${p}/issues`, { token, query: { labels: 'bug', order_by: 'label_priority', per_page: 2, ...extra } });
  expect(res.status).toBe(200);
  return { iids: (res.body as any[]).map((i) => i.iid), total: res.headers.get('x-total'), pages: res.headers.get('x-total-pages'), next: res.headers.get('x-next-page') };
};

describe('label_priority by label rows, a Guest assigned to a confidential issue', () => {
  it('lists the confidential issues assigned to the Guest, and no other, before and after writes', async () => {
    const make = async (title: string, body: Record<string, unknown>) => (await s.post(`${p}/issues`, { title, labels: 'bug', ...body })).body.iid as number;
    const a = await make('open', {});
    const b = await make('assigned confidential', { confidential: true, assignee_ids: [guest.user.id] });
    const c = await make('other confidential', { confidential: true });
    const d = await make('open too', {});
    expect(await list(undefined)).toEqual({ iids: [d, c], total: '4', pages: '2', next: '2' });
    expect(await list(guest.token)).toEqual({ iids: [d, b], total: '3', pages: '2', next: '2' });
    expect((await list(guest.token, { page: '2' })).iids).toEqual([a]);
    expect(await list(null)).toEqual({ iids: [d, a], total: '2', pages: '1', next: '' });
    // Unassigned: hidden from the Guest; assigned to the other: shown.
    await s.put(`${p}/issues/${b}`, { assignee_ids: [] });
    await s.put(`${p}/issues/${c}`, { assignee_ids: [guest.user.id] });
    expect(await list(guest.token)).toEqual({ iids: [d, c], total: '3', pages: '2', next: '2' });
    // Made visible to everyone: anonymous sees it; closed: still listed (state all).
    await s.put(`${p}/issues/${b}`, { confidential: false, state_event: 'close' });
    expect(await list(null)).toEqual({ iids: [d, b], total: '3', pages: '2', next: '2' });
    expect((await list(null, { state: 'opened' })).iids).toEqual([d, a]);
    expect((await list(guest.token, { page: '2' })).iids).toEqual([b, a]);
  });
});
