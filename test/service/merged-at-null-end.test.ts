import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, idsByMergedAt, pagedReads, queryPlan } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { SCOPE_ARMS_LIMITS } from '../../src/main/service/areas/core/order-scope-arms';
import { COUNT_LIMIT } from '../../src/main/service/http/pagination';

/**
 * Merge requests by merged_at whose filters leave out every record with a merge date in the list's
 * scope (milestone=None where every merged one has a milestone; a label title or an author no
 * merged record has): the list is the NULL end in id order, so its page seeks the merge date's
 * indexes at merged_at NULL (and a date bound's ids) instead of walking every merged record
 * first: a project's list, a group's (its projects' arms), the instance's. The rows, order and
 * headers are the records' either way; once a merged record (or an opened one with a merge date,
 * as an import may write) of the scope meets the filters, the list is read as before: the
 * instance's from the start, a project outside the group holding such a merged record.
 */
let s: TestService;
let project: number;
let group: number;
let outside: number;
let milestone: number;
let other: number;
const N = 150;
const HOUR = 3_600_000;
const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * HOUR).toISOString();

interface Shape {
  iid: number;
  state: 'opened' | 'closed' | 'merged';
  labels: string[];
  milestoneId: number | null;
  authorId: number;
  createdAt: string;
  mergedAt: string | null;
}

function insert(m: Shape, into = project): void {
  insertImportedMergeRequest(s.service.context, into, {
    ...m,
    title: `change ${m.iid}`,
    description: null,
    updatedAt: m.createdAt,
    importedFrom: 'none',
    sourceBranch: `f-${m.iid}`,
    targetBranch: 'main',
    baseSha: '0'.repeat(40),
    headSha: '1'.repeat(40),
  });
}

beforeAll(async () => {
  // The group's and the instance's few records read by their projects' arms, as a million are.
  SCOPE_ARMS_LIMITS.sortedUpTo = 0;
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'merged-at-null-end', namespace_id: group, visibility: 'public' })).id;
  outside = (await s.createProject({ name: 'merged-outside', visibility: 'public' })).id;
  milestone = (ok(await s.post(`/projects/${project}/milestones`, { title: 'v1' })) as { id: number }).id;
  other = ((await s.createUser({ username: 'null-end-author' })).user as { id: number }).id;
  s.service.context.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const state = i % 5 === 0 ? 'merged' : i % 5 === 1 ? 'closed' : 'opened';
      // Every merged record has the milestone, none the title `fix`, none the second author; creation
      // dates out of id order (every seventh an hour stamp from far back), merge dates out of id order.
      insert({
        iid: i,
        state,
        labels: state !== 'merged' && i % 2 === 0 ? ['fix'] : [],
        milestoneId: state === 'merged' || i % 3 === 0 ? milestone : null,
        authorId: state !== 'merged' && i % 4 === 0 ? other : 1,
        createdAt: i % 7 === 0 ? at(i - 100) : at(i),
        mergedAt: state === 'merged' ? at(500 + ((i * 37) % 41)) : null,
      });
    }
    // Outside the group: a merged record meeting every list's filters (no milestone, `fix`, the second author).
    insert({ iid: 1, state: 'merged', labels: ['fix'], milestoneId: null, authorId: other, createdAt: at(11), mergedAt: at(510) }, outside);
  })();
}, 60_000);
afterAll(async () => {
  SCOPE_ARMS_LIMITS.sortedUpTo = COUNT_LIMIT;
  await s.stop();
});

interface Row {
  id: number;
  labels: string;
  milestone_id: number | null;
  author_id: number;
  created_at: string;
  merged_at: string | null;
}

