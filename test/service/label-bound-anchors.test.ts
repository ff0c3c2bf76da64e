import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A project's list filtered by labels=Any, labels=None or one not[labels] title (perhaps in a state)
 * keeps its deep pages' anchors across writes elsewhere (a project's description), as a list of one
 * label does: what it holds changes only with writes to its records (listVersion). Every page is the
 * slice the records say, before and after writes to the records (relabelled, closed, relabelled in SQL).
 */
let s: TestService;
let project: number;

interface Seed {
  id: number;
  iid: number;
  labels: string[];
  state: string;
  createdAt: string;
  updatedAt: string;
}
const seeds: Record<'issues' | 'merge_requests', Seed[]> = { issues: [], merge_requests: [] };
const N = 4_500;

// Two records share each created_at (ties broken by id); updated_at runs the other way.
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 2) * 60_000).toISOString();
const updatedAt = (i: number): string => new Date(Date.UTC(2025, 0, 1) - Math.floor(i / 3) * 60_000).toISOString();
const labelsOf = (i: number): string[] => (i % 3 === 0 ? [] : i % 3 === 1 ? ['bug'] : ['bug', 'feature']).filter((l) => !(l === 'bug' && i % 5 === 0));

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'bounds', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const common = { iid: i, title: `Item ${i}`, description: null, authorId: 1, createdAt: createdAt(i), updatedAt: updatedAt(i), importedFrom: 'none', labels: labelsOf(i) };
      const state = i % 7 === 0 ? 'closed' : 'opened';
      const mr = insertImportedMergeRequest(ctx, project, { ...common, state: state as 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
      seeds.merge_requests.push({ id: mr.id, iid: i, labels: labelsOf(i), state, createdAt: createdAt(i), updatedAt: updatedAt(i) });
      const issue = insertImportedIssue(ctx, project, { ...common, state: state as 'opened', confidential: false });
      seeds.issues.push({ id: issue.id, iid: i, labels: labelsOf(i), state, createdAt: createdAt(i), updatedAt: updatedAt(i) });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

type Filter = [Record<string, string>, (x: Seed) => boolean];
const FILTERS: Filter[] = [
  [{ labels: 'Any' }, (x) => x.labels.length > 0],
  [{ labels: 'None' }, (x) => x.labels.length === 0],
  [{ 'not[labels]': 'bug' }, (x) => !x.labels.includes('bug')],
  [{ labels: 'Any', state: 'opened' }, (x) => x.labels.length > 0 && x.state === 'opened'],
  [{ 'not[labels]': 'feature', state: 'closed' }, (x) => !x.labels.includes('feature') && x.state === 'closed'],
];
const byCreated = (a: Seed, b: Seed): number => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id);
const byUpdatedAsc = (a: Seed, b: Seed): number => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.id - b.id);

async function expectAll(type: 'issues' | 'merge_requests'): Promise<void> {
  for (const [query, keep] of FILTERS) {
    const kept = seeds[type].filter((x) => keep(x) && (query.state === undefined || query.state === 'all' || x.state === query.state));
    await expectEveryPage(s, `/projects/${project}/${type}`, query, [...kept].sort(byCreated).map((x) => x.id), 100);
    await expectEveryPage(s, `/projects/${project}/${type}`, { ...query, order_by: 'updated_at', sort: 'asc' }, [...kept].sort(byUpdatedAsc).map((x) => x.id), 100);
  }
}

describe('labels=Any, labels=None, not[labels] deep pages of a project', () => {
  for (const type of ['issues', 'merge_requests'] as const) {
    it(`${type}: every page and header the records say, twice, then after the records are written`, async () => {
      await expectAll(type);
      await expectAll(type);
      // Relabelled and closed through the API.
      const one = [...seeds[type]].sort(byCreated)[700];
      const put = await s.put(`/projects/${project}/${type}/${one.iid}`, { labels: one.labels.length ? '' : 'bug', state_event: 'close' });
      expect(put.status).toBe(200);
      one.labels = one.labels.length ? [] : ['bug'];
      one.state = 'closed';
      one.updatedAt = put.body.updated_at;
      // Relabelled without the API: the anchors follow the table, whatever writes it.
      const two = [...seeds[type]].sort(byCreated)[900];
      two.labels = two.labels.length ? [] : ['feature'];
      s.service.context.db.prepare(`UPDATE ${type} SET labels = ? WHERE id = ?`).run(JSON.stringify(two.labels), two.id);
      await expectAll(type);
    }, 120_000);

    it(`${type}: after a write to the project, a page read after the one before it starts where that page ended`, async () => {
      // Deep enough for anchors (from the 1,000th row): the filters with 1,600 records or more.
      const deep = FILTERS.filter(([, keep]) => seeds[type].filter(keep).length >= 1_600);
      expect(deep.length).toBeGreaterThanOrEqual(3);
      for (const [query] of deep) {
        const page = (n: number) => s.get(`/projects/${project}/${type}`, { query: { ...query, per_page: '100', page: String(n) } });
        await page(11);
        expect((await s.put(`/projects/${project}`, { description: `touched ${JSON.stringify(query)}` })).status).toBe(200);
        const reads = await pagedReads(s, async () => void (await page(12)));
        expect(reads, JSON.stringify(query)).toHaveLength(1);
        expect(reads[0].sql).toContain('(x.created_at, x.id) < (?, ?)');
        expect(reads[0].args.at(-1)).toBe(0);
      }
    });
  }
});
