import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectPagesOf, statementReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A common term's walk of a project's list (searchWalkRows) in an order that scatters the ids
 * (title): a window's ids far from every other are checked on their records, all in one
 * statement, for an ASCII term (a column with another character asks the index: recordMatchSql),
 * where each was probed in the index alone (50-250 us each: a window of 4,000 lone ids cost 250 ms
 * after every write). Every page and header is the index's answer, in the list's order.
 */
let s: TestService;
let project: number;

// Enough records that a first window's 200 ids (in title order) lie ~30 apart: many alone.
const N = 6_000;
// Titles out of id order, two records a title (ties broken by id); a few hold `task` only as the
// index folds it (the Kelvin sign), a few not at all, one with a dotted capital I.
const titleOf = (i: number): string => {
  const key = String(Math.floor(((i * 2741) % N) / 2)).padStart(4, '0');
  return i % 97 === 0 ? `Tas\u212A ${key}` : i % 11 === 0 ? `Report ${key}` : i % 89 === 0 ? `İSSUE ${key}` : `Task ${key}`;
};
const descriptionOf = (i: number): string | null => (i % 13 === 0 ? 'TASK in the description' : i % 5 === 0 ? null : `Steps ${i}`);
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'walked', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      insertImportedIssue(ctx, project, {
        iid: i,
        title: titleOf(i),
        description: descriptionOf(i),
        state: i % 4 === 0 ? 'closed' : 'opened',
        authorId: 1,
        labels: [],
        confidential: false,
        createdAt: createdAt(i),
        updatedAt: createdAt(i),
        importedFrom: 'none',
      });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

/** The ids the full-text index itself matches among the project's records that `extra` keeps, in `order`. */
function fromIndex(term: string, extra: string, order: string): number[] {
  const rows = s.service.context.db
    .prepare(
      `SELECT id FROM issues x WHERE x.project_id = ? AND ${extra}
         AND EXISTS (SELECT 1 FROM issues_search s WHERE s.issues_search MATCH ? AND s.rowid = (x.project_id << 32) + x.id) ORDER BY ${order}`,
    )
    .all(project, `{title description} : "${term}"`) as { id: number }[];
  return rows.map((r) => r.id);
}

describe("a project's search walked in title order", () => {
  it("checks a window's lone ids on their records: every page and header the index's, no probe of the index per id", async () => {
    const kelvin = new Set(
      (s.service.context.db.prepare('SELECT id FROM issues WHERE project_id = ? AND iid % 97 = 0').all(project) as { id: number }[]).map((r) => r.id),
    );
    for (const [query, extra] of [
      [{ order_by: 'title', sort: 'asc' }, '1 = 1'],
      [{ order_by: 'title', sort: 'desc' }, '1 = 1'],
      [{ order_by: 'title', sort: 'desc', state: 'closed' }, "x.state = 'closed'"],
    ] as [Record<string, string>, string][]) {
      const sort = query.sort === 'asc' ? 'ASC' : 'DESC';
      const want = fromIndex('task', extra, `x.title ${sort}, x.id ${sort}`);
      // A common term (the walk), Kelvin sign records among the matches.
      expect(want.length).toBeGreaterThan(1_000);
      expect(want.filter((id) => kelvin.has(id)).length).toBeGreaterThan(5);
      const probes = await statementReads(
        s,
        (sql) => sql.includes('AS found FROM issues_search'),
        // Pages within the walk (its first 1,000 matches): windows of 200 ids to 4,000.
        () => expectPagesOf(s, `/projects/${project}/issues`, { ...query, search: 'task' }, want, [1, 2, 7, 20, 50], JSON.stringify(query)),
        'get',
      );
      expect(probes, JSON.stringify(query)).toEqual([]);
    }
    // The walk was taken (a window of the list read), not the matches read and sorted.
    const windows = await statementReads(s, (sql) => sql.includes('json_group_array(id) AS ids'), () => s.get(`/projects/${project}/issues`, { query: { order_by: 'title', search: 'task', state: 'opened' } }), 'get');
    expect(windows.length).toBeGreaterThan(0);
  });
});
