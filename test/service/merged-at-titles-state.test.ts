import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, idsByMergedAt, pagedReads, queryPlan } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A project's merge requests with a label title by merged_at, no state asked: when the label
 * counters show every record with the title in one state, the walk reads the (project, state,
 * merged_at) index from that state (core/298) instead of every merged record first. The rows, order
 * and headers are the records' either way; a merged record given the title puts the walk back on
 * the merge date's own index.
 */
let s: TestService;
let project: number;
const N = 120;
const HOUR = 3_600_000;

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'titles-state', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      // A third merged (none with `fix`), the rest opened with it; one imported opened record carries a merge date.
      const merged = i % 3 === 0;
      const createdAt = new Date(Date.UTC(2024, 0, 1) + i * HOUR).toISOString();
      insertImportedMergeRequest(ctx, project, {
        iid: i,
        title: `change ${i}`,
        description: null,
        authorId: 1,
        labels: merged ? [] : ['fix'],
        milestoneId: null,
        createdAt,
        updatedAt: createdAt,
        importedFrom: 'none',
        state: merged ? 'merged' : 'opened',
        sourceBranch: `f-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        mergedAt: merged || i === 7 ? new Date(Date.UTC(2024, 2, 1) + ((i * 37) % 41) * HOUR).toISOString() : null,
      });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

/** The project's records with `fix` (and created after `after`) by merged_at (NULL lowest, as SQLite), ties by id in the same direction. */
function want(sort: 'asc' | 'desc', after: string): number[] {
  const rows = s.service.context.db.prepare('SELECT id, labels, merged_at, created_at FROM merge_requests WHERE project_id = ?').all(project) as { id: number; labels: string; merged_at: string | null; created_at: string }[];
  return idsByMergedAt(rows.filter((r) => JSON.parse(r.labels).includes('fix') && r.created_at >= after), sort);
}

const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * HOUR).toISOString();

/** Each sort and two created_after bounds (the list a walk of idSetLists'; without a date, one label's list is read another way): the page's plan checked by `expectPlan`, then every page against the records. */
async function expectLists(expectPlan: (plan: string, what: string) => void): Promise<void> {
  const path = `/projects/${project}/merge_requests`;
  for (const sort of ['desc', 'asc'] as const) {
    for (const after of [at(20), at(40)]) {
      const query: Record<string, string> = { labels: 'fix', order_by: 'merged_at', sort, created_after: after };
      const what = JSON.stringify(query);
      const reads = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '5', page: '1' } })));
      expect(reads, what).toHaveLength(1);
      expectPlan(queryPlan(s.service.context.db, reads[0].sql, ...reads[0].args), what);
      await expectEveryPage(s, path, query, want(sort, after), 5);
    }
  }
}

describe('a label title by merged_at whose records are all in one state', () => {
  it("walks that state's part of the (project, state, merged_at) index; a merged record with the title walks the merge dates again", async () => {
    await expectLists((plan, what) => {
      expect(plan, what).toContain('INDEX merge_requests_project_state_merged (project_id=? AND state=?)');
      expect(plan, what).not.toContain('TEMP B-TREE');
    });
    ok(await s.put(`/projects/${project}/merge_requests/3`, { add_labels: 'fix' }));
    await expectLists((plan, what) => {
      expect(plan, what).toContain('INDEX merge_requests_project_merged (project_id=?)');
      expect(plan, what).not.toContain('TEMP B-TREE');
    });
  });
});
