import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * The caller's own records (`/issues`' and `/merge_requests`' default scope, created_by_me, over
 * every project) with milestone=None or Any in a state none of theirs meets it in is empty
 * (filter-plan.ts: the author's filter counters over every project, core/223's index), answered
 * without reading the list, while another author's records meet it; a state some of theirs meet it
 * in answers them; a milestone given shows the record at once. At scale an administrator's closed
 * issues with milestone=Any, none of them, walked the milestones' records to find none (270 ms).
 */
let s: TestService;
let other: number;
let projects: number[];
/** Each record: its type, id, iid, project, author, state and milestone. */
const records: { type: 'issues' | 'merge_requests'; id: number; iid: number; project: number; author: number; state: string; milestone: number | null }[] = [];

beforeAll(async () => {
  s = await TestService.start();
  other = (await s.createUser({ username: 'other-author' })).user.id;
  projects = [(await s.createProject({ name: 'own-one' })).id, (await s.createProject({ name: 'own-two' })).id];
  const milestones: number[] = [];
  for (const project of projects) milestones.push(ok(await s.post(`/projects/${project}/milestones`, { title: 'v1' })).id as number);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= 40; i++) {
      const p = i % 2;
      const author = i % 4 < 2 ? 1 : other;
      // The caller's closed records carry no milestone, the other author's all do; opened ones some.
      const state = i % 3 === 0 ? 'closed' : 'opened';
      const milestone = state === 'closed' ? (author === 1 ? null : milestones[p]) : i % 5 === 0 ? milestones[p] : null;
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      const issue = insertImportedIssue(ctx, projects[p], {
        iid: i, title: `Issue ${i}`, description: null, state, authorId: author, labels: [], confidential: false, milestoneId: milestone, createdAt: at, updatedAt: at, importedFrom: 'none',
      });
      records.push({ type: 'issues', id: issue.id, iid: i, project: projects[p], author, state, milestone });
      const mr = insertImportedMergeRequest(ctx, projects[p], {
        iid: i, title: `Change ${i}`, description: null, state, authorId: author, sourceBranch: `b-${i}`, targetBranch: 'main',
        baseSha: '0'.repeat(40), headSha: '1'.repeat(40), milestoneId: milestone, createdAt: at, updatedAt: at, importedFrom: 'none',
      });
      records.push({ type: 'merge_requests', id: mr.id, iid: i, project: projects[p], author, state, milestone });
    }
  })();
}, 60_000);
afterAll(async () => s?.stop());

const expected = (type: string, state: string, held: 'None' | 'Any', author: number | null): number[] =>
  records
    .filter((r) => r.type === type && r.state === state && (author === null || r.author === author) && (held === 'None' ? r.milestone === null : r.milestone !== null))
    .map((r) => r.id)
    .sort((a, b) => b - a);

/** Statements of the list itself (its rows or their label rows) a request prepared. */
const listReads = async (path: string, query: Record<string, string>): Promise<string[]> =>
  (await preparedBy(s, async () => void ok(await s.get(path, { query })))).filter((sql) => /\b(FROM|JOIN) (merge_requests x|issues x|issuable_labels il)\b/.test(sql));

describe("the caller's own records with milestone=None or Any in a state none of theirs meets it in", () => {
  it('empties the list without reading it; answers the records where some meet it', async () => {
    for (const type of ['issues', 'merge_requests'] as const) {
      const path = `/${type}`;
      for (const query of [{ state: 'closed', milestone: 'Any' }, { state: 'closed', milestone: 'any', scope: 'created_by_me' }] as Record<string, string>[]) {
        // Asked first: a page asked again may be kept from the first time.
        expect(await listReads(path, query), `${path} ${JSON.stringify(query)}`).toEqual([]);
        await expectEveryPage(s, path, query, [], 20);
      }
      // Another author's closed records meet it: every author's (scope=all), and theirs.
      expect(expected(type, 'closed', 'Any', null).length).toBeGreaterThan(0);
      await expectEveryPage(s, path, { state: 'closed', milestone: 'Any', scope: 'all' }, expected(type, 'closed', 'Any', null), 3);
      await expectEveryPage(s, path, { state: 'closed', milestone: 'Any', scope: 'all', author_id: String(other) }, expected(type, 'closed', 'Any', other), 3);
      for (const [state, milestone] of [['closed', 'None'], ['opened', 'None'], ['opened', 'Any']] as const) {
        await expectEveryPage(s, path, { state, milestone }, expected(type, state, milestone, 1), 3);
      }
    }
  });

  it('shows a record once it is given a milestone', async () => {
    for (const type of ['issues', 'merge_requests'] as const) {
      const one = records.find((r) => r.type === type && r.state === 'closed' && r.author === 1)!;
      const milestone = ok(await s.get(`/projects/${one.project}/milestones`)).find((m: { title: string }) => m.title === 'v1').id as number;
      ok(await s.put(`/projects/${one.project}/${type}/${one.iid}`, { milestone_id: milestone }));
      one.milestone = milestone;
      await expectEveryPage(s, `/${type}`, { state: 'closed', milestone: 'Any' }, [one.id], 20);
    }
  });
});
