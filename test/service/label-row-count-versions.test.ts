import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectCounted, expectUncounted, preparedBy } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { PRIORITY_LIMITS } from '../../src/main/service/areas/core/order-label-priority';

/**
 * A group's list counted through its label rows of several titles (a label pair's set, `(SELECT
 * DISTINCT +il.issuable_id ... AND EXISTS (... issuable_labels p ...)) s CROSS JOIN`, or
 * labelTitlesList's rows of one title asked the others, `issuable_labels il ... d`) past 10,000 is
 * counted PAST_LIMIT_MARGIN further once and not again while the writes since cannot have brought
 * it under its cap, as a count of the records alone is (count-versions.ts): the label rows change
 * only with writes to the records. A priority order's bound within 10,000 (a page of 20's walk) is
 * answered from that count. Every page and header as the records say.
 */
let s: TestService;
let group = 0;
let big = 0;
let small = 0;
const N = 10_060;

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  big = (await s.createProject({ name: 'big', namespace_id: group })).id;
  small = (await s.createProject({ name: 'small', namespace_id: group })).id;
  ok(await s.post(`/projects/${small}/merge_requests`, { title: 'Elsewhere', source_branch: 'x', target_branch: 'main', labels: 'bug' }));
  // One of the group's a draft (not in the lists): wip=no is a filter there (noneInScope leaves it out otherwise).
  ok(await s.post(`/projects/${small}/merge_requests`, { title: 'Draft: elsewhere', source_branch: 'y', target_branch: 'main' }));
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      // Every one carries the pair; ten also label-1 (left out by not[labels]).
      const labels = i % 1000 === 5 ? ['bug', 'label-4', 'label-1'] : ['bug', 'label-4'];
      insertImportedMergeRequest(ctx, big, {
        iid: i, title: `MR ${i}`, description: null, authorId: 1, labels, createdAt: at, updatedAt: at, importedFrom: 'none',
        state: 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: null,
      });
    }
  })();
}, 120_000);
afterAll(async () => s?.stop());

const PATH = () => `/groups/${group}/merge_requests`;
const PAIR = { labels: 'bug,label-4', wip: 'no', order_by: 'label_priority' };
const TITLES = { labels: 'bug,label-4', 'not[labels]': 'label-1', order_by: 'priority' };
const pairCounts = (sql: string[]): string[] => sql.filter((q) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM \(SELECT DISTINCT \+il\.issuable_id AS id FROM issuable_labels il/.test(q) && q.includes('issuable_labels p'));
const titleCounts = (sql: string[]): string[] => sql.filter((q) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM issuable_labels il INDEXED BY issuable_labels_title_created/.test(q));

/** The group's merge requests with both labels (and without label-1), newest first: no label has a priority, no milestone a date. */
const want = (without: boolean): number[] =>
  (s.service.context.db.prepare('SELECT id, labels FROM merge_requests WHERE project_id IN (?, ?) ORDER BY id DESC').all(big, small) as { id: number; labels: string }[])
    .filter((r) => {
      const labels = JSON.parse(r.labels) as string[];
      return labels.includes('bug') && labels.includes('label-4') && !(without && labels.includes('label-1'));
    })
    .map((r) => r.id);

async function expectPages(query: Record<string, string>, without: boolean, pages: number[]): Promise<void> {
  const ids = want(without);
  for (const page of pages) {
    const res = await s.get(PATH(), { query: { ...query, per_page: '20', page: String(page) } });
    expect((res.body as { id: number }[]).map((r) => r.id), `${JSON.stringify(query)} page ${page}`).toEqual(ids.slice((page - 1) * 20, page * 20));
    if (ids.length > 10_000) expectUncounted(res, String(page + 1));
    else expectCounted(res, ids.length, 20);
  }
}

describe("a group's list counted through several titles' label rows", () => {
  it('a label pair: counted past 10,000 once, not again after writes elsewhere (nor its priority bound); the headers follow the writes that bring it under', async () => {
    const first = pairCounts(await preparedBy(s, () => expectPages(PAIR, false, [2])));
    expect(first.length).toBeGreaterThan(0);
    // The priority order's bound (a page of 20 at 10,061 records: 460) read its own count the first time.
    expect(first.some((q) => q.endsWith('LIMIT 460)'))).toBe(true);
    // A write to the group's other project, to a project, and to a record of the list.
    ok(await s.put(`/projects/${small}/merge_requests/1`, { description: 'touched' }));
    ok(await s.put(`/projects/${small}`, { description: 'touched' }));
    ok(await s.put(`/projects/${big}/merge_requests/9000`, { description: 'touched' }));
    expect(pairCounts(await preparedBy(s, () => expectPages(PAIR, false, [2, 3])))).toEqual([]);
    // 62 dropped in SQL (one statement): 9,998, counted exactly.
    s.service.context.db.prepare('DELETE FROM merge_requests WHERE project_id = ? AND iid > ?').run(big, N - 62);
    await expectPages(PAIR, false, [1, 2, 500]);
  }, 120_000);

  it('a title less another (labelTitlesList) by priority: its bound past 10,000 counted once, not again after writes elsewhere', async () => {
    ok(await s.post(`/projects/${big}/merge_requests`, { title: 'More', source_branch: 'more', target_branch: 'main', labels: 'bug,label-4' }));
    const db = s.service.context.db;
    const next = (db.prepare('SELECT max(iid) AS n FROM merge_requests WHERE project_id = ?').get(big) as { n: number }).n;
    db.transaction(() => {
      for (let i = 1; i <= 200; i++) {
        const at = new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();
        insertImportedMergeRequest(s.service.context, big, {
          iid: next + i, title: `MR more ${i}`, description: null, authorId: 1, labels: ['bug', 'label-4'], createdAt: at, updatedAt: at, importedFrom: 'none',
          state: 'opened', sourceBranch: `g-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: null,
        });
      }
    })();
    PRIORITY_LIMITS.walkBound = 10_050;
    try {
      expect(titleCounts(await preparedBy(s, () => expectPages(TITLES, true, [2]))).length).toBeGreaterThan(0);
      ok(await s.put(`/projects/${small}/merge_requests/1`, { description: 'touched again' }));
      ok(await s.put(`/projects/${small}`, { description: 'touched again' }));
      expect(titleCounts(await preparedBy(s, () => expectPages(TITLES, true, [2, 3])))).toEqual([]);
      // 150 relabelled in SQL to leave the list (one statement): 10,039, under the bound, counted again.
      db.prepare("UPDATE merge_requests SET labels = '[\"bug\"]' WHERE project_id = ? AND iid > ?").run(big, next + 50);
      expect(titleCounts(await preparedBy(s, () => expectPages(TITLES, true, [1, 2, 500]))).length).toBeGreaterThan(0);
    } finally {
      PRIORITY_LIMITS.walkBound = undefined;
    }
  }, 120_000);
});
