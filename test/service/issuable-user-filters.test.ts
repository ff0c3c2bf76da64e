import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService, ok } from '../helpers/service';
import { pagedReads, preparedBy, queryPlan, statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * Filters by a set of records another table lists: assignee_id and reviewer_id (core/066's rows
 * kept from the records' JSON lists), my_reaction_emoji (award_emoji), confidential=true (core/067's
 * partial indexes), scope=assigned_to_me; and not[assignee_id]. A small set is read by id and
 * sorted, a big one walked in list order (idSetLists): whichever, every answer must be the one the
 * records' own JSON lists and columns give (the SQL below, as the lists filtered before core/066),
 * rows, order and pagination headers, for a project, a group and the instance, before and after
 * every kind of write.
 */
let s: TestService;
let group: number;
let big: number;
let sibling: number;
let many: number;
let plain: number;
const users: Record<'u1' | 'u2' | 'u3' | 'u4', number> = { u1: 0, u2: 0, u3: 0, u4: 0 };
const usernames: Record<'u1' | 'u2' | 'u3' | 'u4', string> = { u1: '', u2: '', u3: '', u4: '' };
let u2Token = '';
const N = 300;
const MANY = 10_050;

const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  for (const k of Object.keys(users) as (keyof typeof users)[]) {
    const u = await s.createUser();
    users[k] = u.user.id;
    usernames[k] = u.user.username;
    if (k === 'u2') u2Token = u.token;
  }
  group = (await s.createGroup({ visibility: 'public' })).id;
  big = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  sibling = (await s.createProject({ name: 'sibling', namespace_id: group, visibility: 'public' })).id;
  many = (await s.createProject({ name: 'many', visibility: 'public' })).id;
  plain = (await s.createProject({ name: 'plain', visibility: 'public' })).id;
  const { u1, u2, u3, u4 } = users;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      // u1 on every other record (a big set: walked), u2 on a few (read), both on some; three records share each created_at.
      const assigneeIds = [...(i % 2 === 0 ? [u1] : []), ...(i % 37 === 0 || i % 50 === 0 ? [u2] : [])];
      const common = { iid: i, title: `Record ${i}`, description: null, state: (i % 7 === 0 ? 'closed' : 'opened') as 'opened', authorId: 1, createdAt: at(Math.floor(i / 3)), updatedAt: at(i % 13 === 0 ? Math.floor(i / 3) - 50 : 1_000 - (i % 40)), importedFrom: 'none' as const };
      insertImportedIssue(ctx, big, { ...common, assigneeIds, confidential: i % 29 === 0 });
      insertImportedMergeRequest(ctx, big, {
        ...common,
        assigneeIds,
        reviewerIds: [...(i % 41 === 0 ? [u3] : []), ...(i % 3 === 0 ? [u1] : [])],
        labels: [],
        milestoneId: null,
        sourceBranch: `f-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
      });
      if (i % 23 === 0) ctx.db.prepare("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) SELECT 'thumbsup', 1, 'Issue', id, ?, ? FROM issues WHERE project_id = ? AND iid = ?").run(at(0), at(0), big, i);
      if (i % 31 === 0) ctx.db.prepare("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) SELECT 'rocket', 1, 'Issue', id, ?, ? FROM issues WHERE project_id = ? AND iid = ?").run(at(0), at(0), big, i);
    }
    for (let i = 1; i <= 5; i++) {
      insertImportedIssue(ctx, sibling, { iid: i, title: `Sibling ${i}`, description: null, state: 'opened', authorId: 1, assigneeIds: i % 2 ? [u2] : [u1], confidential: i === 3, createdAt: at(i * 7), updatedAt: at(i), importedFrom: 'none' });
    }
    // Past 10,000 records assigned to u4 (uncounted lists), u2 on a few of them.
    for (let i = 1; i <= MANY; i++) {
      // `bug` on all but the newest 40, `other` on every 5th.
      const labels = [...(i <= MANY - 40 ? ['bug'] : []), ...(i % 5 === 0 ? ['other'] : [])];
      insertImportedIssue(ctx, many, { iid: i, title: `Many ${i}`, description: null, state: i % 4 === 0 ? 'closed' : 'opened', authorId: 1, assigneeIds: i % 1_000 === 0 ? [u2] : [u4], labels, createdAt: at(i), updatedAt: at(i), importedFrom: 'none' });
    }
    // Past 10,000 records without labels, 1 in 100 confidential (10,020; 9,919 that anybody sees), `Bug` on 5.
    for (let i = 1; i <= 10_020; i++) {
      insertImportedIssue(ctx, plain, { iid: i, title: `Plain ${i}`, description: null, state: i % 3 === 0 ? 'closed' : 'opened', authorId: 1, labels: i % 2_000 === 0 ? ['Bug'] : [], confidential: i % 100 === 0, createdAt: at(i), updatedAt: at(i), importedFrom: 'none' });
    }
    // Past 10,000 merge requests, u2 reviewing every 1,000th (reviewer_id=None, not[reviewer_id] uncounted).
    for (let i = 1; i <= 10_030; i++) {
      insertImportedMergeRequest(ctx, plain, {
        iid: i, title: `Plain MR ${i}`, description: null, state: i % 3 === 0 ? 'merged' : 'opened', authorId: 1, assigneeIds: [], reviewerIds: i % 1_000 === 0 ? [u2] : [], labels: [], milestoneId: null,
        sourceBranch: `p-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), createdAt: at(i), updatedAt: at(i), importedFrom: 'none',
      });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

