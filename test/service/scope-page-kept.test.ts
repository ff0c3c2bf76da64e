import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectPagesOf, pagedReads } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A group's list in an order no anchors serve (merged_at, milestone_due, popularity) keeps a page's
 * rows while its records' version holds and the other tables it reads stay as they were
 * (SqlList.keptRows: scopePageKept): a write elsewhere reads no page again; a write to a record of
 * the group, a milestone's due date or an award emoji reads it again. Every page and header as the
 * records say.
 */
let s: TestService;
let group: number;
let projects: number[];
let outside: number;
let milestones: number[];

const N = 120;
const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ path: 'kept-group', visibility: 'public' })).id;
  projects = [(await s.createProject({ name: 'kept-one', namespace_id: group, visibility: 'public' })).id, (await s.createProject({ name: 'kept-two', namespace_id: group, visibility: 'public' })).id];
  outside = (await s.createProject({ name: 'kept-outside', visibility: 'public' })).id;
  milestones = [
    ok(await s.post(`/projects/${projects[0]}/milestones`, { title: 'm1', due_date: '2026-03-01' })).id as number,
    ok(await s.post(`/projects/${projects[1]}/milestones`, { title: 'm2', due_date: '2026-05-01' })).id as number,
  ];
  const ctx = s.service.context;
  const mr = (projectId: number, i: number, milestoneId: number | null) =>
    insertImportedMergeRequest(ctx, projectId, {
      iid: i,
      title: `Change ${i}`,
      description: `Body ${i}`,
      state: i % 3 === 0 ? 'merged' : i % 3 === 1 ? 'opened' : 'closed',
      authorId: 1,
      labels: i % 2 === 0 ? ['bug'] : [],
      sourceBranch: `feature-${i}`,
      targetBranch: 'main',
      baseSha: '0'.repeat(40),
      headSha: '1'.repeat(40),
      // Merged dates out of the id order, some alike (ties by id).
      mergedAt: i % 3 === 0 ? at((i * 37) % 50) : null,
      milestoneId,
      createdAt: at(i),
      updatedAt: at(i),
      importedFrom: 'none',
    });
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) mr(projects[i % 2], i, i % 5 === 0 ? null : milestones[i % 2]);
    mr(outside, 1, null);
  })();
}, 120_000);
afterAll(async () => s.stop());

const db = () => s.service.context.db;
const inGroup = 'x.project_id IN (SELECT id FROM projects WHERE namespace_id = ? AND archived = 0)';
const ids = (sql: string): number[] => (db().prepare(sql).all(group) as { id: number }[]).map((r) => r.id);

/** Each list: its query and its ids as the records say. */
const lists = {
  merged_at: {
    query: { state: 'all', labels: 'bug', milestone: 'Any', order_by: 'merged_at', sort: 'asc' },
    want: () => ids(`SELECT x.id FROM merge_requests x WHERE ${inGroup} AND x.milestone_id IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(x.labels) WHERE value = 'bug') ORDER BY x.merged_at ASC, x.id ASC`),
  },
  milestone_due: {
    query: { order_by: 'milestone_due', sort: 'asc' },
    want: () => ids(`SELECT x.id FROM merge_requests x LEFT JOIN milestones m ON m.id = x.milestone_id WHERE ${inGroup} ORDER BY m.due_date IS NULL, x.milestone_id IS NULL, m.due_date ASC, x.id DESC`),
  },
  popularity: {
    query: { state: 'opened', order_by: 'popularity' },
    want: () =>
      ids(
        `SELECT x.id FROM merge_requests x WHERE ${inGroup} AND x.state = 'opened'
          ORDER BY (SELECT count(*) FROM award_emoji a WHERE a.awardable_type = 'MergeRequest' AND a.awardable_id = x.id AND a.name = 'thumbsup') DESC, x.id DESC`,
      ),
  },
};
type Name = keyof typeof lists;

/** Every page of the list (ids and headers as the records say), and the paged reads they made. */
async function pages(name: Name, label: string): Promise<unknown[]> {
  const { query, want } = lists[name];
  const list = want();
  expect(list.length, label).toBeGreaterThan(20);
  return pagedReads(s, () => expectPagesOf(s, `/groups/${group}/merge_requests`, query, list, [1, 2, 3], `${name} ${label}`));
}

const iidOf = (id: number) => db().prepare('SELECT iid, project_id FROM merge_requests WHERE id = ?').get(id) as { iid: number; project_id: number };

describe("a group's page kept at its records' version in any order", () => {
  it('reads no page again after writes elsewhere; again after a record of the group, a milestone due date or an award is written', async () => {
    for (const name of Object.keys(lists) as Name[]) expect(await pages(name, 'first'), name).not.toEqual([]);
    // Writes elsewhere: a project of the group, a merge request outside it.
    ok(await s.put(`/projects/${projects[0]}`, { description: 'moved on' }));
    ok(await s.put(`/projects/${outside}/merge_requests/1`, { description: 'elsewhere' }));
    for (const name of Object.keys(lists) as Name[]) expect(await pages(name, 'after writes elsewhere'), name).toEqual([]);
    // A merge request on page 1 loses its label: the label's list reads again, without it.
    const first = iidOf(lists.merged_at.want()[2]);
    ok(await s.put(`/projects/${first.project_id}/merge_requests/${first.iid}`, { labels: '' }));
    for (const name of Object.keys(lists) as Name[]) expect(await pages(name, 'after a label removed'), name).not.toEqual([]);
    for (const name of Object.keys(lists) as Name[]) expect(await pages(name, 'again'), name).toEqual([]);
    // m1 due after m2 writes no record: the order reads the milestones again; the others are kept.
    ok(await s.put(`/projects/${projects[0]}/milestones/${milestones[0]}`, { due_date: '2026-07-01' }));
    expect(await pages('milestone_due', 'after a due date moved')).not.toEqual([]);
    expect(await pages('merged_at', 'after a due date moved')).toEqual([]);
    // A thumbs-up writes no merge request: the popularity order reads the awards again.
    const last = iidOf(lists.popularity.want().at(-1)!);
    ok(await s.post(`/projects/${last.project_id}/merge_requests/${last.iid}/award_emoji`, { name: 'thumbsup' }));
    expect(lists.popularity.want()[0]).toBe((db().prepare('SELECT id FROM merge_requests WHERE project_id = ? AND iid = ?').get(last.project_id, last.iid) as { id: number }).id);
    expect(await pages('popularity', 'after an award')).not.toEqual([]);
  });
});
