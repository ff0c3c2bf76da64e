import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectPagesOf, preparedBy } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A common ASCII term (more than 10,000 matches) whose plan reads every match of the scope
 * (`x.id IN (<matches>)`: a page past the first thousand rows) with other filters that read the
 * records one by one: a set's few records (two labels on 133 issues of a group's 16,000; a label
 * on 6,400, for the caller's own records' count) and the walk of label_priority's records without
 * a priority. Each record read is checked on its columns
 * (searchCheckedByRecord; a column with another character asks the index) where the statement
 * built the list of every match first (a million for search=issue: ~200 ms for each page, after
 * every write too). Every page and header is the index's answer in the list's order.
 */
let s: TestService;
let group: number;
let projects: number[];

const N = 16_000;
// `task` in most titles; every 200th record lacks it, some hold it only as the index folds it (the Kelvin sign).
const titleOf = (i: number): string => (i % 200 === 0 ? `Report ${i}` : i % 41 === 0 ? `Tas\u212A ${i}` : `Task ${i % 500}`);
const labelsOf = (i: number): string[] => [...(i % 3 === 0 ? ['bug'] : []), ...(i % 40 === 0 ? ['rare'] : []), ...(i % 13 === 0 ? ['urgent'] : []), ...(i % 5 < 2 ? ['wide'] : [])];
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.post('/groups', { name: 'checked', path: 'checked', visibility: 'public' })).body.id;
  projects = [
    (await s.createProject({ name: 'checked-one', namespace_id: group, visibility: 'public' })).id,
    (await s.createProject({ name: 'checked-two', namespace_id: group, visibility: 'public' })).id,
  ];
  for (const project of projects) {
    for (const [name, priority] of [['urgent', 1], ['bug', null], ['rare', null], ['wide', null]] as const) {
      const res = await s.post(`/projects/${project}/labels`, { name, color: '#FF0000', ...(priority === null ? {} : { priority }) });
      expect(res.status).toBe(201);
    }
  }
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      // Most in the first project; one in ten in the second.
      insertImportedIssue(ctx, projects[i % 10 === 5 ? 1 : 0], {
        iid: i,
        title: titleOf(i),
        description: i % 7 === 0 ? 'TASK in the description' : null,
        state: i % 4 === 0 ? 'closed' : 'opened',
        authorId: 1,
        labels: labelsOf(i),
        confidential: false,
        createdAt: createdAt(i),
        updatedAt: createdAt(i),
        importedFrom: 'none',
      });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

/** The ids of the records the full-text index itself matches (and `extra` keeps), in `order`. */
function fromIndex(extra: string, order: string, ...args: unknown[]): number[] {
  const rows = s.service.context.db
    .prepare(`SELECT id FROM issues x WHERE ${extra} AND EXISTS (SELECT 1 FROM issues_search s WHERE s.issues_search MATCH ? AND s.rowid = (x.project_id << 32) + x.id) ORDER BY ${order}`)
    .all(...args, '{title description} : "task"') as { id: number }[];
  return rows.map((r) => r.id);
}

/** Reads of every match of the scope as a list (`x.id IN`). */
const matchLists = (reads: string[]): string[] => reads.filter((sql) => sql.includes('x.id IN (SELECT s.rowid & 4294967295'));

const hasLabel = (title: string): string => `EXISTS (SELECT 1 FROM issuable_labels il WHERE il.issuable_type = 'Issue' AND il.issuable_id = x.id AND il.title = '${title}')`;

describe('a common term read by record', () => {
  it("counts and reads a group's label pair from its records, each checked: every page and header the index says", async () => {
    const want = fromIndex(`x.project_id IN (?, ?) AND ${hasLabel('bug')} AND ${hasLabel('rare')}`, 'x.created_at DESC, x.id DESC', ...projects);
    expect(want.length).toBeGreaterThan(60);
    const kelvin = s.service.context.db.prepare(`SELECT count(*) AS n FROM issues WHERE id IN (${want.join(', ')}) AND title LIKE 'Tas%' AND title NOT LIKE 'Task%'`).get() as { n: number };
    expect(kelvin.n).toBeGreaterThan(0);
    // Page 60 lies past the walk's first thousand rows: the plan reads the matches.
    const reads = await preparedBy(s, () => expectPagesOf(s, `/groups/${group}/issues`, { labels: 'bug,rare', search: 'task' }, want, [60], 'label pair'));
    expect(matchLists(reads)).toEqual([]);
    await expectPagesOf(s, `/groups/${group}/issues`, { labels: 'bug,rare', search: 'task' }, want, [1, 2, 3, 4, 5], 'label pair');
  });

  it("counts the caller's own records with a label from its records, each checked, the matches counted on as far as they need", async () => {
    const want = fromIndex(`x.author_id = 1 AND x.state = 'opened' AND ${hasLabel('wide')}`, 'x.created_at DESC, x.id DESC');
    expect(want.length).toBeGreaterThan(4_000);
    const reads = await preparedBy(s, () => expectPagesOf(s, '/issues', { labels: 'wide', search: 'task', state: 'opened' }, want, [1, 2, 60], 'own'));
    expect(matchLists(reads)).toEqual([]);
    await expectPagesOf(s, '/issues', { labels: 'wide', search: 'task', state: 'opened' }, want, [Math.ceil(want.length / 20)], 'own');
  });

  it("walks label_priority's records without a priority, each checked, where it reads fewer than the matches: every page and header the index says", async () => {
    const ordered = (project: number, extra: string): number[] => [
      ...fromIndex(`x.project_id = ? AND ${extra} AND ${hasLabel('urgent')}`, 'x.id DESC', project),
      ...fromIndex(`x.project_id = ? AND ${extra} AND NOT ${hasLabel('urgent')}`, 'x.id DESC', project),
    ];
    for (const sort of ['asc', 'desc']) {
      // The big project's closed ones: its walk reads fewer records than its matches, on every page (checked).
      const closed = ordered(projects[0], "x.state = 'closed'");
      expect(closed.length).toBeGreaterThan(3_000);
      const query = { search: 'task', order_by: 'label_priority', sort, state: 'closed' };
      const last = Math.ceil(closed.length / 20);
      const reads = await preparedBy(s, () => expectPagesOf(s, `/projects/${projects[0]}/issues`, query, closed, [60, 100, last - 1, last], sort));
      expect(matchLists(reads), sort).toEqual([]);
      await expectPagesOf(s, `/projects/${projects[0]}/issues`, query, closed, [1, 2, 61], sort);
      // The small project's: its pages past 1,000 rows walk more records than its matches (the matches read).
      const all = ordered(projects[1], '1 = 1');
      const deep = await preparedBy(s, () => expectPagesOf(s, `/projects/${projects[1]}/issues`, { search: 'task', order_by: 'label_priority', sort }, all, [60, Math.ceil(all.length / 20)], sort));
      expect(matchLists(deep).length, sort).toBeGreaterThan(0);
    }
  });
});
