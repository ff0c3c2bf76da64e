import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, preparedBy, queryPlan } from '../helpers/lists';

/**
 * A group's issues due_date=0 (a condition most records meet), alone and with a milestone: the set
 * of issues without a due date is sized as the group's records less its few others, read from
 * issues_project_due over the group's projects (IdSet.others), not counted row by row up to
 * idSetLists' bound (a group's milestone=v1&due_date=0 page 500 counted 223,610 rows after every
 * write elsewhere). Every page and its headers as the records say, for an administrator and a
 * Guest (confidential issues), where the bound clears the others and where it does not.
 */
let s: TestService;
let group: number;
const projects: number[] = [];
let guest: string;
const db = () => s.service.context.db;

const groupIds = (where: string, token?: string): number[] =>
  (
    db()
      .prepare(
        `SELECT x.id FROM issues x WHERE x.project_id IN (${projects.join(', ')}) AND ${where}${token === guest ? ' AND x.confidential = 0' : ''} ORDER BY x.created_at DESC, x.id DESC`,
      )
      .all() as { id: number }[]
  ).map((r) => r.id);
// The due set's own rows counted (setRowsInScope), as against its others.
const setCounted = (sql: string[]) => sql.some((q) => q.startsWith('SELECT count(*) AS n FROM (SELECT 1 FROM issues due WHERE due.due_date IS NULL'));
const othersCount = (sql: string[]) => sql.find((q) => q.startsWith('SELECT count(*) AS n FROM (SELECT 1 FROM issues due INDEXED BY issues_project_due WHERE due.project_id IN ('));

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  for (const name of ['one', 'two']) projects.push((await s.createProject({ name, namespace_id: group, visibility: 'private' })).id);
  // Outside the group: never in its lists, its due dates never its others.
  const outside = (await s.createProject({ name: 'outside', visibility: 'private' })).id;
  const g = await s.createUser();
  guest = g.token;
  await s.addMember('groups', group, g.user.id, 10);
  const v1 = ok(await s.post(`/projects/${projects[0]}/milestones`, { title: 'v1' })).id as number;
  const insert = db().prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, confidential, labels, milestone_id, due_date, created_at, updated_at)
     VALUES (?, ?, 'Bulk', ?, 1, ?, '[]', ?, ?, ?, ?)`,
  );
  // 500 issues in the group (300 and 200), every 20th with a due date, every 7th closed, every 11th
  // confidential, every 3rd of the first project's on v1; ties on created_at (two a second).
  db().transaction(() => {
    let k = 0;
    for (const [project, n] of [[projects[0], 300], [projects[1], 200], [outside, 40]] as const) {
      for (let i = 1; i <= n; i++) {
        k++;
        const at = new Date(Date.UTC(2024, 0, 1) + Math.floor(k / 2) * 1000).toISOString();
        const milestone = project === projects[0] && i % 3 === 0 ? v1 : null;
        insert.run(project, i, k % 7 === 0 ? 'closed' : 'opened', k % 11 === 0 ? 1 : 0, milestone, project === outside || k % 20 === 0 ? '2030-01-01' : null, at, at);
      }
    }
  })();
}, 60_000);
afterAll(async () => s?.stop());

describe("a group's due_date=0 sized from its few others", () => {
  it('reads the others by issues_project_due over the group, not the set counted, when the bound clears them', async () => {
    for (const query of [{ due_date: '0' }, { due_date: '0', milestone: 'v1' }] as Record<string, string>[]) {
      let body: { id: number }[] = [];
      const sql = await preparedBy(s, async () => void (body = ok(await s.get(`/groups/${group}/issues`, { query: { ...query, per_page: '20' } }))));
      const where = `x.due_date IS NULL${query.milestone ? ' AND x.milestone_id IS NOT NULL' : ''}`;
      expect(body.map((r) => r.id), JSON.stringify(query)).toEqual(groupIds(where).slice(0, 20));
      expect(setCounted(sql), JSON.stringify(query)).toBe(false);
      const others = othersCount(sql);
      expect(others, JSON.stringify(query)).toBeDefined();
      expect(queryPlan(db(), others!, group)).toMatch(/SEARCH due USING COVERING INDEX issues_project_due \(project_id=\? AND due_date>\?\)/);
    }
  });

  it('counts the set where the bound does not clear the others (a deep page of 100)', async () => {
    // sqrt(501 * 500) is past the group's 500 records: the set's rows are counted, as before.
    const sql = await preparedBy(s, () => s.get(`/groups/${group}/issues`, { query: { due_date: '0', per_page: '100', page: '5' } }));
    expect(setCounted(sql)).toBe(true);
  });

  it('every page and its headers as the records say, for an administrator and a Guest', async () => {
    for (const token of [undefined, guest]) {
      await expectEveryPage(s, `/groups/${group}/issues`, { due_date: '0' }, groupIds('x.due_date IS NULL', token), 20, token);
      await expectEveryPage(s, `/groups/${group}/issues`, { due_date: '0', state: 'opened', milestone: 'v1' }, groupIds("x.due_date IS NULL AND x.state = 'opened' AND x.milestone_id IS NOT NULL", token), 20, token);
    }
    // Issues gain and lose due dates: the others move, the pages follow.
    for (const iid of [2, 5, 150]) ok(await s.put(`/projects/${projects[1]}/issues/${iid}`, { due_date: '2031-02-02' }));
    ok(await s.put(`/projects/${projects[0]}/issues/20`, { due_date: null }));
    await expectEveryPage(s, `/groups/${group}/issues`, { due_date: '0' }, groupIds('x.due_date IS NULL'), 20);
  }, 60_000);
});
