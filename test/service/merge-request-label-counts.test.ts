import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, expectUncountedPages, queryPlan, statementReads } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A project's or a group's merge requests counted by labels=Any or labels=None read core/383's
 * (project_id, labels) index (or core/384's with the author) alone, not each record by core/298's
 * (project_id, state, merged_at, id) in merge-date order. The index only changes the read: every
 * page and header of those lists (counted, and past 10,000 rows uncounted) against the records,
 * before and after label, state and delete writes.
 */
let s: TestService;
let group: number;
let big: number;
let small: number;
/** A second author's: every fourth merge request. */
let other: number;
/** The big project's merge requests: labels=None and not[labels]=bug past COUNT_LIMIT (10,000). */
const BIG = 11_000;
const SMALL = 40;
const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  big = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  small = (await s.createProject({ name: 'small', namespace_id: group, visibility: 'public' })).id;
  other = (await s.createUser()).user.id as number;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (const [project, n] of [[big, BIG], [small, SMALL]] as const)
      for (let i = 1; i <= n; i++) {
        // Merged ones' merge dates run against their ids, so merge-date order is not id order.
        const state = i % 5 === 0 ? 'merged' : i % 7 === 0 ? 'closed' : 'opened';
        insertImportedMergeRequest(ctx, project, {
          iid: i, title: `Change ${i}`, description: null, authorId: i % 4 === 0 ? other : 1, labels: i % 30 === 0 || project === small ? ['bug'] : i % 31 === 0 ? ['feature'] : [],
          milestoneId: null, createdAt: at(i), updatedAt: at(i), importedFrom: 'none', state, sourceBranch: `f-${i}`, targetBranch: 'main',
          baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: state === 'merged' ? at(2 * n - i) : null,
        });
      }
  })();
}, 120_000);
afterAll(async () => s.stop());

interface Rec {
  id: number;
  project_id: number;
  state: string;
  labels: string;
  author_id: number;
  created_at: string;
}

/** The merge requests of `projects` meeting `q`'s label filters and state, newest first (created_at, then id). */
function want(projects: number[], q: Record<string, string>): number[] {
  const rows = s.service.context.db.prepare('SELECT id, project_id, state, labels, author_id, created_at FROM merge_requests').all() as Rec[];
  const labels = (r: Rec): string[] => JSON.parse(r.labels) as string[];
  return rows
    .filter((r) => projects.includes(r.project_id))
    .filter((r) => (q.state ?? 'all') === 'all' || r.state === q.state)
    .filter((r) => !q.author_id || r.author_id === Number(q.author_id))
    .filter((r) => q.labels !== 'Any' || labels(r).length > 0)
    .filter((r) => q.labels !== 'None' || labels(r).length === 0)
    .filter((r) => !q['not[labels]'] || !labels(r).includes(q['not[labels]']))
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id))
    .map((r) => r.id);
}

/** Every list of the file: counted ones page by page, the ones past 10,000 by their uncounted pages. */
async function expectLists(): Promise<void> {
  const paths: [string, number[]][] = [
    [`/groups/${group}/merge_requests`, [big, small]],
    [`/projects/${big}/merge_requests`, [big]],
  ];
  for (const [path, projects] of paths)
    for (const q of [
      { labels: 'Any', state: 'all' },
      { labels: 'Any' },
      { labels: 'None', state: 'merged' },
      { 'not[labels]': 'feature', state: 'closed' },
      { labels: 'Any', author_id: '1', state: 'all' },
      { labels: 'Any', author_id: String(other), state: 'merged' },
      { labels: 'None', author_id: String(other), state: 'all' },
    ] as Record<string, string>[])
      await expectEveryPage(s, path, q, want(projects, q), 100);
  for (const [path, projects] of paths)
    for (const q of [{ labels: 'None', state: 'all' }, { 'not[labels]': 'bug', state: 'all' }] as Record<string, string>[]) await expectUncountedPages(s, path, q, want(projects, q), 57);
}

describe('merge requests counted by labels=Any and labels=None', () => {
  it('counts a group and a project by labels=Any from a label index alone (core/383, 384)', async () => {
    // A group's labels=None past 10,000 is bounded by the label counters (256044f), not by this count.
    const lists = [[`/groups/${group}/merge_requests`, 'Any'], [`/projects/${big}/merge_requests`, 'Any']];
    for (const [path, labels] of lists) {
      const counts = await statementReads(
        s,
        (sql) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM merge_requests x WHERE x\.labels (!=|=) '\[\]'/.test(sql),
        () => s.get(path, { query: { labels, state: 'all' } }),
        ['all', 'get'],
      );
      expect(counts.length, `${path} labels=${labels}`).toBeGreaterThan(0);
      for (const { sql, args } of counts) expect(queryPlan(s.service.context.db, sql, ...args), `${path} labels=${labels}`).toMatch(/USING COVERING INDEX merge_requests_project_(author_)?labels \(project_id=\?/);
    }
  });

  it("counts one author's by labels=Any from merge_requests_project_author_labels alone (core/384)", async () => {
    const counts = await statementReads(
      s,
      (sql) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM merge_requests x WHERE x\.labels != '\[\]' AND x\.author_id = \?/.test(sql),
      () => s.get(`/projects/${big}/merge_requests`, { query: { labels: 'Any', author_id: '1', state: 'all' } }),
      ['all', 'get'],
    );
    expect(counts.length).toBeGreaterThan(0);
    for (const { sql, args } of counts) expect(queryPlan(s.service.context.db, sql, ...args)).toContain('USING COVERING INDEX merge_requests_project_author_labels (project_id=? AND author_id=?)');
  });

  it('answers every page and header as the records say, before and after writes', async () => {
    await expectLists();
    // A label on one unlabelled record, off another, a merged one closed... each list moves as its records do.
    expect((await s.put(`/projects/${big}/merge_requests/1`, { labels: 'bug' })).status).toBe(200);
    expect((await s.put(`/projects/${big}/merge_requests/30`, { labels: '' })).status).toBe(200);
    expect((await s.put(`/projects/${big}/merge_requests/62`, { labels: 'feature', state_event: 'close' })).status).toBe(200);
    expect((await s.put(`/projects/${small}/merge_requests/3`, { state_event: 'close' })).status).toBe(200);
    expect((await s.api('DELETE', `/projects/${big}/merge_requests/60`)).status).toBe(204);
    expect((await s.api('DELETE', `/projects/${small}/merge_requests/4`)).status).toBe(204);
    await expectLists();
  }, 120_000);
});
