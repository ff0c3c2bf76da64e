import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy, queryPlan } from '../helpers/lists';

/**
 * Milestone filters of issue and merge-request lists as sets of records (idSetLists): Upcoming,
 * Started, Any, None and titles, in a project, a group and the instance, for an administrator and
 * a Guest, every page against the records filtered here by GitLab's rules; and how they are read
 * (the milestones' records by their index, or the list walked in its order; counts through the
 * project/milestone index, not every record of a milestone looked up).
 */
let s: TestService;
let group: number;
let inGroup: number[];
let elsewhere: number;
let guest: { id: number; token: string };

type Kind = 'issues' | 'merge_requests';
interface Milestone { id: number; title: string; state: string; start_date: string | null; due_date: string | null; project_id: number | null; group_id: number | null }
interface Row { id: number; project_id: number; milestone_id: number | null; confidential: number }

const db = () => s.service.context.db;
const today = () => new Date().toISOString().slice(0, 10);

/** GitLab's Upcoming: each project's or group's active milestone due soonest after today. */
function upcoming(ms: Milestone[]): Set<number> {
  const next = new Map<string, Milestone>();
  for (const m of ms.filter((m) => m.state === 'active' && m.due_date !== null && m.due_date > today())) {
    const owner = `${m.project_id}/${m.group_id}`;
    const seen = next.get(owner);
    if (!seen || m.due_date! < seen.due_date! || (m.due_date === seen.due_date && m.id < seen.id)) next.set(owner, m);
  }
  return new Set([...next.values()].map((m) => m.id));
}

/** The records of `kind` in `projects` that `value` selects, newest first (confidential issues only for an administrator). */
function expected(kind: Kind, projects: number[], value: string, negate: boolean, admin: boolean): number[] {
  const ms = db().prepare('SELECT * FROM milestones').all() as Milestone[];
  const conf = kind === 'issues' ? 'confidential' : '0 AS confidential';
  const rows = db().prepare(`SELECT id, project_id, milestone_id, ${conf} FROM ${kind} ORDER BY created_at DESC, id DESC`).all() as Row[];
  // A title matches exactly (GitLab: `where(title:)`; beta's `V1` is not v1).
  const byTitle = (t: string) => new Set(ms.filter((m) => m.title === t).map((m) => m.id));
  const started = new Set(ms.filter((m) => m.state === 'active' && m.start_date !== null && m.start_date <= today()).map((m) => m.id));
  const test = (r: Row): boolean => {
    switch (value) {
      case 'None': return r.milestone_id === null;
      case 'Any': return r.milestone_id !== null;
      case 'Upcoming': return r.milestone_id !== null && upcoming(ms).has(r.milestone_id);
      case 'Started': return r.milestone_id !== null && started.has(r.milestone_id);
      default: return r.milestone_id !== null && byTitle(value).has(r.milestone_id);
    }
  };
  return rows.filter((r) => projects.includes(r.project_id) && (admin || !r.confidential) && test(r) !== negate).map((r) => r.id);
}

beforeAll(async () => {
  s = await TestService.start();
  const u = await s.createUser();
  guest = { id: u.user.id, token: u.token };
  group = ok(await s.post('/groups', { name: 'ms', path: 'ms', visibility: 'private' })).id;
  inGroup = [];
  for (const name of ['alpha', 'beta']) inGroup.push(ok(await s.post('/projects', { name, namespace_id: group, visibility: 'private' })).id);
  elsewhere = ok(await s.post('/projects', { name: 'elsewhere', visibility: 'private' })).id;
  await s.addMember('groups', group, guest.id, 10);
  const [alpha, beta] = inGroup;
  const milestone = async (path: string, body: Record<string, unknown>): Promise<number> => ok(await s.post(path, body)).id;
  // alpha: v1 started and due soonest (Upcoming), v2 due later, old closed; beta: its own v1 (due in the past), the group's g1 (Upcoming for the group); elsewhere: v1.
  const ids: Record<string, number> = {
    'alpha/v1': await milestone(`/projects/${alpha}/milestones`, { title: 'v1', start_date: '2000-01-01', due_date: '2098-01-01' }),
    'alpha/v2': await milestone(`/projects/${alpha}/milestones`, { title: 'v2', due_date: '2099-01-01' }),
    'alpha/old': await milestone(`/projects/${alpha}/milestones`, { title: 'old', start_date: '2000-01-01', due_date: '2001-01-01' }),
    'beta/v1': await milestone(`/projects/${beta}/milestones`, { title: 'V1', start_date: '2000-01-01', due_date: '2001-01-01' }),
    'group/g1': await milestone(`/groups/${group}/milestones`, { title: 'g1', due_date: '2097-01-01' }),
    'elsewhere/v1': await milestone(`/projects/${elsewhere}/milestones`, { title: 'v1', due_date: '2096-01-01' }),
  };
  ok(await s.put(`/projects/${alpha}/milestones/${ids['alpha/old']}`, { state_event: 'close' }));
  const plan: [number, (string | null)[]][] = [
    [alpha, ['alpha/v1', 'alpha/v2', null, 'alpha/old', 'group/g1', 'alpha/v1', null]],
    [beta, ['beta/v1', null, 'group/g1', null]],
    [elsewhere, ['elsewhere/v1', null]],
  ];
  let n = 0;
  for (let round = 0; round < 6; round++) {
    for (const [project, cycle] of plan) {
      for (const key of cycle) {
        const milestone_id = key ? ids[key] : undefined;
        n++;
        ok(await s.post(`/projects/${project}/issues`, { title: `issue ${n}`, milestone_id, confidential: n % 5 === 0 }));
        ok(await s.post(`/projects/${project}/merge_requests`, { title: `mr ${n}`, source_branch: `b${n}`, target_branch: 'main', milestone_id }));
      }
    }
  }
}, 120_000);
afterAll(async () => s.stop());

