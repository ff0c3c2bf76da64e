import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
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
      `SELECT x.id, x.project_id, x.labels, x.state, (SELECT due_date FROM milestones m WHERE m.id = x.milestone_id) AS due,
         (SELECT json_group_object(l.title, l.priority) FROM labels l WHERE l.project_id = x.project_id AND l.priority IS NOT NULL) AS priorities
        FROM ${table} x WHERE x.project_id IN (${projects.join(',')})${table === 'issues' && viewer !== undefined ? ` AND (x.confidential = 0 OR x.author_id = ${viewer})` : ''}`,
    )
    .all() as { id: number; project_id: number; labels: string; state: string; due: string | null; priorities: string }[];
  // Group labels prioritized per project (label_priorities).
  const groupPriorities = db.prepare('SELECT lp.project_id, l.title, lp.priority FROM label_priorities lp JOIN labels l ON l.id = lp.label_id').all() as { project_id: number; title: string; priority: number }[];
  const keyed = rows
    .filter((r) => !c.state || r.state === c.state)
    .filter((r) => excluded.every((t) => (JSON.parse(r.labels) as string[]).some((l) => l.toLowerCase() === t.toLowerCase())))
    .map((r) => {
      const priorities = JSON.parse(r.priorities) as Record<string, number>;
      for (const g of groupPriorities) if (g.project_id === r.project_id) priorities[g.title] = Math.min(g.priority, priorities[g.title] ?? Infinity);
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

  /** checkAll with the keyed records too many to read apart (streamed for a project, sorted in SQL for many). */
  const checkAllStreamed = async () => {
    const keep = PRIORITY_LIMITS.keyed;
    PRIORITY_LIMITS.keyed = -1;
    try {
      await checkAll();
    } finally {
      PRIORITY_LIMITS.keyed = keep;
    }
  };

  it('pages, headers and views, the keyed records read apart', async () => {
    await checkAll();
  }, 180_000);

  it('the same with the keyed records too many to read: streamed by priority for a project, sorted in SQL for many', async () => {
    await checkAllStreamed();
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

  it("a group label's priority is per project (label_priorities): kept when a prioritized project label is promoted, shown and ordered by in that project only", async () => {
    const db = s.service.context.db;
    const promotedId = ok(await s.post(`/projects/${projectA}/labels`, { name: 'lifted', color: '#0000FF', priority: 1 })).id;
    // PUT on a group label through a project is a 404 in GitLab too (update_label: include_ancestor_groups false).
    const grouped = (db.prepare("SELECT id FROM labels WHERE title = 'grouped'").get() as { id: number }).id;
    expect((await s.put(`/projects/${projectA}/labels/${grouped}`, { priority: 1 })).status).toBe(404);
    // Labels::PromoteService makes a new group label (a new id); the project label is gone.
    const liftedId = ok(await s.put(`/projects/${projectA}/labels/${promotedId}/promote`, {})).id;
    expect((await s.get(`/projects/${projectA}/labels/${promotedId}`)).status).toBe(404);
    const label = (list: { name: string; priority?: number | null; is_project_label?: boolean }[]) => list.find((l) => l.name === 'lifted');
    expect(label(ok(await s.get(`/projects/${projectA}/labels`, { query: { per_page: '100' } })))).toMatchObject({ priority: 1, is_project_label: false });
    expect(label(ok(await s.get(`/projects/${projectB}/labels`, { query: { per_page: '100' } })))).toMatchObject({ priority: null, is_project_label: false });
    expect(ok(await s.get(`/projects/${projectA}/labels/${liftedId}`))).toMatchObject({ priority: 1 });
    expect(label(ok(await s.get(`/groups/${group}/labels`)))).not.toHaveProperty('priority');
    // Some records of each project carry it: first in A's lists (priority 1, above p2), unkeyed in B's.
    for (const project of [projectA, projectB]) {
      const iids = (db.prepare('SELECT iid FROM issues WHERE project_id = ? ORDER BY id DESC LIMIT 9').all(project) as { iid: number }[]).map((r) => r.iid);
      for (const iid of iids.filter((_, i) => i % 3 === 1)) ok(await s.put(`/projects/${project}/issues/${iid}`, { add_labels: 'lifted' }));
      const mrs = (db.prepare('SELECT iid FROM merge_requests WHERE project_id = ? ORDER BY id DESC LIMIT 9').all(project) as { iid: number }[]).map((r) => r.iid);
      for (const iid of mrs.filter((_, i) => i % 3 === 2)) ok(await s.put(`/projects/${project}/merge_requests/${iid}`, { add_labels: 'lifted' }));
    }
    expect((db.prepare("SELECT count(*) AS n FROM issues WHERE project_id = ? AND labels LIKE '%lifted%'").get(projectA) as { n: number }).n).toBeGreaterThan(0);
    await checkAll();
    await checkAllStreamed();
  }, 360_000);

  it("one label's list of a project reads its matches from that title's label rows by id, not the project's records walked", async () => {
    // Titles in another case than the labels' (the filter is case-insensitive), with and without a state.
    for (const c of [{ kind: 'label_priority', labels: 'P2' }, { kind: 'priority', sort: 'asc', labels: 'Plain', state: 'opened' }, { kind: 'label_priority', labels: 'p1' }] as Case[]) {
      for (const table of ['issues', 'merge_requests'] as const) await expectEveryPage(s, `/projects/${projectA}/${table}`, query(c), expected(table, [projectA], c), 2);
    }
    const reads = await pagedReads(s, async () => void ok(await s.get(`/projects/${projectA}/issues`, { query: { order_by: 'label_priority', labels: 'plain', per_page: '2', page: '2' } })));
    const page = reads.find((r) => r.sql.includes('ORDER BY x.id DESC'));
    expect(page?.sql).toContain('INDEXED BY issuable_labels_project');
    expect(queryPlan(s.service.context.db, page!.sql, ...page!.args)).toMatch(/SEARCH x USING INTEGER PRIMARY KEY[^\n]*\n[^]*issuable_labels_project/);
    expect(queryPlan(s.service.context.db, page!.sql, ...page!.args)).not.toContain('TEMP B-TREE');
  });

  it('finds the prioritized labels by their own index, not the project walked', () => {
    const plan = queryPlan(s.service.context.db, 'SELECT l.project_id, l.title, l.priority FROM labels l INDEXED BY labels_prioritized WHERE l.priority IS NOT NULL AND l.project_id = ?', projectA);
    expect(plan).toContain('USING INDEX labels_prioritized');
  });
});

/**
 * The records without a key read by a walk of the table in id order, and a project's deep pages
 * (past 1,000 rows) from an anchor an earlier page read: every page as the records say, before and
 * after writes that keep the anchors (a description) and writes that move them (a close, a new
 * issue, a relabel).
 */
describe('the rest walked in id order, deep pages from anchors', () => {
  let w: TestService;
  let project: number;
  const N = 1_500;

  beforeAll(async () => {
    w = await TestService.start();
    project = (await w.createProject({ name: 'walk', visibility: 'public' })).id;
    ok(await w.post(`/projects/${project}/labels`, { name: 'hot', color: '#FF0000', priority: 1 }));
    ok(await w.post(`/projects/${project}/labels`, { name: 'warm', color: '#FF0000', priority: 4 }));
    const ctx = w.service.context;
    ctx.db.transaction(() => {
      for (let i = 1; i <= N; i++) {
        const common = { iid: i, title: `Item ${i}`, description: null, authorId: 1, createdAt: new Date(Date.UTC(2024, 0, 1) + (i % 97) * 60_000).toISOString(), updatedAt: '2025-01-01T00:00:00.000Z', importedFrom: 'none' };
        const labels = i % 150 === 7 ? ['hot'] : i % 110 === 3 ? ['warm', 'other'] : i % 5 !== 0 ? ['other'] : [];
        insertImportedIssue(ctx, project, { ...common, state: i % 7 === 0 ? 'closed' : 'opened', labels, confidential: false });
        insertImportedMergeRequest(ctx, project, { ...common, labels, state: i % 7 === 0 ? 'merged' : 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) } as never);
      }
    })();
    PRIORITY_LIMITS.walkBound = 1;
  }, 120_000);
  afterAll(async () => {
    PRIORITY_LIMITS.walkBound = undefined;
    await w.stop();
  });

  const want = (table: 'issues' | 'merge_requests', c: Case): number[] => {
    const prev = s;
    s = w;
    try {
      return expected(table, [project], c);
    } finally {
      s = prev;
    }
  };
  const pages = async (table: 'issues' | 'merge_requests', c: Case): Promise<void> => {
    const all = want(table, c);
    for (const page of [1, 2, 11, 12, 13, 15, 16]) {
      const res = await w.get(`/projects/${project}/${table}`, { query: { ...query(c), per_page: '100', page: String(page) } });
      expect((res.body as { id: number }[]).map((e) => e.id), `${table} ${JSON.stringify(c)} page ${page}`).toEqual(all.slice((page - 1) * 100, page * 100));
      expect(res.headers.get('x-next-page')).toBe(page * 100 < all.length ? String(page + 1) : '');
    }
  };
  const cases: Case[] = [{ kind: 'label_priority' }, { kind: 'label_priority', sort: 'desc', state: 'opened' }, { kind: 'priority', labels: 'other' }];

  it('pages as the records say, a deep page from the anchor of the page before', async () => {
    for (const c of cases) for (const table of ['issues', 'merge_requests'] as const) await pages(table, c);
    await w.get(`/projects/${project}/issues`, { query: { order_by: 'label_priority', per_page: '100', page: '12' } });
    const reads = await pagedReads(w, async () => void (await w.get(`/projects/${project}/issues`, { query: { order_by: 'label_priority', per_page: '100', page: '13' } })));
    expect(reads.length).toBe(1);
    expect(reads[0].sql).toContain('NOT INDEXED');
    expect(reads[0].args.at(-1)).toBeLessThan(1_000);
  }, 120_000);

  it("a project's list in one state walks the rest by its (project_id, state, id) index in id order (no sort), every page", async () => {
    for (const table of ['issues', 'merge_requests'] as const) {
      for (const c of [{ kind: 'label_priority', state: 'opened' }, { kind: 'priority', sort: 'asc', state: table === 'issues' ? 'closed' : 'merged' }] as Case[]) {
        await pages(table, c);
        // Pages of another length than pages() read (those are kept whole at the version: SqlList.keptRows).
        await w.get(`/projects/${project}/${table}`, { query: { ...query(c), per_page: '50', page: '1' } });
        const reads = await pagedReads(w, async () => void (await w.get(`/projects/${project}/${table}`, { query: { ...query(c), per_page: '50', page: '3' } })));
        const walk = reads.find((r) => r.sql.includes(`FROM ${table} x INDEXED BY ${table}_project_state_id WHERE`));
        expect(walk, `${table} ${JSON.stringify(c)}`).toBeDefined();
        const plan = queryPlan(w.service.context.db, walk!.sql, ...walk!.args);
        expect(plan).toMatch(new RegExp(`SEARCH x USING (COVERING )?INDEX ${table}_project_state_id \\(project_id=\\? AND state=\\?\\)`));
        expect(plan).not.toContain('TEMP B-TREE');
      }
    }
  }, 120_000);

  it("the whole instance's list in a state chooses the walk from the counters, its records not counted for it", async () => {
    for (const table of ['issues', 'merge_requests'] as const) {
      for (const c of [{ kind: 'label_priority', state: table === 'issues' ? 'closed' : 'merged' }, { kind: 'priority', sort: 'asc', state: 'opened' }] as Case[]) {
        const all = want(table, c);
        const sql = await preparedBy(w, async () => {
          for (const page of [1, 3]) {
            const res = await w.get(`/${table}`, { query: { ...query(c), scope: 'all', per_page: '100', page: String(page) } });
            expect((res.body as { id: number }[]).map((e) => e.id), `${table} ${JSON.stringify(c)} page ${page}`).toEqual(all.slice((page - 1) * 100, page * 100));
          }
        });
        expect(sql.filter((q) => q.startsWith(`SELECT count(*) AS n FROM (SELECT 1 FROM ${table} x`)), `${table} ${JSON.stringify(c)}`).toEqual([]);
      }
    }
  }, 120_000);

  it("a label pair's list chooses the walk from the list's count in hand (the pair's counters), its records not counted for it", async () => {
    for (const table of ['issues', 'merge_requests'] as const) {
      for (const c of [{ kind: 'priority', labels: 'warm,other' }, { kind: 'label_priority', sort: 'asc', labels: 'Other,warm', state: 'opened' }] as Case[]) {
        const sql = await preparedBy(w, () => expectEveryPage(w, `/projects/${project}/${table}`, query(c), want(table, c), 4));
        expect(sql.filter((q) => q.startsWith(`SELECT count(*) AS n FROM (SELECT 1 FROM ${table} x`)), `${table} ${JSON.stringify(c)}`).toEqual([]);
      }
    }
  }, 120_000);

  it('the same with the keyed records too many to read: streamed by groups of one priority from their label rows', async () => {
    const other = (w.service.context.db.prepare("SELECT id FROM labels WHERE title = 'other'").get() as { id: number } | undefined)?.id
      ?? ok(await w.post(`/projects/${project}/labels`, { name: 'other', color: '#00FF00' })).id;
    // 1,200 records in the group of priority 2, between hot (1) and warm (4): pages 1-13 within the groups, then the rest.
    ok(await w.put(`/projects/${project}/labels/${other}`, { priority: 2 }));
    const keep = PRIORITY_LIMITS.keyed;
    PRIORITY_LIMITS.keyed = -1;
    try {
      for (const c of [...cases, { kind: 'label_priority', sort: 'asc' } as Case, { kind: 'label_priority', sort: 'asc', state: 'closed' } as Case]) {
        for (const table of ['issues', 'merge_requests'] as const) await pages(table, c);
      }
    } finally {
      PRIORITY_LIMITS.keyed = keep;
      ok(await w.put(`/projects/${project}/labels/${other}`, { priority: null }));
    }
  }, 120_000);

  it('follows writes that keep the anchors and writes that move them', async () => {
    const iidOf = (n: number): number => n;
    ok(await w.put(`/projects/${project}/issues/${iidOf(1_400)}`, { description: 'kept' }));
    for (const c of cases) await pages('issues', c);
    // A relabel alone: no column the anchors of the labels=other list read moves, the label rows do.
    ok(await w.put(`/projects/${project}/issues/${iidOf(201)}`, { labels: 'hot' }));
    for (const c of cases) await pages('issues', c);
    ok(await w.put(`/projects/${project}/issues/${iidOf(300)}`, { state_event: 'close' }));
    ok(await w.put(`/projects/${project}/merge_requests/${iidOf(250)}`, { labels: 'warm' }));
    ok(await w.post(`/projects/${project}/issues`, { title: 'new one' }));
    ok(await w.put(`/projects/${project}/labels/${(w.service.context.db.prepare("SELECT id FROM labels WHERE title = 'warm'").get() as { id: number }).id}`, { priority: 0 }));
    for (const c of cases) for (const table of ['issues', 'merge_requests'] as const) await pages(table, c);
  }, 120_000);
});
