import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, groupOfThree, pagedReads, restoreArmsLimits, queryPlan } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { SCOPE_ARMS_LIMITS } from '../../src/main/service/areas/core/order-scope-arms';

/**
 * A group's and the instance's merge requests by merged_at or title (order-scope-arms.ts): each
 * project an arm, merged. In one state the arm walks that state's entries of (project_id, state,
 * merged_at, id) (core/298), not every merged one first (an opened or closed record sorts at the
 * NULL end); one author's list (author_id, created_by_me) the author's entries of (project_id,
 * author_id, column, id, state, milestone_id) (core/319) where fewer, its state and milestone asked
 * of the entry. Every page, for each scope of the instance list (created_by_me, the default;
 * assigned_to_me; all), in each state and direction, with a milestone or none, answers what the
 * records say, before and after writes that move records between states, titles and milestones:
 * the column in the asked direction (NULL lowest), ties by id; X-Total, X-Total-Pages, X-Next-Page,
 * Link.
 */
let s: TestService;
let group: number;
let other: number;
/** The other user's token: a non-administrator's own records (created_by_me, the default) are the projects they see with them as author. */
let otherToken: string;
let projects: number[];
let outside: number;
const STATES = ['opened', 'closed', 'merged'] as const;
const v1 = new Map<number, number>();

beforeAll(async () => {
  s = await TestService.start();
  const made = await s.createUser();
  other = made.user.id as number;
  otherToken = made.token;
  ({ group, projects, outside } = await groupOfThree(s));
  // A milestone titled v1 in the first two projects, on every fifth record of theirs.
  for (const project of projects.slice(0, 2)) v1.set(project, ok(await s.post(`/projects/${project}/milestones`, { title: 'v1' })).id as number);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    let k = 0;
    for (const [project, n] of [[projects[0], 41], [projects[1], 23], [projects[2], 6], [outside, 9]] as const) {
      for (let i = 1; i <= n; i++) {
        k++;
        const state = STATES[k % 3];
        const at = new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString();
        // Merge dates out of id order, some shared; an opened record (k = 7) imported with one too.
        const mergedAt = state === 'merged' || k === 7 ? new Date(Date.UTC(2024, 5, 1) + ((k * 13) % 11) * 3_600_000).toISOString() : null;
        insertImportedMergeRequest(ctx, project, {
          iid: i,
          // Titles out of id order, some shared.
          title: `change ${(k * 7) % 19}`,
          description: null,
          state,
          // The third project: only the other user's records; root assigned to every fourth.
          authorId: project === projects[2] || k % 4 === 0 ? other : 1,
          assigneeIds: k % 4 === 1 ? [1] : [],
          sourceBranch: `f-${i}`,
          targetBranch: 'main',
          baseSha: '0'.repeat(40),
          headSha: '1'.repeat(40),
          mergedAt,
          milestoneId: k % 5 === 2 ? v1.get(project) ?? null : null,
          createdAt: at,
          updatedAt: at,
          importedFrom: 'none',
        });
      }
    }
  })();
}, 60_000);
afterAll(async () => s.stop());
afterEach(restoreArmsLimits);

interface Row { id: number; project_id: number; state: string; author_id: number; assignee_ids: string; milestone_id: number | null; title: string; merged_at: string | null }

/** The records `keep` picks (the group's projects' unless `instance`) by `column` (NULL lowest), ties by id, in `sort`'s direction. */
function reference(column: 'merged_at' | 'title', sort: string, keep: (r: Row) => boolean, instance: boolean): number[] {
  const rows = (s.service.context.db.prepare('SELECT * FROM merge_requests').all() as Row[]).filter((r) => (instance || projects.includes(r.project_id)) && keep(r));
  const dir = sort === 'asc' ? 1 : -1;
  const cmp = (a: string | null, b: string | null): number => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
  return rows.sort((a, b) => dir * (cmp(a[column], b[column]) || a.id - b.id)).map((r) => r.id);
}

