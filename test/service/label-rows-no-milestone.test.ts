import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A project's label title with milestone=None: its rows without a milestone read by core/405's
 * partial index (label-row-mirrors.ts labelRowsIndexed), not the project's rows each asked its
 * milestone from the table. The index only changes the read: every page and header of issues and
 * merge requests, a state on top, for an administrator and a Guest, before and after writes that
 * move a record in or out (a milestone set and taken off, a relabel, a close, a delete).
 */
let s: TestService;
let project: number;
let milestone: number;
let guest: string;

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'labelled', visibility: 'private' })).id;
  milestone = (await s.post(`/projects/${project}/milestones`, { title: 'v1' })).body.id as number;
  const g = await s.createUser();
  guest = g.token;
  await s.addMember('projects', project, g.user.id, 10);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= 60; i++) {
      const common = {
        iid: i,
        title: `Change ${i}`,
        description: null,
        authorId: 1,
        // Two in three with bug (one in five of those as Bug), one in three with doc; one in four on the milestone.
        labels: i % 3 ? [i % 5 ? 'bug' : 'Bug', ...(i % 2 ? ['doc'] : [])] : ['doc'],
        milestoneId: i % 4 === 0 ? milestone : null,
        createdAt: new Date(Date.UTC(2024, 0, 1) + ((i * 7) % 60) * 60_000).toISOString(),
        updatedAt: new Date(Date.UTC(2024, 2, 1) + ((i * 11) % 60) * 60_000).toISOString(),
        importedFrom: 'none' as const,
      };
      insertImportedIssue(ctx, project, { ...common, state: i % 5 === 1 ? 'closed' : 'opened', confidential: i % 9 === 0 });
      insertImportedMergeRequest(ctx, project, { ...common, state: i % 5 === 1 ? 'merged' : 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: i % 5 === 1 ? common.updatedAt : null });
    }
  })();
}, 60_000);
afterAll(async () => s?.stop());

interface Row { id: number; milestone_id: number | null; created_at: string; updated_at: string; title: string; state: string; labels: string; confidential?: number }

/** The project's records with `title` (any case) and no milestone, in the list's order, as `asGuest` sees them. */
function want(table: 'issues' | 'merge_requests', title: string, q: Record<string, string>, asGuest: boolean): number[] {
  const column = (q.order_by ?? 'created_at') as 'created_at' | 'updated_at' | 'title';
  const dir = q.sort === 'asc' ? 1 : -1;
  return (s.service.context.db.prepare(`SELECT * FROM ${table} WHERE project_id = ?`).all(project) as Row[])
    .filter((r) => r.milestone_id === null && (JSON.parse(r.labels) as string[]).some((l) => l.toLowerCase() === title))
    .filter((r) => !q.state || r.state === q.state)
    .filter((r) => !asGuest || !r.confidential)
    .sort((a, b) => dir * (a[column] < b[column] ? -1 : a[column] > b[column] ? 1 : a.id - b.id))
    .map((r) => r.id);
}

const QUERIES: Record<string, string>[] = [{}, { state: 'opened' }, { order_by: 'updated_at', sort: 'asc' }, { order_by: 'title' }, { state: 'opened', order_by: 'title', sort: 'asc' }];

async function expectLists(): Promise<void> {
  for (const table of ['issues', 'merge_requests'] as const)
    for (const title of ['bug', 'doc'])
      for (const q of QUERIES) {
        const query = { ...q, labels: title, milestone: 'None' };
        await expectEveryPage(s, `/projects/${project}/${table}`, query, want(table, title, q, false), 7);
        await expectEveryPage(s, `/projects/${project}/${table}`, query, want(table, title, q, true), 7, guest);
      }
}

describe("a project's label title with milestone=None", () => {
  it('every page and header as the records say, before and after writes, administrator and Guest', async () => {
    await expectLists();
    for (const kind of ['issues', 'merge_requests'] as const) {
      expect((await s.put(`/projects/${project}/${kind}/4`, { milestone_id: 0 })).status).toBe(200);
      expect((await s.put(`/projects/${project}/${kind}/5`, { milestone_id: milestone })).status).toBe(200);
      expect((await s.put(`/projects/${project}/${kind}/7`, { labels: 'doc' })).status).toBe(200);
      expect((await s.put(`/projects/${project}/${kind}/9`, { labels: 'bug' })).status).toBe(200);
      expect((await s.put(`/projects/${project}/${kind}/10`, { state_event: 'close' })).status).toBe(200);
    }
    expect((await s.api('DELETE', `/projects/${project}/issues/11`)).status).toBe(204);
    ok(await s.post(`/projects/${project}/issues`, { title: 'new bug', labels: 'bug' }));
    await expectLists();
  }, 120_000);

  it("reads a merge request list's rows by the index of those without a milestone", async () => {
    const queries: Record<string, string>[] = [{ order_by: 'title' }, { state: 'opened', order_by: 'title', sort: 'asc' }];
    for (const query of queries) {
      const sql = await preparedBy(s, () => s.get(`/projects/${project}/merge_requests`, { query: { ...query, labels: 'bug', milestone: 'None' } }));
      expect(sql.some((q) => q.includes('INDEXED BY issuable_labels_no_milestone')), JSON.stringify(query)).toBe(true);
      expect(sql.some((q) => q.includes('INDEXED BY issuable_labels_project')), JSON.stringify(query)).toBe(false);
    }
  });
});

function ok(res: { status: number }): void {
  expect(res.status).toBe(201);
}