interface Truth {
  table: 'issues' | 'merge_requests';
  where: string;
  args: unknown[];
  projects: number[];
  order?: string;
}

/** The answer the records give: their ids in list order, filtered by their own JSON lists and columns. */
function truth(t: Truth): number[] {
  const order = t.order ?? 'x.created_at DESC, x.id DESC';
  return (
    s.service.context.db.prepare(`SELECT x.id FROM ${t.table} x WHERE x.project_id IN (${t.projects.join(',')}) AND ${t.where} ORDER BY ${order}`).all(...t.args) as { id: number }[]
  ).map((r) => r.id);
}

const assigned = (user: number): string => `EXISTS (SELECT 1 FROM json_each(x.assignee_ids) WHERE value = ${user})`;
const reviewing = (user: number): string => `EXISTS (SELECT 1 FROM json_each(x.reviewer_ids) WHERE value = ${user})`;
const reacted = (name: string | null): string => `EXISTS (SELECT 1 FROM award_emoji a WHERE a.awardable_type = 'Issue' AND a.awardable_id = x.id AND a.user_id = 1${name ? ` AND a.name = '${name}'` : ''})`;

/** Every page asked for equals the records' answer: rows in order, X-Total / X-Total-Pages (absent past 10,000), X-Next-Page, rel="last". */
async function expectPages(path: string, query: Record<string, string>, expected: number[], pages: [number, number][], token?: string | null): Promise<void> {
  for (const [page, perPage] of pages) {
    const res: ApiResult = await s.get(path, { query: { ...query, page: String(page), per_page: String(perPage) }, token });
    const where = `${path}?${new URLSearchParams({ ...query, page: String(page), per_page: String(perPage) })}`;
    expect(res.status, where).toBe(200);
    expect(res.body.map((x: any) => x.id), where).toEqual(expected.slice((page - 1) * perPage, page * perPage));
    const hasNext = expected.length > page * perPage;
    expect(res.headers.get('x-next-page'), where).toBe(hasNext ? String(page + 1) : '');
    if (expected.length > 10_000) {
      expect(res.headers.has('x-total'), where).toBe(false);
      expect(res.headers.has('x-total-pages'), where).toBe(false);
      expect(res.headers.get('link'), where).not.toContain('rel="last"');
    } else {
      expect(res.headers.get('x-total'), where).toBe(String(expected.length));
      expect(res.headers.get('x-total-pages'), where).toBe(String(Math.max(1, Math.ceil(expected.length / perPage))));
      expect(res.headers.get('link'), where).toContain('rel="last"');
    }
    expect(res.headers.get('link') ?? '', where).toContain(hasNext ? 'rel="next"' : 'rel="first"');
  }
}

const PAGES: [number, number][] = [[1, 20], [2, 20], [5, 20], [1, 100], [2, 100]];
const ORDERS: { query: Record<string, string>; order: string }[] = [
  { query: {}, order: 'x.created_at DESC, x.id DESC' },
  { query: { order_by: 'updated_at', sort: 'asc' }, order: 'x.updated_at ASC, x.id ASC' },
  { query: { order_by: 'title', sort: 'desc' }, order: 'x.title DESC, x.id DESC' },
];

