import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { LABEL_ROWS } from '../../src/main/service/areas/core/label-rows-list';

/**
 * A group's (or the instance's) list by creation or update whose every condition a label title's
 * rows answer, past LABEL_ROWS.walk rows of the title, is still read from those rows in the order's
 * index when its page would read every row of that title anyway (idSetLists reads the title's set
 * and sorts it): the walk reads no more rows and sorts none. Not with a bound on the other date
 * column, which the set's read seeks by, nor in a project with a milestone or a state that seeks
 * fewer than half the title's rows. The rows, order and headers are the records' either way.
 */
let s: TestService;
let group: number;
let project: number;
let sibling: number;
let v1: number;
const N = 200;
const MINUTE = 60_000;

interface Seed {
  id: number;
  projectId: number;
  labels: string[];
  milestone: boolean;
  state: string;
  createdAt: string;
  updatedAt: string;
}
const seeds: Seed[] = [];

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  sibling = (await s.createProject({ name: 'sibling', namespace_id: group, visibility: 'public' })).id;
  v1 = (await s.post(`/groups/${group}/milestones`, { title: 'v1' })).body.id as number;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const projectId = i % 7 === 1 ? sibling : project;
      // `fix` on every 5th (40), `Fix` too on every 25th: 48 rows, fewer than the bound of page 2 of 9, sqrt(19 x 200) = 62, so idSetLists reads them; v1 on every 3rd.
      const labels = [...(i % 5 === 0 ? ['fix'] : []), ...(i % 25 === 0 ? ['Fix'] : []), ...(i % 2 ? ['other'] : [])];
      // Two records share each creation minute (ties by id); updates out of creation order.
      const createdAt = new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 2) * MINUTE).toISOString();
      const updatedAt = new Date(Date.UTC(2024, 2, 1) + ((i * 53) % N) * MINUTE).toISOString();
      const milestone = i % 3 === 0;
      const mr = insertImportedMergeRequest(ctx, projectId, {
        iid: i,
        title: `MR ${i}`,
        description: null,
        authorId: 1,
        labels,
        milestoneId: milestone ? v1 : null,
        createdAt,
        updatedAt,
        importedFrom: 'none',
        state: i % 4 === 0 ? 'merged' : 'opened',
        sourceBranch: `f-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        mergedAt: i % 4 === 0 ? updatedAt : null,
      });
      seeds.push({ id: mr.id, projectId, labels, milestone, state: i % 4 === 0 ? 'merged' : 'opened', createdAt, updatedAt });
    }
  })();
  LABEL_ROWS.walk = 1;
}, 60_000);
afterAll(async () => {
  LABEL_ROWS.walk = 20_000;
  await s.stop();
});

/** The records with `fix` (any case) meeting `keep` (by default: no milestone), by `column` in `sort`, ties by id the same way. */
function want(column: 'createdAt' | 'updatedAt', sort: 'asc' | 'desc', keep: (r: Seed) => boolean = (r) => !r.milestone): number[] {
  const dir = sort === 'asc' ? 1 : -1;
  return seeds
    .filter((r) => r.labels.some((l) => l.toLowerCase() === 'fix') && keep(r))
    .sort((a, b) => dir * (a[column] < b[column] ? -1 : a[column] > b[column] ? 1 : a.id - b.id))
    .map((r) => r.id);
}

/** A page read from the title's rows in creation or update order (label-rows-list.ts). */
const LABEL_ROWS_WALK = /^SELECT il\.issuable_id AS id FROM issuable_labels il INDEXED BY issuable_labels_title_(created|updated)/;

describe("a title's rows past LABEL_ROWS.walk that the page would read anyway", () => {
  it("a group's and the instance's list: walked in the title's rows, every page as the records say", async () => {
    for (const [path, scope] of [[`/groups/${group}/merge_requests`, {}], ['/merge_requests', { scope: 'all' }]] as const) {
      for (const [order, column] of [['created_at', 'createdAt'], ['updated_at', 'updatedAt']] as const) {
        for (const sort of ['desc', 'asc'] as const) {
          const query = { labels: 'fix', milestone: 'None', order_by: order, sort, ...scope };
          const reads = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '9', page: '2' } })));
          const what = `${path} ${order} ${sort}`;
          expect(reads.map((r) => r.sql.match(LABEL_ROWS_WALK)?.[1]), what).toEqual([order === 'created_at' ? 'created' : 'updated']);
          await expectEveryPage(s, path, query, want(column, sort), 9);
        }
      }
      // A bound on the order's own column is sought in the walk's index.
      const after = seeds[59].createdAt;
      const query = { labels: 'FIX', milestone: 'None', created_after: after, ...scope };
      const reads = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '9', page: '2' } })));
      expect(reads.map((r) => LABEL_ROWS_WALK.test(r.sql)), path).toEqual([true]);
      await expectEveryPage(s, path, query, want('createdAt', 'desc', (r) => !r.milestone && r.createdAt >= after), 4);
    }
  });

  it('not with a bound on the other date column: the set read and sorted, the same answers', async () => {
    const before = new Date(Date.UTC(2024, 2, 1) + 120 * MINUTE).toISOString();
    for (const [path, scope] of [[`/groups/${group}/merge_requests`, {}], ['/merge_requests', { scope: 'all' }]] as const) {
      const query = { labels: 'fix', milestone: 'None', updated_before: before, ...scope };
      const reads = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '9', page: '2' } })));
      expect(reads.map((r) => LABEL_ROWS_WALK.test(r.sql)), path).toEqual([false]);
      await expectEveryPage(s, path, query, want('createdAt', 'desc', (r) => !r.milestone && r.updatedAt <= before), 5);
    }
  });

  it("a project's: walked, with a state holding most of the title's rows; not with a milestone, nor a state holding fewer than half", async () => {
    const path = `/projects/${project}/merge_requests`;
    const inProject = (keep: (r: Seed) => boolean) => (r: Seed) => r.projectId === project && keep(r);
    // Of `fix`'s rows in the project, most are opened, few merged (every 20th record).
    const cases: [Record<string, string>, (r: Seed) => boolean, boolean][] = [
      [{ milestone: 'None' }, (r) => !r.milestone, true],
      [{ milestone: 'None', state: 'opened', sort: 'asc' }, (r) => !r.milestone && r.state === 'opened', true],
      [{ milestone: 'v1' }, (r) => r.milestone, false],
      [{ milestone: 'None', state: 'merged' }, (r) => !r.milestone && r.state === 'merged', false],
    ];
    for (const [more, keep, walked] of cases) {
      const query = { labels: 'fix', ...more };
      const reads = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '20' } })));
      expect(reads.map((r) => r.sql.startsWith('SELECT il.issuable_id AS id FROM issuable_labels il INDEXED BY issuable_labels_created')), JSON.stringify(more)).toEqual([walked]);
      await expectEveryPage(s, path, query, want('createdAt', more.sort === 'asc' ? 'asc' : 'desc', inProject(keep)), 6);
    }
  });
});