describe('milestone filters', () => {
  const values = ['Upcoming', 'Started', 'Any', 'None', 'v1', 'g1', 'v2', 'nothing'];
  for (const kind of ['issues', 'merge_requests'] as const) {
    it(`${kind}: every page of each filter and its not[], in a project, a group and the instance, as an administrator and a Guest`, async () => {
      const [alpha] = inGroup;
      const scopes: [string, Record<string, string>, number[]][] = [
        [`/projects/${alpha}/${kind}`, {}, [alpha]],
        [`/groups/${group}/${kind}`, {}, inGroup],
        [`/${kind}`, { scope: 'all' }, [...inGroup, elsewhere]],
      ];
      for (const [path, base, projects] of scopes) {
        for (const value of values) {
          for (const [param, negate] of [['milestone', false], ['not[milestone]', true]] as const) {
            const query = { ...base, [param]: value };
            for (const per of [3, 7]) await expectEveryPage(s, path, query, expected(kind, projects, value, negate, true), per);
            // The Guest sees the group's projects only, and no confidential issue.
            const visible = projects.filter((p) => p !== elsewhere);
            await expectEveryPage(s, path, query, expected(kind, visible, value, negate, false), 4, guest.token);
          }
        }
        // milestone_id takes the wildcards too.
        await expectEveryPage(s, path, { ...base, milestone_id: 'Upcoming' }, expected(kind, projects, 'Upcoming', false, true), 5);
      }
    }, 120_000);
  }

  it('reads a set of few records by the milestone index, walks a list of many in its order, and counts by the project/milestone index', async () => {
    const [alpha] = inGroup;
    const pageReads = async (path: string, query: Record<string, string>) => pagedReads(s, async () => void ok(await s.get(path, { query })));
    // A group's v1: the records of its milestones of that title; few against the group's records for a page of 2, many for a page of 20 deep down.
    const few = await pageReads(`/groups/${group}/issues`, { milestone: 'g1', per_page: '2' });
    expect(few[0].sql).toContain('CROSS JOIN issues x');
    const many = await pageReads(`/projects/${alpha}/issues`, { milestone: 'Upcoming', per_page: '1' });
    for (const read of [...few, ...many]) {
      // Never the milestone index read whole and sorted: the set's rows one by one, or the walk in list order.
      const plan = queryPlan(db(), read.sql, ...read.args);
      if (read.sql.includes('CROSS JOIN')) expect(plan).toMatch(/SCAN s\b/);
      else expect(plan).not.toContain('TEMP B-TREE');
    }
    expect(many[0].sql).not.toContain('CROSS JOIN');
    expect(many[0].sql).toContain('+x.milestone_id IN');
    // The count goes through (project_id, milestone_id), without looking up each record, for the administrator.
    const sql = await preparedBy(s, () => s.get(`/groups/${group}/issues`, { query: { milestone: 'Upcoming' } }));
    const count = sql.find((q) => q.startsWith('SELECT count(*) AS n FROM (SELECT 1 FROM issues x WHERE (x.milestone_id IN'))!;
    expect(count).toBeDefined();
    expect(queryPlan(db(), count, ...Array.from({ length: count.split('?').length - 1 }, () => 1))).toContain('USING COVERING INDEX issues_project_milestone_created');
  });

  it('walks a set of few (project, milestone) pairs in creation order through each pair\'s index, merged: every page, both sorts, a state on top, after records move', async () => {
    const scopes: [string, Record<string, string>, () => number[]][] = [
      [`/groups/${group}`, {}, () => inGroup],
      ['', { scope: 'all' }, () => [...inGroup, elsewhere]],
    ];
    const check = async (): Promise<void> => {
      for (const kind of ['issues', 'merge_requests'] as const) {
        for (const [prefix, base, projects] of scopes) {
          for (const value of ['Any', 'v1', 'Started']) {
            const want = expected(kind, projects(), value, false, true);
            for (const sort of ['desc', 'asc']) {
              const query = { ...base, milestone: value, sort };
              await expectEveryPage(s, `${prefix}/${kind}`, query, sort === 'asc' ? [...want].reverse() : want, 2);
              const seen = expected(kind, projects().filter((p) => p !== elsewhere), value, false, false);
              await expectEveryPage(s, `${prefix}/${kind}`, query, sort === 'asc' ? [...seen].reverse() : seen, 3, guest.token);
              // A page length expectEveryPage did not ask (its pages are remembered at the records' version: no read).
              const reads = await pagedReads(s, async () => void ok(await s.get(`${prefix}/${kind}`, { query: { ...query, per_page: '5' } })));
              const merged = reads.find((r) => r.sql.includes(`INDEXED BY ${kind}_project_milestone_created`));
              // Any holds most records (walked); a title's few may be read by the milestone index instead (idSetLists).
              if (value === 'Any') expect(merged, `${prefix}/${kind} ${value} ${sort}`).toBeDefined();
              if (!merged) continue;
              const plan = queryPlan(db(), merged!.sql, ...merged!.args);
              expect(plan).toMatch(new RegExp(`SEARCH x USING (COVERING )?INDEX ${kind}_project_milestone_created \\(project_id=\\? AND milestone_id=\\?\\)`));
              expect(plan).not.toContain('TEMP B-TREE');
            }
            const opened = await s.get(`${prefix}/${kind}`, { query: { ...base, milestone: value, state: 'opened', per_page: '100' } });
            const open = new Set((db().prepare(`SELECT id FROM ${kind} WHERE state = 'opened'`).all() as { id: number }[]).map((r) => r.id));
            expect(opened.body.map((x: { id: number }) => x.id)).toEqual(want.filter((id) => open.has(id)));
          }
        }
      }
    };
    await check();
    // Records moved between milestones (the API and SQL), closed, and a milestone's last record taken off it.
    const [alpha, beta] = inGroup;
    const v1 = (db().prepare("SELECT id FROM milestones WHERE project_id = ? AND title = 'v1'").get(alpha) as { id: number }).id;
    const iid = (db().prepare('SELECT iid FROM issues WHERE project_id = ? AND milestone_id IS NULL ORDER BY id LIMIT 1').get(alpha) as { iid: number }).iid;
    ok(await s.put(`/projects/${alpha}/issues/${iid}`, { milestone_id: v1, state_event: 'close' }));
    db().prepare("UPDATE merge_requests SET milestone_id = ? WHERE project_id = ? AND milestone_id IS NULL AND id % 2 = 0").run(v1, alpha);
    db().prepare("UPDATE issues SET milestone_id = NULL WHERE project_id = ? AND milestone_id IN (SELECT id FROM milestones WHERE project_id = ?)").run(beta, beta);
    await check();
  }, 120_000);

  it('counts a record once when the caller reacted to it more than once (my_reaction_emoji=Any)', async () => {
    const [alpha] = inGroup;
    const iids = (db().prepare('SELECT iid FROM issues WHERE project_id = ? ORDER BY id LIMIT 3').all(alpha) as { iid: number }[]).map((r) => r.iid);
    for (const name of ['thumbsup', 'tada']) ok(await s.post(`/projects/${alpha}/issues/${iids[0]}/award_emoji`, { name }));
    ok(await s.post(`/projects/${alpha}/issues/${iids[1]}/award_emoji`, { name: 'tada' }));
    const res = await s.get(`/projects/${alpha}/issues`, { query: { my_reaction_emoji: 'Any', per_page: '1' } });
    expect(res.headers.get('x-total')).toBe('2');
    expect((await s.get(`/projects/${alpha}/issues`, { query: { my_reaction_emoji: 'Any', per_page: '10' } })).body).toHaveLength(2);
  });
});
