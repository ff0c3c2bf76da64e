import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { groupOfThree, pagedReads, restoreArmsLimits, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { SCOPE_ARMS_LIMITS } from '../../src/main/service/areas/core/order-scope-arms';
import { DUE_DATE_LIMITS } from '../../src/main/service/areas/core/order-due-date';

/**
 * A group's issues by title or due date, and merge requests by title or merge date (order-scope-arms.ts):
 * each project's records read in its (project_id, column, id) index and merged. Every page answers
 * what the records say: the column in the asked direction (NULL lowest), ties by id the same way;
 * X-Total, X-Total-Pages, X-Next-Page as the list's count. Titles, due dates and merge dates repeat
 * (ties), some are NULL, three projects (one archived-free, one empty of a state).
 */
let s: TestService;
let group: number;
let projects: number[];
let outside: number;

const TITLES = ['Alpha', 'beta', 'Gamma', 'alpha', 'Zeta'];
const DUES = [null, null, '2024-03-01', '2024-01-15', '2025-07-30'];

beforeAll(async () => {
  s = await TestService.start();
  // The group's three projects, and one outside it: never in its lists.
  ({ group, projects, outside } = await groupOfThree(s));
  // A milestone titled v1 in each project (a title several milestones hold: a set over the group), on every 5th record but the outside project's.
  const v1 = new Map<number, number>();
  for (const project of projects) v1.set(project, (await s.post(`/projects/${project}/milestones`, { title: 'v1' })).body.id as number);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    let k = 0;
    for (const [project, n] of [[projects[0], 37], [projects[1], 29], [projects[2], 6], [outside, 5]] as const) {
      for (let i = 1; i <= n; i++) {
        k++;
        const common = {
          iid: i,
          title: `${TITLES[(k * 7) % 5]} ${k % 4}`,
          description: null,
          authorId: 1,
          labels: [...(k % 3 === 0 ? ['bug'] : []), ...(k % 5 === 0 ? ['Feature'] : [])],
          createdAt: new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString(),
          updatedAt: new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString(),
          importedFrom: 'none' as const,
          milestoneId: k % 5 === 2 ? v1.get(project) ?? null : null,
        };
        // The third project has no closed issue and no merged merge request.
        const closed = project !== projects[2] && k % 4 === 0;
        insertImportedIssue(ctx, project, { ...common, state: closed ? 'closed' : 'opened', confidential: false, dueDate: DUES[(k * 3) % 5] });
        insertImportedMergeRequest(ctx, project, {
          ...common,
          state: closed ? 'merged' : 'opened',
          sourceBranch: `f-${i}`,
          targetBranch: 'main',
          baseSha: '0'.repeat(40),
          headSha: '1'.repeat(40),
          mergedAt: closed ? new Date(Date.UTC(2024, 5, 1) + (k % 5) * 3_600_000).toISOString() : null,
        });
      }
    }
  })();
}, 60_000);
afterAll(async () => s.stop());
afterEach(restoreArmsLimits);

const ids = (res: ApiResult): number[] => (res.body as { id: number }[]).map((x) => x.id);

interface Row { id: number; project_id: number; state: string; labels: string; milestone_id: number | null; title: string; created_at: string; due_date?: string | null; merged_at?: string | null }

/** The group's records meeting `keep` in `column` order, NULL lowest, ties by id, in `sort`'s direction. */
function reference(table: string, column: 'title' | 'due_date' | 'merged_at', sort: string, keep: (r: Row) => boolean, instance = false): number[] {
  const rows = (s.service.context.db.prepare(`SELECT * FROM ${table}`).all() as Row[]).filter((r) => (instance || projects.includes(r.project_id)) && keep(r));
  const dir = sort === 'asc' ? 1 : -1;
  const cmp = (a: string | null | undefined, b: string | null | undefined): number => (a === b ? 0 : a == null ? -1 : b == null ? 1 : a < b ? -1 : 1);
  return rows.sort((a, b) => dir * (cmp(a[column], b[column]) || a.id - b.id)).map((r) => r.id);
}