/** Every filter of this file, on a project, its group and the instance (root sees all), in each order. */
async function expectAllLists(): Promise<void> {
  const { u1, u2, u3 } = users;
  const both = [big, sibling];
  const cases: { kind: 'issues' | 'merge_requests'; query: Record<string, string>; where: string }[] = [
    { kind: 'issues', query: { assignee_id: String(u1) }, where: assigned(u1) },
    { kind: 'issues', query: { assignee_id: String(u2) }, where: assigned(u2) },
    { kind: 'issues', query: { assignee_id: String(u2), state: 'opened' }, where: `${assigned(u2)} AND x.state = 'opened'` },
    { kind: 'issues', query: { assignee_id: String(u3) }, where: assigned(u3) },
    { kind: 'issues', query: { 'not[assignee_id]': String(u2) }, where: `NOT ${assigned(u2)}` },
    { kind: 'issues', query: { my_reaction_emoji: 'thumbsup' }, where: reacted('thumbsup') },
    { kind: 'issues', query: { my_reaction_emoji: 'Any' }, where: reacted(null) },
    { kind: 'issues', query: { my_reaction_emoji: 'thumbsup', assignee_id: String(u1) }, where: `${reacted('thumbsup')} AND ${assigned(u1)}` },
    { kind: 'issues', query: { confidential: 'true' }, where: 'x.confidential = 1' },
    { kind: 'issues', query: { confidential: 'true', state: 'opened' }, where: "x.confidential = 1 AND x.state = 'opened'" },
    { kind: 'issues', query: { confidential: 'false', assignee_id: String(u2) }, where: `x.confidential = 0 AND ${assigned(u2)}` },
    { kind: 'merge_requests', query: { reviewer_id: String(u3) }, where: reviewing(u3) },
    { kind: 'merge_requests', query: { reviewer_id: String(u1) }, where: reviewing(u1) },
    { kind: 'merge_requests', query: { reviewer_id: String(u3), assignee_id: String(u1) }, where: `${reviewing(u3)} AND ${assigned(u1)}` },
    { kind: 'merge_requests', query: { assignee_id: String(u2), state: 'closed' }, where: `${assigned(u2)} AND x.state = 'closed'` },
    { kind: 'merge_requests', query: { 'not[assignee_id]': String(u1) }, where: `NOT ${assigned(u1)}` },
    // None / Any (any case) and the negated reviewer (filt12).
    { kind: 'issues', query: { assignee_id: 'Any' }, where: "x.assignee_ids != '[]'" },
    { kind: 'issues', query: { assignee_id: 'any', state: 'closed' }, where: "x.assignee_ids != '[]' AND x.state = 'closed'" },
    { kind: 'merge_requests', query: { assignee_id: 'ANY' }, where: "x.assignee_ids != '[]'" },
    { kind: 'merge_requests', query: { reviewer_id: 'None' }, where: "x.reviewer_ids = '[]'" },
    { kind: 'merge_requests', query: { reviewer_id: 'Any' }, where: "x.reviewer_ids != '[]'" },
    { kind: 'merge_requests', query: { reviewer_id: 'any', assignee_id: 'None' }, where: "x.reviewer_ids != '[]' AND x.assignee_ids = '[]'" },
    { kind: 'merge_requests', query: { 'not[reviewer_id]': String(u1) }, where: `NOT ${reviewing(u1)}` },
    { kind: 'merge_requests', query: { 'not[reviewer_username]': usernames.u3, state: 'opened' }, where: `NOT ${reviewing(u3)} AND x.state = 'opened'` },
  ];
  for (const c of cases) {
    for (const o of ORDERS) {
      const query = { ...c.query, ...o.query };
      await expectPages(`/projects/${big}/${c.kind}`, query, truth({ table: c.kind, where: c.where, args: [], projects: [big], order: o.order }), PAGES);
      await expectPages(`/groups/${group}/${c.kind}`, query, truth({ table: c.kind, where: c.where, args: [], projects: both, order: o.order }), PAGES.slice(0, 2));
      await expectPages(`/${c.kind}`, { ...query, scope: 'all' }, truth({ table: c.kind, where: c.where, args: [], projects: [big, sibling, many, plain], order: o.order }), PAGES.slice(0, 2));
    }
  }
  // The caller's own: scope=assigned_to_me, and a confidential issue its assignee sees (u2 is no member).
  await expectPages('/issues', { scope: 'assigned_to_me' }, truth({ table: 'issues', where: assigned(u2), args: [], projects: [big, sibling, many, plain] }), PAGES.slice(0, 2), u2Token);
  await expectPages('/merge_requests', { scope: 'assigned_to_me' }, truth({ table: 'merge_requests', where: assigned(u2), args: [], projects: [big, sibling, many, plain] }), PAGES.slice(0, 2), u2Token);
  await expectPages(`/projects/${big}/issues`, { confidential: 'true' }, truth({ table: 'issues', where: `x.confidential = 1 AND ${assigned(u2)}`, args: [], projects: [big] }), PAGES.slice(0, 1), u2Token);
  await expectPages(`/groups/${group}/issues`, {}, truth({ table: 'issues', where: `(x.confidential = 0 OR ${assigned(u2)})`, args: [], projects: both }), PAGES.slice(0, 2), u2Token);
}

