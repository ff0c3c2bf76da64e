import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService, ok } from '../helpers/service';
import { expectCounted, expectUncounted, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { readsOnly } from '../../src/main/service/areas/core/count-versions';
import { dateLag } from '../../src/main/service/db/date-lag';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * An issue or merge request list past 10,000 records whose count reads only its own table (date
 * filters, milestone=Any) is counted PAST_LIMIT_MARGIN further once and not walked again while the
 * writes since (each moves the project's list version, or the instance's write log, by one) cannot
 * have brought it to 10,000 (areas/core/count-versions.ts): the headers still follow every write
 * that adds or drops a record (API, SQL, several rows in one statement), a write elsewhere changes
 * nothing, and a count that reads another table (a group's projects) is counted afresh.
 */
let s: TestService;
let group = 0;
let project = 0;
let other = 0;
const N = 10_003;
const T0 = Date.UTC(2024, 0, 1);
const at = (i: number): string => new Date(T0 + i * 60_000).toISOString();
const AFTER = '2023-12-01T00:00:00Z';

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  project = (await s.createProject({ name: 'many', namespace_id: group })).id;
  other = (await s.createProject({ name: 'other', namespace_id: group })).id;
  ok(await s.post(`/projects/${other}/issues`, { title: 'Elsewhere' }));
  const milestone = ok(await s.post(`/projects/${project}/milestones`, { title: 'v1' })).id;
  const db = s.service.context.db;
  const insert = db.prepare(
    "INSERT INTO issues (project_id, iid, title, state, author_id, labels, assignee_ids, milestone_id, created_at, updated_at) VALUES (?, ?, ?, 'opened', 1, '[]', '[]', ?, ?, ?)",
  );
  db.transaction(() => {
    // Updated a minute after creation: ordered by creation, filtered by updated_after (db/date-lag.ts).
    for (let i = 0; i < N; i++) insert.run(project, i + 1, `Issue ${i}`, milestone, at(i), at(i + 1));
  })();
}, 120_000);
afterAll(async () => s.stop());

const lists = (): Record<string, string> => ({
  dates: `/projects/${project}/issues?updated_after=${AFTER}`,
  datesByUpdated: `/projects/${project}/issues?order_by=updated_at&created_after=${AFTER}&state=opened`,
  // Counted by creation from updated_after on, less the records updated before their creation (stateDateCount).
  datesOpened: `/projects/${project}/issues?updated_after=${AFTER}&sort=asc&state=opened`,
  milestoneAny: `/projects/${project}/issues?milestone=Any`,
  instance: `/issues?scope=all&updated_after=${AFTER}`,
});
const countReads = (sql: string[]): string[] => sql.filter((q) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 .* LIMIT 1[01]\d{3}\)$/s.test(q));

/** Every list's headers for `n` matching records (the instance's: `n` + the other project's). */
async function expectLength(n: number, instanceExtra = 1): Promise<void> {
  for (const [name, path] of Object.entries(lists())) {
    const total = name === 'instance' ? n + instanceExtra : n;
    for (let again = 0; again < 2; again++) {
      const res: ApiResult = await s.get(path);
      if (total > 10_000) expectUncounted(res, '2');
      else expectCounted(res, total, 20);
      expect(res.body, name).toHaveLength(20);
    }
  }
}

