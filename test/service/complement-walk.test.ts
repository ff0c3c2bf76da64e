import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy, queryPlan } from '../helpers/lists';

/**
 * A dense filter's deep pages (issues issue_type=issue, due_date=0; merge requests wip=no), perhaps
 * in a state: the project's list by its order's index less the few records that fail the filter,
 * placed by core/111's indexes (complement-walk.ts), instead of every record walked to the page.
 * Every page, its order (ties on the order's value, titles of any text) and headers as the records
 * say, for an administrator, a Planner (sees every record, not an administrator) and a Guest (the
 * list walked as written), and after the records move in and out of the filter.
 */
let s: TestService;
let project: number;
let planner: string;
let guest: string;
const db = () => s.service.context.db;

// Titles whose UTF-8 order differs from JavaScript's (an astral character after U+FFFD), in case and accents.
const TITLES = ['alpha', 'Alpha', 'élan', 'Zed', '\u{1F600} smile', '\uFFFD mark', 'beta', 'beta'];
const ORDERS = ['created_at', 'updated_at', 'title'] as const;
const PER_PAGE = 25;

const issueIds = (where: string, order: string, sort: string, token?: string): number[] =>
  (
    db()
      .prepare(
        `SELECT x.id FROM issues x WHERE x.project_id = ? AND ${where}${token === guest ? ' AND x.confidential = 0' : ''} ORDER BY x.${order} ${sort}, x.id ${sort}`,
      )
      .all(project) as { id: number }[]
  ).map((r) => r.id);

