import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage } from '../helpers/lists';

/**
 * A milestone's issues and merge requests (GET /projects/:id/milestones/:milestone_id/issues, the
 * group's too) in GitLab's order: API::MilestoneResponses finds them with `sort: 'label_priority'`,
 * so the record whose labels hold the highest priority (lowest number) in its project comes first,
 * records without a prioritized label last, each group newest id first (Issuable's
 * order_labels_priority, nulls last, with_order_id_desc). Every page and header against the
 * records' own labels and the projects' label priorities, before and after writes.
 */
let s: TestService;
let group: number;
let projectA: number;
let projectB: number;
let outsider: { id: number; token: string };
const milestones: Record<string, number> = {};

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  projectA = (await s.createProject({ name: 'a', namespace_id: group, visibility: 'public' })).id;
  projectB = (await s.createProject({ name: 'b', namespace_id: group, visibility: 'public' })).id;
  const u = await s.createUser();
  outsider = { id: u.user.id, token: u.token };
  // The same titles, prioritized differently in each project; `plain` nowhere; `Urgent` only in A.
  for (const [project, priorities] of [
    [projectA, { p1: 1, p2: 2, p5: 5, plain: null, Urgent: 0 }],
    [projectB, { p1: 7, p2: 2, p5: null, plain: null }],
  ] as const) {
    for (const [name, priority] of Object.entries(priorities)) ok(await s.post(`/projects/${project}/labels`, { name, color: '#FF0000', ...(priority === null ? {} : { priority }) }));
  }
  ok(await s.post(`/groups/${group}/labels`, { name: 'grouped', color: '#00FF00' }));
  milestones.a = ok(await s.post(`/projects/${projectA}/milestones`, { title: 'release' })).id;
  milestones.quiet = ok(await s.post(`/projects/${projectA}/milestones`, { title: 'quiet' })).id;
  milestones.group = ok(await s.post(`/groups/${group}/milestones`, { title: 'together' })).id;
  const combos = [[], ['p1'], ['p2'], ['p5'], ['plain'], ['p5', 'p2'], ['grouped'], ['plain', 'p1'], ['Urgent'], ['grouped', 'p5']];
  for (let i = 0; i < 34; i++) {
    const labels = combos[i % combos.length].join(',');
    const confidential = i % 11 === 5;
    ok(await s.post(`/projects/${projectA}/issues`, { title: `A ${i}`, labels, milestone_id: milestones.a, confidential }));
    ok(await s.post(`/projects/${projectA}/issues`, { title: `Q ${i}`, labels: i % 3 ? 'plain' : '', milestone_id: milestones.quiet }));
    ok(await s.post(`/projects/${i % 2 ? projectA : projectB}/issues`, { title: `G ${i}`, labels, milestone_id: milestones.group, confidential }));
    ok(await s.post(`/projects/${projectA}/merge_requests`, { title: `MR ${i}`, source_branch: `f-${i}`, target_branch: 'main', labels, milestone_id: milestones.a }));
  }
}, 120_000);
afterAll(async () => s.stop());

/** The records' order as GitLab gives it, from their own labels JSON and the project labels' priorities. */
function expected(table: 'issues' | 'merge_requests', milestone: number, viewer?: number): number[] {
  const db = s.service.context.db;
  const rows = db
    .prepare(
      `SELECT x.id, min(
          coalesce((SELECT min(l.priority) FROM json_each(x.labels) j JOIN labels l ON l.project_id = x.project_id AND l.title = j.value WHERE l.priority IS NOT NULL), 1e9),
          coalesce((SELECT min(lp.priority) FROM json_each(x.labels) j JOIN labels l ON l.group_id IS NOT NULL AND l.title = j.value JOIN label_priorities lp ON lp.label_id = l.id AND lp.project_id = x.project_id), 1e9)) AS priority
        FROM ${table} x WHERE x.milestone_id = ?${table === 'issues' && viewer !== undefined ? ` AND (x.confidential = 0 OR x.author_id = ${viewer})` : ''}`,
    )
    .all(milestone) as { id: number; priority: number | null }[];
  rows.sort((p, q) => (p.priority ?? Infinity) - (q.priority ?? Infinity) || q.id - p.id);
  return rows.map((r) => r.id);
}