describe('counts past 10,000 remembered across writes that cannot bring them under', () => {
  it('follows every write that adds or drops a record, and no other', async () => {
    await expectLength(N);
    // Counted once: a write elsewhere (a project's description, another project's issue) leaves every count as it was.
    ok(await s.put(`/projects/${project}`, { description: 'touched' }));
    ok(await s.put(`/projects/${other}/issues/1`, { description: 'touched' }));
    const paths = Object.entries(lists()).filter(([name]) => name !== 'instance');
    for (const [name, path] of paths) expect(countReads(await preparedBy(s, () => s.get(path))), name).toEqual([]);
    // One of the project's own issues written (its description): one write off 10,003 leaves it past 10,000, not counted again.
    ok(await s.put(`/projects/${project}/issues/5`, { description: 'touched' }));
    for (const [name, path] of paths) expect(countReads(await preparedBy(s, () => s.get(path))), name).toEqual([]);
    await expectLength(N);
    // Three records deleted in SQL, one statement: 10,000, counted.
    const db = s.service.context.db;
    db.prepare('DELETE FROM issues WHERE project_id = ? AND iid IN (1, 2, 3)').run(project);
    await expectLength(N - 3);
    // One added through the API (now: updated and created after the bounds, with the milestone): in every list.
    ok(await s.post(`/projects/${project}/issues`, { title: 'New', milestone_id: (db.prepare('SELECT id FROM milestones WHERE project_id = ?').get(project) as { id: number }).id }));
    await expectLength(N - 2);
    // Two moved out of every list in one SQL statement: dates before the bounds, no milestone.
    db.prepare("UPDATE issues SET created_at = '2020-01-01T00:00:00.000Z', updated_at = '2020-01-01T00:00:00.000Z', milestone_id = NULL WHERE project_id = ? AND iid IN (10, 11)").run(project);
    await expectLength(N - 4);
    // Closed through the API: out of state=opened alone.
    ok(await s.put(`/projects/${project}/issues/12`, { state_event: 'close' }));
    expectCounted(await s.get(lists().datesByUpdated), N - 5, 20);
    expectCounted(await s.get(lists().datesOpened), N - 5, 20);
  }, 120_000);

  it("counts a group's list afresh (its SQL reads the group's projects)", async () => {
    const path = `/groups/${group}/issues?updated_after=${AFTER}`;
    // 9,999 of the big project's, the other's one and five more in a third: 10,005.
    const third = (await s.createProject({ name: 'third', namespace_id: group })).id;
    for (let i = 0; i < 5; i++) ok(await s.post(`/projects/${third}/issues`, { title: `Third ${i}` }));
    expectUncounted(await s.get(path), '2');
    // The third moved to another group in SQL: no issue written, its records leave the group's list.
    const elsewhere = (await s.createGroup({ visibility: 'private' })).id;
    s.service.context.db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(elsewhere, third);
    expectCounted(await s.get(path), 10_000, 20);
  });

  it('remembers only counts whose SQL reads the list table alone and no clock', () => {
    expect(readsOnly(`FROM issues x INDEXED BY issues_project_created WHERE x.project_id = ? AND x.created_at <= ?`, 'issues')).toBe(true);
    expect(readsOnly(`FROM (SELECT x.id AS id FROM issues x WHERE ${dateLag('x.')} = 3 UNION ALL SELECT x.id AS id FROM issues x WHERE 1) x`, 'issues')).toBe(true);
    expect(readsOnly('FROM issues x WHERE NOT EXISTS (SELECT 1 FROM epic_issues ei WHERE ei.issue_id = x.id)', 'issues')).toBe(false);
    expect(readsOnly('FROM issues x WHERE x.project_id IN (SELECT p.id FROM projects p WHERE p.namespace_id IN (?))', 'issues')).toBe(false);
    expect(readsOnly('FROM issues x, projects p WHERE p.id = x.project_id', 'issues')).toBe(false);
    expect(readsOnly('FROM issues x JOIN members m ON m.source_id = x.project_id', 'issues')).toBe(false);
    expect(readsOnly('FROM issues x WHERE x.id IN (SELECT value FROM json_each(?))', 'issues')).toBe(false);
    expect(readsOnly("FROM issues x WHERE x.due_date < date('now')", 'issues')).toBe(false);
    expect(readsOnly('FROM merge_requests x WHERE x.project_id = ?', 'issues')).toBe(false);
  });
});