const FILTERS: [Record<string, string>, (r: Row) => boolean][] = [
  [{}, () => true],
  [{ state: 'opened' }, (r) => r.state === 'opened'],
  [{ 'not[labels]': 'bug' }, (r) => !(JSON.parse(r.labels) as string[]).includes('bug')],
  [{ labels: 'None', state: 'closed' }, (r) => r.labels === '[]' && r.state === 'closed'],
  [{ state: 'merged' }, (r) => r.state === 'merged'],
  // A date range the group's records do not all meet (date-bounds.ts keeps it): counted to choose.
  [{ created_after: '2024-01-01T00:40:00Z', state: 'opened' }, (r) => r.created_at >= '2024-01-01T00:40:00.000Z' && r.state === 'opened'],
];

async function expectEveryPage(path: string, query: Record<string, string>, want: number[], per: number): Promise<void> {
  const pages = Math.max(1, Math.ceil(want.length / per));
  for (let page = 1; page <= pages + 1; page++) {
    const q = { ...query, per_page: String(per), page: String(page) };
    const res = await s.get(path, { query: q });
    const what = `${path} ${new URLSearchParams(q)}`;
    expect(res.status, what).toBe(200);
    expect(ids(res), what).toEqual(want.slice((page - 1) * per, page * per));
    expect(res.headers.get('x-total'), what).toBe(String(want.length));
    expect(res.headers.get('x-total-pages'), what).toBe(String(pages));
    expect(res.headers.get('x-next-page'), what).toBe(page < pages ? String(page + 1) : '');
    expect(res.headers.get('link'), what).toMatch(new RegExp(`[?&]page=${pages}&per_page=${per}[^>]*>; rel="last"`));
  }
}

