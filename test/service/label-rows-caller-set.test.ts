import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, statementReads } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * The instance's merge requests of the caller's own set (scope=assigned_to_me, reviews_for_me) with
 * a label: read from the set's few records (idSetLists), not by walking every row of the label's
 * title asking each whether the caller is among its record's assignees (label-rows-list.ts), when
 * the set holds fewer records than the title's rows and than the walk reads for the page; the walk
 * still where the set is as dense as the title. Every page answers what the records say (ids in
 * creation order, X-Total, X-Total-Pages, X-Next-Page, Link), before and after writes that move
 * records into and out of the set and the label.
 */
let s: TestService;
let project: number;
let busy: { user: { id: number }; token: string };
const N = 90;

beforeAll(async () => {
  s = await TestService.start();
  busy = await s.createUser({ username: 'busy-reviewer' });
  project = (await s.createProject({ name: 'caller-sets', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + ((i * 37) % N) * 60_000).toISOString();
      insertImportedMergeRequest(ctx, project, {
        iid: i,
        title: `change ${i}`,
        description: null,
        state: i % 6 === 0 ? 'merged' : 'opened',
        authorId: 1,
        // Root assigned to three (two with bug), reviewing two; the busy user assigned to and reviewing most.
        assigneeIds: [...(i === 5 || i === 30 || i === 31 ? [1] : []), ...(i % 10 ? [busy.user.id] : [])],
        reviewerIds: [...(i === 12 || i === 45 ? [1] : []), ...(i % 9 ? [busy.user.id] : [])],
        labels: i % 3 ? ['bug'] : ['feature'],
        sourceBranch: `f-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        createdAt: at,
        updatedAt: at,
        importedFrom: 'none',
      });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

interface Row { id: number; assignee_ids: string; reviewer_ids: string; labels: string; created_at: string }

/** The records of `user`'s set (`role`) with `label`, newest first, ties by id. */
function want(role: 'assignee_ids' | 'reviewer_ids', user: number, label: string): number[] {
  return (s.service.context.db.prepare('SELECT id, assignee_ids, reviewer_ids, labels, created_at FROM merge_requests').all() as Row[])
    .filter((r) => (JSON.parse(r[role]) as number[]).includes(user) && (JSON.parse(r.labels) as string[]).includes(label))
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id))
    .map((r) => r.id);
}

const SCOPES = [['assigned_to_me', 'assignee_ids'], ['reviews_for_me', 'reviewer_ids']] as const;

async function expectEveryList(): Promise<void> {
  for (const [scope, role] of SCOPES) {
    for (const label of ['bug', 'feature']) {
      await expectEveryPage(s, '/merge_requests', { scope, labels: label }, want(role, 1, label), 4);
      await expectEveryPage(s, '/merge_requests', { scope, labels: label }, want(role, busy.user.id, label), 7, busy.token);
    }
  }
}

/** The reads of the label title's rows (the walk) while the caller's list with bug is answered. */
async function titleWalks(scope: string, token?: string): Promise<string[]> {
  const reads = await statementReads(s, (sql) => sql.includes('FROM issuable_labels il INDEXED BY issuable_labels_title_created'), async () => void ok(await s.get('/merge_requests', { token, query: { scope, labels: 'bug' } })));
  return reads.map((r) => r.sql);
}

describe("the caller's assigned or review-requested merge requests with a label", () => {
  it('answer every page as the records say, for a caller with few and one with many, before and after writes', async () => {
    await expectEveryList();
    // Root assigned to one more with bug, one of root's loses bug; the busy user's review of one with bug dropped.
    ok(await s.put(`/projects/${project}/merge_requests/7`, { assignee_ids: [1, busy.user.id] }));
    ok(await s.put(`/projects/${project}/merge_requests/5`, { labels: 'feature' }));
    ok(await s.put(`/projects/${project}/merge_requests/10`, { reviewer_ids: [] }));
    ok(await s.post(`/projects/${project}/merge_requests`, { source_branch: 'late', target_branch: 'main', title: 'late', labels: 'bug', assignee_ids: [1], reviewer_ids: [1] }));
    await expectEveryList();
  });

  it("reads the few records of the caller's set, not every row of the title; walks the title's rows where the set is as dense", async () => {
    for (const [scope] of SCOPES) {
      expect(await titleWalks(scope), scope).toEqual([]);
      expect(await titleWalks(scope, busy.token), `${scope} (busy)`).not.toEqual([]);
    }
  });
});