describe('a count remembered past 10,000 is kept by its SQL and arguments', () => {
  it('a list of the same arguments and other SQL is counted for itself', async () => {
    const db = s.service.context.db;
    const own = (await s.createProject({ name: 'same-arguments', namespace_id: group })).id;
    const insert = db.prepare("INSERT INTO issues (project_id, iid, title, state, author_id, labels, assignee_ids, created_at, updated_at) VALUES (?, ?, ?, 'opened', 1, '[]', '[]', ?, ?)");
    db.transaction(() => {
      for (let i = 0; i < 10_101; i++) insert.run(own, i + 1, `Issue ${i}`, at(i), at(i));
    })();
    // The same arguments (the date, the project), other SQL: 10,001 records created up to the date, 101 from it on.
    const before = { created_before: at(10_000) };
    expectUncounted(await s.get(`/projects/${own}/issues`, { query: before }), '2');
    expectCounted(await s.get(`/projects/${own}/issues`, { query: { created_after: at(10_000) } }), 101, 20);
    expectUncounted(await s.get(`/projects/${own}/issues`, { query: before }), '2');
  }, 60_000);
});

describe('deep pages of a date-lag list from an anchor (db/date-lag.ts bucketAnchoredWalk)', () => {
  const expectedIds = (sort: 'asc' | 'desc', filter: string): number[] =>
    (
      s.service.context.db
        .prepare(`SELECT id FROM issues WHERE project_id = ? AND ${filter} ORDER BY created_at ${sort}, id ${sort}`)
        .all(project) as { id: number }[]
    ).map((r) => r.id);
  const pages = async (sort: 'asc' | 'desc', query: Record<string, string>, filter: string, from: number, to: number): Promise<void> => {
    const want = expectedIds(sort, filter);
    for (let page = from; page <= to; page++) {
      const res = await s.get(`/projects/${project}/issues`, { query: { ...query, sort, per_page: '100', page: String(page) } });
      expect(res.status).toBe(200);
      expect(res.body.map((i: { id: number }) => i.id), `${sort} page ${page}`).toEqual(want.slice((page - 1) * 100, page * 100));
      expect(res.headers.get('x-next-page')).toBe(page * 100 < want.length ? String(page + 1) : '');
    }
  };

  it('reads every page as the records say, in turn, again, out of turn and after writes', async () => {
    const query = { updated_after: AFTER };
    const filter = `updated_at >= '${AFTER}'`;
    const db = s.service.context.db;
    for (const sort of ['desc', 'asc'] as const) {
      await pages(sort, query, filter, 10, 14);
      await pages(sort, query, filter, 14, 14);
      await pages(sort, query, filter, 12, 12);
      // Rows moved across the anchors (in SQL): one to the other end, one out of the list; then one deleted, one added.
      const ids = expectedIds(sort, filter);
      db.prepare("UPDATE issues SET created_at = '2030-01-01T00:00:00.000Z', updated_at = '2030-01-01T00:00:00.000Z' WHERE id = ?").run(ids[50]);
      db.prepare("UPDATE issues SET updated_at = '2001-01-01T00:00:00.000Z', created_at = '2001-01-01T00:00:00.000Z' WHERE id = ?").run(ids[1_150]);
      await pages(sort, query, filter, 11, 13);
      db.prepare('DELETE FROM issues WHERE id = ?').run(ids[1_020]);
      ok(await s.post(`/projects/${project}/issues`, { title: 'Newer' }));
      await pages(sort, query, filter, 10, 14);
      await pages(sort, query, filter, 99, 101);
    }
  }, 120_000);

  it("reads a page asked again from its anchor: each bucket's index from the anchor's row, no sort", async () => {
    const path = `/projects/${project}/issues`;
    const query = { updated_after: AFTER, per_page: '100', page: '30' };
    ok(await s.get(path, { query }));
    // At another length from the same row (the same page is kept whole at the version: SqlList.keptRows).
    const reads = await pagedReads(s, async () => void ok(await s.get(path, { query: { ...query, per_page: '50', page: '59' } })));
    expect(reads).toHaveLength(1);
    // The anchor's bound first: SQLite seeks by the first usable bound (the bucket's own, first, walked up to the anchor: 340 ms at a million epics).
    expect(reads[0].sql).toMatch(/ WHERE \(x\.created_at, x\.id\) < \(\?, \?\) AND x\./);
    expect(reads[0].sql.split(' WHERE (x.created_at, x.id) < (?, ?) AND ').length - 1).toBe(reads[0].sql.split(' UNION ALL ').length);
    // From the anchor at the page itself: nothing skipped.
    expect(reads[0].args[reads[0].args.length - 1]).toBe(0);
    const plan = queryPlan(s.service.context.db, reads[0].sql, ...reads[0].args);
    // The bucket's range from its lag bound up to the anchor's date (ties by id checked on the entries).
    expect(plan).toMatch(/SEARCH x USING COVERING INDEX issues_project_lag_created \(project_id=\? AND <expr>=\? AND created_at>\? AND created_at<\?\)/);
    expect(plan).not.toContain('TEMP B-TREE');
  });
});