describe("a milestone's records in label priority order", () => {
  const check = async (): Promise<void> => {
    await expectEveryPage(s, `/projects/${projectA}/milestones/${milestones.a}/issues`, {}, expected('issues', milestones.a), 7);
    await expectEveryPage(s, `/projects/${projectA}/milestones/${milestones.a}/merge_requests`, {}, expected('merge_requests', milestones.a), 7);
    await expectEveryPage(s, `/projects/${projectA}/milestones/${milestones.a}/issues`, {}, expected('issues', milestones.a, outsider.id), 7, outsider.token);
    await expectEveryPage(s, `/groups/${group}/milestones/${milestones.group}/issues`, {}, expected('issues', milestones.group), 6);
    await expectEveryPage(s, `/groups/${group}/milestones/${milestones.group}/issues`, {}, expected('issues', milestones.group, outsider.id), 6, outsider.token);
    // No prioritized label on the milestone's records: newest id first, as before.
    const quiet = expected('issues', milestones.quiet);
    expect(quiet).toEqual([...quiet].sort((p, q) => q - p));
    await expectEveryPage(s, `/projects/${projectA}/milestones/${milestones.quiet}/issues`, {}, quiet, 9);
  };

  it('pages, headers and views as the labels say', async () => {
    const first = expected('issues', milestones.a);
    // The order is not the id order.
    expect(first).not.toEqual([...first].sort((p, q) => q - p));
    await check();
  }, 120_000);

  it('follows writes: a priority changed and removed, records relabelled, moved off the milestone', async () => {
    const labelId = (project: number, name: string): number => (s.service.context.db.prepare('SELECT id FROM labels WHERE project_id = ? AND title = ?').get(project, name) as { id: number }).id;
    ok(await s.put(`/projects/${projectA}/labels/${labelId(projectA, 'p5')}`, { priority: 0 }));
    ok(await s.put(`/projects/${projectB}/labels/${labelId(projectB, 'p2')}`, { priority: null }));
    const iids = (s.service.context.db.prepare('SELECT iid FROM issues WHERE project_id = ? AND milestone_id = ? ORDER BY id LIMIT 3').all(projectA, milestones.a) as { iid: number }[]).map((r) => r.iid);
    ok(await s.put(`/projects/${projectA}/issues/${iids[0]}`, { labels: 'p1' }));
    ok(await s.put(`/projects/${projectA}/issues/${iids[1]}`, { labels: '' }));
    ok(await s.put(`/projects/${projectA}/issues/${iids[2]}`, { milestone_id: null }));
    await check();
  }, 120_000);

  it("a group label prioritized in one project (label_priorities, from a promoted project label): first in that project's records only", async () => {
    const lifted = ok(await s.post(`/projects/${projectA}/labels`, { name: 'lifted', color: '#0000FF', priority: 1 })).id;
    ok(await s.put(`/projects/${projectA}/labels/${lifted}/promote`, {}));
    const db = s.service.context.db;
    for (const [table, milestone] of [['issues', milestones.a], ['issues', milestones.group], ['merge_requests', milestones.a]] as const) {
      const rows = db.prepare(`SELECT project_id, iid FROM ${table} WHERE milestone_id = ? ORDER BY id DESC LIMIT 12`).all(milestone) as { project_id: number; iid: number }[];
      for (const r of rows.filter((_, i) => i % 3 === 0)) ok(await s.put(`/projects/${r.project_id}/${table}/${r.iid}`, { add_labels: 'lifted' }));
    }
    await check();
  }, 120_000);
});
