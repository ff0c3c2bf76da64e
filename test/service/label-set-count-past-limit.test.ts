import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectCounted, expectUncounted, preparedBy } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A group's list counted through a label's rows (idSetLists' set FROM: `(SELECT DISTINCT
 * +il.issuable_id ...) s CROSS JOIN merge_requests x`) past 10,000 is counted PAST_LIMIT_MARGIN
 * further once and not again while the writes since cannot have brought it to 10,000, as a count
 * of the records alone is (count-versions.ts): the label's rows change only with writes to the
 * records. The headers still follow the writes that drop records.
 */
let s: TestService;
let group = 0;
let big = 0;
let small = 0;
const N = 10_003;
const PATH = () => `/groups/${group}/merge_requests`;
const QUERY = { labels: 'bug', 'not[labels]': 'label-3', assignee_id: 'None', order_by: 'updated_at', per_page: '20' };

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  big = (await s.createProject({ name: 'big', namespace_id: group })).id;
  small = (await s.createProject({ name: 'small', namespace_id: group })).id;
  ok(await s.post(`/projects/${small}/merge_requests`, { title: 'Elsewhere', source_branch: 'x', target_branch: 'main', labels: 'bug' }));
  // One of the group's assigned (not in the list): assignee_id=None is a filter there (noneInScope leaves it out otherwise).
  ok(await s.post(`/projects/${small}/merge_requests`, { title: 'Assigned', source_branch: 'y', target_branch: 'main', assignee_ids: [1] }));
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N + 2; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      // Two of them also carry label-3 (left out); every one has no assignee.
      const labels = i <= 2 ? ['bug', 'label-3'] : ['bug'];
      insertImportedMergeRequest(ctx, big, {
        iid: i, title: `MR ${i}`, description: null, authorId: 1, labels, createdAt: at, updatedAt: at, importedFrom: 'none',
        state: 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: null,
      });
    }
  })();
}, 120_000);
afterAll(async () => s?.stop());

const setCounts = (sql: string[]): string[] => sql.filter((q) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM \(SELECT DISTINCT \+il\.issuable_id AS id FROM issuable_labels il/.test(q));
const want = (): number[] =>
  (s.service.context.db
    .prepare(
      `SELECT x.id FROM merge_requests x WHERE x.project_id IN (?, ?) AND x.assignee_ids = '[]'
        AND EXISTS (SELECT 1 FROM issuable_labels il WHERE il.issuable_type = 'MergeRequest' AND il.issuable_id = x.id AND il.title = 'bug')
        AND NOT EXISTS (SELECT 1 FROM issuable_labels il WHERE il.issuable_type = 'MergeRequest' AND il.issuable_id = x.id AND il.title = 'label-3')
        ORDER BY x.updated_at DESC, x.id DESC`,
    )
    .all(big, small) as { id: number }[]).map((r) => r.id);

async function expectPage(page: number): Promise<void> {
  const res = await s.get(PATH(), { query: { ...QUERY, page: String(page) } });
  const ids = want();
  expect((res.body as { id: number }[]).map((r) => r.id), `page ${page}`).toEqual(ids.slice((page - 1) * 20, page * 20));
  if (ids.length > 10_000) expectUncounted(res, String(page + 1));
  else expectCounted(res, ids.length, 20);
}

describe("a group's list counted through a label's rows, past 10,000", () => {
  it('is counted once, not again after writes that cannot bring it to 10,000; the headers follow those that do', async () => {
    // 10,004 in all: counted through the label's rows, once.
    expect(setCounts(await preparedBy(s, () => expectPage(2))).length).toBe(1);
    expect(setCounts(await preparedBy(s, () => expectPage(2)))).toEqual([]);
    // A write to the group's records elsewhere (the small project's merge request) and to a project: not counted again.
    ok(await s.put(`/projects/${small}/merge_requests/1`, { description: 'touched' }));
    ok(await s.put(`/projects/${small}`, { description: 'touched' }));
    expect(setCounts(await preparedBy(s, () => expectPage(2)))).toEqual([]);
    expect(setCounts(await preparedBy(s, () => expectPage(3)))).toEqual([]);
    // Four dropped in SQL (one statement): 10,000, counted exactly.
    s.service.context.db.prepare('DELETE FROM merge_requests WHERE project_id = ? AND iid IN (10, 11, 12, 13)').run(big);
    await expectPage(2);
    await expectPage(500);
    // One labelled label-3 through the API: 9,999.
    ok(await s.put(`/projects/${big}/merge_requests/20`, { add_labels: 'label-3' }));
    await expectPage(2);
    await expectPage(500);
  }, 120_000);
});
