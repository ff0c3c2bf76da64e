import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, expectUncounted, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A project's merge requests by one label, by a milestone's title, by branch: each read another
 * way than walking the list (the label's rows in created_at order, core/030; the one milestone
 * the project's records carry; the branch indexes, core/029). Whatever the way, every answer is
 * the one the records say: these tests compute it from the seeded records and compare rows and
 * order, before and after every kind of write that moves them.
 */
let s: TestService;
let group: number;
let project: number;
let sibling: number;
const milestones = new Map<string, number>();

interface Seed {
  id: number;
  iid: number;
  state: string;
  labels: string[];
  milestone: string | null;
  createdAt: string;
  sourceBranch: string;
  targetBranch: string;
}
const mrs: Seed[] = [];
const N = 240;

// Three records share each created_at (ties broken by id).
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();
const stateOf = (i: number): string => (i % 11 === 0 ? 'merged' : i % 7 === 0 ? 'closed' : 'opened');
// `bug` on every 3rd, none among the newest 30 (the list's first page holds none of it); `Bug` and `bug` both on every 30th.
const labelsOf = (i: number): string[] =>
  i > N - 30 ? ['other'] : [...(i % 3 === 0 ? ['bug'] : []), ...(i % 30 === 0 ? ['Bug'] : []), ...(i % 5 === 0 ? ['other'] : [])];
// The project's `v1` on every 4th (none among the newest 30); the group's `v2` on every 9th.
const milestoneOf = (i: number): string | null => (i % 4 === 0 && i <= N - 30 ? 'v1' : i % 9 === 0 ? 'v2' : null);

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  sibling = (await s.createProject({ name: 'sibling', namespace_id: group, visibility: 'public' })).id;
  // `v1` in both projects (one title, two milestones), `v2` in the group.
  milestones.set('v1', (await s.post(`/projects/${project}/milestones`, { title: 'v1' })).body.id);
  milestones.set('sibling v1', (await s.post(`/projects/${sibling}/milestones`, { title: 'v1' })).body.id);
  milestones.set('v2', (await s.post(`/groups/${group}/milestones`, { title: 'v2' })).body.id);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const seed = { iid: i, state: stateOf(i), labels: labelsOf(i), milestone: milestoneOf(i), createdAt: createdAt(i), sourceBranch: `feature-${i % 60}`, targetBranch: i % 2 ? 'main' : 'stable' };
      const mr = insertImportedMergeRequest(ctx, project, {
        iid: i,
        title: `Change ${i}`,
        description: null,
        state: seed.state as 'opened',
        authorId: 1,
        labels: seed.labels,
        milestoneId: seed.milestone ? milestones.get(seed.milestone)! : null,
        sourceBranch: seed.sourceBranch,
        targetBranch: seed.targetBranch,
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        createdAt: seed.createdAt,
        updatedAt: seed.createdAt,
        importedFrom: 'none',
      });
      mrs.push({ ...seed, id: mr.id });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const newestFirst = (xs: Seed[]): Seed[] => [...xs].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);
const list = (query: Record<string, string>, id = project) => s.get(`/projects/${id}/merge_requests`, { query: { per_page: '20', ...query } });
const hasLabel = (x: Seed, title: string): boolean => x.labels.some((l) => l.toLowerCase() === title.toLowerCase());

/** Every page of the list, in turn, against the records' order. */
async function expectPages(query: Record<string, string>, expected: Seed[], per = 20): Promise<void> {
  const pages = Math.max(1, Math.ceil(expected.length / per));
  for (let n = 1; n <= pages + 1; n++) {
    const res = await list({ ...query, per_page: String(per), page: String(n) });
    expectCounted(res, expected.length, per);
    expect(ids(res)).toEqual(expected.slice((n - 1) * per, n * per).map((x) => x.id));
  }
}

