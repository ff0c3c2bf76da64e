import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, type ApiResult } from '../helpers/service';
import { preparedBy, queryPlan } from '../helpers/lists';

/**
 * Direct members (GET /groups/:id/members, /projects/:id/members) are listed by membership id,
 * read in that order from members_source_order (core/048) instead of sorted in a temporary
 * B-tree. Here membership ids run against user ids (users joined in reverse), a request and an
 * invitation sit among them: every page, with and without `query`, gets the rows, order and
 * headers the list's own SQL gives, and /members/all keeps its order by user id.
 */
let s: TestService;
let group: number;
let project: number;
const db = () => s.service.context.db;

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ path: 'reeds' })).id;
  project = (await s.createProject({ name: 'marsh' })).id;
  const users: number[] = [];
  for (let i = 0; i < 17; i++) users.push((await s.createUser({ username: i % 3 ? `bittern${i}` : `rail${i}`, name: `Bird ${i}` })).user.id);
  // Later users join first: membership id order is not user id order.
  for (const id of [...users].reverse()) {
    await s.addMember('groups', group, id, 30);
    if (id % 2) await s.addMember('projects', project, id, 20);
  }
  const now = new Date().toISOString();
  const extra = (await s.createUser({ username: 'bitternasker' })).user.id;
  db().prepare("INSERT INTO members (source_type, source_id, user_id, access_level, requested_at, created_at, updated_at) VALUES ('Namespace', ?, ?, 30, ?, ?, ?)").run(group, extra, now, now, now);
  db().prepare("INSERT INTO members (source_type, source_id, user_id, access_level, invite_email, created_at, updated_at) VALUES ('Namespace', ?, NULL, 30, 'bittern@example.org', ?, ?)").run(group, now, now);
});
afterAll(async () => s.stop());

/** The members' user ids (a member's `id`) a fresh query gives, in GitLab's order (membership id), optionally those `term` matches. */
function expectedIds(type: 'Namespace' | 'Project', id: number, term?: string): number[] {
  const rows = db()
    .prepare(
      `SELECT m.user_id AS id FROM members m JOIN users u ON u.id = m.user_id WHERE m.source_type = ? AND m.source_id = ? AND m.requested_at IS NULL
         AND (? IS NULL OR instr(lower(u.username), ?) > 0 OR instr(lower(u.name), ?) > 0 OR lower(u.email) = ?) ORDER BY m.id`,
    )
    .all(type, id, term ?? null, term ?? null, term ?? null, term ?? null) as { id: number }[];
  return rows.map((r) => r.id);
}

function expectPage(res: ApiResult, all: number[], page: number, perPage: number): void {
  expect(res.status).toBe(200);
  expect(res.body.map((x: any) => x.id)).toEqual(all.slice((page - 1) * perPage, page * perPage));
  const pages = Math.max(1, Math.ceil(all.length / perPage));
  expect(res.headers.get('x-total')).toBe(String(all.length));
  expect(res.headers.get('x-total-pages')).toBe(String(pages));
  expect(res.headers.get('x-page')).toBe(String(page));
  expect(res.headers.get('x-next-page')).toBe(page < pages ? String(page + 1) : '');
  // A page past the end is out of range (Kaminari): no previous page.
  expect(res.headers.get('x-prev-page')).toBe(page > 1 && page <= pages ? String(page - 1) : '');
  const link = res.headers.get('link')!;
  const rel = (to: number, name: string) => new RegExp(`<[^>]*[?&]page=${to}&per_page=${perPage}[^>]*>; rel="${name}"`);
  expect(link).toMatch(rel(1, 'first'));
  expect(link).toMatch(rel(pages, 'last'));
  if (page < pages) expect(link).toMatch(rel(page + 1, 'next'));
  else expect(link).not.toContain('rel="next"');
}

describe('direct member lists in id order', () => {
  it('every page of a group and a project, with and without query, is what a fresh query gives', async () => {
    for (const [kind, type, id] of [
      ['groups', 'Namespace', group],
      ['projects', 'Project', project],
    ] as const) {
      for (const term of [undefined, 'bittern', 'rail1']) {
        const all = expectedIds(type, id, term);
        expect(all.length).toBeGreaterThan(term === 'rail1' ? 0 : 4);
        const perPage = 4;
        const pages = Math.ceil(all.length / perPage);
        for (let page = 1; page <= pages + 1; page++) {
          const res = await s.get(`/${kind}/${id}/members?per_page=${perPage}&page=${page}${term ? `&query=${term}` : ''}`);
          expectPage(res, all, page, perPage);
          // The id order is not the user id order here: the pin is not met by chance.
          if (page === 1 && !term) expect(res.body.map((x: any) => x.id)).not.toEqual([...res.body.map((x: any) => x.id)].sort((a: number, b: number) => a - b));
        }
      }
    }
  });

  it('reads the rows in index order, with no sort of every member', async () => {
    // The statistics of a big instance (14,001 memberships, a few per source on average), where
    // SQLite took members_source_user for `user_id IS NOT NULL` and sorted the group's 2,000 members.
    db().exec('ANALYZE members');
    // members_source_order has none yet there (core/048 made it after the data was analyzed).
    const stat = { members_user: '14001 2', members_source_invite: '0 0 0 0', members_source_user: '14001 728 2 1' };
    for (const [idx, value] of Object.entries(stat)) db().prepare("UPDATE sqlite_stat1 SET stat = ? WHERE tbl = 'members' AND idx = ?").run(value, idx);
    db().prepare("DELETE FROM sqlite_stat1 WHERE idx = 'members_source_order'").run();
    if (db().prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat4'").get()) db().prepare("DELETE FROM sqlite_stat4 WHERE tbl = 'members'").run();
    db().exec('ANALYZE sqlite_schema');
    const sql = await preparedBy(s, () => s.get(`/groups/${group}/members?page=2&per_page=3`));
    const page = sql.find((x) => /FROM members m WHERE/.test(x) && /OFFSET \?$/.test(x))!;
    expect(page).toBeDefined();
    const plan = queryPlan(db(), page, 'Namespace', group, 3);
    expect(plan).toContain('members_source_order');
    expect(plan).not.toContain('TEMP B-TREE');
  });

  it('/members/all stays ordered by user id', async () => {
    const res = await s.get(`/groups/${group}/members/all?per_page=100`);
    expect(res.status).toBe(200);
    const ids = res.body.map((x: any) => x.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    expect(ids).toEqual([...expectedIds('Namespace', group)].sort((a, b) => a - b));
  });
});
