import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, queryPlan } from '../helpers/lists';
import { PRIORITY_LIMITS } from '../../src/main/service/areas/core/order-label-priority';

/**
 * order_by=label_priority and order_by=priority on issue and merge request lists (a project's, a
 * group's, the instance's), as GitLab orders them (Issuable.sort_by_attribute with
 * `"#{order_by}_#{sort}"` and the `labels` filter's titles as excluded_labels):
 * - label_priority: the lowest priority among the record's labels prioritized in its own project
 *   (the filter's titles left out), ascending for sort=asc, descending for sort=desc, records
 *   without one last either way;
 * - priority: the milestone's due date first (same direction, nulls last), then that priority;
 * - ties newest id first, whatever the sort.
 * Every page and header against an order computed here from the records' own labels JSON, the
 * projects' label priorities and the milestones' due dates; both ways the service reads it (the
 * records with a key read apart, and the list sorted in SQL when they are too many).
 */
let s: TestService;
let group: number;
let projectA: number;
let projectB: number;
let outsider: { id: number; token: string };

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  projectA = (await s.createProject({ name: 'a', namespace_id: group, visibility: 'public' })).id;
  projectB = (await s.createProject({ name: 'b', namespace_id: group, visibility: 'public' })).id;
  const u = await s.createUser();
  outsider = { id: u.user.id, token: u.token };
  // The same titles, prioritized differently in each project; `plain` nowhere; `Urgent` only in A;
  // `grouped` a group label (no priority).
  for (const [project, priorities] of [
    [projectA, { p1: 1, p2: 2, p5: 5, plain: null, Urgent: 0 }],
    [projectB, { p1: 7, p2: 2, p5: null, plain: null }],
  ] as const) {
    for (const [name, priority] of Object.entries(priorities)) ok(await s.post(`/projects/${project}/labels`, { name, color: '#FF0000', ...(priority === null ? {} : { priority }) }));
  }
  ok(await s.post(`/groups/${group}/labels`, { name: 'grouped', color: '#00FF00' }));
  const soon = ok(await s.post(`/projects/${projectA}/milestones`, { title: 'soon', due_date: '2026-01-10' })).id;
  const late = ok(await s.post(`/projects/${projectA}/milestones`, { title: 'late', due_date: '2026-03-01' })).id;
  const undated = ok(await s.post(`/projects/${projectA}/milestones`, { title: 'undated' })).id;
  const groupDue = ok(await s.post(`/groups/${group}/milestones`, { title: 'together', due_date: '2026-02-01' })).id;
  const milestones = [null, soon, late, undated, groupDue, null, soon];
  const combos = [[], ['p1'], ['p2'], ['p5'], ['plain'], ['p5', 'p2'], ['grouped'], ['plain', 'p1'], ['Urgent'], ['grouped', 'p5'], ['p2']];
  for (let i = 0; i < 40; i++) {
    const labels = combos[i % combos.length].join(',');
    const confidential = i % 13 === 5;
    const project = i % 3 === 2 ? projectB : projectA;
    const milestone = project === projectA ? milestones[i % milestones.length] : i % 2 ? groupDue : null;
    const issue = ok(await s.post(`/projects/${project}/issues`, { title: `I ${i}`, labels, confidential, ...(milestone ? { milestone_id: milestone } : {}) }));
    if (i % 4 === 3) ok(await s.put(`/projects/${project}/issues/${issue.iid}`, { state_event: 'close' }));
    ok(await s.post(`/projects/${project}/merge_requests`, { title: `MR ${i}`, source_branch: `f-${i}`, target_branch: 'main', labels, ...(milestone ? { milestone_id: milestone } : {}) }));
  }
}, 180_000);
afterAll(async () => s.stop());

interface Case {
  kind: 'label_priority' | 'priority';
  sort?: 'asc' | 'desc';
  labels?: string;
  state?: string;
}

/** The list's records in GitLab's order, computed from the records' labels JSON, label priorities and milestones. */
function expected(table: 'issues' | 'merge_requests', projects: number[], c: Case, viewer?: number): number[] {
  const db = s.service.context.db;
  const excluded = c.labels ? c.labels.split(',') : [];
  const rows = db
    .prepare(
      `SELECT x.id, x.labels, x.state, (SELECT due_date FROM milestones m WHERE m.id = x.milestone_id) AS due,
         (SELECT json_group_object(l.title, l.priority) FROM labels l WHERE l.project_id = x.project_id AND l.priority IS NOT NULL) AS priorities
        FROM ${table} x WHERE x.project_id IN (${projects.join(',')})${table === 'issues' && viewer !== undefined ? ` AND (x.confidential = 0 OR x.author_id = ${viewer})` : ''}`,
    )
    .all() as { id: number; labels: string; state: string; due: string | null; priorities: string }[];
  const keyed = rows
    .filter((r) => !c.state || r.state === c.state)
    .filter((r) => excluded.every((t) => (JSON.parse(r.labels) as string[]).some((l) => l.toLowerCase() === t.toLowerCase())))
    .map((r) => {
      const priorities = JSON.parse(r.priorities) as Record<string, number>;
      const own = (JSON.parse(r.labels) as string[]).filter((t) => !excluded.includes(t) && priorities[t] !== undefined).map((t) => priorities[t]);
      return { id: r.id, due: c.kind === 'priority' ? r.due : null, priority: own.length ? Math.min(...own) : null };
    });
  const sign = c.sort === 'asc' ? 1 : -1;
  const nullsLast = <V extends string | number>(a: V | null, b: V | null): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : (a < b ? -1 : 1) * sign);
  keyed.sort((a, b) => nullsLast(a.due, b.due) || nullsLast(a.priority, b.priority) || b.id - a.id);
  return keyed.map((r) => r.id);
}

