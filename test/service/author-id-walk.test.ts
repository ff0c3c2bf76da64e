import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan, statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * An author's records (author_id, or the caller's own: created_by_me, the default of /issues and
 * /merge_requests) in an order walked by id (relative_position, popularity's rest, milestone_due's
 * segments): each project where the author's records show in the state (the filter counters) an
 * arm of its (project_id, state, id) index, the author checked on each record walked, not every
 * record of the author read by the author's index and sorted. Every page as the records say, for an
 * administrator and for a user who is not one (whose scope is the projects they see).
 */
let s: TestService;
let group: number;
let other: { user: { id: number }; token: string };
const projects: number[] = [];
let outside: number;

type Kind = 'issues' | 'merge_requests';
interface Row { id: number; project_id: number; state: string; author_id: number; milestone_id: number | null }
const db = () => s.service.context.db;
const TYPE = { issues: 'Issue', merge_requests: 'MergeRequest' } as const;

beforeAll(async () => {
  s = await TestService.start();
  other = await s.createUser();
  const voter = await s.createUser();
  group = (await s.createGroup({ visibility: 'public' })).id;
  for (const name of ['one', 'two', 'three']) projects.push((await s.createProject({ name, namespace_id: group, visibility: 'public' })).id);
  // A private project the other user does not see: root's and theirs both, left out of their lists.
  outside = (await s.createProject({ name: 'outside', visibility: 'private' })).id;
  const milestone = async (project: number, title: string, due?: string) => (await s.post(`/projects/${project}/milestones`, { title, ...(due ? { due_date: due } : {}) })).body.id as number;
  const ms: Record<number, (number | null)[]> = {};
  for (const p of [...projects, outside]) ms[p] = [await milestone(p, `m-${p}-a`, '2026-03-01'), await milestone(p, `m-${p}-b`, '2026-01-15'), await milestone(p, `m-${p}-c`), null, null];
  const ctx = s.service.context;
  const made: { kind: Kind; project: number; iid: number }[] = [];
  ctx.db.transaction(() => {
    let k = 0;
    for (const [project, n] of [[projects[0], 31], [projects[1], 23], [projects[2], 7], [outside, 9]] as const) {
      for (let i = 1; i <= n; i++) {
        k++;
        // The third project: only the other user's records; elsewhere one in three.
        const authorId = project === projects[2] || k % 3 === 0 ? other.user.id : 1;
        const at = new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString();
        const common = { iid: i, title: `Record ${k}`, description: null, authorId, createdAt: at, updatedAt: at, importedFrom: 'none' as const, milestoneId: ms[project][(k * 3) % 5] };
        const closed = k % 4 === 0;
        insertImportedIssue(ctx, project, { ...common, state: closed ? 'closed' : 'opened', confidential: false });
        insertImportedMergeRequest(ctx, project, { ...common, state: closed ? 'merged' : 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: closed ? at : null });
        if (k % 5 === 1) made.push({ kind: 'issues', project, iid: i }, { kind: 'merge_requests', project, iid: i });
      }
    }
  })();
  // Upvotes on a few of each (popularity's first segment).
  for (const { kind, project, iid } of made) {
    await s.post(`/projects/${project}/${kind}/${iid}/award_emoji`, { name: 'thumbsup' });
    if (iid % 2) await s.post(`/projects/${project}/${kind}/${iid}/award_emoji`, { name: 'thumbsup' }, { token: voter.token });
  }
}, 120_000);
afterAll(async () => s?.stop());

function expected(kind: Kind, order: string, sort: 'asc' | 'desc', keep: (r: Row) => boolean): number[] {
  const rows = (db().prepare(`SELECT * FROM ${kind}`).all() as Row[]).filter(keep);
  const dir = sort === 'asc' ? 1 : -1;
  const byIdDesc = (a: Row, b: Row) => b.id - a.id;
  if (order === 'relative_position') return rows.sort((a, b) => dir * (a.id - b.id)).map((r) => r.id);
  if (order === 'popularity') {
    const up = new Map((db().prepare("SELECT awardable_id AS id, count(*) AS n FROM award_emoji WHERE awardable_type = ? AND name = 'thumbsup' GROUP BY awardable_id").all(TYPE[kind]) as { id: number; n: number }[]).map((r) => [r.id, r.n]));
    return rows.sort((a, b) => dir * ((up.get(a.id) ?? 0) - (up.get(b.id) ?? 0)) || byIdDesc(a, b)).map((r) => r.id);
  }
  const due = new Map((db().prepare('SELECT id, due_date FROM milestones').all() as { id: number; due_date: string | null }[]).map((m) => [m.id, m.due_date]));
  const key = (r: Row) => (r.milestone_id === null ? 2 : due.get(r.milestone_id) ? 0 : 1);
  return rows
    .sort((a, b) => {
      if (key(a) !== key(b)) return key(a) - key(b);
      if (key(a) === 0) {
        const [da, db] = [due.get(a.milestone_id!)!, due.get(b.milestone_id!)!];
        if (da !== db) return dir * (da < db ? -1 : 1);
      }
      return byIdDesc(a, b);
    })
    .map((r) => r.id);
}

