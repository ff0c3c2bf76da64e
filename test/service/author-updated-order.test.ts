import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * An author's records by updated_at (author_id, or /issues' and /merge_requests' default: the
 * caller's own) with other filters read their page in order from core/208's (author_id,
 * updated_at, id) index, where SQLite read every match of the author by (author_id, created_at)
 * and sorted them. Every page and header as the records say.
 */
let s: TestService;
let group = 0;
const projects: number[] = [];
let root = 0;
let other = 0;
const N = 60;

beforeAll(async () => {
  s = await TestService.start();
  root = ok(await s.get('/user')).id;
  other = (await s.createUser()).user.id;
  group = (await s.createGroup({ visibility: 'public' })).id;
  for (const name of ['a', 'b']) projects.push((await s.createProject({ name, namespace_id: group, visibility: 'public' })).id);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      for (const p of projects) {
        // Updated out of creation (and id) order; a few by another author; labels on some.
        const created = new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();
        const updated = new Date(Date.UTC(2024, 6, 1) + ((i * 37) % N) * 3_600_000).toISOString();
        const common = { iid: i, title: `Item ${i}`, description: null, authorId: i % 5 === 0 ? other : root, labels: i % 3 ? ['bug'] : ['x'], createdAt: created, updatedAt: updated, importedFrom: 'none', assigneeIds: [] };
        insertImportedIssue(ctx, p, { ...common, state: i % 4 ? 'opened' : 'closed', confidential: false });
        insertImportedMergeRequest(ctx, p, { ...common, state: i % 4 ? 'opened' : 'merged', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) } as never);
      }
    }
  })();
}, 120_000);
afterAll(async () => s?.stop());

type Table = 'issues' | 'merge_requests';
interface Row { id: number; author_id: number; state: string; labels: string; updated_at: string }

function want(table: Table, author: number, state: string | null, without: string, sort: 'asc' | 'desc'): number[] {
  const rows = s.service.context.db.prepare(`SELECT id, author_id, state, labels, updated_at FROM ${table}`).all() as Row[];
  const dir = sort === 'asc' ? 1 : -1;
  return rows
    .filter((r) => r.author_id === author && (state === null || r.state === state) && !(JSON.parse(r.labels) as string[]).includes(without))
    .sort((a, b) => dir * (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : a.id - b.id))
    .map((r) => r.id);
}

describe("an author's records by updated_at", () => {
  it("read in order from the (author_id, updated_at, id) index with other filters, every page: the caller's own, author_id over a group", async () => {
    for (const table of ['issues', 'merge_requests'] as const) {
      const closed = table === 'issues' ? 'closed' : 'merged';
      const lists: [string, Record<string, string>, number, string | null][] = [
        [`/${table}`, { state: closed, 'not[labels]': 'x' }, root, closed],
        [`/${table}`, { 'not[labels]': 'bug' }, root, null],
        [`/groups/${group}/${table}`, { author_id: String(other), state: 'opened', 'not[labels]': 'x' }, other, 'opened'],
      ];
      for (const [path, filter, author, state] of lists) {
        for (const sort of ['asc', 'desc'] as const) {
          const query = { ...filter, order_by: 'updated_at', sort };
          const without = filter['not[labels]'];
          await expectEveryPage(s, path, query, want(table, author, state, without, sort), 7);
          // At another page length (a page asked again whole is kept at its version: scope-page-rows).
          const reads = await pagedReads(s, async () => void ok(await s.get(path, { query: { ...query, per_page: '6', page: '2' } })));
          const page = reads.find((r) => r.sql.includes('ORDER BY x.updated_at'));
          expect(page, `${path} ${JSON.stringify(query)}`).toBeDefined();
          const plan = queryPlan(s.service.context.db, page!.sql, ...page!.args);
          expect(plan, `${path} ${JSON.stringify(query)}`).toMatch(new RegExp(`SEARCH x USING (COVERING )?INDEX ${table}_author_updated \\(author_id=\\?\\)`));
          expect(plan).not.toContain('TEMP B-TREE FOR ORDER BY');
        }
      }
    }
  }, 120_000);
});
