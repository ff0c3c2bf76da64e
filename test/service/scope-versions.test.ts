import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService, ok } from '../helpers/service';
import { expectCounted, expectUncounted, pagedReads, preparedBy } from '../helpers/lists';

/**
 * Lists of a scope wider than a project, versioned (count-versions.ts recordsVersion): a group's
 * lists by the sum of its projects' list versions, its projects' ids (read each request) in the
 * key; an administrator's own records (`scope=created_by_me`, no project condition) by the
 * instance's write log; a label filter's probe of a record's own label rows by the record's
 * writes. Counts past 10,000 are kept across writes that cannot bring them under, date-lag deep
 * pages start from anchors, and every answer still follows every write that changes it: records
 * written in SQL or through the API, projects moved, archived or made another group's in SQL.
 */
let s: TestService;
let group = 0;
let many = 0;
let side = 0;
let outside = 0;
let elsewhere = 0;
const N = 10_003;
const T0 = Date.UTC(2024, 0, 1);
const at = (i: number): string => new Date(T0 + i * 60_000).toISOString();
const AFTER = '2023-12-01T00:00:00Z';

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  elsewhere = (await s.createGroup({ visibility: 'private' })).id;
  many = (await s.createProject({ name: 'many', namespace_id: group })).id;
  side = (await s.createProject({ name: 'side', namespace_id: group })).id;
  outside = (await s.createProject({ name: 'outside', namespace_id: elsewhere })).id;
  for (let i = 0; i < 5; i++) ok(await s.post(`/projects/${side}/issues`, { title: `Side ${i}` }));
  ok(await s.post(`/projects/${outside}/issues`, { title: 'Outside' }));
  const db = s.service.context.db;
  const insert = db.prepare("INSERT INTO issues (project_id, iid, title, state, author_id, labels, assignee_ids, created_at, updated_at) VALUES (?, ?, ?, 'opened', 1, ?, '[]', ?, ?)");
  db.transaction(() => {
    // Lags of none, a minute and an hour (three buckets merged); 'rare' on two.
    for (let i = 0; i < N; i++) {
      const created = T0 + i * 60_000;
      insert.run(many, i + 1, `Issue ${i}`, i % 5000 === 0 ? '["rare"]' : '[]', at(i), new Date(created + [0, 60_000, 3_600_000][i % 3]).toISOString());
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

/** A project's issue list version (core/019). */
const versionOf = (projectId: number): number =>
  (s.service.context.db.prepare('SELECT coalesce((SELECT version FROM issue_list_versions WHERE project_id = ?), 0) AS v').get(projectId) as { v: number }).v;
/** Writes one of the project's issues (no change) until its list version is `version`. */
const bumpTo = (projectId: number, version: number): void => {
  const db = s.service.context.db;
  while (versionOf(projectId) < version) db.prepare('UPDATE issues SET title = title WHERE id = (SELECT min(id) FROM issues WHERE project_id = ?)').run(projectId);
};
const countReads = (sql: string[]): string[] => sql.filter((q) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 .* LIMIT 1[01]\d{3}\)$/s.test(q));
/** The group's records updated from AFTER on, as the list should count them (non-archived projects of the group). */
const groupTruth = (): number =>
  (
    s.service.context.db
      .prepare('SELECT count(*) AS n FROM issues WHERE updated_at >= ? AND project_id IN (SELECT id FROM projects WHERE namespace_id = ? AND archived = 0)')
      .get('2023-12-01T00:00:00.000Z', group) as { n: number }
  ).n;

async function expectGroupLength(): Promise<void> {
  const n = groupTruth();
  for (let again = 0; again < 2; again++) {
    const res: ApiResult = await s.get(`/groups/${group}/issues`, { query: { updated_after: AFTER } });
    if (n > 10_000) expectUncounted(res, '2');
    else expectCounted(res, n, 20);
    expect(res.body).toHaveLength(20);
  }
}

describe("a group's count past 10,000, versioned by its projects' list versions", () => {
  it('follows every write that adds or drops a record of its projects, and projects that leave or come back', async () => {
    const db = s.service.context.db;
    const path = `/groups/${group}/issues`;
    const query = { query: { updated_after: AFTER } };
    await expectGroupLength();
    // Counted once: a project's description, an issue outside the group: no count read again.
    ok(await s.put(`/projects/${many}`, { description: 'touched' }));
    ok(await s.put(`/projects/${outside}/issues/1`, { description: 'touched' }));
    expect(countReads(await preparedBy(s, () => s.get(path, query)))).toEqual([]);
    await expectGroupLength();
    // Six deleted in SQL (one statement): 10,002, still past; three more: 9,999, counted.
    db.prepare('DELETE FROM issues WHERE project_id = ? AND iid IN (101, 102, 103, 104, 105, 106)').run(many);
    await expectGroupLength();
    db.prepare('DELETE FROM issues WHERE project_id = ? AND iid IN (107, 108, 109)').run(many);
    expect(groupTruth()).toBe(9_999);
    await expectGroupLength();
    // Two added through the API to the small project: 10,001.
    for (let i = 0; i < 2; i++) ok(await s.post(`/projects/${side}/issues`, { title: `More ${i}` }));
    expect(groupTruth()).toBe(10_001);
    await expectGroupLength();
    // The small project moved to another group in SQL (no issue written): 9,994, counted.
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(elsewhere, side);
    await expectGroupLength();
    expect(groupTruth()).toBe(9_994);
    // Back, then archived in SQL (non_archived: left out), then not.
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(group, side);
    await expectGroupLength();
    db.prepare('UPDATE projects SET archived = 1 WHERE id = ?').run(side);
    await expectGroupLength();
    db.prepare('UPDATE projects SET archived = 0 WHERE id = ?').run(side);
    await expectGroupLength();
    // A project with records moved into the group in SQL: counted with them.
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(group, outside);
    await expectGroupLength();
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(elsewhere, outside);
    await expectGroupLength();
    // One project swapped for another in SQL whose version is a little higher: the sum moves by
    // less than the records that left (the projects' ids are the key, not the sum alone).
    const insert = db.prepare("INSERT INTO issues (project_id, iid, title, state, author_id, labels, assignee_ids, created_at, updated_at) VALUES (?, ?, 'Side', 'opened', 1, '[]', '[]', ?, ?)");
    db.transaction(() => {
      for (let i = 0; i < 60; i++) insert.run(side, 1_000 + i, at(i), at(i));
    })();
    await expectGroupLength();
    expect(groupTruth()).toBeGreaterThan(10_050);
    bumpTo(outside, versionOf(side) + 2);
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(elsewhere, side);
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(group, outside);
    expect(groupTruth()).toBeLessThan(10_000);
    await expectGroupLength();
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(group, side);
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(elsewhere, outside);
    db.prepare('DELETE FROM issues WHERE project_id = ? AND iid >= 1000').run(side);
    await expectGroupLength();
  }, 120_000);
});

describe("a group's date-lag deep pages from anchors", () => {
  const want = (sort: 'asc' | 'desc'): number[] =>
    (
      s.service.context.db
        .prepare(
          `SELECT id FROM issues WHERE updated_at >= ? AND project_id IN (SELECT id FROM projects WHERE namespace_id = ? AND archived = 0) ORDER BY created_at ${sort}, id ${sort}`,
        )
        .all('2023-12-01T00:00:00.000Z', group) as { id: number }[]
    ).map((r) => r.id);
  const pages = async (sort: 'asc' | 'desc', from: number, to: number): Promise<void> => {
    const ids = want(sort);
    for (let page = from; page <= to; page++) {
      const res = await s.get(`/groups/${group}/issues`, { query: { updated_after: AFTER, sort, per_page: '100', page: String(page) } });
      expect(res.status).toBe(200);
      expect(res.body.map((i: { id: number }) => i.id), `${sort} page ${page}`).toEqual(ids.slice((page - 1) * 100, page * 100));
      expect(res.headers.get('x-next-page')).toBe(page * 100 < ids.length ? String(page + 1) : '');
    }
  };

  it('reads every page as the records say, in turn, again, out of turn, after writes and projects moved', async () => {
    const db = s.service.context.db;
    // The group's records past 10,000 whichever project is in it (its pages walk the instance's buckets): 200 before the bounds.
    const insert = db.prepare("INSERT INTO issues (project_id, iid, title, state, author_id, labels, assignee_ids, created_at, updated_at) VALUES (?, ?, 'Old', 'opened', 1, '[]', '[]', ?, ?)");
    db.transaction(() => {
      for (let i = 0; i < 200; i++) insert.run(many, 50_000 + i, '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z');
    })();
    for (const sort of ['desc', 'asc'] as const) {
      await pages(sort, 10, 13);
      await pages(sort, 13, 13);
      await pages(sort, 11, 11);
      // Rows moved across the anchors in SQL, one deleted, one added through the API.
      const ids = want(sort);
      db.prepare("UPDATE issues SET created_at = '2030-01-01T00:00:00.000Z', updated_at = '2030-01-01T00:00:00.000Z' WHERE id = ?").run(ids[50]);
      db.prepare("UPDATE issues SET updated_at = '2001-01-01T00:00:00.000Z', created_at = '2001-01-01T00:00:00.000Z' WHERE id = ?").run(ids[1_150]);
      await pages(sort, 11, 13);
      db.prepare('DELETE FROM issues WHERE id = ?').run(ids[1_020]);
      ok(await s.post(`/projects/${side}/issues`, { title: 'Newer' }));
      await pages(sort, 10, 13);
      // A project with records moved into the group in SQL (no issue written; its records early in the order), and out again.
      db.prepare("UPDATE issues SET created_at = '2024-01-01T00:00:30.000Z', updated_at = '2024-01-03T00:00:00.000Z' WHERE project_id = ?").run(outside);
      db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(group, outside);
      await pages(sort, 11, 13);
      db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(elsewhere, outside);
      await pages(sort, 12, 13);
      // One project swapped for another of the same version in SQL: the versions' sum stays, the projects' ids do not.
      bumpTo(outside, versionOf(side));
      bumpTo(side, versionOf(outside));
      await pages(sort, 12, 13);
      expect(versionOf(side)).toBe(versionOf(outside));
      db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(elsewhere, side);
      db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(group, outside);
      await pages(sort, 12, 13);
      db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(group, side);
      db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(elsewhere, outside);
      await pages(sort, 100, 101);
    }
  }, 120_000);

  it("reads a page asked again from its anchor, each bucket's walk from the anchor's row", async () => {
    const path = `/groups/${group}/issues`;
    const query = { updated_after: AFTER, per_page: '100', page: '30' };
    ok(await s.get(path, { query }));
    // A write elsewhere (a project row) keeps the anchors. The same page is kept whole
    // (scope-page-rows): asked at another length from the same row, it is read from the anchor.
    ok(await s.put(`/projects/${many}`, { description: 'touched again' }));
    const reads = await pagedReads(s, async () => void ok(await s.get(path, { query: { ...query, per_page: '50', page: '59' } })));
    expect(reads).toHaveLength(1);
    expect(reads[0].sql).toMatch(/ WHERE \(x\.created_at, x\.id\) < \(\?, \?\) AND x\./);
    expect(reads[0].args[reads[0].args.length - 1]).toBe(0);
  });
});

describe("an administrator's own records (scope=created_by_me) by date lag", () => {
  const want = (sort: 'asc' | 'desc'): number[] =>
    (
      s.service.context.db.prepare(`SELECT id FROM issues WHERE author_id = 1 AND updated_at >= ? ORDER BY created_at ${sort}, id ${sort}`).all('2023-12-01T00:00:00.000Z') as { id: number }[]
    ).map((r) => r.id);

  it('walks the instance buckets checking the author, every page as the records say, before and after writes', async () => {
    const db = s.service.context.db;
    // Another author's records in the range, left out.
    db.prepare('UPDATE issues SET author_id = (SELECT max(id) FROM users) WHERE project_id = ? AND iid % 97 = 0').run(many);
    for (const sort of ['desc', 'asc'] as const) {
      for (const page of [1, 2, 11, 12, 12, 101]) {
        const ids = want(sort);
        const res = await s.get('/issues', { query: { updated_after: AFTER, sort, per_page: '100', page: String(page) } });
        expect(res.body.map((i: { id: number }) => i.id), `${sort} page ${page}`).toEqual(ids.slice((page - 1) * 100, page * 100));
        if (ids.length > 10_000) expectUncounted(res, page * 100 < ids.length ? String(page + 1) : '');
        else expectCounted(res, ids.length, 100);
      }
      db.prepare("UPDATE issues SET updated_at = '2001-01-01T00:00:00.000Z' WHERE id = ?").run(want(sort)[1_110]);
      ok(await s.post(`/projects/${side}/issues`, { title: `Mine ${sort}` }));
    }
    // The page is read by the lag buckets (not the author's records sorted).
    const reads = await pagedReads(s, async () => void ok(await s.get('/issues', { query: { updated_after: AFTER, per_page: '100', page: '3' } })));
    expect(reads.map((r) => r.sql).join('\n')).toContain('INDEXED BY issues_lag_created');
  }, 120_000);
});

describe("a count with a label filter's probe of the record's own label rows, kept past 10,000", () => {
  it('is not read again after writes elsewhere and follows a label added or dropped', async () => {
    const path = `/projects/${many}/issues`;
    const query = { query: { 'not[labels]': 'rare', created_after: AFTER } };
    const truth = (): number =>
      (
        s.service.context.db
          .prepare("SELECT count(*) AS n FROM issues x WHERE project_id = ? AND created_at >= ? AND NOT EXISTS (SELECT 1 FROM json_each(x.labels) WHERE lower(value) = 'rare')")
          .get(many, '2023-12-01T00:00:00.000Z') as { n: number }
      ).n;
    const expectIt = async (): Promise<void> => {
      const n = truth();
      for (let again = 0; again < 2; again++) {
        const res = await s.get(path, query);
        if (n > 10_000) expectUncounted(res, '2');
        else expectCounted(res, n, 20);
      }
    };
    // Past 10,000 by two (the tests before deleted some).
    const db = s.service.context.db;
    const top = (db.prepare('SELECT max(iid) AS n FROM issues WHERE project_id = ?').get(many) as { n: number }).n;
    const missing = 10_002 - truth();
    const insert = db.prepare("INSERT INTO issues (project_id, iid, title, state, author_id, labels, assignee_ids, created_at, updated_at) VALUES (?, ?, 'More', 'opened', 1, '[]', '[]', ?, ?)");
    db.transaction(() => {
      for (let i = 1; i <= missing; i++) insert.run(many, top + i, at(i), at(i));
    })();
    expect(truth()).toBe(10_002);
    await expectIt();
    ok(await s.put(`/projects/${many}`, { description: 'touched once more' }));
    ok(await s.put(`/projects/${side}/issues/1`, { labels: 'rare' }));
    expect(countReads(await preparedBy(s, () => s.get(path, query)))).toEqual([]);
    await expectIt();
    // 'rare' on three more of the project's issues: one through the API, two in SQL (one statement): 9,999, counted.
    ok(await s.put(`/projects/${many}/issues/${top + 1}`, { labels: 'rare' }));
    db.prepare("UPDATE issues SET labels = '[\"Rare\"]' WHERE project_id = ? AND iid IN (?, ?)").run(many, top + 2, top + 3);
    expect(truth()).toBe(9_999);
    await expectIt();
    // A renamed label rewrites its records: 'rare' renamed away, every record without it again.
    const label = (ok(await s.get(`/projects/${many}/labels`, { query: { per_page: '100' } })) as { id: number; name: string }[]).find((l) => l.name === 'rare')!;
    ok(await s.put(`/projects/${many}/labels/${label.id}`, { new_name: 'common' }));
    await expectIt();
  }, 120_000);
});

describe("a group's list by a milestone's title (a set of records) and the other date column", () => {
  it('walks the date-lag buckets asking each record the set when it holds 1 in 8 of the group; every page as the records say', async () => {
    const db = s.service.context.db;
    const v1 = ok(await s.post(`/projects/${many}/milestones`, { title: 'v1' })).id as number;
    const sideV1 = ok(await s.post(`/projects/${side}/milestones`, { title: 'v1' })).id as number;
    // Every 3rd of the big project's records and two of the small one's carry a 'v1' (in SQL: the counters follow by trigger).
    db.prepare('UPDATE issues SET milestone_id = ? WHERE project_id = ? AND id % 3 = 0').run(v1, many);
    db.prepare('UPDATE issues SET milestone_id = ? WHERE id IN (SELECT id FROM issues WHERE project_id = ? LIMIT 2)').run(sideV1, side);
    const want = (where: string, order: string): number[] =>
      (
        db
          .prepare(`SELECT x.id FROM issues x WHERE x.project_id IN (SELECT id FROM projects WHERE namespace_id = ? AND archived = 0) AND ${where} ORDER BY ${order}`)
          .all(group) as { id: number }[]
      ).map((r) => r.id);
    const cases: [Record<string, string>, string][] = [
      [{ milestone: 'v1', updated_after: AFTER }, `x.milestone_id IN (${v1}, ${sideV1}) AND x.updated_at >= '2023-12-01T00:00:00.000Z'`],
      [{ milestone: 'Any', updated_after: AFTER, state: 'opened' }, `x.milestone_id IS NOT NULL AND x.updated_at >= '2023-12-01T00:00:00.000Z' AND x.state = 'opened'`],
      [{ milestone: 'v1', created_before: '2030-01-01T00:00:00Z', order_by: 'updated_at' }, `x.milestone_id IN (${v1}, ${sideV1}) AND x.created_at <= '2030-01-01T00:00:00.000Z'`],
    ];
    for (const [query, where] of cases) {
      for (const sort of ['desc', 'asc'] as const) {
        const col = query.order_by ?? 'created_at';
        const ids = want(where, `x.${col} ${sort}, x.id ${sort}`);
        expect(ids.length).toBeGreaterThan(3_000);
        for (const page of [1, 2, 11, 12, Math.ceil(ids.length / 100), Math.ceil(ids.length / 100) + 1]) {
          const res = await s.get(`/groups/${group}/issues`, { query: { ...query, sort, per_page: '100', page: String(page) } });
          expect(res.body.map((i: { id: number }) => i.id), `${JSON.stringify(query)} ${sort} page ${page}`).toEqual(ids.slice((page - 1) * 100, page * 100));
          expectCounted(res, ids.length, 100);
        }
      }
    }
    // Read by the buckets (the instance's lag index), not the milestone's (project, milestone, created_at) arms.
    const reads = await pagedReads(s, async () => void ok(await s.get(`/groups/${group}/issues`, { query: { milestone: 'v1', updated_after: AFTER, per_page: '100', page: '2' } })));
    expect(reads.map((r) => r.sql).join('\n')).toContain('INDEXED BY issues_lag_created');
  }, 120_000);
});

describe("a group's list by a milestone's title past 10,000: count and anchors kept under the milestones' version too", () => {
  it('follows a milestone renamed (no record written): counted anew, its deep pages read anew', async () => {
    const db = s.service.context.db;
    const v1 = (db.prepare("SELECT id FROM milestones WHERE project_id = ? AND title = 'v1'").get(many) as { id: number }).id;
    db.prepare('UPDATE issues SET milestone_id = ? WHERE project_id = ?').run(v1, many);
    const path = `/groups/${group}/issues`;
    const query = { milestone: 'v1', updated_after: AFTER };
    const truth = (): number[] =>
      (
        db
          .prepare(
            "SELECT x.id FROM issues x JOIN milestones m ON m.id = x.milestone_id WHERE m.title = 'v1' AND x.updated_at >= '2023-12-01T00:00:00.000Z' AND x.project_id IN (SELECT id FROM projects WHERE namespace_id = ? AND archived = 0) ORDER BY x.created_at DESC, x.id DESC",
          )
          .all(group) as { id: number }[]
      ).map((r) => r.id);
    const expectPages = async (): Promise<void> => {
      const ids = truth();
      for (const page of [1, 11, 12]) {
        const res = await s.get(path, { query: { ...query, per_page: '100', page: String(page) } });
        expect(res.body.map((i: { id: number }) => i.id), `page ${page}`).toEqual(ids.slice((page - 1) * 100, page * 100));
        if (ids.length > 10_000) expectUncounted(res, String(page + 1));
        else expectCounted(res, ids.length, 100);
      }
    };
    expect(truth().length).toBeGreaterThan(10_000);
    await expectPages();
    // Counted once: a project's description leaves it.
    ok(await s.put(`/projects/${many}`, { description: 'touched by milestones' }));
    expect(countReads(await preparedBy(s, () => s.get(path, { query })))).toEqual([]);
    await expectPages();
    // The big project's v1 renamed: only the small project's two carry the title; no issue written.
    ok(await s.put(`/projects/${many}/milestones/${v1}`, { title: 'v9' }));
    expect(truth().length).toBe(2);
    await expectPages();
    ok(await s.put(`/projects/${many}/milestones/${v1}`, { title: 'v1' }));
    await expectPages();
  }, 120_000);
});

describe("a group's list by a milestone's title in creation order: the (project, milestone) arms' deep pages from anchors", () => {
  it('every page as the records say, in turn, again, after writes, ties, a milestone renamed and a project moved', async () => {
    const db = s.service.context.db;
    const path = `/groups/${group}/issues`;
    const truth = (sort: 'asc' | 'desc'): number[] =>
      (
        db
          .prepare(
            `SELECT x.id FROM issues x JOIN milestones m ON m.id = x.milestone_id WHERE m.title = 'v1' AND x.project_id IN (SELECT id FROM projects WHERE namespace_id = ? AND archived = 0) ORDER BY x.created_at ${sort}, x.id ${sort}`,
          )
          .all(group) as { id: number }[]
      ).map((r) => r.id);
    const pages = async (sort: 'asc' | 'desc', from: number, to: number): Promise<void> => {
      const ids = truth(sort);
      for (let page = from; page <= to; page++) {
        const res = await s.get(path, { query: { milestone: 'v1', sort, per_page: '100', page: String(page) } });
        expect(res.body.map((i: { id: number }) => i.id), `${sort} page ${page}`).toEqual(ids.slice((page - 1) * 100, page * 100));
      }
    };
    // Ties: runs of five records sharing a creation time.
    db.prepare("UPDATE issues SET created_at = (SELECT created_at FROM issues i WHERE i.id = issues.id - issues.id % 5) WHERE project_id = ? AND id % 5 != 0 AND id - id % 5 IN (SELECT id FROM issues WHERE project_id = ?)").run(many, many);
    for (const sort of ['desc', 'asc'] as const) {
      await pages(sort, 11, 13);
      await pages(sort, 13, 13);
      await pages(sort, 12, 12);
      // A project write elsewhere keeps the anchors; page 12's rows asked at another length (the
      // same page is kept whole: scope-page-rows) are read from them.
      ok(await s.put(`/projects/${many}`, { description: `arms ${sort}` }));
      const reads = await pagedReads(s, async () => void ok(await s.get(path, { query: { milestone: 'v1', sort, per_page: '50', page: '23' } })));
      expect(reads.map((r) => r.sql).join('\n')).toMatch(/WHERE \(x\.created_at, x\.id\) [<>] \(\?, \?\) AND x\.project_id = /);
      // Records moved across the anchors in SQL, one deleted, one added through the API.
      const ids = truth(sort);
      db.prepare("UPDATE issues SET created_at = '2031-01-01T00:00:00.000Z' WHERE id = ?").run(ids[50]);
      db.prepare('DELETE FROM issues WHERE id = ?').run(ids[1_020]);
      const v1 = (db.prepare("SELECT id FROM milestones WHERE project_id = ? AND title = 'v1'").get(many) as { id: number }).id;
      ok(await s.post(`/projects/${many}/issues`, { title: 'Arms', milestone_id: v1 }));
      await pages(sort, 11, 13);
      // The small project's v1 renamed (no record written), then back; the small project moved out and back in SQL.
      const sideV1 = (db.prepare("SELECT id FROM milestones WHERE project_id = ? AND title = 'v1'").get(side) as { id: number }).id;
      ok(await s.put(`/projects/${side}/milestones/${sideV1}`, { title: 'v2' }));
      await pages(sort, 12, 13);
      ok(await s.put(`/projects/${side}/milestones/${sideV1}`, { title: 'v1' }));
      await pages(sort, 12, 13);
      db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(elsewhere, side);
      await pages(sort, 12, 13);
      db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(group, side);
      await pages(sort, 12, 13);
    }
  }, 120_000);
});
