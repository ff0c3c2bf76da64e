import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * order_by=milestone_due of an author's records (author_id, or the caller's own: created_by_me)
 * reads a segment only for the milestones the author's records carry (the filter counters by
 * author, core/018 and core/028), where it read one for every milestone of the scope's records: a
 * project's merge requests by an author none of whose carries one counted the milestone's segment
 * over all 50,000 of theirs to find none (200 ms the first time). Every page and header is the
 * records' answer: the dated milestone's records first (ties by id, descending), then those without one.
 */
let s: TestService;
let project: number;
let other: number;
/** The records: type, id, author and whether they carry the milestone. */
const records: { type: 'issues' | 'merge_requests'; id: number; author: number; milestone: boolean }[] = [];

beforeAll(async () => {
  s = await TestService.start();
  other = (await s.createUser({ username: 'milestone-author' })).user.id;
  project = (await s.createProject({ name: 'due-authors' })).id;
  const milestone = ok(await s.post(`/projects/${project}/milestones`, { title: 'v1', due_date: '2025-06-01' })).id as number;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= 40; i++) {
      // The caller's records carry no milestone; the other author's every third does.
      const author = i % 2 === 0 ? 1 : other;
      const carries = author === other && i % 3 === 0;
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      const common = { iid: i, description: null, state: 'opened' as const, authorId: author, milestoneId: carries ? milestone : null, createdAt: at, updatedAt: at, importedFrom: 'none' };
      records.push({ type: 'issues', id: insertImportedIssue(ctx, project, { ...common, title: `Issue ${i}`, labels: [], confidential: false }).id, author, milestone: carries });
      const mr = insertImportedMergeRequest(ctx, project, { ...common, title: `Change ${i}`, sourceBranch: `b-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
      records.push({ type: 'merge_requests', id: mr.id, author, milestone: carries });
    }
  })();
}, 60_000);
afterAll(async () => s?.stop());

/** An author's records of the type in milestone_due order: the milestone's, then the rest, each newest id first. */
const expected = (type: string, author: number): number[] => {
  const mine = records.filter((r) => r.type === type && r.author === author).sort((a, b) => b.id - a.id);
  return [...mine.filter((r) => r.milestone), ...mine.filter((r) => !r.milestone)].map((r) => r.id);
};

/** A milestone segment's statements (order-walk.ts: `x.milestone_id IN (<milestones>)`). */
const milestoneSegments = (reads: string[]): string[] => reads.filter((sql) => sql.includes('x.milestone_id IN (SELECT value FROM json_each(?))'));

describe("milestone_due of an author's records", () => {
  it("reads no segment for a milestone none of the author's records carry: every page and header", async () => {
    for (const type of ['issues', 'merge_requests'] as const) {
      for (const sort of ['asc', 'desc']) {
        const path = `/projects/${project}/${type}`;
        // not[labels]: the list's statement walked (filteredWalk), its segments counted by it.
        const query = { order_by: 'milestone_due', sort, author_id: '1', 'not[labels]': 'nothing' };
        const reads = await preparedBy(s, async () => void ok(await s.get(path, { query: { ...query, per_page: '3', page: '2' } })));
        expect(milestoneSegments(reads), `${type} ${sort}`).toEqual([]);
        await expectEveryPage(s, path, query, expected(type, 1), 3);
        // The other author's carry it: their milestone's segment first.
        expect(expected(type, other).slice(0, 3).every((id) => records.find((r) => r.id === id && r.type === type)!.milestone)).toBe(true);
        await expectEveryPage(s, path, { ...query, author_id: String(other) }, expected(type, other), 3);
      }
    }
  });
});
