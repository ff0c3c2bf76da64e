import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { pagedReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { PRIORITY_LIMITS } from '../../src/main/service/areas/core/order-label-priority';

/**
 * A group's issues and merge requests by label_priority (the records without a prioritized label
 * walked in id order, newest first, after the keyed ones): a deep page of that rest starts at the
 * row an earlier page read (anchors at the group's records' version: the sum of its projects'
 * list versions, the projects' ids in the key), as a project's does, while the list's SQL reads
 * only its records; a write to a project or elsewhere keeps them, a write to a record moves them.
 * Every page as the records say: label priority ascending (records without one last), ties newest
 * first; milestone=Any and a state as filters.
 */
let s: TestService;
let group: number;
const projects: number[] = [];
const N = 1_500;

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  for (const name of ['a', 'b']) projects.push((await s.createProject({ name, namespace_id: group, visibility: 'public' })).id);
  const ctx = s.service.context;
  const milestones: number[] = [];
  for (const [k, p] of projects.entries()) {
    ok(await s.post(`/projects/${p}/labels`, { name: 'hot', color: '#FF0000', priority: 1 + k }));
    ok(await s.post(`/projects/${p}/labels`, { name: 'warm', color: '#FF0000', priority: 5 - k }));
    milestones.push(ok(await s.post(`/projects/${p}/milestones`, { title: `m${k}` })).id);
  }
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      for (const [k, p] of projects.entries()) {
        const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
        const labels = i % 97 === 7 ? ['hot'] : i % 89 === 3 ? ['warm', 'other'] : i % 5 !== 0 ? ['other'] : [];
        const common = { iid: i, title: `Item ${i}`, description: null, authorId: 1, labels, createdAt: at, updatedAt: at, importedFrom: 'none', milestoneId: i % 3 ? milestones[k] : null };
        insertImportedIssue(ctx, p, { ...common, state: i % 7 === 0 ? 'closed' : 'opened', confidential: false });
        insertImportedMergeRequest(ctx, p, { ...common, state: i % 7 === 0 ? 'merged' : 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) } as never);
      }
    }
  })();
  PRIORITY_LIMITS.walkBound = 1;
}, 120_000);
afterAll(async () => {
  PRIORITY_LIMITS.walkBound = undefined;
  await s?.stop();
});

type Table = 'issues' | 'merge_requests';
interface Case { milestone?: string; state?: string }

function want(table: Table, c: Case): number[] {
  const db = s.service.context.db;
  const rows = db
    .prepare(
      `SELECT x.id, x.labels, x.state, x.milestone_id, (SELECT json_group_object(l.title, l.priority) FROM labels l WHERE l.project_id = x.project_id AND l.priority IS NOT NULL) AS priorities
        FROM ${table} x WHERE x.project_id IN (${projects.join(',')})`,
    )
    .all() as { id: number; labels: string; state: string; milestone_id: number | null; priorities: string }[];
  const keyed = rows
    .filter((r) => (!c.state || r.state === c.state) && (c.milestone !== 'Any' || r.milestone_id !== null))
    .map((r) => {
      const priorities = JSON.parse(r.priorities) as Record<string, number>;
      const own = (JSON.parse(r.labels) as string[]).filter((t) => priorities[t] !== undefined).map((t) => priorities[t]);
      return { id: r.id, priority: own.length ? Math.min(...own) : null };
    });
  keyed.sort((a, b) => (a.priority === b.priority ? b.id - a.id : a.priority === null ? 1 : b.priority === null ? -1 : a.priority - b.priority));
  return keyed.map((r) => r.id);
}

const query = (c: Case): Record<string, string> => ({ order_by: 'label_priority', sort: 'asc', ...c });
const CASES: Case[] = [{}, { milestone: 'Any' }, { milestone: 'Any', state: 'opened' }];
const TABLES: Table[] = ['issues', 'merge_requests'];

async function pages(table: Table, c: Case, list: number[]): Promise<void> {
  const all = want(table, c);
  for (const page of list) {
    const res = await s.get(`/groups/${group}/${table}`, { query: { ...query(c), per_page: '20', page: String(page) } });
    const what = `${table} ${JSON.stringify(c)} page ${page}`;
    expect((res.body as { id: number }[]).map((e) => e.id), what).toEqual(all.slice((page - 1) * 20, page * 20));
    expect(res.headers.get('x-total'), what).toBe(String(all.length));
    expect(res.headers.get('x-next-page'), what).toBe(page * 20 < all.length ? String(page + 1) : '');
  }
}

