import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * milestone=None or Any in a state no record of the scope meets it in (the filter counters, core/018
 * and core/028: milestone 0 for none) is empty (filter-plan.ts): answered without reading the list,
 * at a project and a group; a state some record meets it in answers its records; and a write that
 * takes a milestone off shows the record at once. At scale a project's merged merge requests (all
 * with a milestone) with milestone=None walked a million records to find none: 310 ms.
 */
let s: TestService;
let group: number;
let project: number;
let milestone: number;
/** The merge requests: id, iid, state and milestone. */
const mrs: { id: number; iid: number; state: string; milestone: number | null }[] = [];

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup()).id;
  project = (await s.createProject({ namespace_id: group })).id;
  milestone = ok(await s.post(`/projects/${project}/milestones`, { title: 'v1' })).id as number;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= 30; i++) {
      // Merged ones all carry the milestone, closed ones none, opened ones some.
      const state = i % 3 === 0 ? 'merged' : i % 3 === 1 ? 'closed' : 'opened';
      const m = state === 'merged' || (state === 'opened' && i % 2 === 0) ? milestone : null;
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      const row = insertImportedMergeRequest(ctx, project, {
        iid: i, title: `Change ${i}`, description: null, state, authorId: 1, sourceBranch: `b-${i}`, targetBranch: 'main',
        baseSha: '0'.repeat(40), headSha: '1'.repeat(40), milestoneId: m, createdAt: at, updatedAt: at, importedFrom: 'none',
      });
      mrs.push({ id: row.id, iid: i, state, milestone: m });
    }
  })();
}, 60_000);
afterAll(async () => s?.stop());

const expected = (state: string, held: 'None' | 'Any'): number[] =>
  mrs.filter((m) => m.state === state && (held === 'None' ? m.milestone === null : m.milestone !== null)).map((m) => m.id).sort((a, b) => b - a);

/** Statements of the list itself (its rows or their label rows) a request prepared. */
const listReads = async (path: string, query: Record<string, string>): Promise<string[]> =>
  (await preparedBy(s, async () => void ok(await s.get(path, { query })))).filter((sql) => /\bFROM (merge_requests x|issuable_labels il)\b/.test(sql));

const paths = (): string[] => [`/projects/${project}/merge_requests`, `/groups/${group}/merge_requests`];

describe('milestone=None or Any in a state no record meets it in', () => {
  it('empties the list without reading it; answers the records where some meet it', async () => {
    for (const path of paths()) {
      for (const [state, milestone] of [['merged', 'None'], ['closed', 'Any'], ['closed', 'any'], ['merged', 'none']] as const) {
        const query = { state, milestone };
        await expectEveryPage(s, path, query, [], 20);
        expect(await listReads(path, query), `${path} ${state} ${milestone}`).toEqual([]);
      }
      for (const [state, milestone] of [['merged', 'Any'], ['closed', 'None'], ['opened', 'None'], ['opened', 'Any']] as const) {
        await expectEveryPage(s, path, { state, milestone }, expected(state, milestone), 3);
      }
    }
  });

  it('shows a record once its milestone is taken off', async () => {
    const one = mrs.find((m) => m.state === 'merged')!;
    ok(await s.put(`/projects/${project}/merge_requests/${one.iid}`, { milestone_id: 0 }));
    one.milestone = null;
    for (const path of paths()) await expectEveryPage(s, path, { state: 'merged', milestone: 'None' }, [one.id], 20);
  });
});
