import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectCounted, expectUncounted, preparedBy } from '../helpers/lists';
import { PRIORITY_LIMITS } from '../../src/main/service/areas/core/order-label-priority';

/**
 * A group's issues by label_priority whose rest (no prioritized label) chooses between walking
 * in id order and sorting by counting the list up to its bound (past COUNT_LIMIT + 1 on a big
 * instance): that count is remembered across writes that cannot bring it under the bound, as the
 * paginator's past COUNT_LIMIT is (count-versions.ts issuableCountPastLimit), and made again once
 * they can. Every page as the records say.
 */
let s: TestService;
let group = 0;
let big = 0;
let other = 0;
const N = 10_060;
const BOUND = 10_050;

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  big = (await s.createProject({ name: 'big', namespace_id: group })).id;
  other = (await s.createProject({ name: 'other', namespace_id: group })).id;
  ok(await s.post(`/projects/${other}/issues`, { title: 'Elsewhere' }));
  ok(await s.post(`/projects/${big}/labels`, { name: 'hot', color: '#FF0000', priority: 1 }));
  const milestone = ok(await s.post(`/projects/${big}/milestones`, { title: 'v1' })).id;
  const db = s.service.context.db;
  const insert = db.prepare(
    "INSERT INTO issues (project_id, iid, title, state, author_id, labels, assignee_ids, milestone_id, created_at, updated_at) VALUES (?, ?, ?, 'opened', 1, ?, '[]', ?, ?, ?)",
  );
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      insert.run(big, i + 1, `Issue ${i}`, i % 1000 === 5 ? '["hot"]' : '[]', milestone, at, at);
    }
  })();
  PRIORITY_LIMITS.walkBound = BOUND;
}, 120_000);
afterAll(async () => {
  PRIORITY_LIMITS.walkBound = undefined;
  await s?.stop();
});

const PATH = () => `/groups/${group}/issues`;
const boundCounts = (sql: string[]): string[] => sql.filter((q) => q.startsWith('SELECT count(*) AS n FROM (SELECT 1 FROM issues x') && /LIMIT 1[01]050\)$/.test(q));
const want = (): number[] => {
  const rows = s.service.context.db.prepare('SELECT id, labels FROM issues WHERE project_id = ? AND milestone_id IS NOT NULL ORDER BY id DESC').all(big) as { id: number; labels: string }[];
  return [...rows.filter((r) => r.labels !== '[]'), ...rows.filter((r) => r.labels === '[]')].map((r) => r.id);
};

async function expectPages(): Promise<void> {
  const all = want();
  for (const page of [1, 2, 3]) {
    const res = await s.get(PATH(), { query: { milestone: 'Any', order_by: 'label_priority', per_page: '20', page: String(page) } });
    expect((res.body as { id: number }[]).map((r) => r.id), `page ${page}`).toEqual(all.slice((page - 1) * 20, page * 20));
    if (all.length > 10_000) expectUncounted(res, String(page + 1));
    else expectCounted(res, all.length, 20);
  }
}

describe("a priority order's count up to its walk bound", () => {
  it('is counted once, not again after writes that cannot bring it under the bound; again once they can', async () => {
    const first = boundCounts(await preparedBy(s, () => expectPages()));
    expect(first.length).toBeGreaterThan(0);
    // The list's own count, as the paginator counts it (by the milestone's index), goes on to the
    // bound: not the walk's SQL (`+x.milestone_id`, `+x.project_id`: every record read).
    expect(first.filter((q) => q.includes('+x.'))).toEqual([]);
    // A write to the group's other project and to the big project's own issue: not counted again.
    ok(await s.put(`/projects/${other}/issues/1`, { description: 'touched' }));
    ok(await s.put(`/projects/${big}/issues/9000`, { description: 'touched' }));
    expect(boundCounts(await preparedBy(s, () => expectPages()))).toEqual([]);
    // 9 deleted in SQL, one statement (10,052 issues left, past the bound): the count remembered (10,060
    // less the 11 writes since) may have fallen under the bound, counted again.
    s.service.context.db.prepare('DELETE FROM issues WHERE project_id = ? AND iid > ?').run(big, N - 9);
    expect(boundCounts(await preparedBy(s, () => expectPages())).length).toBeGreaterThan(0);
    // 1,015 more: under the bound and 10,000.
    s.service.context.db.prepare('DELETE FROM issues WHERE project_id = ? AND iid > ?').run(big, N - 1_024);
    await expectPages();
  }, 120_000);
});
