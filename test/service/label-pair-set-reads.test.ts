import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A list with two label titles whose rarer title holds more records than idSetLists' bound (so a
 * walk of the list's order would be chosen by that title alone) still reads that title's rows, each
 * probed for the other title, when the pair counters (core/092) show few records carry both: the
 * walk would ask `records / pair` records for each row it needs. Many records with both: walked.
 * The rows, order and headers are the records' either way.
 */
let s: TestService;
let project: number;
const N = 300;

interface Seed {
  id: number;
  labels: string[];
  createdAt: string;
  draft: boolean;
}
const seeds: Seed[] = [];

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'pairs', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      // `early` on the first 160, `late` on the last 151: 11 carry both. `even` on every 2nd: 80 with `early`.
      const labels = [...(i <= 160 ? ['early'] : []), ...(i >= 150 ? ['late'] : []), ...(i % 2 === 0 ? ['even'] : [])];
      const createdAt = new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 2) * 60_000).toISOString();
      const draft = i % 7 === 0;
      const mr = insertImportedMergeRequest(ctx, project, {
        iid: i,
        title: `${draft ? 'Draft: ' : ''}MR ${i}`,
        description: null,
        authorId: 1,
        labels,
        milestoneId: null,
        createdAt,
        updatedAt: createdAt,
        importedFrom: 'none',
        state: 'opened',
        sourceBranch: `f-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        mergedAt: null,
      });
      seeds.push({ id: mr.id, labels, createdAt, draft });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

/** The records with both titles and no draft, newest first (ties by id). */
function want(a: string, b: string): number[] {
  return seeds
    .filter((r) => r.labels.includes(a) && r.labels.includes(b) && !r.draft)
    .sort((x, y) => (x.createdAt < y.createdAt ? 1 : x.createdAt > y.createdAt ? -1 : y.id - x.id))
    .map((r) => r.id);
}

const path = (): string => `/projects/${project}/merge_requests`;

describe('two label titles past the bound', () => {
  it('few records carry both: the rarer title read, its rows probed for the other, every page as the records say', async () => {
    // 151 of `late` and 160 of `early`, past a first page's bound (sqrt(21 x 300) = 80); 11 with both:
    // reading asks 2 x (151 + 11), walking 21 x 300 / 11 = 573.
    const query = { labels: 'early,late', wip: 'no' };
    const reads = await pagedReads(s, async () => void (await s.get(path(), { query: { ...query, per_page: '20' } })));
    expect(reads.map((r) => /^SELECT x\.id AS id FROM \(SELECT DISTINCT \+il\.issuable_id AS id FROM issuable_labels il .*CROSS JOIN merge_requests x ON x\.id = s\.id/.test(r.sql))).toEqual([true]);
    expect(reads[0].args.slice(0, 2)).toEqual(['late', 'early']);
    await expectEveryPage(s, path(), query, want('early', 'late'), 4);
  });

  it('many carry both: the list walked in its order, every page as the records say', async () => {
    // `even` (150) with `early` (160): 80 with both; walking asks 21 x 300 / 80 = 79, reading 2 x (150 + 80).
    const query = { labels: 'early,even', wip: 'no' };
    const reads = await pagedReads(s, async () => void (await s.get(path(), { query: { ...query, per_page: '20' } })));
    expect(reads.map((r) => r.sql.startsWith('SELECT x.id AS id FROM merge_requests x WHERE'))).toEqual([true]);
    await expectEveryPage(s, path(), query, want('early', 'even'), 15);
  });
});