describe("a group's list, or an administrator's instance list, in a column's order, each project's index merged", () => {
  it('answers every page as the records say: issues by title and due date, merge requests by title and merge date, both directions', async () => {
    // Issues by due date: read as the undated walked and the dated sorted (order-due-date.ts) unless the table holds many dated.
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    DUE_DATE_LIMITS.fewDated = 0;
    for (const instance of [false, true]) {
      for (const [kind, columns] of [['issues', ['title', 'due_date']], ['merge_requests', ['title', 'merged_at']]] as const) {
        for (const column of columns) {
          for (const sort of ['asc', 'desc']) {
            for (const [filter, keep] of FILTERS) {
              if (kind === 'issues' && filter.state === 'merged') continue;
              const want = reference(kind, column, sort, keep, instance);
              const path = instance ? `/${kind}` : `/groups/${group}/${kind}`;
              await expectEveryPage(path, { ...filter, ...(instance ? { scope: 'all' } : {}), order_by: column, sort }, want, 7);
            }
          }
        }
      }
    }
  });

  it("reads an administrator's instance list (scope=all) from its projects' indexes merged, the projects with records in the state", async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    const reads = await pagedReads(s, async () => {
      await s.get('/issues', { query: { scope: 'all', state: 'opened', order_by: 'title', per_page: '5', page: '3' } });
    });
    const page = reads.find((r) => r.sql.includes('INDEXED BY issues_project_title'));
    // Four arms: the group's three projects and the one outside it.
    expect(page?.sql.split(' UNION ALL ').length).toBe(4);
    const plan = queryPlan(s.service.context.db, page!.sql, ...page!.args);
    expect(plan).toContain('MERGE (UNION ALL)');
    expect(plan).not.toContain('TEMP B-TREE');
    // Three: the third project has no merged merge request (each arm its state's entries of core/298's index).
    const merged = await pagedReads(s, async () => {
      await s.get('/merge_requests', { query: { scope: 'all', state: 'merged', order_by: 'merged_at' } });
    });
    expect(merged.find((r) => r.sql.includes('INDEXED BY merge_requests_project_state_merged'))?.sql.split(' UNION ALL ').length).toBe(3);
  });

  it("reads the page from the projects' indexes merged, only the projects with records in the state", async () => {
    // Issues by due date: read as the undated walked and the dated sorted (order-due-date.ts) unless the table holds many dated.
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    DUE_DATE_LIMITS.fewDated = 0;
    const reads = await pagedReads(s, async () => {
      await s.get(`/groups/${group}/issues`, { query: { state: 'closed', order_by: 'due_date', 'not[labels]': 'bug' } });
    });
    const page = reads.find((r) => r.sql.includes('INDEXED BY issues_project_due'));
    expect(page?.sql).toContain(' UNION ALL ');
    // Two arms: the third project has no closed issue.
    expect(page?.sql.split(' UNION ALL ').length).toBe(2);
    // Each arm in its index's order, merged: nothing sorted.
    const plan = queryPlan(s.service.context.db, page!.sql, ...page!.args);
    expect(plan).toContain('MERGE (UNION ALL)');
    expect(plan).not.toContain('TEMP B-TREE');
    const mrs = await pagedReads(s, async () => {
      await s.get(`/groups/${group}/merge_requests`, { query: { order_by: 'title', sort: 'asc' } });
    });
    expect(mrs.find((r) => r.sql.includes('INDEXED BY merge_requests_project_title'))?.sql.split(' UNION ALL ').length).toBe(3);
  });

  it("reads a project's list with a date bound in the order's index, each entry asked the bound, not the bound's range sorted", async () => {
    const DATED: [Record<string, string>, (r: Row) => boolean][] = [
      [{ created_after: '2024-01-01T00:10:00Z' }, (r) => r.created_at >= '2024-01-01T00:10:00.000Z'],
      [{ created_before: '2024-01-01T00:30:00Z', state: 'opened' }, (r) => r.created_at <= '2024-01-01T00:30:00.000Z' && r.state === 'opened'],
    ];
    for (const [kind, columns] of [['issues', ['title']], ['merge_requests', ['title', 'merged_at']]] as const) {
      for (const column of columns) {
        for (const sort of ['asc', 'desc']) {
          for (const [filter, keep] of DATED) {
            const want = reference(kind, column, sort, (r) => r.project_id === projects[0] && keep(r), true);
            await expectEveryPage(`/projects/${projects[0]}/${kind}`, { ...filter, order_by: column, sort }, want, 7);
          }
        }
      }
    }
    // A page length expectEveryPage did not ask (its pages are remembered at the records' version: no read).
    const walkOf = async (query: Record<string, string>): Promise<{ sql: string; args: unknown[] } | undefined> =>
      (await pagedReads(s, async () => {
        await s.get(`/projects/${projects[0]}/merge_requests`, { query: { ...query, order_by: 'merged_at', per_page: '6', page: '2' } });
      })).find((r) => r.sql.includes('INDEXED BY merge_requests_project_merged'));
    const walk = await walkOf({ created_after: '2024-01-01T00:10:00Z' });
    const plan = queryPlan(s.service.context.db, walk!.sql, ...walk!.args);
    expect(plan).toContain('merge_requests_project_merged');
    expect(plan).not.toContain('TEMP B-TREE');
    // A bound few records meet (three): their range read and sorted.
    expect(await walkOf({ created_after: '2024-01-01T00:35:00Z' })).toBeUndefined();
  });

  it('sorts a list counted as few by its SQL (no arms), a date range counted to know', async () => {
    DUE_DATE_LIMITS.fewDated = 0;
    for (const query of [{ state: 'closed' }, { created_after: '2024-01-01T00:40:00Z' }] as Record<string, string>[]) {
      const reads = await pagedReads(s, async () => {
        await s.get(`/groups/${group}/issues`, { query: { ...query, order_by: 'due_date' } });
      });
      expect(reads.some((r) => r.sql.includes('INDEXED BY issues_project_due'))).toBe(false);
      expect(reads.length).toBeGreaterThan(0);
    }
    SCOPE_ARMS_LIMITS.sortedUpTo = 30;
    DUE_DATE_LIMITS.fewDated = 0;
    const reads = await pagedReads(s, async () => {
      await s.get(`/groups/${group}/issues`, { query: { created_after: '2024-01-01T00:20:00Z', order_by: 'due_date' } });
    });
    expect(reads.some((r) => r.sql.includes('INDEXED BY issues_project_due'))).toBe(true);
  });
});