beforeAll(async () => {
  s = await TestService.start();
  project = ok(await s.post('/projects', { name: 'dense', visibility: 'private' })).id;
  const p = await s.createUser();
  planner = p.token;
  await s.addMember('projects', project, p.user.id, 15);
  const g = await s.createUser();
  guest = g.token;
  await s.addMember('projects', project, g.user.id, 10);
  // 900 issues: ties on created_at (three per second), updated_at out of creation order, every
  // ninth closed, every eleventh confidential; incidents and due dates in runs and alone,
  // first and last in every order.
  const insert = db().prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, confidential, labels, issue_type, due_date, created_at, updated_at)
     VALUES (?, ?, ?, ?, 1, ?, '[]', ?, ?, ?, ?)`,
  );
  db().transaction(() => {
    for (let i = 1; i <= 900; i++) {
      const created = new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 1000).toISOString();
      const updated = new Date(Date.UTC(2024, 6, 1) + ((i * 7919) % 900) * 1000).toISOString();
      const other = i <= 3 || i >= 897 || (i >= 400 && i < 430) || i % 37 === 0;
      const type = other && i % 2 === 0 ? 'incident' : i % 53 === 0 ? 'task' : 'issue';
      const due = other && i % 2 === 1 ? '2030-01-01' : i % 41 === 0 ? '2024-05-05' : null;
      insert.run(project, i, `${TITLES[i % TITLES.length]} ${i % 5}`, i % 9 === 0 ? 'closed' : 'opened', i % 11 === 0 ? 1 : 0, type, due, created, updated);
    }
  })();
  // 700 merge requests, 60 of them drafts (runs and alone), every seventh merged.
  const mr = db().prepare(
    `INSERT INTO merge_requests (project_id, iid, title, state, author_id, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
     VALUES (?, ?, ?, ?, 1, ?, 'main', ?, ?, 'a', 'a', 'a', ?, ?)`,
  );
  db().transaction(() => {
    for (let i = 1; i <= 700; i++) {
      const created = new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 2) * 1000).toISOString();
      const updated = new Date(Date.UTC(2024, 6, 1) + ((i * 7919) % 700) * 1000).toISOString();
      const draft = i <= 2 || i >= 699 || (i >= 300 && i < 340) || i % 43 === 0;
      const title = `${draft ? 'Draft: ' : ''}${TITLES[i % TITLES.length]} ${i % 4}`;
      mr.run(project, i, title, i % 7 === 0 ? 'merged' : 'opened', `b${i}`, project, project, created, updated);
    }
  })();
}, 60_000);
afterAll(async () => s?.stop());

describe('a dense filter walked around its few others', () => {
  it('issues issue_type=issue and due_date=0: every page in every order and state, for an administrator, a Planner and a Guest', async () => {
    const filters = [
      [{ issue_type: 'issue' }, "x.issue_type = 'issue'"],
      [{ due_date: '0' }, 'x.due_date IS NULL'],
    ] as const;
    for (const token of [undefined, planner, guest]) {
      for (const [query, where] of filters) {
        for (const state of [null, 'opened', 'closed']) {
          for (const order of ORDERS) {
            for (const sort of ['desc', 'asc']) {
              const want = issueIds(`${where}${state ? ` AND x.state = '${state}'` : ''}`, order, sort, token);
              await expectEveryPage(s, `/projects/${project}/issues`, { ...query, ...(state ? { state } : {}), order_by: order, sort }, want, PER_PAGE, token);
            }
          }
        }
      }
    }
  }, 240_000);

  it('merge requests wip=no: every page in every order and state', async () => {
    for (const state of [null, 'opened', 'merged']) {
      for (const order of ORDERS) {
        for (const sort of ['desc', 'asc']) {
          const want = (
            db()
              .prepare(
                `SELECT id FROM merge_requests WHERE project_id = ? AND title NOT LIKE 'Draft:%'${state ? ` AND state = '${state}'` : ''} ORDER BY ${order} ${sort}, id ${sort}`,
              )
              .all(project) as { id: number }[]
          ).map((r) => r.id);
          await expectEveryPage(s, `/projects/${project}/merge_requests`, { wip: 'no', ...(state ? { state } : {}), order_by: order, sort }, want, PER_PAGE);
        }
      }
    }
  }, 120_000);

  it('deep pages read the project list by its index and the few others by core/111, not the records walked by the filter', async () => {
    const cases = [
      ['issues', { issue_type: 'issue' }, 'issues_typed_order', 'issues_project_created'],
      ['issues', { due_date: '0', order_by: 'title', sort: 'asc' }, 'issues_due_order', 'issues_project_title'],
      ['issues', { issue_type: 'issue', state: 'opened' }, 'issues_typed_order', 'issues_project_state_created'],
      ['merge_requests', { wip: 'no', order_by: 'updated_at' }, 'merge_requests_drafts_order', 'merge_requests_project_updated'],
    ] as const;
    for (const [kind, query, others, order] of cases) {
      let reads: { sql: string; args: unknown[] }[] = [];
      const sql = await preparedBy(s, async () => {
        reads = await pagedReads(s, async () => void ok(await s.get(`/projects/${project}/${kind}`, { query: { ...query, per_page: '25', page: '20' } })));
      });
      // No read of the list by its filter skips rows: the base list's reads alone, by its index.
      expect(reads.length, JSON.stringify(query)).toBeGreaterThan(0);
      for (const read of reads) {
        expect(read.sql, JSON.stringify(query)).toMatch(new RegExp(`^SELECT x\\.id AS id, x\\.\\w+ AS v, x\\.\\w+ AS \\w+ FROM ${kind} x WHERE`));
        expect(queryPlan(db(), read.sql, ...read.args)).toBe(`SEARCH x USING COVERING INDEX ${order} (project_id=?${'state' in query ? ' AND state=?' : ''})`);
      }
      // due_date=0's own set (the issues without one) is not counted up to idSetLists' bound: the few with one are (IdSet.others).
      expect(sql.filter((q) => q.startsWith('SELECT count(*) AS n FROM (SELECT 1 FROM issues due WHERE due.due_date IS NULL')), JSON.stringify(query)).toEqual([]);
      const counted = sql.find((q) => q.includes(`INDEXED BY ${others}`) && q.startsWith('SELECT count(*) AS n, coalesce(sum('))!;
      expect(counted, JSON.stringify(query)).toBeDefined();
      const args = ['x', 'x', 1, project, ...('state' in query ? [query.state] : [])];
      expect(queryPlan(db(), counted, ...args)).toMatch(new RegExp(`SEARCH c USING COVERING INDEX ${others} \\(project_id=\\?${'state' in query ? ' AND state=\\?' : ''}\\)`));
    }
  });

  it('pages stay right as records move in and out of the filter, change state and are added', async () => {
    const want = (): number[] => issueIds("x.issue_type = 'issue'", 'created_at', 'desc');
    await expectEveryPage(s, `/projects/${project}/issues`, { issue_type: 'issue' }, want(), PER_PAGE);
    const iids = [5, 410, 700, 899];
    for (const iid of iids) ok(await s.put(`/projects/${project}/issues/${iid}`, { issue_type: iid % 2 ? 'incident' : 'issue' }));
    ok(await s.put(`/projects/${project}/issues/6`, { state_event: 'close' }));
    ok(await s.post(`/projects/${project}/issues`, { title: 'New one' }));
    ok(await s.post(`/projects/${project}/issues`, { title: 'New incident', issue_type: 'incident' }));
    await expectEveryPage(s, `/projects/${project}/issues`, { issue_type: 'issue' }, want(), PER_PAGE);
    await expectEveryPage(s, `/projects/${project}/issues`, { issue_type: 'issue', state: 'opened' }, issueIds("x.issue_type = 'issue' AND x.state = 'opened'", 'created_at', 'desc'), PER_PAGE);
    for (const iid of [7, 415]) ok(await s.put(`/projects/${project}/issues/${iid}`, { due_date: '2031-02-02' }));
    ok(await s.put(`/projects/${project}/issues/1`, { due_date: null }));
    await expectEveryPage(s, `/projects/${project}/issues`, { due_date: '0', order_by: 'updated_at' }, issueIds('x.due_date IS NULL', 'updated_at', 'desc'), PER_PAGE);
  }, 60_000);
});

describe('a sparse own-column set read from its own index (core/111)', () => {
  const sets = [
    [{ due_date: 'any' }, 'x.due_date IS NOT NULL'],
    [{ due_date: 'overdue' }, "x.due_date < '2026-01-01'"],
    [{ issue_type: 'incident' }, "x.issue_type = 'incident'"],
    [{ issue_type: 'task' }, "x.issue_type = 'task'"],
  ] as const;

  it('issues due_date= and issue_type=: every page in every order and state, for an administrator, a Planner and a Guest', async () => {
    for (const token of [undefined, planner, guest]) {
      for (const [query, where] of sets) {
        for (const state of [null, 'opened', 'closed']) {
          for (const order of ORDERS) {
            for (const sort of ['desc', 'asc']) {
              const want = issueIds(`${where}${state ? ` AND x.state = '${state}'` : ''}`, order, sort, token);
              await expectEveryPage(s, `/projects/${project}/issues`, { ...query, ...(state ? { state } : {}), order_by: order, sort }, want, 10, token);
            }
          }
        }
      }
    }
  }, 240_000);

  it('merge requests wip=yes: every page in every order and state', async () => {
    for (const state of [null, 'opened', 'merged']) {
      for (const order of ORDERS) {
        for (const sort of ['desc', 'asc']) {
          const want = (
            db()
              .prepare(`SELECT id FROM merge_requests WHERE project_id = ? AND title LIKE 'Draft:%'${state ? ` AND state = '${state}'` : ''} ORDER BY ${order} ${sort}, id ${sort}`)
              .all(project) as { id: number }[]
          ).map((r) => r.id);
          await expectEveryPage(s, `/projects/${project}/merge_requests`, { wip: 'yes', ...(state ? { state } : {}), order_by: order, sort }, want, 10);
        }
      }
    }
  }, 120_000);

  it('read from the index alone, once for the count and the page: no record looked up to sort or count', async () => {
    const cases = [
      ['issues', { due_date: 'any', state: 'opened' }, 'issues_due_order'],
      ['issues', { issue_type: 'incident', order_by: 'title', sort: 'asc' }, 'issues_typed_order'],
      ['merge_requests', { wip: 'yes', order_by: 'updated_at' }, 'merge_requests_drafts_order'],
    ] as const;
    for (const [kind, query, index] of cases) {
      const sql = await preparedBy(s, async () => void ok(await s.get(`/projects/${project}/${kind}`, { query: { ...query, per_page: '10', page: '2' } })));
      const read = sql.filter((q) => q.startsWith('SELECT c.id AS id FROM'));
      expect(read.length, JSON.stringify(query)).toBe(1);
      expect(read[0]).toContain(`INDEXED BY ${index}`);
      const args = [...(kind === 'issues' && 'issue_type' in query ? ['incident'] : []), project, ...('state' in query ? [query.state] : [])];
      expect(queryPlan(db(), read[0], ...args)).toMatch(new RegExp(`^SEARCH c USING COVERING INDEX ${index} \\(project_id=\\?${'state' in query ? ' AND state=\\?' : ''}\\)`));
      // Neither the count nor the page reads the set's records.
      expect(sql.filter((q) => /CROSS JOIN (issues|merge_requests) x/.test(q)), JSON.stringify(query)).toEqual([]);
    }
  });
});

