import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A list filtered by two sets of records (a label title, milestone=Any), each holding more than the
 * page's bound, read from the set the counters size smaller (idSetLists): the label's rows, not
 * every record with a milestone each asked the label. Every page and header as the records say.
 */
let s: TestService;
let project = 0;
const N = 300;

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'sets', visibility: 'public' })).id;
  const milestone = ok(await s.post(`/projects/${project}/milestones`, { title: 'm1' })).id as number;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      // Titles out of id order; the label on a third, the milestone on two thirds (overlapping).
      insertImportedMergeRequest(ctx, project, {
        iid: i, title: `MR ${(i * 37) % 101}`, description: null, authorId: 1, labels: i % 3 === 0 ? ['x'] : [], createdAt: at, updatedAt: at, importedFrom: 'none',
        state: 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: null, milestoneId: i % 3 === 2 ? null : milestone,
      } as never);
    }
  })();
}, 120_000);
afterAll(async () => s?.stop());

const want = (sort: 'asc' | 'desc'): number[] => {
  const rows = s.service.context.db.prepare("SELECT id, title FROM merge_requests WHERE labels LIKE '%\"x\"%' AND milestone_id IS NOT NULL").all() as { id: number; title: string }[];
  const dir = sort === 'asc' ? 1 : -1;
  return rows.sort((a, b) => dir * (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id)).map((r) => r.id);
};

describe('a list of two sets past the bound', () => {
  it("reads the set the counters size smaller: the label's rows, not the milestone's records", async () => {
    for (const sort of ['asc', 'desc'] as const) {
      const query = { scope: 'all', labels: 'x', milestone: 'Any', order_by: 'title', sort };
      const seen = await preparedBy(s, () => expectEveryPage(s, '/merge_requests', query, want(sort), 2));
      const pages = seen.filter((q) => /^SELECT x\.id AS id FROM \(SELECT DISTINCT/.test(q));
      expect(pages.length, sort).toBeGreaterThan(0);
      for (const q of pages) expect(q, sort).toMatch(/^SELECT x\.id AS id FROM \(SELECT DISTINCT \+il\.issuable_id AS id FROM issuable_labels il/);
    }
  }, 120_000);
});