/** Group (any author, root, the other user) and instance lists (scope=all, created_by_me, assigned_to_me), in `state` or every state. */
function lists(state: string | undefined): { path: string; query: Record<string, string>; keep: (r: Row) => boolean; instance: boolean }[] {
  const st: Record<string, string> = state ? { state } : {};
  const inState = (r: Row): boolean => !state || r.state === state;
  return [
    { path: `/groups/${group}/merge_requests`, query: st, keep: inState, instance: false },
    ...[1, other].map((author) => ({ path: `/groups/${group}/merge_requests`, query: { ...st, author_id: String(author) }, keep: (r: Row) => inState(r) && r.author_id === author, instance: false })),
    { path: '/merge_requests', query: { ...st, scope: 'all' }, keep: inState, instance: true },
    { path: '/merge_requests', query: st, keep: (r) => inState(r) && r.author_id === 1, instance: true },
    { path: '/merge_requests', query: { ...st, scope: 'assigned_to_me' }, keep: (r) => inState(r) && (JSON.parse(r.assignee_ids) as number[]).includes(1), instance: true },
  ];
}

async function expectEveryList(): Promise<void> {
  for (const state of [undefined, ...STATES]) {
    for (const sort of ['desc', 'asc']) {
      for (const { path, query, keep, instance } of lists(state)) {
        await expectEveryPage(s, path, { ...query, order_by: 'merged_at', sort }, reference('merged_at', sort, keep, instance), 6);
      }
    }
  }
}

/** One author's lists (group author_id, scope=all&author_id, created_by_me) with a milestone filter or none, by merged_at and title, each direction, in every state or one. */
async function expectEveryAuthorList(): Promise<void> {
  const MILESTONES: [Record<string, string>, (r: Row) => boolean][] = [
    [{}, () => true],
    [{ milestone: 'None' }, (r) => r.milestone_id === null],
    [{ milestone: 'v1' }, (r) => r.milestone_id !== null],
  ];
  for (const column of ['merged_at', 'title'] as const) {
    for (const sort of ['desc', 'asc']) {
      for (const state of [undefined, 'opened']) {
        const st: Record<string, string> = state ? { state } : {};
        for (const [milestone, keep] of MILESTONES) {
          for (const [path, query, author, instance, token] of [
            [`/groups/${group}/merge_requests`, { author_id: String(other) }, other, false],
            [`/groups/${group}/merge_requests`, { author_id: '1' }, 1, false],
            ['/merge_requests', { scope: 'all', author_id: String(other) }, other, true],
            ['/merge_requests', {}, 1, true],
            ['/merge_requests', {}, other, true, otherToken],
            ['/merge_requests', { scope: 'created_by_me', author_id: String(other) }, other, true, otherToken],
          ] as const) {
            const want = reference(column, sort, (r) => r.author_id === author && (!state || r.state === state) && keep(r), instance);
            await expectEveryPage(s, path, { ...query, ...st, ...milestone, order_by: column, sort }, want, 6, token);
          }
        }
      }
    }
  }
}

/** The paged read of the arms (a read INDEXED BY `index`) of page 2 of 5, if the list was read so. */
async function armsOf(index: string, path: string, query: Record<string, string>, column = 'merged_at'): Promise<{ sql: string; args: unknown[] } | undefined> {
  const reads = await pagedReads(s, async () => void (await s.get(path, { query: { order_by: column, ...query, per_page: '5', page: '2' } })));
  return reads.find((r) => r.sql.includes(`INDEXED BY ${index}`));
}

