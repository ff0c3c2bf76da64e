import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectPagesOf, preparedBy } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A common ASCII term (more than 10,000 matches in the instance) on the caller's own records
 * (`/issues`' default scope, created_by_me): the page walks the caller's list in its order and
 * checks each record on its columns (checkedList; a column with another character asks the
 * index), where `x.id IN (<every match>)` built the list of every match of the instance for each
 * page (175 ms for a page of the newest after every write). Every page and header is the index's
 * answer in the list's order; the count is as before.
 */
let s: TestService;
let author: number;
let otherToken: string;

const N = 10_600;
// `task` in most titles; the newest 300 lack it (the walk steps over them), some hold it only as
// the index folds it (the Kelvin sign), a tenth are another user's.
const titleOf = (i: number): string => (i > N - 300 ? `Report ${i}` : i % 41 === 0 ? `Tas\u212A ${i}` : `Task ${i % 500}`);
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  const other = await s.createUser({ username: 'other-author' });
  otherToken = other.token;
  author = other.user.id;
  const projects = [(await s.createProject({ name: 'own-one', visibility: 'public' })).id, (await s.createProject({ name: 'own-two', visibility: 'public' })).id];
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      insertImportedIssue(ctx, projects[i % 2], {
        iid: Math.ceil(i / 2),
        title: titleOf(i),
        description: i % 7 === 0 ? 'TASK in the description' : null,
        state: i % 4 === 0 ? 'closed' : 'opened',
        authorId: i % 10 === 3 ? author : 1,
        labels: i % 3 === 0 ? ['bug'] : [],
        confidential: false,
        createdAt: createdAt(i),
        updatedAt: createdAt(i),
        importedFrom: 'none',
      });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);

/** The ids of user 1's records the full-text index itself matches (and `extra` keeps), in `order`. */
function fromIndex(extra: string, order: string): number[] {
  const rows = s.service.context.db
    .prepare(
      `SELECT id FROM issues x WHERE x.author_id = 1 AND ${extra}
         AND EXISTS (SELECT 1 FROM issues_search s WHERE s.issues_search MATCH ? AND s.rowid = (x.project_id << 32) + x.id) ORDER BY ${order}`,
    )
    .all('{title description} : "task"') as { id: number }[];
  return rows.map((r) => r.id);
}

/** A page's reads of every match of the instance as a list (`x.id IN`), other than a count's. */
const matchLists = (reads: string[]): string[] => reads.filter((sql) => !sql.includes('count(*)') && sql.includes('x.id IN (SELECT s.rowid & 4294967295'));

describe("a common term on the caller's own records", () => {
  it('walks the list and checks each record: every page and header the index says, Kelvin-sign records among them', async () => {
    const kelvin = new Set((s.service.context.db.prepare("SELECT id FROM issues WHERE title LIKE 'Tas%' AND title NOT LIKE 'Task%'").all() as { id: number }[]).map((r) => r.id));
    expect(kelvin.size).toBeGreaterThan(100);
    for (const [query, extra, order] of [
      [{ labels: 'bug' }, "x.labels != '[]'", 'x.created_at DESC, x.id DESC'],
      [{ state: 'closed' }, "x.state = 'closed'", 'x.created_at DESC, x.id DESC'],
      [{ state: 'opened', labels: 'bug', order_by: 'title', sort: 'desc' }, "x.state = 'opened' AND x.labels != '[]'", 'x.title DESC, x.id DESC'],
      [{ order_by: 'updated_at', sort: 'asc', state: 'closed' }, "x.state = 'closed'", 'x.updated_at ASC, x.id ASC'],
    ] as [Record<string, string>, string, string][]) {
      const want = fromIndex(extra, order);
      expect(want.slice(0, 60).some((id) => kelvin.has(id)), JSON.stringify(query)).toBe(true);
      const reads = await preparedBy(s, () => expectPagesOf(s, '/issues', { ...query, search: 'task' }, want, [1, 2, 3, 10, 40, Math.ceil(want.length / 20)], JSON.stringify(query)));
      expect(matchLists(reads), JSON.stringify(query)).toEqual([]);
    }
    // Every record of the caller's with the term (the instance's matches past 10,000): the rows and the count the index's.
    const all = fromIndex('1 = 1', 'x.created_at DESC, x.id DESC');
    expect(all.length).toBeGreaterThan(9_000);
    const instance = s.service.context.db.prepare('SELECT count(*) AS n FROM issues_search s WHERE s.issues_search MATCH ?').get('{title description} : "task"') as { n: number };
    expect(instance.n).toBeGreaterThan(10_000);
    for (const page of [1, 2, 30]) {
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await s.get('/issues', { query: { search: 'task', per_page: '100', page: String(page) } });
      });
      expect(ids(res), `page ${page}`).toEqual(all.slice((page - 1) * 100, page * 100));
      expect(res.headers.get('x-total'), `page ${page}`).toBe(String(all.length));
      expect(res.headers.get('x-next-page'), `page ${page}`).toBe(String(page + 1));
      expect(matchLists(reads)).toEqual([]);
    }
    // Another caller's own records: theirs alone.
    const theirs = s.service.context.db
      .prepare(
        `SELECT id FROM issues x WHERE x.author_id = ? AND EXISTS (SELECT 1 FROM issues_search s WHERE s.issues_search MATCH ? AND s.rowid = (x.project_id << 32) + x.id) ORDER BY x.created_at DESC, x.id DESC`,
      )
      .all(author, '{title description} : "task"') as { id: number }[];
    const res = await s.get('/issues', { token: otherToken, query: { search: 'task', per_page: '100', page: '2' } });
    expect(res.headers.get('x-total')).toBe(String(theirs.length));
    expect(ids(res)).toEqual(theirs.slice(100, 200).map((r) => r.id));
  });
});