const query = (c: Case): Record<string, string> => ({ order_by: c.kind, ...(c.sort ? { sort: c.sort } : {}), ...(c.labels ? { labels: c.labels } : {}), ...(c.state ? { state: c.state } : {}) });

const CASES: Case[] = [
  { kind: 'label_priority' },
  { kind: 'label_priority', sort: 'asc' },
  { kind: 'label_priority', sort: 'desc' },
  { kind: 'priority', sort: 'asc' },
  { kind: 'priority', sort: 'desc' },
  { kind: 'label_priority', sort: 'asc', state: 'opened' },
  { kind: 'label_priority', sort: 'asc', labels: 'p2' },
  { kind: 'priority', sort: 'desc', labels: 'p5,p2' },
];

async function checkAll(): Promise<void> {
  for (const c of CASES) {
    for (const table of ['issues', 'merge_requests'] as const) {
      await expectEveryPage(s, `/projects/${projectA}/${table}`, query(c), expected(table, [projectA], c), 7);
      await expectEveryPage(s, `/groups/${group}/${table}`, query(c), expected(table, [projectA, projectB], c), 9);
      await expectEveryPage(s, `/${table}`, { ...query(c), scope: 'all' }, expected(table, [projectA, projectB], c), 9);
    }
    await expectEveryPage(s, `/projects/${projectA}/issues`, query(c), expected('issues', [projectA], c, outsider.id), 7, outsider.token);
    await expectEveryPage(s, `/groups/${group}/issues`, query(c), expected('issues', [projectA, projectB], c, outsider.id), 8, outsider.token);
  }
}

describe('order_by=label_priority and order_by=priority', () => {
  it("is GitLab's order: not the creation order, both sorts differ, ties newest first", () => {
    const asc = expected('issues', [projectA], { kind: 'label_priority', sort: 'asc' });
    const desc = expected('issues', [projectA], { kind: 'label_priority', sort: 'desc' });
    const byId = [...asc].sort((p, q) => q - p);
    expect(asc).not.toEqual(byId);
    expect(desc).not.toEqual(byId);
    expect(desc).not.toEqual([...asc].reverse());
    // Records without a prioritized label last either way, newest first.
    expect(asc.slice(-5)).toEqual(desc.slice(-5));
    expect(expected('issues', [projectA], { kind: 'priority', sort: 'asc' })).not.toEqual(asc);
  });

  it('pages, headers and views, the keyed records read apart', async () => {
    await checkAll();
  }, 180_000);

  it('the same, sorted in SQL when the keyed records are too many to read', async () => {
    const keep = PRIORITY_LIMITS.keyed;
    PRIORITY_LIMITS.keyed = -1;
    try {
      await checkAll();
    } finally {
      PRIORITY_LIMITS.keyed = keep;
    }
  }, 180_000);

  it('follows writes: priorities changed and removed, records relabelled, a due date moved', async () => {
    const labelId = (project: number, name: string): number => (s.service.context.db.prepare('SELECT id FROM labels WHERE project_id = ? AND title = ?').get(project, name) as { id: number }).id;
    ok(await s.put(`/projects/${projectA}/labels/${labelId(projectA, 'p5')}`, { priority: 0 }));
    ok(await s.put(`/projects/${projectB}/labels/${labelId(projectB, 'p2')}`, { priority: null }));
    ok(await s.put(`/projects/${projectB}/labels/${labelId(projectB, 'plain')}`, { priority: 3 }));
    const iids = (s.service.context.db.prepare('SELECT iid FROM issues WHERE project_id = ? ORDER BY id LIMIT 3').all(projectA) as { iid: number }[]).map((r) => r.iid);
    ok(await s.put(`/projects/${projectA}/issues/${iids[0]}`, { labels: 'p1' }));
    ok(await s.put(`/projects/${projectA}/issues/${iids[1]}`, { labels: '' }));
    const soon = (s.service.context.db.prepare("SELECT id FROM milestones WHERE title = 'soon'").get() as { id: number }).id;
    ok(await s.put(`/projects/${projectA}/milestones/${soon}`, { due_date: '2027-01-01' }));
    await checkAll();
  }, 180_000);

  it('finds the prioritized labels by their own index, not the project walked', () => {
    const plan = queryPlan(s.service.context.db, 'SELECT l.project_id, l.title, l.priority FROM labels l INDEXED BY labels_prioritized WHERE l.priority IS NOT NULL AND l.project_id = ?', projectA);
    expect(plan).toContain('USING INDEX labels_prioritized');
  });
});
