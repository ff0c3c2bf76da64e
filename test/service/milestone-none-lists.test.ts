import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * milestone=None over many projects (a group's, the instance's lists): when the records without a
 * milestone are many (at least 1/8 of the scope's, by the filter counters) the list walks its order
 * and asks each record (`+x.milestone_id IS NULL`) instead of reading them all by the milestone
 * index and sorting them; when few, the index reads them. A project's list keeps its own
 * (project_id, milestone_id, created_at) index. Every page answers what the records say either way.
 */
let s: TestService;
let group: number;
const projects: number[] = [];
const milestones: number[] = [];

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  for (const name of ['one', 'two']) {
    const id = (await s.createProject({ name, namespace_id: group, visibility: 'public' })).id;
    projects.push(id);
    milestones.push((await s.post(`/projects/${id}/milestones`, { title: 'v1' })).body.id as number);
  }
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    let k = 0;
    for (const [p, project] of projects.entries()) {
      for (let i = 1; i <= 24; i++) {
        k++;
        const common = {
          iid: i,
          title: `${['Alpha', 'beta', 'Gamma'][k % 3]} ${k % 5}`,
          description: null,
          authorId: 1,
          labels: [],
          // One in four carries the project's milestone.
          milestoneId: k % 4 === 0 ? milestones[p] : null,
          createdAt: new Date(Date.UTC(2024, 0, 1) + ((k * 7) % 48) * 60_000).toISOString(),
          updatedAt: new Date(Date.UTC(2024, 2, 1) + ((k * 11) % 48) * 60_000).toISOString(),
          importedFrom: 'none' as const,
        };
        insertImportedIssue(ctx, project, { ...common, state: k % 3 ? 'opened' : 'closed', confidential: false });
        insertImportedMergeRequest(ctx, project, { ...common, state: k % 3 ? 'opened' : 'merged', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: k % 3 ? null : common.updatedAt });
      }
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

interface Row { id: number; project_id: number; milestone_id: number | null; created_at: string; updated_at: string; title: string; state: string; author_id: number }

function reference(table: string, column: 'created_at' | 'updated_at' | 'title', sort: string, within: number[], keep: (r: Row) => boolean = () => true): number[] {
  const rows = (s.service.context.db.prepare(`SELECT * FROM ${table}`).all() as Row[]).filter((r) => within.includes(r.project_id) && r.milestone_id === null && keep(r));
  const dir = sort === 'asc' ? 1 : -1;
  return rows.sort((a, b) => dir * (a[column] < b[column] ? -1 : a[column] > b[column] ? 1 : a.id - b.id)).map((r) => r.id);
}

/** The SQL of a list's page read (its LIMIT ... OFFSET). */
async function pageSql(path: string, query: Record<string, string>): Promise<{ sql: string; args: unknown[] }> {
  let res!: ApiResult;
  const reads = await pagedReads(s, async () => {
    res = await s.get(path, { query });
  });
  expect(res.status).toBe(200);
  const read = reads.find((r) => r.sql.includes('milestone_id IS NULL'));
  expect(read, path).toBeDefined();
  return read!;
}

describe('milestone=None', () => {
  it('answers every page as the records say, group, instance and project, each order and sort', async () => {
    for (const [path, within, extra] of [
      [`/groups/${group}/issues`, projects, {}],
      ['/issues', projects, { scope: 'all' }],
      [`/projects/${projects[0]}/issues`, [projects[0]], {}],
      [`/groups/${group}/merge_requests`, projects, {}],
      [`/projects/${projects[1]}/merge_requests`, [projects[1]], {}],
    ] as const) {
      for (const order of ['created_at', 'updated_at', 'title'] as const) {
        for (const sort of ['asc', 'desc']) {
          const table = path.endsWith('issues') ? 'issues' : 'merge_requests';
          await expectEveryPage(s, path, { ...extra, milestone: 'None', order_by: order, sort }, reference(table, order, sort, [...within]), 7);
        }
      }
    }
  });

  it("walks a group's order when many records carry no milestone, by the milestone index when few", async () => {
    const many = await pageSql(`/groups/${group}/issues`, { milestone: 'None', order_by: 'updated_at', sort: 'asc' });
    expect(many.sql).toContain('(+x.milestone_id IS NULL)');
    const plan = queryPlan(s.service.context.db, many.sql, ...many.args);
    // (A group this small reads its projects' records by the project index: scopeCondition; at scale the order's index.)
    expect(plan).not.toContain('issues_milestone');
    // A project's list: its (project_id, milestone_id, created_at) index.
    expect((await pageSql(`/projects/${projects[0]}/issues`, { milestone: 'None' })).sql).toContain('(x.milestone_id IS NULL)');
    // Most records given a milestone (by SQL: the counters follow by trigger): few left without one.
    const db = s.service.context.db;
    const before = db.prepare('SELECT id, milestone_id FROM issues').all() as { id: number; milestone_id: number | null }[];
    db.prepare('UPDATE issues SET milestone_id = (SELECT m.id FROM milestones m WHERE m.project_id = issues.project_id) WHERE id % 10 != 0').run();
    try {
      const few = await pageSql(`/groups/${group}/issues`, { milestone: 'None', order_by: 'updated_at', sort: 'asc' });
      expect(few.sql).toContain('(x.milestone_id IS NULL)');
      expect(few.sql).not.toContain('+x.milestone_id IS NULL');
      await expectEveryPage(s, `/groups/${group}/issues`, { milestone: 'None', order_by: 'updated_at', sort: 'asc' }, reference('issues', 'updated_at', 'asc', projects), 3);
    } finally {
      const put = db.prepare('UPDATE issues SET milestone_id = ? WHERE id = ?');
      db.transaction(() => before.forEach((r) => put.run(r.milestone_id, r.id)))();
    }
  });

  it('is counted from the filter counters with a state and an author, at every scope, for a caller who sees every record', async () => {
    const db = s.service.context.db;
    // Some records by another author (SQL: the counters follow by trigger).
    const other = (await s.createUser()).user.id as number;
    db.prepare('UPDATE issues SET author_id = ? WHERE id % 5 = 0').run(other);
    db.prepare('UPDATE merge_requests SET author_id = ? WHERE id % 5 = 0').run(other);
    for (const [path, within, extra] of [
      [`/projects/${projects[0]}/issues`, [projects[0]], {}],
      [`/groups/${group}/issues`, projects, {}],
      ['/issues', projects, { scope: 'all' }],
      [`/projects/${projects[1]}/merge_requests`, [projects[1]], {}],
      [`/groups/${group}/merge_requests`, projects, {}],
      ['/merge_requests', projects, { scope: 'all' }],
    ] as const) {
      const table = path.endsWith('issues') ? 'issues' : 'merge_requests';
      for (const state of [undefined, 'opened', table === 'issues' ? 'closed' : 'merged']) {
        for (const author of [undefined, other]) {
          const query: Record<string, string> = { ...extra, milestone: 'None', order_by: 'title', sort: 'asc', ...(state ? { state } : {}), ...(author ? { author_id: String(author) } : {}) };
          const want = reference(table, 'title', 'asc', [...within], (r) => (!state || r.state === state) && (!author || r.author_id === author));
          const sql = await preparedBy(s, () => expectEveryPage(s, path, query, want, 5));
          // No count of the records: the counters' milestone 0.
          expect(sql.filter((q) => /count\(\*\)/.test(q) && q.includes('milestone_id IS NULL')), `${path} ${JSON.stringify(query)}`).toEqual([]);
        }
      }
    }
    // A confidential issue: an administrator's count holds it, another caller's list does not.
    const hidden = db.prepare('SELECT id FROM issues WHERE milestone_id IS NULL AND project_id = ? ORDER BY id LIMIT 1').get(projects[0]) as { id: number };
    db.prepare('UPDATE issues SET confidential = 1 WHERE id = ?').run(hidden.id);
    try {
      const all = reference('issues', 'title', 'asc', [projects[0]]);
      await expectEveryPage(s, `/projects/${projects[0]}/issues`, { milestone: 'None', order_by: 'title', sort: 'asc' }, all, 5);
      const guest = await s.createUser();
      await expectEveryPage(s, `/projects/${projects[0]}/issues`, { milestone: 'None', order_by: 'title', sort: 'asc' }, all.filter((id) => id !== hidden.id), 5, guest.token);
    } finally {
      db.prepare('UPDATE issues SET confidential = 0 WHERE id = ?').run(hidden.id);
    }
  });
});