describe("deep pages of a group's epics by date lag from an anchor", () => {
  it('reads every page as the epics say, in turn, again and after writes', async () => {
    const ctx = s.service.context;
    const epicGroup = (await s.createGroup({ visibility: 'private' })).id;
    const insertEpic = ctx.db.prepare(
      "INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, 'opened', 0, 1, '[]', ?, ?)",
    );
    ctx.db.transaction(() => {
      for (let i = 0; i < 1_500; i++) {
        const { id, iid } = nextEpicIds(ctx, epicGroup);
        // Lags of a minute, an hour and none: three buckets merged.
        insertEpic.run(id, epicGroup, iid, `Epic ${i}`, at(i * 10), at(i * 10 + [1, 60, 0][i % 3]));
      }
    })();
    const want = (sort: 'asc' | 'desc'): number[] =>
      (ctx.db.prepare(`SELECT id FROM epics WHERE group_id = ? AND updated_at >= ? ORDER BY created_at ${sort}, id ${sort}`).all(epicGroup, '2024-01-01T01:00:00.000Z') as { id: number }[]).map(
        (r) => r.id,
      );
    const pages = async (sort: 'asc' | 'desc', from: number, to: number): Promise<void> => {
      const ids = want(sort);
      for (let page = from; page <= to; page++) {
        const res = await s.get(`/groups/${epicGroup}/epics`, { query: { updated_after: '2024-01-01T01:00:00Z', sort, per_page: '50', page: String(page) } });
        expect(res.body.map((e: { id: number }) => e.id), `${sort} page ${page}`).toEqual(ids.slice((page - 1) * 50, page * 50));
        // Counted at the group's epic list version: every write that adds or drops one shows.
        expectCounted(res, ids.length, 50);
      }
    };
    for (const sort of ['desc', 'asc'] as const) {
      await pages(sort, 21, 25);
      await pages(sort, 24, 24);
      const ids = want(sort);
      ctx.db.prepare("UPDATE epics SET created_at = '2030-01-01T00:00:00.000Z', updated_at = '2030-01-01T00:00:00.000Z' WHERE id = ?").run(ids[30]);
      ctx.db.prepare('DELETE FROM epics WHERE id = ?').run(ids[1_060]);
      await pages(sort, 21, 25);
      await pages(sort, 29, 31);
      // Through the API: one created (now: in the list), one updated out of it in SQL.
      ok(await s.post(`/groups/${epicGroup}/epics`, { title: 'New epic' }));
      ctx.db.prepare("UPDATE epics SET updated_at = '2001-01-01T00:00:00.000Z' WHERE id = ?").run(want(sort)[700]);
      await pages(sort, 14, 14);
    }
  }, 60_000);
});

