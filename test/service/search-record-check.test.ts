import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { preparedBy } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * `search` checked on one record at a time (a group of few records, a project's list walked by a
 * computed order, a set's records checked): an ASCII term reads the record's columns (LIKE) and
 * asks the full-text index only about a column with another character, so the answers are the
 * index's own (the trigram index folds case by Unicode's rules: the Kelvin sign K is a `k` to
 * it, not to LIKE; a dotted capital I is no `i` to either).
 */
let s: TestService;
let group: number;
let few: number;
let project: number;
let small: number;

// More records than a scope's per-record search (1,000): the group's search reads the index.
const N = 1_100;
// Most records hold `task` (a common term: the project's early pages walk); a few of the newest
// hold it only as the index folds it, or not at all.
const titleOf = (i: number): string =>
  i === N ? 'Tas\u212A with a Kelvin sign' : i === N - 1 ? 'İSSUE dotted' : i === N - 2 ? 'naïve NAÏVE' : i === N - 3 ? 'Sale 50%_off' : i === N - 4 ? 'Sale 50x off' : i % 9 === 0 ? 'Report' : `Task ${i}`;
const descriptionOf = (i: number): string | null => (i % 13 === 0 ? 'TASK in the description' : i % 5 === 0 ? null : `Steps for issue ${i}`);
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ path: 'checked-group', visibility: 'public' })).id;
  few = (await s.createGroup({ path: 'few-group', visibility: 'public' })).id;
  project = (await s.createProject({ name: 'checked', namespace_id: group, visibility: 'public' })).id;
  small = (await s.createProject({ name: 'checked-small', namespace_id: few, visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      insertImportedIssue(ctx, project, {
        iid: i,
        title: titleOf(i),
        description: descriptionOf(i),
        state: i % 4 === 0 ? 'closed' : 'opened',
        authorId: 1,
        labels: i % 3 === 0 ? ['bug'] : [],
        assigneeIds: i % 20 === 0 || i % 23 === 0 || i === N ? [1] : [],
        confidential: false,
        dueDate: i % 7 === 0 ? `2025-0${1 + (i % 9)}-1${i % 10}` : null,
        createdAt: createdAt(i),
        updatedAt: createdAt(i),
        importedFrom: 'none',
      });
    }
    // The few group's records: the same titles as the project's newest, and some plain ones.
    for (let i = 1; i <= 12; i++) {
      insertImportedIssue(ctx, small, {
        iid: i,
        title: i <= 5 ? titleOf(N - i + 1) : i === 6 ? 'tas\u212A small' : `Small task ${i}`,
        description: i % 2 ? null : descriptionOf(i),
        state: 'opened',
        authorId: 1,
        labels: [],
        confidential: false,
        createdAt: createdAt(N + i),
        updatedAt: createdAt(N + i),
        importedFrom: 'none',
      });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);

/** The ids the full-text index itself matches (and `extra` keeps) in the projects, in the list's order. */
function fromIndex(projects: number[], term: string, fields: string, extra = '1 = 1', order = 'x.created_at DESC, x.id DESC'): number[] {
  const query = `{${fields.split(',').join(' ')}} : "${term.replace(/"/g, '""')}"`;
  const rows = s.service.context.db
    .prepare(
      `SELECT id FROM issues x WHERE x.project_id IN (${projects.join(',')}) AND EXISTS (SELECT 1 FROM issues_search s WHERE s.issues_search MATCH ? AND s.rowid = (x.project_id << 32) + x.id)
         AND ${extra} ORDER BY ${order}`,
    )
    .all(query) as { id: number }[];
  return rows.map((r) => r.id);
}
const idOf = (projectId: number, iid: number): number =>
  (s.service.context.db.prepare('SELECT id FROM issues WHERE project_id = ? AND iid = ?').get(projectId, iid) as { id: number }).id;

describe('an ASCII term checked on each record answers as the full-text index', () => {
  it("a group's search, of few records (each asked) or many (the index read): case, the Kelvin sign, non-ASCII terms, LIKE characters, in=", async () => {
    for (const [groupId, projects] of [[few, [small]], [group, [project]]] as const)
    for (const [term, fields] of [
      ['task', 'title,description'],
      ['TASK', 'title'],
      ['task', 'description'],
      ['issue', 'title,description'],
      ['naï', 'title'],
      ['NAÏ', 'title,description'],
      ['0%_', 'title'],
      ['50x', 'title'],
    ]) {
      const want = fromIndex([...projects], term, fields);
      const label = `${groupId} ${term} in ${fields}`;
      for (const query of [{}, { state: 'opened' }, { assignee_id: 'Any' }, { labels: 'bug', order_by: 'title', sort: 'asc' }] as Record<string, string>[]) {
        // The reference: the list without the search, kept to the index's matches.
        const unsearched: number[] = [];
        for (let page = 1; ; page++) {
          const res = await s.get(`/groups/${groupId}/issues`, { query: { ...query, per_page: '100', page: String(page) } });
          unsearched.push(...ids(res));
          if (res.body.length < 100) break;
        }
        const matched = new Set(want);
        const listed = unsearched.filter((id) => matched.has(id));
        for (const page of ['1', '2']) {
          const res = await s.get(`/groups/${groupId}/issues`, { query: { ...query, search: term, in: fields, per_page: '20', page } });
          expect(res.status).toBe(200);
          // Uncounted past 10,000 never happens here: every list is counted.
          expect(res.headers.get('x-total'), `${label} ${JSON.stringify(query)}`).toBe(String(listed.length));
          expect(ids(res), `${label} ${JSON.stringify(query)}`).toEqual(listed.slice((Number(page) - 1) * 20, Number(page) * 20));
        }
      }
    }
    const both = [project, small];
    // The index's folding, pinned: the Kelvin sign's records found by `task`; the dotted capital I not by `issue`.
    const task = fromIndex(both, 'task', 'title');
    expect(task).toContain(idOf(project, N));
    expect(task).toContain(idOf(small, 6));
    expect(fromIndex(both, 'issue', 'title')).not.toContain(idOf(project, N - 1));
    expect(fromIndex(both, '0%_', 'title')).toEqual([idOf(small, 4), idOf(project, N - 3)]);
  });

  it("a project's common term in computed orders, with a state, labels and an assignee: the index's rows", async () => {
    // The reference: the same list without the search (its order pinned elsewhere), kept to the index's matches.
    const matched = new Set(fromIndex([project], 'task', 'title,description'));
    for (const query of [
      { order_by: 'milestone_due' },
      { order_by: 'due_date', sort: 'asc' },
      { state: 'opened', order_by: 'popularity' },
      { labels: 'bug', order_by: 'title', sort: 'asc' },
      { assignee_id: 'Any' },
      { 'not[labels]': 'bug', state: 'closed', order_by: 'label_priority' },
      { labels: 'bug', state: 'opened', order_by: 'updated_at', sort: 'asc' },
    ] as Record<string, string>[]) {
      const unsearched: number[] = [];
      for (let page = 1; ; page++) {
        const res = await s.get(`/projects/${project}/issues`, { query: { ...query, per_page: '100', page: String(page) } });
        unsearched.push(...ids(res));
        if (res.body.length < 100) break;
      }
      const want = unsearched.filter((id) => matched.has(id));
      expect(want.length, JSON.stringify(query)).toBeGreaterThan(0);
      for (const page of ['1', '2']) {
        const res = await s.get(`/projects/${project}/issues`, { query: { search: 'task', per_page: '20', page, ...query } });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-total'), JSON.stringify(query)).toBe(String(want.length));
        expect(res.headers.get('x-total-pages')).toBe(String(Math.ceil(want.length / 20)));
        expect(ids(res), JSON.stringify(query)).toEqual(want.slice((Number(page) - 1) * 20, Number(page) * 20));
      }
    }
    // The Kelvin sign's record (assigned) is found by the assignee's list.
    const assigned = await s.get(`/projects/${project}/issues`, { query: { search: 'task', assignee_id: 'Any', per_page: '100' } });
    expect(ids(assigned)).toContain(idOf(project, N));
  });

  it("a common term with a filter set smaller than its matches reads the set's records, each checked (not every match joined, nor the list walked against the index)", async () => {
    const matched = new Set(fromIndex([project], 'task', 'title,description'));
    for (const path of [`/projects/${project}/issues`, `/groups/${group}/issues`]) {
      for (const query of [{ assignee_id: 'Any' }, { assignee_id: '1', state: 'opened' }, { assignee_id: 'Any', order_by: 'title', sort: 'asc' }] as Record<string, string>[]) {
        const unsearched = ids(await s.get(path, { query: { ...query, per_page: '100' } }));
        const want = unsearched.filter((id) => matched.has(id));
        expect(want.length).toBeGreaterThan(20);
        expect(want.length).toBeLessThan(unsearched.length);
        for (const page of ['1', '2']) {
          let res!: ApiResult;
          const reads = await preparedBy(s, async () => {
            res = await s.get(path, { query: { ...query, search: 'task', per_page: '20', page } });
          });
          expect(res.headers.get('x-total'), `${path} ${JSON.stringify(query)}`).toBe(String(want.length));
          expect(res.headers.get('x-next-page')).toBe(want.length > Number(page) * 20 ? String(Number(page) + 1) : '');
          expect(ids(res)).toEqual(want.slice((Number(page) - 1) * 20, Number(page) * 20));
          // The assignee rows read; no match of the index joined to its record, no window of the list walked.
          expect(reads.some((sql) => sql.includes('FROM issuable_users u'))).toBe(true);
          expect(reads.filter((sql) => sql.includes('CROSS JOIN issues x ON x.id = s.rowid & 4294967295'))).toEqual([]);
          expect(reads.filter((sql) => sql.includes('json_group_array(id) AS ids'))).toEqual([]);
        }
      }
    }
  });
});