describe('merge requests by one label', () => {
  it('read from the label rows in created_at order, every page as the records say, both sorts, any case', async () => {
    const bug = newestFirst(mrs.filter((x) => hasLabel(x, 'bug')));
    const reads = await pagedReads(s, () => expectPages({ labels: 'bug' }, bug));
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r.sql).toContain('issuable_labels_created');
    await expectPages({ labels: 'BUG', sort: 'asc' }, [...bug].reverse(), 15);
  });

  it('counts a record carrying the title in two cases once', async () => {
    const both = mrs.filter((x) => x.labels.includes('bug') && x.labels.includes('Bug'));
    expect(both.length).toBeGreaterThan(0);
    const res = await list({ labels: 'bug', per_page: '100' });
    expect(new Set(ids(res)).size).toBe(ids(res).length);
    expect(ids(res)).toEqual(newestFirst(mrs.filter((x) => hasLabel(x, 'bug'))).slice(0, 100).map((x) => x.id));
  });

  it('a title of one spelling reads its rows without the two-spellings check; a second spelling brings it back', async () => {
    const other = (): Seed[] => newestFirst(mrs.filter((x) => hasLabel(x, 'other')));
    const one = await pagedReads(s, () => expectPages({ labels: 'other' }, other(), 25));
    expect(one.length).toBeGreaterThan(0);
    for (const r of one) expect(r.sql).not.toContain('NOT EXISTS');
    const both = other()[7];
    expect((await s.put(`/projects/${project}/merge_requests/${both.iid}`, { add_labels: 'OTHER' })).status).toBe(200);
    both.labels = [...both.labels, 'OTHER'];
    const two = await pagedReads(s, () => expectPages({ labels: 'Other' }, other(), 25));
    for (const r of two) expect(r.sql).toContain('NOT EXISTS');
    expect((await s.put(`/projects/${project}/merge_requests/${both.iid}`, { remove_labels: 'OTHER' })).status).toBe(200);
    both.labels = both.labels.filter((l) => l !== 'OTHER');
    await expectPages({ labels: 'other', sort: 'asc' }, [...other()].reverse(), 25);
  });

  it('with a state', async () => {
    for (const state of ['opened', 'merged', 'closed']) {
      await expectPages({ labels: 'bug', state }, newestFirst(mrs.filter((x) => hasLabel(x, 'bug') && x.state === state)));
    }
  });

  it('in another order, or with another filter, as the records say', async () => {
    const bug = mrs.filter((x) => hasLabel(x, 'bug'));
    const byTitle = await list({ labels: 'bug', order_by: 'title', sort: 'asc', per_page: '100' });
    expect(byTitle.body.map((x: any) => x.title)).toEqual(bug.map((x) => `Change ${x.iid}`).sort().slice(0, 100));
    const onMain = newestFirst(bug.filter((x) => x.targetBranch === 'main'));
    expect(ids(await list({ labels: 'bug', target_branch: 'main', per_page: '100' }))).toEqual(onMain.map((x) => x.id));
  });

  it('follows every write: labelled, unlabelled, closed, dated anew, created, deleted', async () => {
    const check = async (): Promise<void> => {
      await expectPages({ labels: 'bug' }, newestFirst(mrs.filter((x) => hasLabel(x, 'bug'))));
      await expectPages({ labels: 'bug', state: 'closed' }, newestFirst(mrs.filter((x) => hasLabel(x, 'bug') && x.state === 'closed')));
    };
    const newest = newestFirst(mrs)[0];
    expect((await s.put(`/projects/${project}/merge_requests/${newest.iid}`, { add_labels: 'bug' })).status).toBe(200);
    newest.labels = [...newest.labels, 'bug'];
    const old = newestFirst(mrs.filter((x) => hasLabel(x, 'bug')))[5];
    expect((await s.put(`/projects/${project}/merge_requests/${old.iid}`, { remove_labels: 'bug,Bug' })).status).toBe(200);
    old.labels = old.labels.filter((l) => l.toLowerCase() !== 'bug');
    const toClose = newestFirst(mrs.filter((x) => hasLabel(x, 'bug') && x.state === 'opened'))[3];
    expect((await s.put(`/projects/${project}/merge_requests/${toClose.iid}`, { state_event: 'close' })).status).toBe(200);
    toClose.state = 'closed';
    await check();
    // Dated anew without the API: the label rows follow the record, whatever writes it.
    const redated = newestFirst(mrs.filter((x) => hasLabel(x, 'bug')))[30];
    redated.createdAt = '2030-01-01T00:00:00.000Z';
    s.service.context.db.prepare('UPDATE merge_requests SET created_at = ? WHERE id = ?').run(redated.createdAt, redated.id);
    const created = await s.post(`/projects/${project}/merge_requests`, { source_branch: 'fresh', target_branch: 'main', title: 'Fresh', labels: 'BUG' });
    expect(created.status).toBe(201);
    mrs.push({ id: created.body.id, iid: created.body.iid, state: 'opened', labels: ['BUG'], milestone: null, createdAt: created.body.created_at, sourceBranch: 'fresh', targetBranch: 'main' });
    await check();
    const gone = newestFirst(mrs.filter((x) => hasLabel(x, 'bug')))[2];
    expect((await s.del(`/projects/${project}/merge_requests/${gone.iid}`)).status).toBe(204);
    mrs.splice(mrs.indexOf(gone), 1);
    await check();
  });
});

