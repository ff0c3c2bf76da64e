import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * An administrator's whole-instance list (scope=all) in one state, in an order walked by id
 * (relative_position, popularity's rest, milestone_due's segments): each project's records in the
 * state read by its (project_id, state, id) index as an arm, the arms merged in id order, not the
 * whole table walked past the other states' records. Every page as the records say.
 */
let s: TestService;
const projects: number[] = [];

beforeAll(async () => {
  s = await TestService.start();
  const group = (await s.createGroup({ visibility: 'public' })).id;
  for (const name of ['one', 'two', 'three']) projects.push((await s.createProject({ name, namespace_id: group, visibility: 'public' })).id);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let k = 1; k <= 60; k++) {
      const project = projects[k % 3];
      const common = { iid: k, title: `Record ${k}`, description: null, authorId: 1, labels: [], createdAt: new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString(), importedFrom: 'none' as const };
      insertImportedIssue(ctx, project, { ...common, updatedAt: common.createdAt, state: k % 4 === 0 ? 'closed' : 'opened', confidential: false });
      insertImportedMergeRequest(ctx, project, { ...common, updatedAt: common.createdAt, state: k % 4 === 0 ? 'merged' : 'opened', sourceBranch: `f-${k}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: null });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const idsIn = (table: string, state: string, dir: 'asc' | 'desc'): number[] =>
  (s.service.context.db.prepare(`SELECT id FROM ${table} WHERE state = ? ORDER BY id ${dir}`).all(state) as { id: number }[]).map((r) => r.id);

describe("the instance's list in one state, walked by id", () => {
  it("answers every page, each project's state an arm of its (project_id, state, id) index", async () => {
    for (const [path, table, state, order_by] of [
      ['/issues', 'issues', 'closed', 'relative_position'],
      ['/issues', 'issues', 'opened', 'popularity'],
      ['/merge_requests', 'merge_requests', 'merged', 'popularity'],
    ] as const) {
      for (const sort of order_by === 'relative_position' ? (['asc', 'desc'] as const) : (['desc'] as const)) {
        const query = { scope: 'all', state, order_by, sort };
        const reads = await pagedReads(s, () => expectEveryPage(s, path, query, idsIn(table, state, sort), 4));
        const walks = reads.filter((r) => r.sql.includes(`FROM ${table} x`));
        expect(walks.length, `${path} ${JSON.stringify(query)}`).toBeGreaterThan(0);
        for (const w of walks) {
          expect(w.sql).toContain(`INDEXED BY ${table}_project_state_id`);
          expect(w.sql).not.toContain('NOT INDEXED');
        }
      }
    }
  });
});
