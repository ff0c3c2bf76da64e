import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A project's list with a label its walk finds soon enough (idSetLists) and a date filter on
 * another column than its order (title, merged_at): the date's range, when it holds at least as
 * many records as idSetLists' bound, is kept out of SQLite's choice (`+x.created_at`), so the page
 * walks the order's (project_id, column, id) index instead of reading the range by the date index
 * and sorting it; a narrower range is still read and sorted. The rows, order and headers are the
 * records' either way.
 */
let s: TestService;
let project: number;
const N = 120;
const HOUR = 3_600_000;
const createdOf = (i: number): number => Date.UTC(2024, 0, 1) + i * HOUR;

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'walked', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const updatedAt = new Date(createdOf(i) + ((i * 37) % 50) * HOUR).toISOString();
      insertImportedMergeRequest(ctx, project, {
        iid: i,
        title: `${['Alpha', 'beta', 'Gamma'][i % 3]} ${(i * 7) % 13}`,
        description: null,
        authorId: 1,
        // `fix` on 80 of the 120: more than the bound of a first page, sqrt(21 x 120) = 51, so the order is walked.
        labels: i % 3 ? ['fix'] : [],
        milestoneId: null,
        createdAt: new Date(createdOf(i)).toISOString(),
        updatedAt,
        importedFrom: 'none',
        state: i % 4 === 0 ? 'merged' : 'opened',
        sourceBranch: `f-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        mergedAt: i % 4 === 0 ? updatedAt : null,
      });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

interface Row {
  id: number;
  title: string;
  merged_at: string | null;
  created_at: string;
  updated_at: string;
  labels: string;
}

/** The project's records with `fix` meeting `keep`, in `order` (null merge dates lowest, as SQLite), ties by id in the same direction. */
function want(order: 'title' | 'merged_at', sort: 'asc' | 'desc', keep: (r: Row) => boolean): number[] {
  const rows = s.service.context.db.prepare('SELECT id, title, merged_at, created_at, updated_at, labels FROM merge_requests WHERE project_id = ?').all(project) as Row[];
  const dir = sort === 'asc' ? 1 : -1;
  const key = (r: Row): string => r[order] ?? '';
  return rows
    .filter((r) => JSON.parse(r.labels).includes('fix') && keep(r))
    .sort((a, b) => dir * (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id))
    .map((r) => r.id);
}

/** A date range's name, its query and the records it keeps. */
type Range = [string, Record<string, string>, (r: Row) => boolean];

const at = (i: number): string => new Date(createdOf(i)).toISOString();

describe('a label and a date filter on another column than the order', () => {
  // Each range's records of the 120: the wide ones hold at least the bound (51), the narrow ones fewer.
  const WIDE: Range[] = [
    ['created_after', { created_after: at(41) }, (r) => r.created_at >= at(41)],
    ['created_before', { created_before: at(80) }, (r) => r.created_at <= at(80)],
    ['created_after and updated_before', { created_after: at(11), updated_before: at(110) }, (r) => r.created_at >= at(11) && r.updated_at <= at(110)],
  ];
  const NARROW: Range[] = [
    ['created_after', { created_after: at(90) }, (r) => r.created_at >= at(90)],
    ['updated_before', { updated_before: at(40) }, (r) => r.updated_at <= at(40)],
  ];

  /** Every order and direction of `ranges`: one page read, its plan checked by `expectPlan`, then every page against the records. */
  async function expectRanges(ranges: Range[], expectPlan: (plan: string, order: 'merged_at' | 'title', name: string, what: string) => void): Promise<void> {
    for (const order of ['merged_at', 'title'] as const) {
      for (const sort of ['desc', 'asc'] as const) {
        for (const [name, dates, keep] of ranges) {
          const query = { labels: 'fix', order_by: order, sort, ...dates };
          const path = `/projects/${project}/merge_requests`;
          const reads = await pagedReads(s, async () => void (await s.get(path, { query })));
          const what = `${order} ${sort} ${name}`;
          expect(reads, what).toHaveLength(1);
          expectPlan(queryPlan(s.service.context.db, reads[0].sql, ...reads[0].args), order, name, what);
          await expectEveryPage(s, path, query, want(order, sort, keep), 20);
        }
      }
    }
  }

  it('a wide range: the order index walked (no sort), every page as the records say', async () => {
    await expectRanges(WIDE, (plan, order, _name, what) => {
      expect(plan, what).toContain(`USING INDEX merge_requests_project_${order === 'title' ? 'title' : 'merged'} (project_id=?)`);
      expect(plan, what).not.toContain('TEMP B-TREE');
    });
  });

  it('a narrow range: read by the date index and sorted, every page as the records say', async () => {
    await expectRanges(NARROW, (plan, _order, name, what) => {
      expect(plan, what).toContain(`USING INDEX merge_requests_project_${name.startsWith('created') ? 'created' : 'updated'}`);
      expect(plan, what).toContain('USE TEMP B-TREE FOR ORDER BY');
    });
  });
});
