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

/**
 * A project's issues due_date=0 beside an author and labels=Any: the set of issues without a due
 * date holds nearly every record (sized from its few others), so the count reads the list's own
 * conditions (the author's index) rather than every due-date-less id looked up and checked (mr25,
 * author 3: a million ids read for 11,001, 600-1,000 ms). Pages and headers as the records say.
 */
describe("a project's due_date=0 with an author and labels=Any", () => {
  let project: number;
  let author: number;
  let guestOf: string;
  const ids = (where: string, token?: string): number[] =>
    (
      db()
        .prepare(`SELECT x.id FROM issues x WHERE x.project_id = ? AND ${where}${token === guestOf ? ' AND x.confidential = 0' : ''} ORDER BY x.created_at DESC, x.id DESC`)
        .all(project) as { id: number }[]
    ).map((r) => r.id);
  const setRead = (sql: string[]) => sql.some((q) => q.includes('SELECT DISTINCT +due.id AS id FROM issues due WHERE due.due_date IS NULL'));

  beforeAll(async () => {
    project = (await s.createProject({ name: 'dense', visibility: 'private' })).id;
    const a = await s.createUser();
    author = a.user.id;
    const g = await s.createUser();
    guestOf = g.token;
    await s.addMember('projects', project, g.user.id, 10);
    const insert = db().prepare(
      `INSERT INTO issues (project_id, iid, title, state, author_id, confidential, labels, due_date, created_at, updated_at)
       VALUES (?, ?, 'Dense', ?, ?, ?, ?, ?, ?, ?)`,
    );
    // 400 issues: every other one the author's, every 3rd labelled, every 25th due, every 7th closed, every 13th confidential.
    db().transaction(() => {
      for (let i = 1; i <= 400; i++) {
        const at = new Date(Date.UTC(2024, 2, 1) + Math.floor(i / 2) * 1000).toISOString();
        insert.run(project, i, i % 7 === 0 ? 'closed' : 'opened', i % 2 ? author : 1, i % 13 === 0 ? 1 : 0, i % 3 === 0 ? '["bug"]' : '[]', i % 25 === 0 ? '2030-01-01' : null, at, at);
      }
    })();
  }, 60_000);

  const query = () => ({ state: 'all', labels: 'Any', author_id: String(author), due_date: '0' });
  const where = () => `x.labels != '[]' AND x.author_id = ${author} AND x.due_date IS NULL`;

  it('counts by the list\'s own conditions, not the due-date-less set read', async () => {
    for (const token of [undefined, guestOf]) {
      let body: { id: number }[] = [];
      const sql = await preparedBy(s, async () => void (body = ok(await s.get(`/projects/${project}/issues`, { token, query: { ...query(), per_page: '5' } }))));
      expect(body.map((r) => r.id)).toEqual(ids(where(), token).slice(0, 5));
      expect(setRead(sql)).toBe(false);
    }
  });

  it('every page and its headers as the records say, for an administrator and a Guest; after writes too', async () => {
    for (const token of [undefined, guestOf]) await expectEveryPage(s, `/projects/${project}/issues`, query(), ids(where(), token), 5, token);
    // Issues gain and lose due dates and labels: the count and pages follow.
    const iids = db().prepare('SELECT iid FROM issues WHERE project_id = ? AND author_id = ? ORDER BY iid').all(project, author) as { iid: number }[];
    ok(await s.put(`/projects/${project}/issues/${iids[2].iid}`, { due_date: '2031-02-02' }));
    ok(await s.put(`/projects/${project}/issues/${iids[4].iid}`, { labels: 'feature' }));
    ok(await s.put(`/projects/${project}/issues/${iids[5].iid}`, { labels: '' }));
    ok(await s.put(`/projects/${project}/issues/${iids[74].iid}`, { due_date: null }));
    for (const token of [undefined, guestOf]) await expectEveryPage(s, `/projects/${project}/issues`, query(), ids(where(), token), 5, token);
  }, 60_000);
});