const DEEP = [1, 2, 60, 61, 62, 66, 65, 70];

describe("a group's list by label_priority, the rest walked in id order", () => {
  it('pages as the records say, in turn and out of turn', async () => {
    for (const table of TABLES) for (const c of CASES) await pages(table, c, DEEP);
  }, 120_000);

  it('reads a deep page from the anchor of the page before, kept across writes elsewhere', async () => {
    const path = `/groups/${group}/issues`;
    const q = { ...query({ milestone: 'Any' }), per_page: '20' };
    // The rest's read of a page not read before, right after the page before it.
    const deep = async (page: number) => {
      await s.get(path, { query: { ...q, page: String(page - 1) } });
      return (await pagedReads(s, async () => void (await s.get(path, { query: { ...q, page: String(page) } })))).filter((r) => r.sql.includes('NOT INDEXED'));
    };
    const fromAnchor = (reads: { sql: string; args: unknown[] }[]) => {
      expect(reads).toHaveLength(1);
      expect(reads[0].sql).toContain('(x.id, x.id) <');
      expect(reads[0].args.at(-1)).toBe(0);
    };
    fromAnchor(await deep(72));
    // A project's description and another group's issue: the anchors kept.
    ok(await s.put(`/projects/${projects[1]}`, { description: 'touched' }));
    const elsewhere = (await s.createProject({ name: 'elsewhere', visibility: 'public' })).id;
    ok(await s.post(`/projects/${elsewhere}/issues`, { title: 'Elsewhere' }));
    const after = (await pagedReads(s, async () => void (await s.get(path, { query: { ...q, page: '73' } })))).filter((r) => r.sql.includes('NOT INDEXED'));
    fromAnchor(after);
  });

  it('follows writes to the records, the labels and the group', async () => {
    const [a, b] = projects;
    ok(await s.put(`/projects/${a}/issues/400`, { description: 'kept' }));
    for (const table of TABLES) for (const c of CASES) await pages(table, c, DEEP);
    // Records of the rest written (the keyed ones the same): one added, one deleted, one closed, a milestone dropped.
    ok(await s.post(`/projects/${a}/issues`, { title: 'new one', milestone_id: (s.service.context.db.prepare("SELECT id FROM milestones WHERE title = 'm0'").get() as { id: number }).id }));
    ok(await s.post(`/projects/${b}/merge_requests`, { title: 'new one', source_branch: 'new', target_branch: 'main', milestone_id: (s.service.context.db.prepare("SELECT id FROM milestones WHERE title = 'm1'").get() as { id: number }).id }));
    s.service.context.db.prepare('DELETE FROM issues WHERE project_id = ? AND iid = 1000').run(b);
    ok(await s.put(`/projects/${b}/issues/1201`, { state_event: 'close' }));
    ok(await s.put(`/projects/${a}/issues/1202`, { milestone_id: 0 }));
    for (const table of TABLES) for (const c of CASES) await pages(table, c, DEEP);
    // Relabelled, into the keyed ones and out of them.
    ok(await s.put(`/projects/${a}/issues/401`, { labels: 'hot' }));
    ok(await s.put(`/projects/${b}/issues/7`, { labels: 'other' }));
    ok(await s.put(`/projects/${b}/merge_requests/405`, { labels: 'warm' }));
    for (const table of TABLES) for (const c of CASES) await pages(table, c, DEEP);
    // A priority changed (no record written), a project moved out of the group (no record written).
    const warm = (s.service.context.db.prepare("SELECT id FROM labels WHERE title = 'warm' AND project_id = ?").get(a) as { id: number }).id;
    ok(await s.put(`/projects/${a}/labels/${warm}`, { priority: 0 }));
    for (const table of TABLES) for (const c of CASES) await pages(table, c, DEEP);
    const other = (await s.createGroup({ visibility: 'public' })).id;
    s.service.context.db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(other, b);
    projects.pop();
    for (const table of TABLES) for (const c of CASES) await pages(table, c, [1, 2, 40, 41, 43, 42]);
  }, 120_000);
});
