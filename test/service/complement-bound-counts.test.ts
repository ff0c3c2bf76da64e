import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectUncounted, preparedBy, queryPlan } from '../helpers/lists';

/**
 * A project's list by a condition most records meet (issues issue_type=issue, due_date=0; merge
 * requests wip=no), perhaps in a state: "more than 10,000" from the state counters less the few
 * others' rows (complementBoundCount), not 10,001 records walked; counted by walking when the bound
 * does not clear 10,000. Rows, order and headers either side of 10,000 as the records say.
 */
let s: TestService;
let project: number;
let guest: string;
const db = () => s.service.context.db;
let iid = 1000;

const insert = (n: number, type = 'issue', due: string | null = null, confidential = 0, state = 'opened'): void => {
  const stmt = db().prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, confidential, labels, issue_type, due_date, created_at, updated_at)
     VALUES (?, ?, 'Bulk', ?, 1, ?, '[]', ?, ?, ?, ?)`,
  );
  db().transaction(() => {
    for (let i = 0; i < n; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + ++iid * 1000).toISOString();
      stmt.run(project, iid, state, confidential, type, due, at, at);
    }
  })();
};
const ids = (where: string): number[] =>
  (db().prepare(`SELECT x.id FROM issues x WHERE x.project_id = ${project} AND ${where} ORDER BY x.created_at DESC, x.id DESC`).all() as { id: number }[]).map((r) => r.id);
// A count that reads the records (the list's condition, or a due-date set's rows each looked up).
const walked = (sql: string[]) => sql.some((q) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM (issues x WHERE|\(SELECT DISTINCT \+due\.id)/.test(q));

beforeAll(async () => {
  s = await TestService.start();
  project = ok(await s.post('/projects', { name: 'many', visibility: 'private' })).id;
  const u = await s.createUser();
  guest = u.token;
  await s.addMember('projects', project, u.user.id, 10);
  // 10,140 issues: 10,100 of type issue without a due date, 20 incidents, 10 confidential, 10 closed.
  insert(10_100);
  insert(20, 'incident', '2030-01-01');
  insert(10, 'issue', null, 1);
  insert(10, 'issue', null, 0, 'closed');
}, 60_000);
afterAll(async () => s?.stop());

describe('complement bounds', () => {
  it('issue_type=issue and due_date=0: uncounted past 10,000, for an administrator and a Guest', async () => {
    for (const token of [undefined, guest]) {
      for (const query of [{ issue_type: 'issue' }, { due_date: '0' }] as Record<string, string>[]) {
        let res: Awaited<ReturnType<typeof s.get>> | undefined;
        const sql = await preparedBy(s, async () => void (res = await s.get(`/projects/${project}/issues`, { token, query: { ...query, per_page: '20' } })));
        expectUncounted(res!, '2');
        const want = ids("x.issue_type = 'issue' AND x.due_date IS NULL").filter((id) => token === undefined || !ids('x.confidential = 1').includes(id));
        expect((res!.body as { id: number }[]).map((r) => r.id).join(","), JSON.stringify([query, token])).toEqual(want.slice(0, 20).join(","));
        expect(walked(sql), JSON.stringify(query)).toBe(false);
        // The few others read by their index (not the project's issues read for their column).
        const others = sql.find((q) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM issues (typed|due) /.test(q))!;
        expect(others, JSON.stringify(query)).toBeDefined();
        expect(queryPlan(db(), others, project)).toMatch(query.issue_type ? /^SCAN typed USING COVERING INDEX issues_typed$/m : /^SEARCH due USING COVERING INDEX issues_project_due \(project_id=\? AND due_date/m);
      }
    }
  });

  it('walked when the bound does not clear 10,000 (the others of every state less), as the records say', async () => {
    // 200 closed incidents: 10,130 opened, less 220 others, is no bound past 10,000; 10,110 opened issues are.
    insert(200, 'incident', '2030-01-01', 0, 'closed');
    for (const query of [{ issue_type: 'issue' }, { due_date: '0' }] as Record<string, string>[]) {
      let res: Awaited<ReturnType<typeof s.get>> | undefined;
      const sql = await preparedBy(s, async () => void (res = await s.get(`/projects/${project}/issues`, { query: { ...query, state: 'opened', per_page: '100', page: '3' } })));
      expectUncounted(res!, '4');
      expect((res!.body as { id: number }[]).map((r) => r.id)).toEqual(ids("x.issue_type = 'issue' AND x.due_date IS NULL AND x.state = 'opened'").slice(200, 300));
      expect(walked(sql), JSON.stringify(query)).toBe(true);
    }
    // Without a state the bound is exact for an administrator: still uncounted, nothing walked.
    const sql = await preparedBy(s, () => s.get(`/projects/${project}/issues`, { query: { issue_type: 'issue' } }));
    expect(walked(sql)).toBe(false);
  });

  it('merge requests wip=no: uncounted past 10,000 from the counters less the drafts, rows as the records say', async () => {
    const stmt = db().prepare(
      `INSERT INTO merge_requests (project_id, iid, title, state, author_id, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
       VALUES (?, ?, ?, 'opened', 1, ?, 'main', ?, ?, 'a', 'a', 'a', ?, ?)`,
    );
    db().transaction(() => {
      for (let i = 1; i <= 10_030; i++) {
        const at = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
        stmt.run(project, i, i % 500 === 0 ? `Draft: change ${i}` : `Change ${i}`, `b${i}`, project, project, at, at);
      }
    })();
    let res: Awaited<ReturnType<typeof s.get>> | undefined;
    const sql = await preparedBy(s, async () => void (res = await s.get(`/projects/${project}/merge_requests`, { query: { wip: 'no' } })));
    expectUncounted(res!, '2');
    const want = (db().prepare(`SELECT id FROM merge_requests WHERE title NOT LIKE 'Draft:%' ORDER BY created_at DESC, id DESC LIMIT 20`).all() as { id: number }[]).map((r) => r.id);
    expect((res!.body as { id: number }[]).map((r) => r.id)).toEqual(want);
    expect(sql.some((q) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM merge_requests x WHERE/.test(q))).toBe(false);
  });
});
