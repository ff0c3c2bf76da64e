import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * X-Total of a project's issues filtered by author and milestone (alone, together, with a state)
 * comes from counters kept by triggers (core/018) for callers who see every record: it must be
 * what the records say through every write that moves an issue between authors, milestones,
 * states, confidentiality and projects, and through deletes (of the issue, its milestone, its
 * author). A caller who cannot see confidential issues gets the count of what the list shows them.
 */
let s: TestService;
let p: number;
let q: number;
let writer: { user: any; token: string };
let planner: { user: any; token: string };
let outsider: { user: any; token: string };
let v1: number;
let v2: number;

const total = async (query: Record<string, string>, token?: string, project = p): Promise<string | null> => {
  const res = await s.get(`/projects/${project}/issues`, { query: { per_page: '1', ...query }, token });
  expect(res.status).toBe(200);
  return res.headers.get('x-total');
};

/** Every counted filter's total, as [author root, author writer, milestone v1, milestone v2, v1 by root, v1 opened, writer closed]. */
const totals = async (token?: string, project = p): Promise<(string | null)[]> => {
  const filters: Record<string, string>[] = [
    { author_id: '1' },
    { author_id: String(writer.user.id) },
    { milestone: 'v1' },
    { milestone: 'v2' },
    { milestone: 'v1', author_id: '1' },
    { milestone: 'v1', state: 'opened' },
    { author_id: String(writer.user.id), state: 'closed' },
  ];
  const out: (string | null)[] = [];
  for (const f of filters) out.push(await total(f, token, project));
  return out;
};

/** The same totals computed from the issues themselves, as the list shows them to an administrator. */
const expectedTotals = async (project = p): Promise<string[]> => {
  const all: any[] = (await s.get(`/projects/${project}/issues`, { query: { per_page: '100' } })).body;
  const count = (f: (i: any) => boolean): string => String(all.filter(f).length);
  return [
    count((i) => i.author?.id === 1),
    count((i) => i.author?.id === writer.user.id),
    count((i) => i.milestone?.title === 'v1'),
    count((i) => i.milestone?.title === 'v2'),
    count((i) => i.milestone?.title === 'v1' && i.author?.id === 1),
    count((i) => i.milestone?.title === 'v1' && i.state === 'opened'),
    count((i) => i.author?.id === writer.user.id && i.state === 'closed'),
  ];
};

beforeAll(async () => {
  s = await TestService.start();
  p = (await s.createProject({ name: 'p', visibility: 'public' })).id;
  q = (await s.createProject({ name: 'q', visibility: 'public' })).id;
  writer = await s.createUser();
  planner = await s.createUser();
  outsider = await s.createUser();
  await s.addMember('projects', p, writer.user.id, 30);
  await s.addMember('projects', p, planner.user.id, 15);
  v1 = (await s.post(`/projects/${p}/milestones`, { title: 'v1' })).body.id;
  v2 = (await s.post(`/projects/${p}/milestones`, { title: 'v2' })).body.id;
  // A milestone of the same title in another project: the filter matches it there, never here.
  await s.post(`/projects/${q}/milestones`, { title: 'v1' });
  await s.post(`/projects/${p}/issues`, { title: 'one', milestone_id: v1 });
  await s.post(`/projects/${p}/issues`, { title: 'two', milestone_id: v1, confidential: true });
  await s.post(`/projects/${p}/issues`, { title: 'three', milestone_id: v2 }, { token: writer.token });
  await s.post(`/projects/${p}/issues`, { title: 'four' }, { token: writer.token });
  await s.post(`/projects/${p}/issues`, { title: 'five', milestone_id: v1, confidential: true }, { token: writer.token });
});
afterAll(async () => s.stop());

describe('author and milestone filter totals', () => {
  it('count every issue for an administrator and a Planner, what the list shows for the others', async () => {
    expect(await expectedTotals()).toEqual(['2', '3', '3', '1', '2', '3', '0']);
    expect(await totals()).toEqual(await expectedTotals());
    expect(await totals(planner.token)).toEqual(await expectedTotals());
    // The outsider sees neither confidential issue (two: root, v1; five: writer, v1).
    expect(await totals(outsider.token)).toEqual(['1', '2', '1', '1', '1', '1', '0']);
  });

  it('follow milestone changes, closes, reopens and confidentiality', async () => {
    await s.put(`/projects/${p}/issues/1`, { milestone_id: v2 });
    await s.put(`/projects/${p}/issues/3`, { state_event: 'close' });
    await s.put(`/projects/${p}/issues/4`, { milestone_id: v1, state_event: 'close' });
    await s.put(`/projects/${p}/issues/2`, { confidential: false });
    expect(await totals()).toEqual(await expectedTotals());
    expect(await totals()).toEqual(['2', '3', '3', '2', '1', '2', '2']);
    expect(await totals(outsider.token)).toEqual(['2', '2', '2', '2', '1', '1', '2']);
    await s.put(`/projects/${p}/issues/4`, { state_event: 'reopen', milestone_id: 0 });
    expect(await totals()).toEqual(await expectedTotals());
    expect(await totals()).toEqual(['2', '3', '2', '2', '1', '2', '1']);
  });

  it('follow deletes: the issue, its milestone, its author', async () => {
    expect((await s.del(`/projects/${p}/issues/1`)).status).toBe(204);
    expect(await totals()).toEqual(await expectedTotals());
    expect((await s.del(`/projects/${p}/milestones/${v1}`)).status).toBe(204);
    expect(await totals()).toEqual(await expectedTotals());
    expect(await totals()).toEqual(['1', '3', '0', '1', '0', '0', '1']);
    const writerId = String(writer.user.id);
    expect((await s.del(`/users/${writerId}`)).status).toBe(204);
    // The deleted author's issues stay, with no author.
    expect(await total({ author_id: writerId })).toBe('0');
    expect(await total({ milestone: 'v2' })).toBe('1');
    expect(await total({})).toBe('4');
  });

  it('follow an issue to another project', async () => {
    // No REST endpoint moves an issue between projects yet; the counters follow the record whatever moves it.
    const id = (await s.get(`/projects/${p}/issues/2`)).body.id;
    s.service.context.db.prepare('UPDATE issues SET project_id = ?, iid = 1 WHERE id = ?').run(q, id);
    expect(await total({ author_id: '1' })).toBe('0');
    expect(await total({ author_id: '1' }, undefined, q)).toBe('1');
  });
});