describe('filters by sets of records', () => {
  it('answer as the records say: project, group, instance; each order; pages deep and wide', async () => {
    await expectAllLists();
  }, 120_000);

  it('past 10,000 records: uncounted, the next page still there', async () => {
    const { u2, u4 } = users;
    await expectPages(`/projects/${many}/issues`, { assignee_id: String(u4) }, truth({ table: 'issues', where: assigned(u4), args: [], projects: [many] }), [[1, 20], [3, 100], [101, 100]]);
    await expectPages(`/projects/${many}/issues`, { assignee_id: String(u2) }, truth({ table: 'issues', where: assigned(u2), args: [], projects: [many] }), [[1, 20]]);
    await expectPages('/issues', { assignee_id: String(u4), scope: 'all' }, truth({ table: 'issues', where: assigned(u4), args: [], projects: [big, sibling, many, plain] }), [[1, 20], [2, 100]]);
    await expectPages(`/projects/${many}/issues`, { 'not[assignee_id]': String(u2) }, truth({ table: 'issues', where: `NOT ${assigned(u2)}`, args: [], projects: [many] }), [[1, 20], [50, 100]]);
  }, 120_000);

  it('a small set is read by id, a big one walked in list order', async () => {
    const { u1, u2 } = users;
    // The list's paged reads, and its first ids read once for a page counted first from its own statement (fewRowsByIds).
    const listRead = (sql: string): boolean => /LIMIT \d+ OFFSET \?$/.test(sql) || /^SELECT x\.id AS id FROM .* LIMIT 10001$/.test(sql);
    const reads = async (path: string, query: Record<string, string>): Promise<string[]> =>
      (await statementReads(s, listRead, async () => void ok(await s.get(path, { query })))).map((r) => r.sql);
    // u2: 14 of 300 records, read; u1: 153 of 300, walked for page 1 and read for page 8 of 20 (161 rows wanted).
    for (const path of [`/projects/${big}/issues`, `/groups/${group}/issues`, '/issues']) {
      const scope: Record<string, string> = path === '/issues' ? { scope: 'all' } : {};
      expect((await reads(path, { assignee_id: String(u2), ...scope })).join('\n')).toContain('CROSS JOIN');
      // The instance holds 20,375 issues: u1's 153 are read there, u4's 10,050 walked.
      const bigSet = path === '/issues' ? users.u4 : u1;
      expect((await reads(path, { assignee_id: String(bigSet), ...scope })).join('\n')).not.toContain('CROSS JOIN');
    }
    expect((await reads(`/projects/${big}/issues`, { assignee_id: String(u1), page: '8' })).join('\n')).toContain('CROSS JOIN');
    expect((await reads(`/projects/${big}/issues`, { confidential: 'true' })).join('\n')).toContain('CROSS JOIN');
    expect((await reads(`/projects/${big}/issues`, { my_reaction_emoji: 'thumbsup' })).join('\n')).toContain('CROSS JOIN');
    expect((await reads(`/projects/${big}/merge_requests`, { reviewer_id: String(users.u3) })).join('\n')).toContain('CROSS JOIN');
    expect((await reads('/issues', { scope: 'assigned_to_me' })).join('\n')).toContain('CROSS JOIN');
    // Any: 107 of the 300 merge requests have a reviewer: walked for page 1, the project's reviewer rows read for page 5
    // (page 8, past the end, is counted first, by the list's ids read once, and reads no page).
    expect((await reads(`/projects/${big}/merge_requests`, { reviewer_id: 'Any' })).join('\n')).not.toContain('CROSS JOIN');
    expect((await reads(`/projects/${big}/merge_requests`, { reviewer_id: 'Any', page: '8' })).filter((sql) => sql.endsWith('OFFSET ?'))).toEqual([]);
    const anyRead = (await reads(`/projects/${big}/merge_requests`, { reviewer_id: 'Any', page: '5' })).join('\n');
    expect(anyRead).toContain('CROSS JOIN');
    expect(anyRead).toContain(`u.project_id = ${big}`);
    const plan = (sql: string): string => (s.service.context.db.prepare(`EXPLAIN QUERY PLAN SELECT u.issuable_id ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('\n');
    expect(plan(`FROM issuable_users u WHERE u.issuable_type = 'MergeRequest' AND u.role = 'reviewer' AND u.project_id = ${big}`)).toMatch(/USING COVERING INDEX issuable_users_project \(issuable_type=\? AND role=\? AND project_id=\?\)/);
  });

  it("a non-administrator's scope=assigned_to_me is counted from the set's rows (not the projects' records, each asked the set)", async () => {
    const counts = async (path: string): Promise<{ sql: string; args: unknown[] }[]> => {
      const seen = await statementReads(s, (sql) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM (issues|merge_requests) x WHERE /.test(sql), async () => void ok(await s.get(path, { token: u2Token, query: { scope: 'assigned_to_me' } })), 'get');
      return seen;
    };
    for (const [path, table] of [['/issues', 'issues'], ['/merge_requests', 'merge_requests']] as const) {
      const seen = await counts(path);
      expect(seen.length, path).toBeGreaterThan(0);
      for (const { sql, args } of seen) {
        const plan = queryPlan(s.service.context.db, sql, ...args);
        // The set's rows first (the user's, by issuable_users' own index), each record by its id; no project's records read.
        expect(plan, path).toMatch(/LIST SUBQUERY \d+\nSEARCH u USING (PRIMARY KEY|(COVERING )?INDEX \w+) \(issuable_type=\? AND role=\? AND user_id=\?\)/);
        expect(plan, path).toMatch(/SEARCH x USING INTEGER PRIMARY KEY \(rowid=\?\)/);
        expect(plan, path).not.toMatch(new RegExp(`SEARCH x USING (COVERING )?INDEX ${table}_`));
      }
    }
  });

  it("reviewer and assignee parameters as GitLab's API takes them: 400s, a reviewer nobody is, issues' lists ignore reviewers", async () => {
    const { u1 } = users;
    const err = async (path: string, query: Record<string, string>, message: string): Promise<void> => {
      const res = await s.get(path, { query });
      expect(res.status, `${path} ${JSON.stringify(query)}`).toBe(400);
      expect(res.body, `${path} ${JSON.stringify(query)}`).toEqual({ error: message });
    };
    for (const path of [`/projects/${big}/merge_requests`, `/groups/${group}/merge_requests`, '/merge_requests']) {
      await err(path, { reviewer_id: 'abc' }, 'reviewer_id should be an integer, none, or any, however got abc');
      await err(path, { assignee_id: 'someone' }, 'assignee_id should be an integer, none, or any, however got someone');
      await err(path, { reviewer_id: '5', reviewer_username: 'x' }, 'reviewer_id, reviewer_username are mutually exclusive');
      await err(path, { 'not[reviewer_id]': String(u1), 'not[reviewer_username]': usernames.u1 }, 'not[reviewer_id], not[reviewer_username] are mutually exclusive');
      await err(path, { 'not[reviewer_id]': 'None' }, 'not[reviewer_id] is invalid');
      await err(path, { 'not[assignee_id]': 'x' }, 'not[assignee_id] is invalid');
      // MergeRequestsFinder#by_negated_reviewer: a reviewer who does not exist matches no merge request.
      const none: Record<string, string>[] = [{ 'not[reviewer_id]': '999999' }, { 'not[reviewer_username]': 'nobody-at-all' }, { reviewer_username: 'None' }, { reviewer_username: 'Any' }];
      for (const query of none) {
        await expectPages(path, path === '/merge_requests' ? { ...query, scope: 'all' } : query, [], [[1, 20]]);
      }
    }
    await err(`/projects/${big}/issues`, { assignee_id: 'nobody' }, 'assignee_id should be an integer, none, or any, however got nobody');
    // Issues have no reviewers: the parameters are not theirs, and ignored.
    const all = truth({ table: 'issues', where: '1 = 1', args: [], projects: [big] });
    await expectPages(`/projects/${big}/issues`, { reviewer_id: 'abc', 'not[reviewer_id]': 'x' }, all, [[1, 20]]);
  });

  it('after writes (API and SQL): assignees and reviewers changed, records moved, deleted, created', async () => {
    const { u1, u2, u3 } = users;
    const db = s.service.context.db;
    const issue = (iid: number, project = big): { id: number } => db.prepare('SELECT id FROM issues WHERE project_id = ? AND iid = ?').get(project, iid) as { id: number };
    ok(await s.put(`/projects/${big}/issues/1`, { assignee_ids: [u2] }));
    ok(await s.put(`/projects/${big}/issues/74`, { assignee_ids: [] }));
    ok(await s.put(`/projects/${big}/merge_requests/41`, { reviewer_ids: [u1] }));
    ok(await s.put(`/projects/${big}/merge_requests/2`, { reviewer_ids: [u3, u2], assignee_ids: [u2] }));
    ok(await s.post(`/projects/${big}/issues`, { title: 'New', assignee_ids: [u2, u1] }));
    ok(await s.post(`/projects/${big}/issues`, { title: 'Secret', assignee_ids: [u2], confidential: true }));
    ok(await s.del(`/projects/${big}/issues/100`));
    db.prepare('UPDATE issues SET assignee_ids = ? WHERE id = ?').run(JSON.stringify([u1, u2, u1]), issue(3).id);
    db.prepare("UPDATE issues SET assignee_ids = '[]' WHERE id = ?").run(issue(150).id);
    db.prepare('UPDATE issues SET confidential = 1 WHERE id = ?').run(issue(5).id);
    db.prepare('UPDATE issues SET confidential = 0 WHERE id = ?').run(issue(29).id);
    // Moved to the sibling (same group) and to the project outside it.
    db.prepare('UPDATE issues SET project_id = ?, iid = 1000 WHERE id = ?').run(sibling, issue(50).id);
    db.prepare('UPDATE issues SET project_id = ?, iid = 20000 WHERE id = ?').run(many, issue(37).id);
    db.prepare('UPDATE merge_requests SET reviewer_ids = ? WHERE project_id = ? AND iid = 82').run(JSON.stringify([u3]), big);
    db.prepare('DELETE FROM merge_requests WHERE project_id = ? AND iid = 123').run(big);
    db.prepare("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES ('thumbsup', 1, 'Issue', ?, ?, ?)").run(issue(2).id, at(0), at(0));
    ok(await s.del(`/projects/${big}/issues/23/award_emoji/${(db.prepare("SELECT id FROM award_emoji WHERE awardable_type = 'Issue' AND awardable_id = ? AND name = 'thumbsup'").get(issue(23).id) as { id: number }).id}`));
    // core/066's rows are exactly the records' lists.
    const rows = db.prepare('SELECT issuable_type, role, user_id, project_id, issuable_id FROM issuable_users ORDER BY 1, 2, 3, 4, 5').all();
    const fromLists = db
      .prepare(
        `SELECT * FROM (SELECT 'Issue' AS issuable_type, 'assignee' AS role, j.value AS user_id, x.project_id, x.id AS issuable_id FROM issues x, json_each(x.assignee_ids) j
          UNION SELECT 'MergeRequest', 'assignee', j.value, x.project_id, x.id FROM merge_requests x, json_each(x.assignee_ids) j
          UNION SELECT 'MergeRequest', 'reviewer', j.value, x.project_id, x.id FROM merge_requests x, json_each(x.reviewer_ids) j) ORDER BY 1, 2, 3, 4, 5`,
      )
      .all();
    expect(rows).toEqual(fromLists);
    expect(rows.length).toBeGreaterThan(10_000);
    await expectAllLists();
  }, 180_000);

  it('updated_before by created_at: records updated before they were created included, both sorts, after writes', async () => {
    const db = s.service.context.db;
    const check = async (): Promise<void> => {
      for (const kind of ['issues', 'merge_requests'] as const) {
        for (const [project, dates] of [[big, [at(20), at(970), at(2_000)]], [many, [at(5_000), at(30)]]] as const) {
          for (const date of dates) {
            for (const extra of [{}, { state: 'opened' }, { sort: 'asc' }] as Record<string, string>[]) {
              const where = `x.updated_at <= '${date}'${'state' in extra ? " AND x.state = 'opened'" : ''}`;
              const order = 'sort' in extra ? 'x.created_at ASC, x.id ASC' : 'x.created_at DESC, x.id DESC';
              await expectPages(`/projects/${project}/${kind}`, { updated_before: date, ...extra }, truth({ table: kind, where, args: [], projects: [project], order }), PAGES.slice(0, 3));
            }
          }
        }
      }
    };
    await check();
    // A narrow range of updated_at (db/date-lag.ts): read from its own index and sorted.
    const reads = await pagedReads(s, async () => void ok(await s.get(`/projects/${big}/issues`, { query: { updated_before: at(20) } })));
    expect(reads.map((r) => r.sql).join('\n')).toContain('INDEXED BY issues_project_updated WHERE');
    // Records redated in SQL (updated before created, and back), created, moved in.
    db.prepare('UPDATE issues SET updated_at = ? WHERE project_id = ? AND iid IN (2, 200)').run(at(-100), big);
    db.prepare('UPDATE issues SET updated_at = ? WHERE project_id = ? AND iid = 26').run(at(3_000), big);
    db.prepare('UPDATE merge_requests SET updated_at = ? WHERE project_id = ? AND iid IN (5, 299)').run(at(10), big);
    db.prepare('UPDATE issues SET updated_at = ? WHERE project_id = ? AND iid = 9000').run(at(1), many);
    ok(await s.post(`/projects/${big}/issues`, { title: 'Later' }));
    await check();
  }, 180_000);

  it('labels=Any, labels=None, not[labels], assignee_id=None, not[assignee_id]: "more than 10,000" from the counters only when they show it', async () => {
    const lists: { project: number; query: Record<string, string>; where: string; kind?: 'issues' | 'merge_requests' }[] = [
      { project: many, query: { labels: 'Any' }, where: "x.labels != '[]'" },
      { project: many, query: { labels: 'Any', state: 'closed' }, where: "x.labels != '[]' AND x.state = 'closed'" },
      { project: many, query: { labels: 'None' }, where: "x.labels = '[]'" },
      { project: many, query: { 'not[labels]': 'other' }, where: "NOT EXISTS (SELECT 1 FROM json_each(x.labels) WHERE lower(value) = 'other')" },
      { project: many, query: { 'not[labels]': 'BUG', state: 'opened' }, where: "NOT EXISTS (SELECT 1 FROM json_each(x.labels) WHERE lower(value) = 'bug') AND x.state = 'opened'" },
      { project: plain, query: { labels: 'None' }, where: "x.labels = '[]'" },
      { project: plain, query: { labels: 'None', state: 'opened' }, where: "x.labels = '[]' AND x.state = 'opened'" },
      { project: plain, query: { 'not[labels]': 'bug' }, where: "NOT EXISTS (SELECT 1 FROM json_each(x.labels) WHERE lower(value) = 'bug')" },
      { project: plain, query: { labels: 'Any' }, where: "x.labels != '[]'" },
      { project: plain, query: { assignee_id: 'None' }, where: "x.assignee_ids = '[]'" },
      { project: many, query: { assignee_id: 'None' }, where: "x.assignee_ids = '[]'" },
      { project: many, query: { 'not[assignee_id]': String(users.u2) }, where: `NOT ${assigned(users.u2)}` },
      { project: many, query: { 'not[assignee_id]': String(users.u4) }, where: `NOT ${assigned(users.u4)}` },
      { project: many, query: { 'not[assignee_id]': String(users.u2), state: 'opened' }, where: `NOT ${assigned(users.u2)} AND x.state = 'opened'` },
      { project: big, query: { labels: 'None' }, where: "x.labels = '[]'", kind: 'merge_requests' },
      { project: big, query: { labels: 'Any' }, where: "x.labels != '[]'", kind: 'merge_requests' },
      { project: plain, query: { reviewer_id: 'None' }, where: "x.reviewer_ids = '[]'", kind: 'merge_requests' },
      { project: plain, query: { reviewer_id: 'None', state: 'merged' }, where: "x.reviewer_ids = '[]' AND x.state = 'merged'", kind: 'merge_requests' },
      { project: plain, query: { reviewer_id: 'Any' }, where: "x.reviewer_ids != '[]'", kind: 'merge_requests' },
      { project: plain, query: { 'not[reviewer_id]': String(users.u2) }, where: `NOT ${reviewing(users.u2)}`, kind: 'merge_requests' },
      { project: plain, query: { 'not[reviewer_id]': String(users.u1) }, where: `NOT ${reviewing(users.u1)}`, kind: 'merge_requests' },
    ];
    const check = async (): Promise<void> => {
      for (const l of lists) {
        const kind = l.kind ?? 'issues';
        for (const order of ORDERS.slice(0, 2)) {
          const query = { ...l.query, ...order.query };
          await expectPages(`/projects/${l.project}/${kind}`, query, truth({ table: kind, where: l.where, args: [], projects: [l.project], order: order.order }), [[1, 20], [3, 100]]);
          // Anonymous: no confidential issue (plain's None: 9,919, counted).
          const seen = kind === 'issues' ? `${l.where} AND x.confidential = 0` : l.where;
          await expectPages(`/projects/${l.project}/${kind}`, query, truth({ table: kind, where: seen, args: [], projects: [l.project], order: order.order }), [[1, 20]], null);
        }
      }
      // A group's (counted: 305 records) and the instance's (past 10,000: bound from its counters and role rows), an administrator and anonymous.
      const wide: { kind: 'issues' | 'merge_requests'; query: Record<string, string>; where: string }[] = [
        { kind: 'issues', query: { assignee_id: 'None' }, where: "x.assignee_ids = '[]'" },
        { kind: 'issues', query: { 'not[assignee_id]': String(users.u2), state: 'opened' }, where: `NOT ${assigned(users.u2)} AND x.state = 'opened'` },
        { kind: 'issues', query: { 'not[assignee_id]': String(users.u4) }, where: `NOT ${assigned(users.u4)}` },
        // ~14,500 open issues, ~7,000 not u4's: counted, not bounded.
        { kind: 'issues', query: { 'not[assignee_id]': String(users.u4), state: 'opened' }, where: `NOT ${assigned(users.u4)} AND x.state = 'opened'` },
        { kind: 'merge_requests', query: { reviewer_id: 'None' }, where: "x.reviewer_ids = '[]'" },
        { kind: 'merge_requests', query: { reviewer_id: 'None', state: 'merged' }, where: "x.reviewer_ids = '[]' AND x.state = 'merged'" },
        { kind: 'merge_requests', query: { 'not[reviewer_id]': String(users.u1) }, where: `NOT ${reviewing(users.u1)}` },
      ];
      for (const w of wide) {
        const seen = w.kind === 'issues' ? `${w.where} AND x.confidential = 0` : w.where;
        await expectPages(`/groups/${group}/${w.kind}`, w.query, truth({ table: w.kind, where: w.where, args: [], projects: [big, sibling] }), [[1, 20], [2, 100]]);
        await expectPages(`/${w.kind}`, { ...w.query, scope: 'all' }, truth({ table: w.kind, where: w.where, args: [], projects: [big, sibling, many, plain] }), [[1, 20], [3, 100]]);
        await expectPages(`/${w.kind}`, { ...w.query, scope: 'all' }, truth({ table: w.kind, where: seen, args: [], projects: [big, sibling, many, plain] }), [[1, 20]], null);
      }
    };
    await check();
    // Labels and confidentiality changed (API, SQL), records deleted: the bounds follow.
    const db = s.service.context.db;
    db.prepare("UPDATE issues SET labels = '[]' WHERE project_id = ? AND iid > 10000").run(many);
    db.prepare("UPDATE issues SET labels = '[\"x\"]' WHERE project_id = ? AND iid <= 25").run(plain);
    db.prepare('UPDATE issues SET confidential = 1 WHERE project_id = ? AND iid <= 200').run(plain);
    ok(await s.put(`/projects/${many}/issues/9999`, { labels: 'other' }));
    ok(await s.del(`/projects/${plain}/issues/10020`));
    db.prepare('UPDATE issues SET assignee_ids = ? WHERE project_id = ? AND iid <= 60').run(JSON.stringify([users.u2]), many);
    ok(await s.put(`/projects/${plain}/issues/7`, { assignee_ids: [users.u1] }));
    // 9,980 merge requests without a reviewer: counted.
    db.prepare('UPDATE merge_requests SET reviewer_ids = ? WHERE project_id = ? AND iid <= 40').run(JSON.stringify([users.u1]), plain);
    ok(await s.put(`/projects/${plain}/merge_requests/41`, { reviewer_ids: [users.u3] }));
    await check();
    // The instance's reviewer None / not[reviewer_id]: bounded from counters and role rows, no record walked to count.
    for (const query of [{ reviewer_id: 'None' }, { 'not[reviewer_id]': String(users.u1) }] as Record<string, string>[]) {
      const prepared = await preparedBy(s, async () => void ok(await s.get('/merge_requests', { query: { ...query, scope: 'all' } })));
      expect(prepared.filter((q) => q.startsWith('SELECT count(*)') && q.includes('merge_requests x'))).toEqual([]);
    }
  }, 240_000);
});