describe('epic_id filters past 10,000 (epics/015: the links versioned)', () => {
  it('follows every epic link written (API, SQL, an epic deleted), and no other write', async () => {
    const ctx = s.service.context;
    const db = ctx.db;
    const none = `/projects/${project}/issues`;
    const noEpic = (): number => (db.prepare('SELECT count(*) AS n FROM issues x WHERE x.project_id = ? AND NOT EXISTS (SELECT 1 FROM epic_issues ei WHERE ei.issue_id = x.id)').get(project) as { n: number }).n;
    const expectNone = async (): Promise<void> => {
      const n = noEpic();
      for (let again = 0; again < 2; again++) {
        const res = await s.get(none, { query: { epic_id: 'None' } });
        if (n > 10_000) expectUncounted(res, '2');
        else expectCounted(res, n, 20);
      }
    };
    // Past 10,000 issues without an epic by two (as many added as the tests before left short).
    const insert = db.prepare("INSERT INTO issues (project_id, iid, title, state, author_id, labels, assignee_ids, created_at, updated_at) VALUES (?, ?, 'More', 'opened', 1, '[]', '[]', ?, ?)");
    const top = (db.prepare('SELECT max(iid) AS n FROM issues WHERE project_id = ?').get(project) as { n: number }).n;
    const missing = 10_002 - noEpic();
    db.transaction(() => {
      for (let i = 1; i <= missing; i++) insert.run(project, top + i, at(i), at(i));
    })();
    expect(noEpic()).toBe(10_002);
    await expectNone();
    // Counted once: another epic link or issue write elsewhere leaves it.
    const epicId = ok(await s.post(`/groups/${group}/epics`, { title: 'Epic' })).id;
    const otherIssue = (db.prepare('SELECT id FROM issues WHERE project_id = ?').get(other) as { id: number }).id;
    db.prepare("INSERT INTO epic_issues (epic_id, issue_id, relative_position, created_at) VALUES (?, ?, 0, '2024-01-01T00:00:00.000Z')").run(epicId, otherIssue);
    expect(countReads(await preparedBy(s, () => s.get(none, { query: { epic_id: 'None' } })))).toEqual([]);
    await expectNone();
    // Three of the project's issues linked in SQL (no issue written): 9,999, counted.
    const ids = (db.prepare('SELECT id FROM issues WHERE project_id = ? ORDER BY id LIMIT 3').all(project) as { id: number }[]).map((r) => r.id);
    for (const [i, id] of ids.entries()) db.prepare("INSERT INTO epic_issues (epic_id, issue_id, relative_position, created_at) VALUES (?, ?, ?, '2024-01-01T00:00:00.000Z')").run(epicId, id, i + 1);
    await expectNone();
    // The epic deleted (its links go by the cascade): 10,002 again.
    db.prepare('DELETE FROM epics WHERE id = ?').run(epicId);
    await expectNone();
    expect(noEpic()).toBe(10_002);
    // A link moved from one issue to another in one UPDATE (two issues change): counted right either way.
    const epic2 = ok(await s.post(`/groups/${group}/epics`, { title: 'Epic 2' })).id;
    for (const [i, id] of ids.slice(0, 2).entries()) db.prepare("INSERT INTO epic_issues (epic_id, issue_id, relative_position, created_at) VALUES (?, ?, ?, '2024-01-01T00:00:00.000Z')").run(epic2, id, i);
    await expectNone();
    db.prepare('UPDATE epic_issues SET issue_id = ? WHERE issue_id = ?').run(ids[2], ids[0]);
    await expectNone();
  }, 60_000);

  it("a page past the end of a list the state counters count exactly (past 10,000) reads no rows, whatever the order", async () => {
    const db = s.service.context.db;
    const opened = (db.prepare("SELECT count(*) AS n FROM issues WHERE project_id = ? AND state = 'opened'").get(project) as { n: number }).n;
    expect(opened).toBeGreaterThan(10_000);
    const last = Math.ceil(opened / 20);
    for (const order of ['created_at', 'title', 'label_priority', 'popularity', 'milestone_due', 'relative_position']) {
      const path = `/projects/${project}/issues`;
      const query = { state: 'opened', order_by: order, per_page: '20' };
      // The last page still has its rows (and says it is the last); the next reads nothing.
      const lastPage = await s.get(path, { query: { ...query, page: String(last) } });
      expect(lastPage.body.length, order).toBe(opened - (last - 1) * 20);
      expectUncounted(lastPage, '');
      const sql = await preparedBy(s, async () => {
        const past = await s.get(path, { query: { ...query, page: String(last + 1) } });
        expect(past.body, order).toEqual([]);
        expectUncounted(past, '');
      });
      expect(sql.filter((q) => /\bFROM issues\b/.test(q)), order).toEqual([]);
    }
  }, 60_000);
});
