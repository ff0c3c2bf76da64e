import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, idsByMergedAt, pagedReads, queryPlan } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A project's merge requests of one state by merged_at (core/298): the page is a walk of the
 * (project_id, state, merged_at, id) index from the state on, not a walk of every merged one first
 * (the state's records all at the NULL end) nor a sort. The rows, order and headers are the
 * records' either way, an imported opened one with a merge date among them. An author's list walks
 * the author's entries of (project_id, author_id, merged_at, id, state, milestone_id) (core/319).
 */
let s: TestService;
let project: number;
const N = 90;
const HOUR = 3_600_000;
const STATES = ['opened', 'closed', 'merged'] as const;

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'merged-at-states', visibility: 'public' })).id;
  const other = (await s.createUser({ username: 'second-author' })).user as { id: number };
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const state = STATES[i % 3];
      const createdAt = new Date(Date.UTC(2024, 0, 1) + i * HOUR).toISOString();
      // Merge dates out of id order, two records sharing one; an imported opened record (i = 4) carries one too.
      const mergedAt = state === 'merged' || i === 4 ? new Date(Date.UTC(2024, 2, 1) + ((i * 37) % 25) * HOUR).toISOString() : null;
      insertImportedMergeRequest(ctx, project, {
        iid: i,
        title: `change ${i}`,
        description: null,
        authorId: i % 4 === 0 ? other.id : 1,
        labels: [],
        milestoneId: null,
        createdAt,
        updatedAt: createdAt,
        importedFrom: 'none',
        state,
        sourceBranch: `f-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        mergedAt,
      });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

interface Row {
  id: number;
  state: string;
  author_id: number;
  merged_at: string | null;
}

/** The project's records meeting `keep` by merged_at (NULL lowest, as SQLite), ties by id in the same direction. */
function want(sort: 'asc' | 'desc', keep: (r: Row) => boolean): number[] {
  const rows = s.service.context.db.prepare('SELECT id, state, author_id, merged_at FROM merge_requests WHERE project_id = ?').all(project) as Row[];
  return idsByMergedAt(rows.filter(keep), sort);
}

describe("a project's merge requests of one state by merged_at", () => {
  it('walk the (project, state, merged_at) index, no sort; every page as the records say', async () => {
    const author = (s.service.context.db.prepare("SELECT id FROM users WHERE username = 'second-author'").get() as { id: number }).id;
    expect(want('desc', (r) => r.author_id === author)).toHaveLength(22);
    const path = `/projects/${project}/merge_requests`;
    for (const state of STATES) {
      for (const sort of ['desc', 'asc'] as const) {
        for (const authorId of [undefined, 1, author]) {
          const query: Record<string, string> = { state, order_by: 'merged_at', sort, ...(authorId ? { author_id: String(authorId) } : {}) };
          const what = JSON.stringify(query);
          const reads = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '7', page: '2' } })));
          if (authorId !== author) {
            // The second author's 22 records take another reader (no paged read of the list's SQL); the others' pages walk the index.
            expect(reads, what).toHaveLength(1);
            const plan = queryPlan(s.service.context.db, reads[0].sql, ...reads[0].args);
            // An author's: the author's entries of core/319's index, each entry's state in it. (A state none
            // of whose records has a merge date seeks its NULL end too: order-merged-at.ts.)
            expect(plan, what).toContain(authorId ? 'INDEX merge_requests_project_author_merged (project_id=? AND author_id=?' : 'INDEX merge_requests_project_state_merged (project_id=? AND state=?');
            expect(plan, what).not.toContain('TEMP B-TREE');
          }
          await expectEveryPage(s, path, query, want(sort, (r) => r.state === state && (!authorId || r.author_id === authorId)), 7);
        }
      }
    }
  });
});
