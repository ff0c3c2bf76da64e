import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectUncounted, preparedBy, queryPlan } from '../helpers/lists';

/**
 * A project's list by labels=Any and one not[labels] title (perhaps in a state): "more than 10,000"
 * from another title's counters less the records counted with both (label_pair_counts), not 10,001
 * records walked (labelBoundCount's anyNot); counted by walking when the bound does not clear
 * 10,000. Rows, order and headers either side of 10,000 as the records say, the excluded title in
 * any spelling (NOCASE), confidential issues hidden from a Guest.
 */
let s: TestService;
let project: number;
let guest: string;
const db = () => s.service.context.db;
let iid = 1000;

const insert = (n: number, labels: string[], state = 'opened', confidential = 0): void => {
  const stmt = db().prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, confidential, labels, created_at, updated_at)
     VALUES (?, ?, 'Bulk', ?, 1, ?, ?, ?, ?)`,
  );
  db().transaction(() => {
    for (let i = 0; i < n; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + ++iid * 1000).toISOString();
      stmt.run(project, iid, state, confidential, JSON.stringify(labels), at, at);
    }
  })();
};
// The list as the records say: some label, none of them bug in any spelling.
const ids = (state: string | null, guestView: boolean): number[] =>
  (
    db()
      .prepare(
        `SELECT x.id FROM issues x WHERE x.project_id = ${project} AND x.labels != '[]'
          AND NOT EXISTS (SELECT 1 FROM json_each(x.labels) j WHERE lower(j.value) = 'bug')${state ? ` AND x.state = '${state}'` : ''}${guestView ? ' AND x.confidential = 0' : ''}
          ORDER BY x.created_at DESC, x.id DESC`,
      )
      .all() as { id: number }[]
  ).map((r) => r.id);
// The list's count by walking its records.
const walked = (sql: string[]) => sql.some((q) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM issues x WHERE/.test(q));
const list = async (query: Record<string, string>, token?: string) => {
  let res: Awaited<ReturnType<typeof s.get>> | undefined;
  const sql = await preparedBy(s, async () => void (res = await s.get(`/projects/${project}/issues`, { token, query: { labels: 'Any', 'not[labels]': 'bug', per_page: '20', ...query } })));
  return { res: res!, sql };
};

beforeAll(async () => {
  s = await TestService.start();
  project = ok(await s.post('/projects', { name: 'any-not', visibility: 'private' })).id;
  const u = await s.createUser();
  guest = u.token;
  await s.addMember('projects', project, u.user.id, 10);
  // Opened: 9,990 label-1, 30 label-2, 50 label-1 with bug, 20 Bug alone, 10 confidential label-1, 10 unlabelled:
  // 10,030 in the list (10,020 for a Guest); label-1's bound 10,040 - 50 = 9,990 does not clear 10,000.
  insert(9_990, ['label-1']);
  insert(30, ['label-2']);
  insert(50, ['label-1', 'bug']);
  insert(20, ['Bug']);
  insert(10, ['label-1'], 'opened', 1);
  insert(10, []);
  // Closed: 9,000 label-1 and 1,500 label-1 with BUG: 9,000 in the list, counted exactly (label-1's 10,500 less the pairs).
  insert(9_000, ['label-1'], 'closed');
  insert(1_500, ['label-1', 'BUG'], 'closed');
}, 60_000);
afterAll(async () => s?.stop());

describe('labels=Any less one title', () => {
  it('opened: walked while the bound does not clear 10,000, then uncounted from the counters, for an administrator and a Guest', async () => {
    for (const token of [undefined, guest]) {
      const { res, sql } = await list({ state: 'opened', page: '2' }, token);
      expectUncounted(res, '3');
      expect((res.body as { id: number }[]).map((r) => r.id)).toEqual(ids('opened', !!token).slice(20, 40));
      expect(walked(sql)).toBe(true);
    }
    // 20 more label-1: its opened bound 10,010 clears 10,000 (every state's did already).
    insert(20, ['label-1']);
    for (const token of [undefined, guest]) {
      for (const query of [{}, { page: '3' }, { state: 'opened', per_page: '100', page: '100' }] as Record<string, string>[]) {
        const { res, sql } = await list(query, token);
        const want = ids(query.state ?? null, !!token);
        const page = Number(query.page ?? 1);
        const per = Number(query.per_page ?? 20);
        expectUncounted(res, String(page + 1));
        expect((res.body as { id: number }[]).map((r) => r.id), JSON.stringify([query, token])).toEqual(want.slice((page - 1) * per, page * per));
        expect(walked(sql), JSON.stringify([query, token])).toBe(false);
        // The titles' counters by the project's key, each pair by its own (both orders of the titles).
        const bound = sql.find((q) => q.includes('label_pair_counts'))!;
        const plan = queryPlan(db(), bound, ...Array(bound.split('?').length - 1).fill(null));
        expect(plan).toMatch(/SEARCH label_counts USING PRIMARY KEY \(issuable_type=\? AND project_id=\?/);
        expect(plan.match(/SEARCH p USING PRIMARY KEY \(issuable_type=\? AND a=\? AND b=\? AND project_id=\?/g)).toHaveLength(2);
      }
    }
  });

  it('counted exactly when the records with both titles bring it under 10,000 (the title in another spelling)', async () => {
    for (const page of ['1', '450']) {
      const { res } = await list({ state: 'closed', page });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total')).toBe('9000');
      expect(res.headers.get('x-total-pages')).toBe('450');
      expect(res.headers.get('x-next-page')).toBe(page === '450' ? '' : '2');
      expect((res.body as { id: number }[]).map((r) => r.id)).toEqual(ids('closed', false).slice((Number(page) - 1) * 20, Number(page) * 20));
    }
  });
});