describe('merge requests and issues by a milestone title', () => {
  it('the one milestone of that title the project carries: read by its id, every page as the records say', async () => {
    const v1 = newestFirst(mrs.filter((x) => x.milestone === 'v1'));
    const reads = await pagedReads(s, () => expectPages({ milestone: 'v1' }, v1));
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r.sql).toContain('x.milestone_id = ?');
    await expectPages({ milestone: 'v1', state: 'merged' }, newestFirst(v1.filter((x) => x.state === 'merged')));
    await expectPages({ milestone: 'v2' }, newestFirst(mrs.filter((x) => x.milestone === 'v2')));
    expectCounted(await list({ milestone: 'v1' }, sibling), 0, 20);
    expectCounted(await list({ milestone: 'no such milestone' }), 0, 20);
  });

  it('not[milestone] keeps the records without a milestone', async () => {
    const notV1 = newestFirst(mrs.filter((x) => x.milestone !== 'v1'));
    expect(notV1.some((x) => x.milestone === null)).toBe(true);
    await expectPages({ 'not[milestone]': 'v1' }, notV1, 50);
  });

  it('a milestone of the project that none of its records carries: no record, read without a walk, until one carries it', async () => {
    const v3 = (await s.post(`/projects/${project}/milestones`, { title: 'v3' })).body.id as number;
    const reads = await pagedReads(s, async () => {
      expectCounted(await list({ milestone: 'v3' }), 0, 20);
      expectCounted(await list({ milestone: 'v3', labels: 'bug' }), 0, 20);
    });
    // The filter counters show no record of the title (filter-plan.ts): counted as none, no page read at all.
    expect(reads).toEqual([]);
    await expectPages({ 'not[milestone]': 'v3' }, newestFirst(mrs), 100);
    const newest = newestFirst(mrs)[0];
    expect((await s.put(`/projects/${project}/merge_requests/${newest.iid}`, { milestone_id: v3 })).status).toBe(200);
    const res = await list({ milestone: 'v3' });
    expectCounted(res, 1, 20);
    expect(ids(res)).toEqual([newest.id]);
    expect(ids(await list({ 'not[milestone]': 'v3', per_page: '100' }))).not.toContain(newest.id);
    const back = newest.milestone ? milestones.get(newest.milestone)! : 0;
    expect((await s.put(`/projects/${project}/merge_requests/${newest.iid}`, { milestone_id: back })).status).toBe(200);
    expectCounted(await list({ milestone: 'v3' }), 0, 20);
  });

  it('a title two milestones of the project share: the records on either', async () => {
    // A merge request of the sibling project moved here keeps its milestone (no REST endpoint moves one yet).
    const ctx = s.service.context;
    const moved = insertImportedMergeRequest(ctx, sibling, {
      iid: 1, title: 'Moved', description: null, state: 'opened', authorId: 1, milestoneId: milestones.get('sibling v1')!,
      sourceBranch: 'moved', targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40),
      createdAt: '2023-06-01T00:00:00.000Z', updatedAt: '2023-06-01T00:00:00.000Z', importedFrom: 'none',
    });
    expectCounted(await list({ milestone: 'v1' }, sibling), 1, 20);
    ctx.db.prepare('UPDATE merge_requests SET project_id = ?, iid = 100000 WHERE id = ?').run(project, moved.id);
    const v1 = newestFirst(mrs.filter((x) => x.milestone === 'v1'));
    const res = await list({ milestone: 'v1', per_page: '100' });
    expectCounted(res, v1.length + 1, 100);
    expect(ids(res)).toEqual([...v1.map((x) => x.id), moved.id]);
    expect(ids(await list({ 'not[milestone]': 'v1', per_page: '100' }))).not.toContain(moved.id);
    expectCounted(await list({ milestone: 'v1' }, sibling), 0, 20);
    ctx.db.prepare('DELETE FROM merge_requests WHERE id = ?').run(moved.id);
  });

  it('issues the same way', async () => {
    const ctx = s.service.context;
    const issues = ctx.db.transaction(() =>
      [1, 2, 3, 4, 5, 6].map((i) =>
        insertImportedIssue(ctx, project, {
          iid: i, title: `Issue ${i}`, description: null, state: 'opened', authorId: 1, labels: [], confidential: false,
          milestoneId: i % 2 ? milestones.get('v1')! : i === 4 ? milestones.get('v2')! : null,
          createdAt: createdAt(i), updatedAt: createdAt(i), importedFrom: 'none',
        }),
      ),
    )();
    const titles = async (query: Record<string, string>): Promise<string[]> =>
      (await s.get(`/projects/${project}/issues`, { query })).body.map((i: any) => i.title);
    expect(await titles({ milestone: 'v1' })).toEqual(['Issue 5', 'Issue 3', 'Issue 1']);
    expect(await titles({ 'not[milestone]': 'v1' })).toEqual(['Issue 6', 'Issue 4', 'Issue 2']);
    expect(await titles({ milestone: 'v2' })).toEqual(['Issue 4']);
    expect(issues).toHaveLength(6);
  });
});