describe("a group's or the instance's list of one or two label titles or a milestone set in a column's order, the set's projects' indexes merged", () => {
  const labelled = (r: Row, ...titles: string[]): boolean => titles.every((t) => (JSON.parse(r.labels) as string[]).some((l) => l.toLowerCase() === t.toLowerCase()));
  const LABEL_FILTERS: [Record<string, string>, (r: Row) => boolean][] = [
    [{ labels: 'bug' }, (r) => labelled(r, 'bug')],
    [{ labels: 'feature', state: 'opened' }, (r) => labelled(r, 'feature') && r.state === 'opened'],
    [{ labels: 'bug,feature' }, (r) => labelled(r, 'bug', 'feature')],
    [{ labels: 'BUG,Feature', state: 'closed' }, (r) => labelled(r, 'bug', 'feature') && r.state === 'closed'],
    [{ labels: 'bug', state: 'merged' }, (r) => labelled(r, 'bug') && r.state === 'merged'],
    [{ milestone: 'Any' }, (r) => r.milestone_id !== null],
    [{ milestone: 'v1', state: 'opened' }, (r) => r.milestone_id !== null && r.state === 'opened'],
  ];

  it('answers every page as the records say, group and instance, both directions', async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    DUE_DATE_LIMITS.fewDated = 0;
    for (const instance of [false, true]) {
      for (const [kind, columns] of [['issues', ['title', 'due_date']], ['merge_requests', ['title', 'merged_at']]] as const) {
        for (const column of columns) {
          for (const sort of ['asc', 'desc']) {
            for (const [filter, keep] of LABEL_FILTERS) {
              if (kind === 'issues' && filter.state === 'merged') continue;
              const want = reference(kind, column, sort, keep, instance);
              const path = instance ? `/${kind}` : `/groups/${group}/${kind}`;
              await expectEveryPage(path, { ...filter, ...(instance ? { scope: 'all' } : {}), order_by: column, sort }, want, 4);
            }
          }
        }
      }
    }
  });

  it("reads the page from the indexes of the projects with the titles' rows in the state, merged; the set sorted when the walk would read more", async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    const armsOf = async (path: string, query: Record<string, string>): Promise<string | undefined> =>
      (await pagedReads(s, async () => {
        await s.get(path, { query });
      })).find((r) => r.sql.includes('INDEXED BY merge_requests_project_title'))?.sql;
    // The instance's merged merge requests with bug: an arm for each project holding one (the third project has none merged).
    const merged = s.service.context.db.prepare("SELECT count(DISTINCT project_id) AS n FROM merge_requests WHERE state = 'merged' AND labels LIKE '%bug%'").get() as { n: number };
    const page = await armsOf('/merge_requests', { scope: 'all', labels: 'bug', state: 'merged', order_by: 'title' });
    expect(page?.split(' UNION ALL ').length).toBe(merged.n);
    const reads = await pagedReads(s, async () => {
      await s.get(`/groups/${group}/merge_requests`, { query: { labels: 'bug,feature', order_by: 'title', sort: 'asc' } });
    });
    const pair = reads.find((r) => r.sql.includes('INDEXED BY merge_requests_project_title'));
    const plan = queryPlan(s.service.context.db, pair!.sql, ...pair!.args);
    expect(plan).toContain('MERGE (UNION ALL)');
    expect(plan).not.toContain('TEMP B-TREE');
    // A milestone set: the projects holding its records in the state.
    expect((await armsOf(`/groups/${group}/merge_requests`, { milestone: 'v1', state: 'merged', order_by: 'title' }))?.split(' UNION ALL ').length).toBe(2);
    expect((await armsOf(`/groups/${group}/merge_requests`, { milestone: 'Any', order_by: 'title' }))?.split(' UNION ALL ').length).toBe(3);
    // Another filter besides the set (a branch): the set read and sorted.
    expect(await armsOf(`/groups/${group}/merge_requests`, { milestone: 'Any', target_branch: 'main', order_by: 'title' })).toBeUndefined();
    // The caller's own records (the instance's default scope, created_by_me): not the set's arms
    // but the author's (author-arms-orders.test.ts), each entry asked the label.
    expect(await armsOf('/merge_requests', { labels: 'bug', order_by: 'title' })).toContain('x.author_id = ?');
    expect(await armsOf('/merge_requests', { labels: 'bug', order_by: 'title', scope: 'all' })).not.toContain('x.author_id');
    // A walk reading more than the set's records: the set read and sorted.
    SCOPE_ARMS_LIMITS.walkPerRead = 0.01;
    expect(await armsOf('/merge_requests', { labels: 'bug', order_by: 'title' })).toBeUndefined();
    expect(await armsOf(`/groups/${group}/merge_requests`, { labels: 'bug', order_by: 'title' })).toBeUndefined();
  });
});
