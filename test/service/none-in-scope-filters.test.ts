import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, expectUncountedPages, preparedBy } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * assignee_id=None, reviewer_id=None and wip=no where no record of the list's scope names an
 * assignee (reviewer) or is a draft are no filter (noneInScope): the list is read by the readers of
 * its other filters, no record asked its lists or title. Once a record of the scope is assigned or
 * made a draft, they filter again; a record outside the scope does not make them filter inside it.
 * Every page and header against the records, past 10,000 rows too (no X-Total), before and after
 * those writes.
 */
let s: TestService;
let group: number;
let inside: number;
let outside: number;
/** Records of the big project (past COUNT_LIMIT) and of the one outside the group. */
const BIG = 10_030;
const SMALL = 12;
const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  inside = (await s.createProject({ name: 'inside', namespace_id: group, visibility: 'public' })).id;
  outside = (await s.createProject({ name: 'outside', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (const [project, n] of [[inside, BIG], [outside, SMALL]] as const)
      for (let i = 1; i <= n; i++) {
        const common = { iid: i, title: `Change ${i}`, description: null, authorId: 1, labels: project === outside || i % 30 === 0 ? ['bug'] : [], milestoneId: null, createdAt: at(i), updatedAt: at(i), importedFrom: 'none' };
        insertImportedMergeRequest(ctx, project, { ...common, state: i % 7 === 0 ? 'closed' : 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: null });
        insertImportedIssue(ctx, project, { ...common, state: i % 7 === 0 ? 'closed' : 'opened', confidential: false });
      }
  })();
}, 120_000);
afterAll(async () => s.stop());

interface Rec {
  id: number;
  project_id: number;
  state: string;
  title: string;
  labels: string;
  assignee_ids: string;
  reviewer_ids?: string;
  created_at: string;
}

/** The records of `projects` (all: every project) meeting `q`'s filters, newest first (created_at, then id). */
function want(table: 'merge_requests' | 'issues', projects: number[] | 'all', q: Record<string, string>): number[] {
  const rows = s.service.context.db.prepare(`SELECT * FROM ${table}`).all() as Rec[];
  return rows
    .filter((r) => projects === 'all' || projects.includes(r.project_id))
    .filter((r) => !q.labels || (JSON.parse(r.labels) as string[]).includes(q.labels))
    .filter((r) => !q.state || q.state === 'all' || r.state === q.state)
    .filter((r) => q.assignee_id !== 'None' || r.assignee_ids === '[]')
    .filter((r) => q.reviewer_id !== 'None' || r.reviewer_ids === '[]')
    .filter((r) => q.wip !== 'no' || !/^draft:/i.test(r.title))
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id))
    .map((r) => r.id);
}

