import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * my_reaction_emoji=None from a caller who reacted to no record of the type is no filter (every
 * record has none of their reactions): the list is read by the readers of its other filters, no
 * NOT EXISTS per record. Once they react, it filters again. Every page and header against the records.
 */
let s: TestService;
let project: number;
const N = 45;
const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  const group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'reactions', namespace_id: group, visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const common = { iid: i, title: `${['Alpha', 'beta', 'Gamma'][i % 3]} ${(i * 7) % 11}`, description: null, authorId: 1, labels: i % 2 === 0 ? ['bug'] : [], milestoneId: null, createdAt: at(i), updatedAt: at(i), importedFrom: 'none' };
      insertImportedMergeRequest(ctx, project, { ...common, state: 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: null });
      insertImportedIssue(ctx, project, { ...common, state: 'opened', confidential: false });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

interface Rec {
  id: number;
  iid: number;
  title: string;
  labels: string;
}
/** The records with `bug`, by title descending (then id descending), less those `reacted` holds. */
function want(table: string, reacted: Set<number>): number[] {
  const rows = s.service.context.db.prepare(`SELECT id, iid, title, labels FROM ${table} WHERE project_id = ?`).all(project) as Rec[];
  return rows
    .filter((r) => (JSON.parse(r.labels) as string[]).includes('bug') && !reacted.has(r.iid))
    .sort((a, b) => (a.title < b.title ? 1 : a.title > b.title ? -1 : b.id - a.id))
    .map((r) => r.id);
}
const query = { state: 'opened', labels: 'bug', order_by: 'title', my_reaction_emoji: 'None' };
const perRecord = (sql: string[]): string[] => sql.filter((q) => q.includes('NOT EXISTS (SELECT 1 FROM award_emoji'));

describe('my_reaction_emoji=None', () => {
  it('is no filter for a caller with no reactions, and filters once they react', async () => {
    for (const [kind, table] of [['merge_requests', 'merge_requests'], ['issues', 'issues']] as const) {
      const paths = [`/projects/${project}/${kind}`, `/${kind}`];
      for (const path of paths) {
        const q = path.startsWith('/projects') ? query : { ...query, scope: 'all' };
        const sql = await preparedBy(s, () => expectEveryPage(s, path, q, want(table, new Set()), 7));
        expect(perRecord(sql), path).toEqual([]);
      }
      const reacted = new Set([2, 8, 30]);
      for (const iid of reacted) expect((await s.post(`/projects/${project}/${kind}/${iid}/award_emoji`, { name: 'thumbsup' })).status).toBe(201);
      for (const path of paths) {
        const q = path.startsWith('/projects') ? query : { ...query, scope: 'all' };
        const sql = await preparedBy(s, () => expectEveryPage(s, path, q, want(table, reacted), 7));
        expect(perRecord(sql).length, path).toBeGreaterThan(0);
      }
    }
  }, 60_000);
});