/** The records of `projects` meeting `keep` by merged_at (NULL lowest, as SQLite), ties by id in the same direction. */
function want(sort: 'asc' | 'desc', keep: (r: Row) => boolean, projects: number[]): number[] {
  const rows = s.service.context.db.prepare('SELECT id, labels, milestone_id, author_id, created_at, merged_at FROM merge_requests WHERE project_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(projects)) as Row[];
  return idsByMergedAt(rows.filter(keep), sort);
}

const BOUND = at(90);
const LISTS: { query: Record<string, string>; keep: (r: Row) => boolean }[] = [
  { query: { milestone: 'None' }, keep: (r) => r.milestone_id === null },
  { query: { labels: 'fix', created_before: BOUND }, keep: (r) => JSON.parse(r.labels).includes('fix') && r.created_at <= BOUND },
  { query: { author_id: '', labels: 'fix' }, keep: (r) => r.author_id === other && JSON.parse(r.labels).includes('fix') },
  { query: { milestone: 'None', created_after: at(40) }, keep: (r) => r.milestone_id === null && r.created_at >= at(40) },
];

/** How a list's page is read: seeking the NULL end (the condition written out, the plan seeking it, no sort), or as before. */
type Expect = (reads: { sql: string; args: unknown[] }[], what: string) => void;
const seeksNullEnd: Expect = (reads, what) => {
  expect(reads.some((r) => r.sql.includes('x.merged_at IS NULL')), what).toBe(true);
  // A group's or the instance's list with a date is its statement over their projects (no arms), its plan SQLite's choice.
  if (!what.startsWith('/projects/') && what.includes('created_')) return;
  // Seeks merged_at NULL in a merge date's index, or walks the ids (a date's range) in the state's: no merged entry crossed.
  const plan = reads.map((r) => queryPlan(s.service.context.db, r.sql, ...r.args)).join('\n');
  expect(plan, what).toMatch(/merged_at=\?|id>\? AND id<\?|rowid>\? AND rowid<\?/);
  expect(plan, what).not.toContain('TEMP B-TREE');
};
const readsAsBefore: Expect = (reads, what) => expect(reads.some((r) => r.sql.includes('merged_at IS NULL')), what).toBe(false);

/**
 * Each list, both directions, in the project, its group and the instance (scope=all): the page's
 * reads (checked by `inScope`'s expectation: the project's and the group's; the instance's by
 * `instance`), then every page against the records.
 */
async function expectLists(inScope: Expect, instance: Expect): Promise<void> {
  const scopes: { path: string; extra: Record<string, string>; projects: number[]; expect: Expect }[] = [
    { path: `/projects/${project}/merge_requests`, extra: {}, projects: [project], expect: inScope },
    { path: `/groups/${group}/merge_requests`, extra: {}, projects: [project], expect: inScope },
    { path: '/merge_requests', extra: { scope: 'all' }, projects: [project, outside], expect: instance },
  ];
  for (const { path, extra, projects, expect: expectReads } of scopes) {
    for (const list of LISTS) {
      for (const sort of ['desc', 'asc'] as const) {
        const query: Record<string, string> = { ...extra, ...list.query, ...(list.query.author_id === '' ? { author_id: String(other) } : {}), order_by: 'merged_at', sort };
        const what = `${path} ${JSON.stringify(query)}`;
        const reads = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '6', page: '2' } })));
        expect(reads.length, what).toBeGreaterThan(0);
        expectReads(reads, what);
        await expectEveryPage(s, path, query, want(sort, list.keep, projects), 6);
      }
    }
  }
}

describe('merge requests by merged_at, none of the list merged', () => {
  it("seek the NULL end; every page as the records say, through writes that keep it and one that doesn't", async () => {
    await expectLists(seeksNullEnd, readsAsBefore);
    // Writes that keep every listed record unmerged: a close, a milestone taken off, a title given.
    ok(await s.put(`/projects/${project}/merge_requests/2`, { state_event: 'close' }));
    ok(await s.put(`/projects/${project}/merge_requests/3`, { milestone_id: 0 }));
    ok(await s.put(`/projects/${project}/merge_requests/8`, { add_labels: 'fix' }));
    await expectLists(seeksNullEnd, readsAsBefore);
    // The outside record unmerged (closed): the instance's list seeks the NULL end too.
    s.service.context.db.prepare("UPDATE merge_requests SET state = 'closed', merged_at = NULL WHERE project_id = ?").run(outside);
    await expectLists(seeksNullEnd, seeksNullEnd);
    // An opened record with a merge date (as an import writes) meets the filters: read as before, right still.
    s.service.context.db.transaction(() => insert({ iid: N + 1, state: 'opened', labels: ['fix'], milestoneId: null, authorId: other, createdAt: at(10), mergedAt: at(520) }))();
    await expectLists(readsAsBefore, readsAsBefore);
  }, 120_000);

  it('read as before once a merged record meets the filters', async () => {
    s.service.context.db.prepare('DELETE FROM merge_requests WHERE project_id = ? AND iid = ?').run(project, N + 1);
    await expectLists(seeksNullEnd, seeksNullEnd);
    s.service.context.db.transaction(() => insert({ iid: N + 2, state: 'merged', labels: ['fix'], milestoneId: null, authorId: other, createdAt: at(12), mergedAt: at(530) }))();
    await expectLists(readsAsBefore, readsAsBefore);
  }, 120_000);
});
