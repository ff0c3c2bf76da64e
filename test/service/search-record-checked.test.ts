import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectPagesOf, preparedBy } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A common ASCII term (more than 10,000 matches) whose plan reads every match of the scope
 * (`x.id IN (<matches>)`: a page past the first thousand rows) with other filters that read the
 * records one by one: a set's few records (two labels on 88 issues of a group's 10,600) and the
 * walk of label_priority's records without a priority. Each record read is checked on its columns
 * (searchCheckedByRecord; a column with another character asks the index) where the statement
 * built the list of every match first (a million for search=issue: ~200 ms for each page, after
 * every write too). Every page and header is the index's answer in the list's order.
 */
let s: TestService;
let group: number;
let projects: number[];

const N = 10_600;
// `task` in most titles; every 200th record lacks it, some hold it only as the index folds it (the Kelvin sign).
const titleOf = (i: number): string => (i % 200 === 0 ? `Report ${i}` : i % 41 === 0 ? `Tas\u212A ${i}` : `Task ${i % 500}`);
const labelsOf = (i: number): string[] => [...(i % 3 === 0 ? ['bug'] : []), ...(i % 40 === 0 ? ['rare'] : []), ...(i % 13 === 0 ? ['urgent'] : [])];
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.post('/groups', { name: 'checked', path: 'checked', visibility: 'public' })).body.id;
  projects = [
    (await s.createProject({ name: 'checked-one', namespace_id: group, visibility: 'public' })).id,
    (await s.createProject({ name: 'checked-two', namespace_id: group, visibility: 'public' })).id,
  ];
  for (const project of projects) {
    for (const [name, priority] of [['urgent', 1], ['bug', null], ['rare', null]] as const) {
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

  it("walks label_priority's records without a priority, each checked, where it reads fewer than the matches: every page and header the index says", async () => {
    const project = projects[0];
    const keyed = fromIndex(`x.project_id = ? AND ${hasLabel('urgent')}`, 'x.id DESC', project);
    const rest = fromIndex(`x.project_id = ? AND NOT ${hasLabel('urgent')}`, 'x.id DESC', project);
    const want = [...keyed, ...rest];
    expect(want.length).toBeGreaterThan(9_000);
    for (const sort of ['asc', 'desc']) {
      const query = { search: 'task', order_by: 'label_priority', sort };
      // Pages 60 and 100: the walk reads fewer records than the matches (checked); the last pages: more (the matches read).
      const reads = await preparedBy(s, () => expectPagesOf(s, `/projects/${project}/issues`, query, want, [60, 100], sort));
      expect(matchLists(reads), sort).toEqual([]);
      const last = Math.ceil(want.length / 20);
      const deep = await preparedBy(s, () => expectPagesOf(s, `/projects/${project}/issues`, query, want, [last - 1, last], sort));
      expect(matchLists(deep).length, sort).toBeGreaterThan(0);
      await expectPagesOf(s, `/projects/${project}/issues`, query, want, [1, 2, 61], sort);
    }
  });
});