/** The statements that ask a record its assignees, reviewers or draft title. */
const asksRecord = (sql: string[]): string[] => sql.filter((q) => /x\.(assignee_ids|reviewer_ids) = '\[\]'|NOT \(x\.title GLOB/.test(q));

const lists = (): { path: string; table: 'merge_requests' | 'issues'; projects: number[] | 'all'; q: Record<string, string> }[] => [
  { path: `/projects/${inside}/merge_requests`, table: 'merge_requests', projects: [inside], q: { labels: 'bug', assignee_id: 'None', wip: 'no' } },
  { path: `/projects/${inside}/merge_requests`, table: 'merge_requests', projects: [inside], q: { labels: 'bug', state: 'opened', reviewer_id: 'None' } },
  { path: `/groups/${group}/merge_requests`, table: 'merge_requests', projects: [inside], q: { labels: 'bug', assignee_id: 'None', wip: 'no' } },
  { path: '/merge_requests', table: 'merge_requests', projects: 'all', q: { labels: 'bug', assignee_id: 'None', wip: 'no', scope: 'all' } },
  { path: `/projects/${inside}/issues`, table: 'issues', projects: [inside], q: { labels: 'bug', assignee_id: 'None' } },
  { path: `/groups/${group}/issues`, table: 'issues', projects: [inside], q: { labels: 'bug', state: 'opened', assignee_id: 'None' } },
];

/** Every list's pages against the records; the SQL that read them (each list read afresh: a write came before). */
async function expectLists(): Promise<Map<string, string[]>> {
  const sql = new Map<string, string[]>();
  for (const l of lists()) {
    const key = `${l.path} ${JSON.stringify(l.q)}`;
    sql.set(key, await preparedBy(s, () => expectEveryPage(s, l.path, l.q, want(l.table, l.projects, l.q), 100)));
  }
  // Past 10,000 rows: uncounted, every page in place.
  for (const [path, q] of [
    [`/projects/${inside}/merge_requests`, { assignee_id: 'None', wip: 'no' }],
    [`/projects/${inside}/merge_requests`, { reviewer_id: 'None', state: 'all' }],
    [`/groups/${group}/merge_requests`, { assignee_id: 'None' }],
    [`/projects/${inside}/issues`, { assignee_id: 'None' }],
  ] as const) {
    const key = `${path} ${JSON.stringify(q)}`;
    const table = path.endsWith('issues') ? 'issues' : 'merge_requests';
    sql.set(key, await preparedBy(s, () => expectUncountedPages(s, path, q, want(table, [inside], q), 57)));
  }
  return sql;
}

describe('assignee_id=None, reviewer_id=None and wip=no in a scope none of whose records fails them', () => {
  it('are no filter while no record of the scope fails them, and filter once one does', async () => {
    // Nothing assigned, asked to review or drafted anywhere: no list asks its records.
    for (const [key, sql] of await expectLists()) expect(asksRecord(sql), key).toEqual([]);

    // Outside the group: an assignee, a reviewer and a draft. The instance's list filters them;
    // the project's and the group's are still no filter.
    expect((await s.put(`/projects/${outside}/merge_requests/3`, { assignee_ids: [1] })).status).toBe(200);
    expect((await s.put(`/projects/${outside}/merge_requests/6`, { reviewer_ids: [1], title: 'Draft: outside' })).status).toBe(200);
    expect((await s.put(`/projects/${outside}/issues/3`, { assignee_ids: [1] })).status).toBe(200);
    for (const [key, sql] of await expectLists()) {
      if (key.startsWith('/merge_requests')) expect(asksRecord(sql).length, key).toBeGreaterThan(0);
      else expect(asksRecord(sql), key).toEqual([]);
    }

    // Inside: an opened bug assigned, one asked to review, one made a draft, an issue assigned: every list filters them.
    expect((await s.put(`/projects/${inside}/merge_requests/30`, { assignee_ids: [1] })).status).toBe(200);
    expect((await s.put(`/projects/${inside}/merge_requests/${BIG - 2}`, { reviewer_ids: [1] })).status).toBe(200);
    expect((await s.put(`/projects/${inside}/merge_requests/60`, { title: 'Draft: inside' })).status).toBe(200);
    expect((await s.put(`/projects/${inside}/issues/${BIG - 2}`, { assignee_ids: [1] })).status).toBe(200);
    for (const [key, sql] of await expectLists()) expect(asksRecord(sql).length, key).toBeGreaterThan(0);

    // Unassigned and asked of no one again, the draft a draft still: assignee_id and reviewer_id are no filter again.
    expect((await s.put(`/projects/${inside}/merge_requests/30`, { assignee_ids: [] })).status).toBe(200);
    expect((await s.put(`/projects/${inside}/merge_requests/${BIG - 2}`, { reviewer_ids: [] })).status).toBe(200);
    expect((await s.put(`/projects/${inside}/issues/${BIG - 2}`, { assignee_ids: [] })).status).toBe(200);
    for (const [key, sql] of await expectLists()) {
      const asked = asksRecord(sql).filter((q) => /assignee_ids|reviewer_ids/.test(q));
      if (key.startsWith('/merge_requests')) expect(asked.length, key).toBeGreaterThan(0);
      else expect(asked, key).toEqual([]);
    }
  }, 240_000);
});