describe('group and instance merge requests by merged_at, read as arms', () => {
  it('answer every page as the records say, each scope, state and direction, before and after writes', async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    await expectEveryList();
    // Records move between states and a new one comes: close, reopen, create (root's, assigned to root).
    const [p1, p2] = projects;
    ok(await s.put(`/projects/${p1}/merge_requests/3`, { state_event: 'close' }));
    ok(await s.put(`/projects/${p2}/merge_requests/1`, { state_event: 'reopen' }));
    ok(await s.post(`/projects/${p2}/merge_requests`, { source_branch: 'late', target_branch: 'main', title: 'late change', assignee_id: 1 }));
    await expectEveryList();
  });

  it('walk, in one state, the (project_id, state, merged_at, id) index of each project, merged, unsorted', async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    for (const state of STATES) {
      for (const [path, query, arms] of [
        [`/groups/${group}/merge_requests`, {}, 3],
        ['/merge_requests', { scope: 'all' }, 4],
        ['/merge_requests', {}, 3],
      ] as const) {
        const what = `${path} ${state} ${JSON.stringify(query)}`;
        const read = await armsOf('merge_requests_project_state_merged', path, { ...query, state });
        expect(read, what).toBeDefined();
        expect(read!.sql.split(' UNION ALL ').length, what).toBeLessThanOrEqual(arms);
        const plan = queryPlan(s.service.context.db, read!.sql, ...read!.args);
        // (A state none of whose records has a merge date seeks its NULL end too: order-merged-at.ts.)
        expect(plan, what).toContain('merge_requests_project_state_merged (project_id=? AND state=?');
        expect(plan, what).not.toContain('TEMP B-TREE');
      }
    }
    // Every state: the (project_id, merged_at, id) index, as before.
    expect(await armsOf('merge_requests_project_merged', `/groups/${group}/merge_requests`, {})).toBeDefined();
  });
});

describe("one author's merge requests of a group or the instance by merged_at or title, read in the author's index", () => {
  it('answer every page as the records say, with a state and a milestone or none, before and after writes', async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    await expectEveryAuthorList();
    // The other user's record renamed, given the milestone, closed; root's taken off it; a new one of root's on it.
    const [p1, p2] = projects;
    const theirs = (s.service.context.db.prepare('SELECT iid FROM merge_requests WHERE project_id = ? AND author_id = ? AND state = ? ORDER BY id LIMIT 2').all(p1, other, 'opened') as { iid: number }[]).map((r) => r.iid);
    ok(await s.put(`/projects/${p1}/merge_requests/${theirs[0]}`, { title: 'aaa first now', milestone_id: v1.get(p1) }));
    ok(await s.put(`/projects/${p1}/merge_requests/${theirs[1]}`, { state_event: 'close' }));
    const rootsOnV1 = s.service.context.db.prepare('SELECT iid FROM merge_requests WHERE project_id = ? AND author_id = 1 AND milestone_id IS NOT NULL ORDER BY id LIMIT 1').get(p2) as { iid: number };
    ok(await s.put(`/projects/${p2}/merge_requests/${rootsOnV1.iid}`, { milestone_id: 0, title: 'zzz last now' }));
    ok(await s.post(`/projects/${p2}/merge_requests`, { source_branch: 'later', target_branch: 'main', title: 'change 5', milestone_id: v1.get(p2) }));
    await expectEveryAuthorList();
  });

  it("walk the author's entries of (project_id, author_id, column, id, state, milestone_id), nothing else read, unsorted", async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    for (const [column, index] of [['title', 'merge_requests_project_author_title'], ['merged_at', 'merge_requests_project_author_merged']] as const) {
      for (const [path, query, arms] of [
        // The other user's records: each project of the group; root's: the first two.
        [`/groups/${group}/merge_requests`, { author_id: String(other), milestone: 'None' }, 3],
        [`/groups/${group}/merge_requests`, { author_id: '1', milestone: 'None' }, 2],
        [`/groups/${group}/merge_requests`, { author_id: '1', milestone: 'v1' }, 2],
        ['/merge_requests', { scope: 'all', author_id: String(other) }, 4],
      ] as const) {
        const what = `${path} ${column} ${JSON.stringify(query)}`;
        const read = await armsOf(index, path, query, column);
        expect(read, what).toBeDefined();
        expect(read!.sql.split(' UNION ALL ').length, what).toBe(arms);
        const plan = queryPlan(s.service.context.db, read!.sql, ...read!.args);
        expect(plan, what).toContain(`COVERING INDEX ${index} (project_id=? AND author_id=?)`);
        expect(plan, what).not.toContain('TEMP B-TREE');
      }
    }
    // Root's opened ones by merged_at: the state's entries (a third of each project's) are fewer than root's (three quarters).
    expect(await armsOf('merge_requests_project_state_merged', `/groups/${group}/merge_requests`, { author_id: '1', state: 'opened' })).toBeDefined();
  });
});
