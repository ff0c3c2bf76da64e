import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { groupOfThree, pagedReads, restoreArmsLimits, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { SCOPE_ARMS_LIMITS } from '../../src/main/service/areas/core/order-scope-arms';

/**
 * A group's or the instance's list by title (merge requests also by merge date) of one author's
 * records (author_id, or the instance's created_by_me, its default), perhaps in a state, perhaps
 * with other filters (a milestone, labels, not[labels]): read as arms (order-scope-arms.ts
 * authorArms), each project where the author's records show in the state an arm of its
 * (project_id, column, id) index, merged. Every page answers what the records say: the column in
 * the asked direction (NULL lowest), ties by id; X-Total, X-Total-Pages, X-Next-Page, Link.
 */
let s: TestService;
let group: number;
let other: number;
let projects: number[];
let outside: number;
const TITLES = ['Alpha', 'beta', 'Gamma', 'alpha', 'Zeta'];

beforeAll(async () => {
  s = await TestService.start();
  other = (await s.createUser()).user.id as number;
  ({ group, projects, outside } = await groupOfThree(s));
  // A milestone titled v1 in the first two projects, on every 5th record of theirs.
  const v1 = new Map<number, number>();
  for (const project of projects.slice(0, 2)) v1.set(project, (await s.post(`/projects/${project}/milestones`, { title: 'v1' })).body.id as number);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    let k = 0;
    for (const [project, n] of [[projects[0], 37], [projects[1], 29], [projects[2], 6], [outside, 5]] as const) {
      for (let i = 1; i <= n; i++) {
        k++;
        // The third project: only the other user's records.
        const authorId = project === projects[2] || k % 3 === 0 ? other : 1;
        const at = new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString();
        const common = {
          iid: i, title: `${TITLES[(k * 7) % 5]} ${k % 4}`, description: null, authorId, createdAt: at, updatedAt: at, importedFrom: 'none' as const,
          labels: k % 3 === 1 ? ['bug'] : [], milestoneId: k % 5 === 2 ? v1.get(project) ?? null : null,
        };
        const closed = k % 4 === 0;
        insertImportedIssue(ctx, project, { ...common, state: closed ? 'closed' : 'opened', confidential: false });
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

interface Row { id: number; project_id: number; state: string; author_id: number; title: string; labels: string; milestone_id: number | null; merged_at?: string | null }

function reference(table: string, column: 'title' | 'merged_at', sort: string, keep: (r: Row) => boolean, instance: boolean): number[] {
  const rows = (s.service.context.db.prepare(`SELECT * FROM ${table}`).all() as Row[]).filter((r) => (instance || projects.includes(r.project_id)) && keep(r));
  const dir = sort === 'asc' ? 1 : -1;
  const cmp = (a: string | null | undefined, b: string | null | undefined): number => (a === b ? 0 : a == null ? -1 : b == null ? 1 : a < b ? -1 : 1);
  return rows.sort((a, b) => dir * (cmp(a[column], b[column]) || a.id - b.id)).map((r) => r.id);
}

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

/** The lists: group by author_id, instance by author_id (scope=all) and by created_by_me (the default), in a state or not. */
function lists(kind: string): { path: string; query: Record<string, string>; keep: (r: Row) => boolean; instance: boolean }[] {
  const out: { path: string; query: Record<string, string>; keep: (r: Row) => boolean; instance: boolean }[] = [];
  for (const state of [undefined, 'opened', kind === 'issues' ? 'closed' : 'merged']) {
    const inState = (r: Row): boolean => !state || r.state === state;
    const st: Record<string, string> = state ? { state } : {};
    for (const author of [1, other]) {
      out.push({ path: `/groups/${group}/${kind}`, query: { ...st, author_id: String(author) }, keep: (r) => inState(r) && r.author_id === author, instance: false });
      out.push({ path: `/${kind}`, query: { ...st, author_id: String(author), scope: 'all' }, keep: (r) => inState(r) && r.author_id === author, instance: true });
    }
    out.push({ path: `/${kind}`, query: st, keep: (r) => inState(r) && r.author_id === 1, instance: true });
  }
  return out;
}

describe("an author's records in a column's order, each project's index merged", () => {
  it('answers every page as the records say: group and instance, author_id and created_by_me, both directions', async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    for (const [kind, columns] of [['issues', ['title']], ['merge_requests', ['title', 'merged_at']]] as const) {
      for (const column of columns) {
        for (const sort of ['asc', 'desc']) {
          for (const { path, query, keep, instance } of lists(kind)) {
            await expectEveryPage(path, { ...query, order_by: column, sort }, reference(kind, column, sort, keep, instance), 7);
          }
        }
      }
    }
  });

  it("reads the page from the indexes of the projects with the author's records in the state, merged; sorted when the walk would read more", async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    const armsOf = async (path: string, query: Record<string, string>): Promise<{ sql: string; args: unknown[] } | undefined> =>
      (await pagedReads(s, async () => {
        await s.get(path, { query: { ...query, per_page: '5', page: '2' } });
      })).find((r) => r.sql.includes('INDEXED BY merge_requests_project_author_title'));
    // The caller's own (root's): the first two projects and the outside one for the instance; the group's two.
    // Each arm the author's entries of (project_id, author_id, title, id) (core/319): fewer than every record's.
    const own = await armsOf('/merge_requests', { state: 'merged', order_by: 'title' });
    expect(own?.sql.split(' UNION ALL ').length).toBe(3);
    const plan = queryPlan(s.service.context.db, own!.sql, ...own!.args);
    expect(plan).toContain('merge_requests_project_author_title (project_id=? AND author_id=?)');
    expect(plan).toContain('MERGE (UNION ALL)');
    expect(plan).not.toContain('TEMP B-TREE');
    expect((await armsOf(`/groups/${group}/merge_requests`, { author_id: '1', order_by: 'title' }))?.sql.split(' UNION ALL ').length).toBe(2);
    // The other user's: every project.
    expect((await armsOf(`/groups/${group}/merge_requests`, { author_id: String(other), order_by: 'title' }))?.sql.split(' UNION ALL ').length).toBe(3);
    SCOPE_ARMS_LIMITS.walkPerRead = 0.01;
    expect(await armsOf('/merge_requests', { state: 'merged', order_by: 'title' })).toBeUndefined();
  });
});

describe("an author's records with other filters in a column's order, each project's index merged", () => {
  const bug = (r: Row): boolean => (JSON.parse(r.labels) as string[]).includes('bug');
  const FILTERS: [Record<string, string>, (r: Row) => boolean][] = [
    [{ milestone: 'Any' }, (r) => r.milestone_id !== null],
    [{ milestone: 'v1', state: 'opened' }, (r) => r.milestone_id !== null && r.state === 'opened'],
    [{ milestone: 'None' }, (r) => r.milestone_id === null],
    [{ 'not[labels]': 'bug' }, (r) => !bug(r)],
    [{ labels: 'bug', state: 'opened' }, (r) => bug(r) && r.state === 'opened'],
  ];

  it('answers every page as the records say with a milestone, labels or not[labels]: group and instance, author_id and created_by_me, both directions', async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    for (const [kind, columns] of [['issues', ['title']], ['merge_requests', ['title', 'merged_at']]] as const) {
      for (const column of columns) {
        for (const sort of ['asc', 'desc']) {
          for (const [filter, keep] of FILTERS) {
            for (const { path, query, keep: mine, instance } of lists(kind).filter((l) => !l.query.state)) {
              await expectEveryPage(path, { ...query, ...filter, order_by: column, sort }, reference(kind, column, sort, (r) => mine(r) && keep(r), instance), 7);
            }
          }
        }
      }
    }
  });

  it("reads the page from the indexes of the projects with the author's records in the state; sorted when the walk would read more than the author's records", async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    const armsOf = async (path: string, query: Record<string, string>): Promise<{ sql: string; args: unknown[] } | undefined> =>
      (await pagedReads(s, async () => {
        await s.get(path, { query: { ...query, per_page: '5', page: '2' } });
      })).find((r) => r.sql.includes('INDEXED BY issues_project_title'));
    // The caller's own opened issues with a milestone: the projects of root's opened records (the first two and the one outside the group), each entry asked its milestone.
    const own = await armsOf('/issues', { state: 'opened', milestone: 'Any', order_by: 'title' });
    expect(own?.sql.split(' UNION ALL ').length).toBe(3);
    const plan = queryPlan(s.service.context.db, own!.sql, ...own!.args);
    expect(plan).toContain('MERGE (UNION ALL)');
    expect(plan).not.toContain('TEMP B-TREE');
    expect((await armsOf(`/groups/${group}/issues`, { author_id: String(other), 'not[labels]': 'bug', order_by: 'title' }))?.sql.split(' UNION ALL ').length).toBe(3);
    // The walk would read more than the author's records: read and sorted.
    SCOPE_ARMS_LIMITS.walkPerRead = 0.01;
    expect(await armsOf('/issues', { state: 'opened', milestone: 'Any', order_by: 'title' })).toBeUndefined();
  });
});