describe('merge requests and issues by a milestone title and one label', () => {
  // The counters core/034 keeps, against a fresh count of the label rows and the records.
  const expectCountersAsTheRecords = (): void => {
    const db = s.service.context.db;
    const fresh = db
      .prepare(
        `SELECT il.issuable_type, il.project_id, x.milestone_id AS milestone, il.title, il.state, il.confidential, count(*) AS n FROM issuable_labels il
          JOIN (SELECT 'Issue' AS type, id, milestone_id FROM issues UNION ALL SELECT 'MergeRequest', id, milestone_id FROM merge_requests) x
            ON x.type = il.issuable_type AND x.id = il.issuable_id
          WHERE x.milestone_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
      )
      .all();
    const kept = db
      .prepare('SELECT issuable_type, project_id, milestone, title, state, confidential, n FROM label_milestone_counts WHERE n != 0 ORDER BY 1, 2, 3, 4, 5, 6')
      .all();
    expect(kept).toEqual(fresh);
  };

  it('counted from the label rows by milestone, every page as the records say, with a state, any case', async () => {
    const pair = newestFirst(mrs.filter((x) => x.milestone === 'v1' && hasLabel(x, 'bug')));
    expect(pair.length).toBeGreaterThan(10);
    const counts = await preparedBy(s, () => expectPages({ milestone: 'v1', labels: 'bug' }, pair, 5));
    expect(counts.some((sql) => sql.includes('label_milestone_counts'))).toBe(true);
    expect(counts.some((sql) => sql.includes('INDEXED BY issuable_labels_milestone'))).toBe(true);
    // The pages from the label's rows on the milestone in created_at order (core/042), both sorts;
    // records carrying `bug` and `Bug` (every 30th) once.
    expect(counts.some((sql) => sql.includes('INDEXED BY issuable_labels_milestone_created'))).toBe(true);
    expect(pair.some((x) => x.labels.includes('Bug'))).toBe(true);
    await expectPages({ milestone: 'v1', labels: 'bug', sort: 'asc' }, [...pair].reverse(), 4);
    await expectPages({ milestone: 'v1', labels: 'BUG', state: 'opened' }, pair.filter((x) => x.state === 'opened'), 3);
    await expectPages({ milestone: 'v2', labels: 'other' }, newestFirst(mrs.filter((x) => x.milestone === 'v2' && hasLabel(x, 'other'))), 2);
    await expectPages({ milestone: 'v1', labels: 'no such label' }, []);
    await expectPages({ milestone: 'no such milestone', labels: 'bug' }, []);
    expectCountersAsTheRecords();
  });

  it('follows every write: a milestone set, changed and cleared, a label removed, a close, a deleted milestone', async () => {
    const check = async (): Promise<void> => {
      await expectPages({ milestone: 'v1', labels: 'bug' }, newestFirst(mrs.filter((x) => x.milestone === 'v1' && hasLabel(x, 'bug'))), 5);
      await expectPages({ milestone: 'v2', labels: 'bug', state: 'closed' }, newestFirst(mrs.filter((x) => x.milestone === 'v2' && hasLabel(x, 'bug') && x.state === 'closed')), 2);
      expectCountersAsTheRecords();
    };
    const put = async (x: Seed, body: Record<string, unknown>): Promise<void> => {
      expect((await s.put(`/projects/${project}/merge_requests/${x.iid}`, body)).status).toBe(200);
    };
    const unmarked = newestFirst(mrs.filter((x) => x.milestone === null && hasLabel(x, 'bug')))[0];
    await put(unmarked, { milestone_id: milestones.get('v1') });
    unmarked.milestone = 'v1';
    const moved = newestFirst(mrs.filter((x) => x.milestone === 'v1' && hasLabel(x, 'bug')))[4];
    await put(moved, { milestone_id: milestones.get('v2'), state_event: 'close' });
    moved.milestone = 'v2';
    moved.state = 'closed';
    const cleared = newestFirst(mrs.filter((x) => x.milestone === 'v1' && hasLabel(x, 'bug')))[2];
    await put(cleared, { milestone_id: 0 });
    cleared.milestone = null;
    const unlabelled = newestFirst(mrs.filter((x) => x.milestone === 'v1' && hasLabel(x, 'bug')))[1];
    await put(unlabelled, { remove_labels: unlabelled.labels.filter((l) => l.toLowerCase() === 'bug').join(',') });
    unlabelled.labels = unlabelled.labels.filter((l) => l.toLowerCase() !== 'bug');
    const labelled = newestFirst(mrs.filter((x) => x.milestone === 'v2' && !hasLabel(x, 'bug')))[0];
    await put(labelled, { add_labels: 'bug', state_event: 'close' });
    labelled.labels = [...labelled.labels, 'bug'];
    labelled.state = 'closed';
    // Without the API: a milestone written directly.
    const direct = newestFirst(mrs.filter((x) => x.milestone === 'v2' && hasLabel(x, 'bug')))[0];
    s.service.context.db.prepare('UPDATE merge_requests SET milestone_id = ? WHERE id = ?').run(milestones.get('v1'), direct.id);
    direct.milestone = 'v1';
    await check();
    // A milestone deleted: its records keep their labels and lose the milestone.
    const doomed = (await s.post(`/projects/${project}/milestones`, { title: 'doomed' })).body.id;
    const onDoomed = newestFirst(mrs.filter((x) => x.milestone === 'v1' && hasLabel(x, 'bug'))).slice(0, 3);
    for (const x of onDoomed) {
      await put(x, { milestone_id: doomed });
      x.milestone = 'doomed';
    }
    await expectPages({ milestone: 'doomed', labels: 'bug' }, newestFirst(onDoomed), 2);
    expect((await s.del(`/projects/${project}/milestones/${doomed}`)).status).toBe(204);
    for (const x of onDoomed) x.milestone = null;
    await expectPages({ milestone: 'doomed', labels: 'bug' }, []);
    await check();
  });

  it('issues the same way: confidential ones counted for who sees them', async () => {
    const ctx = s.service.context;
    const v1 = milestones.get('v1')!;
    const made = ctx.db.transaction(() =>
      Array.from({ length: 12 }, (_, k) =>
        insertImportedIssue(ctx, project, {
          iid: 100 + k, title: `Paired ${k}`, description: null, state: k % 4 === 3 ? 'closed' : 'opened', authorId: 1,
          labels: k % 3 === 2 ? ['other'] : ['bug'], confidential: k % 5 === 0,
          milestoneId: k < 10 ? v1 : null, createdAt: createdAt(1000 + k), updatedAt: createdAt(1000 + k), importedFrom: 'none',
        }),
      ),
    )();
    const paired = made.filter((_, k) => k < 10 && k % 3 !== 2).reverse();
    const { token } = await s.createUser();
    const issuesList = (query: Record<string, string>, caller?: string) => s.get(`/projects/${project}/issues`, { query: { milestone: 'v1', labels: 'bug', ...query }, token: caller });
    for (const [caller, seen] of [
      [undefined, paired],
      [token, paired.filter((i) => !i.confidential)],
    ] as const) {
      const res = await issuesList({ per_page: '2', page: '2' }, caller);
      expectCounted(res, seen.length, 2);
      expect(ids(res)).toEqual(seen.slice(2, 4).map((i) => i.id));
      const open = seen.filter((i) => i.state === 'opened');
      expectCounted(await issuesList({ per_page: '2', state: 'opened' }, caller), open.length, 2);
    }
    expectCountersAsTheRecords();
  });
});

describe('merge requests by branch', () => {
  it('source and target branch, alone or together, from their indexes, as the records say', async () => {
    const db = s.service.context.db;
    for (const [query, filter, index] of [
      [{ source_branch: 'feature-7' }, (x: Seed) => x.sourceBranch === 'feature-7', 'merge_requests_project_source_branch'],
      [{ target_branch: 'stable' }, (x: Seed) => x.targetBranch === 'stable', 'merge_requests_project_target_branch'],
      [{ source_branch: 'feature-8', target_branch: 'stable' }, (x: Seed) => x.sourceBranch === 'feature-8' && x.targetBranch === 'stable', '_branch'],
    ] as const) {
      const expected = newestFirst(mrs.filter(filter));
      const reads = await pagedReads(s, () => expectPages(query, expected));
      expect(queryPlan(db, reads[0].sql, ...reads[0].args)).toContain(index);
    }
    expectCounted(await list({ source_branch: 'no-such-branch' }), 0, 20);
  });
});

describe('merge requests by target branch, counted from the branch counters', () => {
  const expectBranchCountersAsTheRecords = (): void => {
    const db = s.service.context.db;
    const fresh = db.prepare('SELECT project_id, target_branch, state, count(*) AS n FROM merge_requests GROUP BY 1, 2, 3 ORDER BY 1, 2, 3').all();
    expect(db.prepare('SELECT project_id, target_branch, state, n FROM merge_request_branch_counts WHERE n != 0 ORDER BY 1, 2, 3').all()).toEqual(fresh);
  };
  const check = async (): Promise<void> => {
    for (const branch of ['main', 'stable']) {
      await expectPages({ target_branch: branch }, newestFirst(mrs.filter((x) => x.targetBranch === branch)), 50);
      for (const state of ['opened', 'closed', 'merged']) {
        await expectPages({ target_branch: branch, state }, newestFirst(mrs.filter((x) => x.targetBranch === branch && x.state === state)), 7);
      }
    }
    expectBranchCountersAsTheRecords();
  };

  it('alone or with a state, from the counters, through retargets, closes, creates and deletes', async () => {
    const counts = await preparedBy(s, () => expectPages({ target_branch: 'main' }, newestFirst(mrs.filter((x) => x.targetBranch === 'main')), 30));
    expect(counts.some((sql) => sql.includes('merge_request_branch_counts'))).toBe(true);
    await check();
    const put = async (x: Seed, body: Record<string, unknown>): Promise<void> => {
      expect((await s.put(`/projects/${project}/merge_requests/${x.iid}`, body)).status).toBe(200);
    };
    const retarget = newestFirst(mrs.filter((x) => x.targetBranch === 'main' && x.state === 'opened'))[2];
    await put(retarget, { target_branch: 'stable' });
    retarget.targetBranch = 'stable';
    const closed = newestFirst(mrs.filter((x) => x.targetBranch === 'stable' && x.state === 'opened'))[4];
    await put(closed, { state_event: 'close', target_branch: 'main' });
    closed.state = 'closed';
    closed.targetBranch = 'main';
    const created = await s.post(`/projects/${project}/merge_requests`, { source_branch: 'branch-count', target_branch: 'stable', title: 'Branch count' });
    expect(created.status).toBe(201);
    mrs.push({ id: created.body.id, iid: created.body.iid, state: 'opened', labels: [], milestone: null, createdAt: created.body.created_at, sourceBranch: 'branch-count', targetBranch: 'stable' });
    const gone = newestFirst(mrs.filter((x) => x.targetBranch === 'main'))[3];
    expect((await s.del(`/projects/${project}/merge_requests/${gone.iid}`)).status).toBe(204);
    mrs.splice(mrs.indexOf(gone), 1);
    // Without the API: merged, and moved to another branch.
    const merged = newestFirst(mrs.filter((x) => x.targetBranch === 'stable' && x.state === 'opened'))[1];
    s.service.context.db.prepare("UPDATE merge_requests SET state = 'merged', target_branch = 'main' WHERE id = ?").run(merged.id);
    merged.state = 'merged';
    merged.targetBranch = 'main';
    const moved = newestFirst(mrs.filter((x) => x.targetBranch === 'main' && x.state === 'opened'))[0];
    s.service.context.db.prepare("UPDATE merge_requests SET target_branch = 'stable' WHERE id = ?").run(moved.id);
    moved.targetBranch = 'stable';
    await check();
    expectCounted(await list({ target_branch: 'no-such-branch' }), 0, 20);
  });
});

describe("a group's and the instance's merge requests by one label", () => {
  let crowd: number;
  let crowded: number;
  let hidden: number;
  const many: Seed[] = [];

  beforeAll(async () => {
    // A group of its own: one project with more than 10,000 merge requests labelled `many`, and a private one.
    crowd = (await s.createGroup({ visibility: 'public' })).id;
    crowded = (await s.createProject({ name: 'crowded', namespace_id: crowd, visibility: 'public' })).id;
    hidden = (await s.createProject({ name: 'hidden', namespace_id: crowd, visibility: 'private' })).id;
    const ctx = s.service.context;
    ctx.db.transaction(() => {
      for (let i = 1; i <= 10_030; i++) {
        const projectId = i % 1000 === 7 ? hidden : crowded;
        const seed = { iid: i, state: stateOf(i), labels: i % 500 === 0 ? ['many', 'MANY'] : ['many'], milestone: null, createdAt: createdAt(i), sourceBranch: 'b', targetBranch: 'main' };
        const mr = insertImportedMergeRequest(ctx, projectId, {
          iid: i, title: `Many ${i}`, description: null, state: seed.state as 'opened', authorId: 1, labels: seed.labels,
          sourceBranch: 'b', targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40),
          createdAt: seed.createdAt, updatedAt: seed.createdAt, importedFrom: 'none',
        });
        many.push({ ...seed, id: mr.id, iid: projectId === hidden ? -i : i });
      }
    })();
  }, 60_000);

  const crowdList = (query: Record<string, string>, token?: string) => s.get(`/groups/${crowd}/merge_requests`, { query: { per_page: '100', ...query }, token });

  it('past 10,000 records is uncounted, read from the label rows in created_at order', async () => {
    const expected = newestFirst(many);
    const reads = await pagedReads(s, async () => {
      const first = await crowdList({ labels: 'many' });
      expectUncounted(first, '2');
      expect(ids(first)).toEqual(expected.slice(0, 100).map((x) => x.id));
      const third = await crowdList({ labels: 'Many', page: '3' });
      expectUncounted(third, '4');
      expect(ids(third)).toEqual(expected.slice(200, 300).map((x) => x.id));
    });
    for (const r of reads) expect(r.sql).toContain('issuable_labels_title_created');
    const all = await s.get('/merge_requests', { query: { scope: 'all', labels: 'many', per_page: '50', page: '2' } });
    expectUncounted(all, '3');
    expect(ids(all)).toEqual(expected.slice(50, 100).map((x) => x.id));
    const asc = await crowdList({ labels: 'many', sort: 'asc', page: '2' });
    expect(ids(asc)).toEqual([...expected].reverse().slice(100, 200).map((x) => x.id));
  });

  it('with a state of fewer, counted exactly', async () => {
    const merged = newestFirst(many.filter((x) => x.state === 'merged'));
    const res = await crowdList({ labels: 'many', state: 'merged', page: '2' });
    expectCounted(res, merged.length, 100);
    expect(ids(res)).toEqual(merged.slice(100, 200).map((x) => x.id));
  });

  it("only the projects the caller sees: a user outside the group misses the private project's", async () => {
    const { token } = await s.createUser();
    const visible = newestFirst(many.filter((x) => x.iid > 0));
    expect(visible.length).toBeLessThan(many.length);
    const res = await crowdList({ labels: 'many', page: '2' }, token);
    expect(ids(res)).toEqual(visible.slice(100, 200).map((x) => x.id));
    const merged = newestFirst(visible.filter((x) => x.state === 'merged'));
    const few = await s.get('/merge_requests', { query: { scope: 'all', labels: 'many', state: 'merged', per_page: '100' }, token });
    expectCounted(few, merged.length, 100);
    expect(ids(few)).toEqual(merged.slice(0, 100).map((x) => x.id));
  });

  it("a group of more than 10,000 records walks the instance's order index; one of fewer reads its projects' records", async () => {
    const crowdReads = await pagedReads(s, async () => expect(ids(await crowdList({}))).toEqual(newestFirst(many).slice(0, 100).map((x) => x.id)));
    expect(crowdReads[0].sql).toContain('+x.project_id IN');
    // By state: the instance's (state, created_at) index, not every record in date order.
    const db = s.service.context.db;
    const stateReads = await pagedReads(s, async () => {
      const res = await crowdList({ state: 'merged' });
      expect(ids(res)).toEqual(newestFirst(many.filter((x) => x.state === 'merged')).slice(0, 100).map((x) => x.id));
    });
    expect(queryPlan(db, stateReads[0].sql, ...stateReads[0].args)).toContain('merge_requests_state_created');
    // By state and update date: core/184's (state, updated_at) index reads the page in order, where
    // the (state, created_at) one was chosen and every match sorted. The group's and the instance's.
    for (const [state, sort, page] of [['opened', 'desc', '1'], ['merged', 'asc', '2'], ['closed', 'desc', '3']] as const) {
      const inState = newestFirst(many.filter((x) => x.state === state));
      const want = (sort === 'asc' ? [...inState].reverse() : inState).slice((Number(page) - 1) * 100, Number(page) * 100).map((x) => x.id);
      const byUpdate = await pagedReads(s, async () => expect(ids(await crowdList({ state, order_by: 'updated_at', sort, page })), `${state} ${sort}`).toEqual(want));
      expect(byUpdate[0].sql).toContain('+x.project_id IN');
      const plan = queryPlan(db, byUpdate[0].sql, ...byUpdate[0].args);
      expect(plan).toContain('merge_requests_state_updated');
      expect(plan).not.toContain('TEMP B-TREE');
    }
    const instance = await pagedReads(s, async () => void (await s.get('/merge_requests', { query: { scope: 'all', state: 'opened', order_by: 'updated_at' } })));
    expect(queryPlan(db, instance[0].sql, ...instance[0].args)).toMatch(/merge_requests_state_updated(?![\s\S]*TEMP B-TREE)/);
    const fewReads = await pagedReads(s, async () => {
      const res = await s.get(`/groups/${group}/merge_requests`, { query: { per_page: '100' } });
      expect(ids(res)).toEqual(newestFirst(mrs).slice(0, 100).map((x) => x.id));
    });
    expect(fewReads[0].sql).not.toContain('+x.project_id IN');
  });

  it('by state alone or unfiltered, counted from the state counters of the projects the caller sees', async () => {
    const { token } = await s.createUser();
    for (const [caller, records] of [
      [undefined, many],
      [token, many.filter((x) => x.iid > 0)],
    ] as const) {
      for (const state of ['merged', 'closed', 'opened']) {
        const expected = newestFirst(records.filter((x) => x.state === state));
        const res = await crowdList({ state, page: '2' }, caller);
        expectCounted(res, expected.length, 100);
        expect(ids(res)).toEqual(expected.slice(100, 200).map((x) => x.id));
      }
      expectUncounted(await crowdList({}, caller), '2');
    }
    const inProjects = [...mrs, ...many.filter((x) => x.iid > 0)];
    const closed = await s.get('/merge_requests', { query: { scope: 'all', state: 'closed', per_page: '100' }, token });
    expectCounted(closed, inProjects.filter((x) => x.state === 'closed').length, 100);
    expect(ids(closed)).toEqual(newestFirst(inProjects.filter((x) => x.state === 'closed')).slice(0, 100).map((x) => x.id));
    expectCounted(await s.get('/merge_requests', { query: { state: 'closed' }, token }), 0, 20);
  });

  it('a milestone and a label past 10,000 records: uncounted from the counters, counted exactly again below', async () => {
    const db = s.service.context.db;
    const big = (await s.post(`/projects/${crowded}/milestones`, { title: 'big' })).body.id;
    db.prepare('UPDATE merge_requests SET milestone_id = ? WHERE project_id = ?').run(big, crowded);
    const inCrowded = newestFirst(many.filter((x) => x.iid > 0));
    expect(inCrowded.length).toBeGreaterThan(10_000);
    const pairList = (query: Record<string, string>) => s.get(`/projects/${crowded}/merge_requests`, { query: { milestone: 'big', labels: 'many', per_page: '100', ...query } });
    const counts = await preparedBy(s, async () => {
      const res = await pairList({ page: '2' });
      expectUncounted(res, '3');
      expect(ids(res)).toEqual(inCrowded.slice(100, 200).map((x) => x.id));
    });
    expect(counts.some((sql) => sql.includes('label_milestone_counts'))).toBe(true);
    // Not counted from the label rows by milestone; the page read from them in order (core/042).
    expect(counts.some((sql) => /issuable_labels_milestone(?!_)/.test(sql))).toBe(false);
    expect(counts.some((sql) => sql.includes('INDEXED BY issuable_labels_milestone_created'))).toBe(true);
    // The group's list and the instance's (an administrator's, an outsider's) the same way.
    const { token } = await s.createUser();
    for (const [path, caller] of [[`/groups/${crowd}/merge_requests`, undefined], ['/merge_requests', undefined], ['/merge_requests', token]] as const) {
      const wide = await preparedBy(s, async () => {
        const res = await s.get(path, { query: { scope: 'all', milestone: 'big', labels: 'many', per_page: '100', page: '2' }, token: caller });
        expectUncounted(res, '3');
        expect(ids(res)).toEqual(inCrowded.slice(100, 200).map((x) => x.id));
      });
      expect(wide.some((sql) => sql.includes('label_milestone_counts'))).toBe(true);
    }
    // 100 of them lose the milestone: 10,000 or fewer left, counted exactly.
    const cleared = inCrowded.slice(0, 100);
    db.prepare(`UPDATE merge_requests SET milestone_id = NULL WHERE id IN (${cleared.map(() => '?').join(',')})`).run(...cleared.map((x) => x.id));
    const left = inCrowded.slice(100);
    expect(left.length).toBeLessThanOrEqual(10_000);
    const res = await pairList({ page: '3' });
    expectCounted(res, left.length, 100);
    expect(ids(res)).toEqual(left.slice(200, 300).map((x) => x.id));
    const group = await s.get(`/groups/${crowd}/merge_requests`, { query: { milestone: 'big', labels: 'many', per_page: '100', page: '3' } });
    expectCounted(group, left.length, 100);
    expect(ids(group)).toEqual(left.slice(200, 300).map((x) => x.id));
    db.prepare('UPDATE merge_requests SET milestone_id = NULL WHERE project_id = ?').run(crowded);
  });

  it("an administrator's scope=all: every record of the instance, without a project condition, as a fresh query of the table says", async () => {
    const db = s.service.context.db;
    // Every merge request of the instance (none is without its project: a foreign key), in list order.
    const table = (where = '1 = 1', args: unknown[] = [], order = 'm.created_at DESC, m.id DESC'): number[] =>
      (db.prepare(`SELECT m.id FROM merge_requests m JOIN projects p ON p.id = m.project_id WHERE ${where} ORDER BY ${order}`).all(...args) as { id: number }[]).map((r) => r.id);
    const all = (query: Record<string, string>) => s.get('/merge_requests', { query: { scope: 'all', per_page: '100', ...query } });
    const reads = await pagedReads(s, async () => {
      const first = await all({});
      expectUncounted(first, '2');
      expect(ids(first)).toEqual(table().slice(0, 100));
      const deep = await all({ page: '40' });
      expect(ids(deep)).toEqual(table().slice(3900, 4000));
      const updated = await all({ order_by: 'updated_at', sort: 'asc', page: '3' });
      expectUncounted(updated, '4');
      expect(ids(updated)).toEqual(table('1 = 1', [], 'm.updated_at ASC, m.id ASC').slice(200, 300));
    });
    for (const r of reads) expect(r.sql).not.toContain('project_id IN');
    for (const state of ['merged', 'closed']) {
      const expected = table('m.state = ?', [state]);
      const res = await all({ state, page: '2' });
      expectCounted(res, expected.length, 100);
      expect(ids(res)).toEqual(expected.slice(100, 200));
    }
    const openedRecords = table('m.state = ?', ['opened']);
    const opened = await all({ state: 'opened' });
    expectCounted(opened, openedRecords.length, 100);
    expect(ids(opened)).toEqual(openedRecords.slice(0, 100));
    const labelled = table("EXISTS (SELECT 1 FROM issuable_labels il WHERE il.issuable_type = 'MergeRequest' AND il.issuable_id = m.id AND il.title = 'bug' COLLATE NOCASE)");
    const bug = await all({ labels: 'bug' });
    expectCounted(bug, labelled.length, 100);
    expect(ids(bug)).toEqual(labelled.slice(0, 100));
    const searched = await all({ search: 'Many 1002' });
    expect(ids(searched)).toEqual(table("m.title LIKE '%Many 1002%'"));
    expectCounted(searched, table("m.title LIKE '%Many 1002%'").length, 100);
    // The administrator's own (the default scope): by author, still without a project condition.
    const own = await s.get('/merge_requests', { query: { per_page: '100', page: '3' } });
    expect(ids(own)).toEqual(table('m.author_id = 1').slice(200, 300));
    // Issues the same way: every issue, confidential ones included.
    const issues = await s.get('/issues', { query: { scope: 'all', per_page: '100' } });
    const everyIssue = (db.prepare('SELECT id FROM issues ORDER BY created_at DESC, id DESC').all() as { id: number }[]).map((r) => r.id);
    expectCounted(issues, everyIssue.length, 100);
    expect(ids(issues)).toEqual(everyIssue.slice(0, 100));
  });

  it("the caller's own (the default scope) and the rest of the instance's labels too", async () => {
    const { token } = await s.createUser();
    expectCounted(await s.get('/merge_requests', { query: { labels: 'many' }, token }), 0, 20);
    // Another group: two of the label's records are in it (a full page of one, so the total is counted).
    for (const branch of ['many-1', 'many-2']) {
      expect((await s.post(`/projects/${sibling}/merge_requests`, { source_branch: branch, target_branch: 'main', title: branch, labels: 'many' })).status).toBe(201);
    }
    const two = await s.get(`/groups/${group}/merge_requests`, { query: { labels: 'many', per_page: '1' } });
    expectCounted(two, 2, 1);
    expect(two.body.map((x: any) => x.title)).toEqual(['many-2']);
    const bug = await s.get('/merge_requests', { query: { scope: 'all', labels: 'bug', per_page: '100' } });
    expect(ids(bug)).toEqual(newestFirst(mrs.filter((x) => hasLabel(x, 'bug'))).slice(0, 100).map((x) => x.id));
  });
});
