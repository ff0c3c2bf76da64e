import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A list's count within 10,000 (its length) read from its SQL is kept while the records' version
 * stays (count-versions.ts: a project's list version, the sum of a group's projects' with their ids
 * in the key, the instance's write log): a group's count names its projects (`x.project_id IN
 * (SELECT p.id FROM projects p ...)`), so the statement's own remembered answer went at every write
 * to any project. A write to a record of the scope, or a project leaving it, counts again; every
 * page and header as the records say.
 */
let s: TestService;
let group = 0;
const projects: number[] = [];
let outside = 0;
const N = 130;
const SINCE = '2024-03-01T00:00:00Z';

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  for (const name of ['a', 'b']) projects.push((await s.createProject({ name, namespace_id: group })).id);
  outside = (await s.createProject({ name: 'outside' })).id;
  ok(await s.post(`/projects/${outside}/issues`, { title: 'Elsewhere' }));
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      for (const p of projects) {
        const at = new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toISOString();
        const labels = i % 4 ? ['bug'] : [];
        const common = { iid: i, title: `Item ${i}`, description: null, authorId: 1, labels, createdAt: at, updatedAt: at, importedFrom: 'none', assigneeIds: [] };
        insertImportedIssue(ctx, p, { ...common, state: i % 3 ? 'opened' : 'closed', confidential: false });
        insertImportedMergeRequest(ctx, p, {
          ...common, state: i % 3 ? 'merged' : 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: i % 3 ? at : null,
        } as never);
      }
    }
  })();
}, 120_000);
afterAll(async () => s?.stop());

type Table = 'issues' | 'merge_requests';
const STATE = { issues: 'opened', merge_requests: 'merged' } as const;
const query = (table: Table) => ({ state: STATE[table], labels: 'Any', created_after: SINCE });

function want(table: Table): number[] {
  const rows = s.service.context.db.prepare(`SELECT id, project_id, state, labels, created_at FROM ${table} ORDER BY created_at DESC, id DESC`).all() as { id: number; project_id: number; state: string; labels: string; created_at: string }[];
  return rows.filter((r) => projects.includes(r.project_id) && r.state === STATE[table] && r.labels !== '[]' && r.created_at >= '2024-03-01T00:00:00.000Z').map((r) => r.id);
}

const counts = (table: Table, sql: string[]): string[] => sql.filter((q) => q.startsWith(`SELECT count(*) AS n FROM (SELECT 1 FROM ${table} x WHERE`));
const read = async (table: Table) => preparedBy(s, async () => void ok(await s.get(`/groups/${group}/${table}`, { query: { ...query(table), per_page: '20', page: '2' } })));

describe("a scope's count within 10,000, kept at the records' version", () => {
  for (const table of ['merge_requests', 'issues'] as const) {
    it(`${table}: counted once, not again after writes elsewhere; again after writes to the group's records and its projects`, async () => {
      const path = `/groups/${group}/${table}`;
      await expectEveryPage(s, path, query(table), want(table), 20);
      expect(counts(table, await read(table))).toEqual([]);
      // Writes to a project (the group's own), another project's record, a project outside.
      ok(await s.put(`/projects/${projects[1]}`, { description: 'touched' }));
      ok(await s.put(`/projects/${outside}`, { description: 'touched' }));
      ok(await s.put(`/projects/${outside}/issues/1`, { description: 'touched' }));
      expect(counts(table, await read(table))).toEqual([]);
      await expectEveryPage(s, path, query(table), want(table), 20);
      // A record of the group that leaves the list (its labels dropped), and one that enters it.
      ok(await s.put(`/projects/${projects[0]}/${table}/${N - 1}`, { labels: '' }));
      expect(counts(table, await read(table)).length).toBeGreaterThan(0);
      await expectEveryPage(s, path, query(table), want(table), 20);
      s.service.context.db.prepare(`UPDATE ${table} SET labels = '["bug"]' WHERE project_id = ? AND iid = ?`).run(projects[1], N - 4);
      await expectEveryPage(s, path, query(table), want(table), 20);
    }, 120_000);
  }

  it('follows a project moved out of the group in SQL (no record written)', async () => {
    const other = (await s.createGroup({ visibility: 'private' })).id;
    s.service.context.db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(other, projects[1]);
    projects.pop();
    for (const table of ['merge_requests', 'issues'] as const) await expectEveryPage(s, `/groups/${group}/${table}`, query(table), want(table), 20);
  }, 120_000);
});