/** The lists: created_by_me (root and the other user), author_id on the instance (scope=all) and on the group. */
function lists(kind: Kind, state: string | undefined): { path: string; query: Record<string, string>; keep: (r: Row) => boolean; token?: string }[] {
  const inState = (r: Row): boolean => !state || r.state === state;
  const st: Record<string, string> = state ? { state } : {};
  const seen = (r: Row): boolean => r.project_id !== outside;
  const out: { path: string; query: Record<string, string>; keep: (r: Row) => boolean; token?: string }[] = [
    { path: `/${kind}`, query: st, keep: (r) => inState(r) && r.author_id === 1 },
    { path: `/${kind}`, query: st, keep: (r) => inState(r) && r.author_id === other.user.id && seen(r), token: other.token },
  ];
  for (const author of [1, other.user.id]) {
    out.push({ path: `/${kind}`, query: { ...st, scope: 'all', author_id: String(author) }, keep: (r) => inState(r) && r.author_id === author });
    out.push({ path: `/${kind}`, query: { ...st, scope: 'all', author_id: String(author) }, keep: (r) => inState(r) && r.author_id === author && seen(r), token: other.token });
    out.push({ path: `/groups/${group}/${kind}`, query: { ...st, author_id: String(author) }, keep: (r) => inState(r) && r.author_id === author && projects.includes(r.project_id) });
  }
  return out;
}

const ORDERS = { issues: ['relative_position', 'popularity', 'milestone_due'], merge_requests: ['popularity', 'milestone_due'] } as const;

describe("an author's records walked by id", () => {
  for (const kind of ['issues', 'merge_requests'] as const) {
    it(`${kind}: every page as the records say, each order, both directions, in a state or not`, async () => {
      for (const order of ORDERS[kind]) {
        for (const sort of ['asc', 'desc'] as const) {
          for (const state of [undefined, 'opened', kind === 'issues' ? 'closed' : 'merged']) {
            for (const { path, query, keep, token } of lists(kind, state)) {
              await expectEveryPage(s, path, { ...query, order_by: order, sort }, expected(kind, order, sort, keep), 4, token);
            }
          }
        }
      }
    }, 300_000);
  }

  it("walks the (project_id, state, id) index of each project with the author's records in the state, merged in id order, no sort", async () => {
    const walksOf = async (path: string, query: Record<string, string>, token?: string) =>
      (await pagedReads(s, async () => void (await s.get(path, { token, query: { ...query, per_page: '3', page: '2' } })))).filter((r) => /FROM (issues|merge_requests) x/.test(r.sql));
    for (const [path, query, arms, token] of [
      // Root's closed issues: the first two projects and the outside one; the other user's: all three of the group's (not the outside one, unseen).
      ['/issues', { state: 'closed', order_by: 'relative_position' }, 3],
      ['/issues', { state: 'closed', order_by: 'relative_position' }, 3, other.token],
      [`/groups/${group}/issues`, { state: 'closed', author_id: '1', order_by: 'relative_position' }, 2],
      ['/merge_requests', { state: 'merged', order_by: 'popularity' }, 3],
      // Its page in the milestones' segments: each (milestone, project, state) of the author's an arm.
      ['/merge_requests', { state: 'merged', order_by: 'milestone_due' }, null],
    ] as const) {
      const walks = await walksOf(path, query, token);
      expect(walks.length, `${path} ${JSON.stringify(query)}`).toBeGreaterThan(0);
      for (const w of walks) {
        expect(w.sql).toMatch(/INDEXED BY \w+_(project_state_id|milestone_project_state) /);
        expect(w.sql).not.toContain('NOT INDEXED');
      }
      const last = walks.at(-1)!;
      if (arms !== null) expect(last.sql.split(' UNION ALL ').length, `${path} ${JSON.stringify(query)}`).toBe(arms);
      const plan = queryPlan(db(), last.sql, ...last.args);
      expect(plan).not.toContain('TEMP B-TREE');
      expect(plan).not.toMatch(/USING INDEX \w+_author/);
    }
  });

  it("counts an administrator's own records (created_by_me) from the filter counters, not by walking them", async () => {
    const counts = async (path: string, query: Record<string, string>, token?: string) =>
      statementReads(s, (sql) => /count\(\*\)[\s\S]*FROM (issues|merge_requests) x/.test(sql), async () => void (await s.get(path, { token, query: { ...query, per_page: '3', page: '2' } })), 'get');
    for (const kind of ['issues', 'merge_requests'] as const) {
      for (const query of [{}, { state: 'opened' }, { milestone: 'None' }, { state: 'opened', milestone: 'None' }, { author_id: '1' }] as Record<string, string>[]) {
        expect(await counts(`/${kind}`, query), `${kind} ${JSON.stringify(query)}`).toEqual([]);
        await expectEveryPage(s, `/${kind}`, query, expected(kind, 'relative_position', 'desc', (r) => r.author_id === 1 && (!query.state || r.state === query.state) && (!query.milestone || r.milestone_id === null)), 5);
      }
      // Another author besides the caller: no record is both (counted by the list, none).
      await expectEveryPage(s, `/${kind}`, { author_id: String(other.user.id) }, [], 5);
      // A caller who is no administrator: their own records of the projects they see, read as
      // author_id=<theirs>&scope=all is (globalScope's ownRecords, own-records-scope.test.ts).
      const page = async (query: Record<string, string>) => {
        const res = await s.get(`/${kind}`, { token: other.token, query: { ...query, per_page: '3', page: '2' } });
        return [res.headers.get('x-total'), res.body.map((r: { id: number }) => r.id)];
      };
      expect(await page({})).toEqual(await page({ scope: 'all', author_id: String(other.user.id) }));
    }
  });
});
