import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * Label filters, label counts and `search` read issuable_labels and the trigram full-text indexes
 * (core/008): what a list answers must be what the record's own fields say, through every write.
 */
let s: TestService;
let p: number;
const iids = async (path: string, query: Record<string, string | string[]>): Promise<number[]> => {
  const res = await s.get(path, { query });
  expect(res.status).toBe(200);
  return res.body.map((i: any) => i.iid);
};
const issues = (query: Record<string, string | string[]>) => iids(`/projects/${p}/issues`, query);

beforeAll(async () => {
  s = await TestService.start();
  p = (await s.createProject({ name: 'lists' })).id;
  await s.post(`/projects/${p}/issues`, { title: 'Crash on start', description: 'The app QUITS at once', labels: 'Bug,ui' }); // 1
  await s.post(`/projects/${p}/issues`, { title: 'Slow list', description: 'Takes "forever" to load', labels: 'perf' }); // 2
  await s.post(`/projects/${p}/issues`, { title: 'Typo', description: 'A crash of words' }); // 3
});
afterAll(async () => s.stop());

describe('label filters', () => {
  it('match titles case-insensitively, every label given, and None / Any', async () => {
    expect(await issues({ labels: 'bug' })).toEqual([1]);
    expect(await issues({ labels: 'BUG,UI' })).toEqual([1]);
    expect(await issues({ labels: 'bug,perf' })).toEqual([]);
    expect(await issues({ labels: 'None' })).toEqual([3]);
    expect(await issues({ labels: 'Any' })).toEqual([2, 1]);
    expect(await issues({ 'not[labels]': 'bug' })).toEqual([3, 2]);
  });

  it('follow add_labels, remove_labels and a replaced list', async () => {
    await s.put(`/projects/${p}/issues/3`, { add_labels: 'docs' });
    expect(await issues({ labels: 'docs' })).toEqual([3]);
    await s.put(`/projects/${p}/issues/3`, { remove_labels: 'docs' });
    expect(await issues({ labels: 'docs' })).toEqual([]);
    await s.put(`/projects/${p}/issues/2`, { labels: 'perf,backend' });
    expect(await issues({ labels: 'backend' })).toEqual([2]);
    await s.put(`/projects/${p}/issues/2`, { labels: 'perf' });
    expect(await issues({ labels: 'backend' })).toEqual([]);
  });

  it('follow a renamed label, and a deleted one', async () => {
    const created = await s.post(`/projects/${p}/labels`, { name: 'wontfix', color: '#ff0000' });
    expect(created.status).toBe(201);
    const iid = (await s.post(`/projects/${p}/issues`, { title: 'Old', labels: 'wontfix' })).body.iid;
    await s.put(`/projects/${p}/labels/${created.body.id}`, { new_name: 'declined' });
    expect(await issues({ labels: 'declined' })).toEqual([iid]);
    expect(await issues({ labels: 'wontfix' })).toEqual([]);
    expect((await s.get(`/projects/${p}/issues/${iid}`)).body.labels).toEqual(['declined']);
    await s.del(`/projects/${p}/labels/${created.body.id}`);
    expect(await issues({ labels: 'declined' })).toEqual([]);
    expect((await s.get(`/projects/${p}/issues/${iid}`)).body.labels).toEqual([]);
    await s.del(`/projects/${p}/issues/${iid}`);
  });

  it('count a label on open and closed issues and open merge requests', async () => {
    const mr = await s.post(`/projects/${p}/merge_requests`, { source_branch: 'fix', target_branch: 'main', title: 'Fix the crash', labels: 'Bug' });
    expect(mr.status).toBe(201);
    expect(await iids(`/projects/${p}/merge_requests`, { labels: 'bug' })).toEqual([mr.body.iid]);
    const closed = (await s.post(`/projects/${p}/issues`, { title: 'Closed bug', labels: 'Bug' })).body.iid;
    await s.put(`/projects/${p}/issues/${closed}`, { state_event: 'close' });
    const labels = (await s.get(`/projects/${p}/labels`, { query: { with_counts: 'true' } })).body;
    expect(labels.find((l: any) => l.name === 'Bug')).toMatchObject({ open_issues_count: 1, closed_issues_count: 1, open_merge_requests_count: 1 });
    // An issue deleted with its labels leaves the counts.
    await s.del(`/projects/${p}/issues/${closed}`);
    const after = (await s.get(`/projects/${p}/labels`, { query: { with_counts: 'true' } })).body;
    expect(after.find((l: any) => l.name === 'Bug')).toMatchObject({ open_issues_count: 1, closed_issues_count: 0 });
  });
});

describe('label counts on a big project', () => {
  it('are the same when they start from the label rows (past 10,000 records)', async () => {
    const big = (await s.createProject({ name: 'big' })).id;
    await s.post(`/projects/${big}/labels`, { name: 'hot', color: '#ff0000' });
    const db = s.service.context.db;
    const at = '2024-01-01T00:00:00.000Z';
    db.transaction(() => {
      for (let i = 1; i <= 10_050; i++) {
        const labels = i % 3 === 0 ? ['hot'] : i % 5 === 0 ? ['HOT'] : [];
        insertImportedIssue(s.service.context, big, {
          iid: i,
          title: `Issue ${i}`,
          description: null,
          state: i % 2 ? 'opened' : 'closed',
          authorId: 1,
          labels,
          createdAt: at,
          updatedAt: at,
          importedFrom: 'none',
        });
      }
    })();
    // i % 3 == 0: 3,350 issues, 1,675 of them odd (opened); HOT (another title) is not counted.
    const labels = (await s.get(`/projects/${big}/labels`, { query: { with_counts: 'true' } })).body;
    expect(labels.find((l: any) => l.name === 'hot')).toMatchObject({ open_issues_count: 1675, closed_issues_count: 1675, open_merge_requests_count: 0 });
  });
});

describe('search', () => {
  it('finds substrings of titles and descriptions, case-insensitively', async () => {
    expect(await issues({ search: 'crash' })).toEqual([3, 1]);
    expect(await issues({ search: 'quits at' })).toEqual([1]);
    expect(await issues({ search: 'ASH ON' })).toEqual([1]);
    expect(await issues({ search: 'crash', in: 'title' })).toEqual([1]);
    expect(await issues({ search: 'crash', in: 'description' })).toEqual([3]);
    expect(await issues({ search: 'nowhere' })).toEqual([]);
  });

  it('takes quotes and LIKE wildcards literally, and short terms too', async () => {
    expect(await issues({ search: '"forever"' })).toEqual([2]);
    expect(await issues({ search: '%' })).toEqual([]);
    expect(await issues({ search: 'Ty' })).toEqual([3]);
  });

  it('follows an edited title and a deleted issue', async () => {
    const iid = (await s.post(`/projects/${p}/issues`, { title: 'Zebra stripes' })).body.iid;
    expect(await issues({ search: 'zebra' })).toEqual([iid]);
    await s.put(`/projects/${p}/issues/${iid}`, { title: 'Horse' });
    expect(await issues({ search: 'zebra' })).toEqual([]);
    expect(await issues({ search: 'horse' })).toEqual([iid]);
    await s.del(`/projects/${p}/issues/${iid}`);
    expect(await issues({ search: 'horse' })).toEqual([]);
  });

  it('searches merge requests the same way', async () => {
    expect(await iids(`/projects/${p}/merge_requests`, { search: 'THE CRASH' })).toHaveLength(1);
    expect(await iids(`/projects/${p}/merge_requests`, { search: 'zebra' })).toEqual([]);
  });
});
