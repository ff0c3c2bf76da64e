import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, type ApiResult } from '../helpers/service';
import { preparedBy } from '../helpers/lists';
import { inheritedPicks, type MemberSource } from '../../src/main/service/areas/core/members';

/**
 * members/all of a project or subgroup under a group ranks the memberships of the source and every
 * group above it (each user once, at the highest level; on a tie the source's own, then the
 * oldest) and remembers the picks while those sources' member lists (core/061) keep their
 * versions. Pinned: every page's members, their levels, order, X-Total and paging headers, and
 * /members/all/:user_id, against the ranking done here from the table, after every kind of write
 * (API, SQL, a transfer, a rolled-back transaction).
 */
let s: TestService;
let top: number;
let sub: number;
let other: number;
let project: number;
const users: number[] = [];
const db = () => s.service.context.db;
const NOW = '2026-01-01T00:00:00.000Z';
const PER_PAGE = 7;

interface Row {
  id: number;
  source_type: string;
  source_id: number;
  user_id: number | null;
  access_level: number;
  requested_at: string | null;
  expires_at: string | null;
}

/** The groups a namespace sits in, itself first. */
function chain(groupId: number): number[] {
  const out: number[] = [];
  for (let id: number | null = groupId; id !== null; ) {
    out.push(id);
    id = (db().prepare('SELECT parent_id FROM namespaces WHERE id = ?').get(id) as { parent_id: number | null }).parent_id;
  }
  return out;
}

/** Each user's membership the list should show, ranked here from every row of the table, by user id. */
function want(type: 'Project' | 'Namespace', id: number): Row[] {
  const parent =
    type === 'Project'
      ? (db().prepare('SELECT namespace_id FROM projects WHERE id = ?').get(id) as { namespace_id: number }).namespace_id
      : (db().prepare('SELECT parent_id FROM namespaces WHERE id = ?').get(id) as { parent_id: number }).parent_id;
  const groups = chain(parent);
  const rows = (db().prepare('SELECT * FROM members NOT INDEXED').all() as Row[]).filter(
    (m) => m.user_id !== null && m.requested_at === null && ((m.source_type === type && m.source_id === id) || (m.source_type === 'Namespace' && groups.includes(m.source_id))),
  );
  const own = (m: Row) => (m.source_type === type && m.source_id === id ? 1 : 0);
  const best = new Map<number, Row>();
  for (const m of rows) {
    const b = best.get(m.user_id!);
    if (!b || m.access_level > b.access_level || (m.access_level === b.access_level && (own(m) > own(b) || (own(m) === own(b) && m.id < b.id)))) best.set(m.user_id!, m);
  }
  return [...best.values()].sort((a, b) => a.user_id! - b.user_id!);
}

function expectPage(res: ApiResult, all: Row[], page: number): void {
  expect(res.status).toBe(200);
  const shown = (res.body as { id: number; access_level: number; expires_at: string | null }[]).map((m) => [m.id, m.access_level, m.expires_at]);
  expect({ page, shown }).toEqual({ page, shown: all.slice((page - 1) * PER_PAGE, page * PER_PAGE).map((m) => [m.user_id, m.access_level, m.expires_at]) });
  const pages = Math.max(1, Math.ceil(all.length / PER_PAGE));
  expect(res.headers.get('x-total')).toBe(String(all.length));
  expect(res.headers.get('x-total-pages')).toBe(String(pages));
  expect(res.headers.get('x-page')).toBe(String(page));
  expect(res.headers.get('x-next-page')).toBe(page < pages ? String(page + 1) : '');
  // A page past the end is out of range (Kaminari): no previous page.
  expect(res.headers.get('x-prev-page')).toBe(page > 1 && page <= pages ? String(page - 1) : '');
  expect(res.headers.get('link')).toMatch(new RegExp(`<[^>]*[?&]page=${pages}&per_page=${PER_PAGE}[^>]*>; rel="last"`));
}

async function expectLists(): Promise<void> {
  for (const [kind, type, id] of [
    ['projects', 'Project', project],
    ['groups', 'Namespace', sub],
  ] as const) {
    const all = want(type, id);
    const pages = Math.max(1, Math.ceil(all.length / PER_PAGE));
    // Every page, twice (the second from what the first remembered), and one past the end.
    for (let round = 0; round < 2; round++) {
      for (let page = 1; page <= pages + 1; page++) {
        expectPage(await s.get(`/${kind}/${id}/members/all`, { query: { per_page: String(PER_PAGE), page: String(page) } }), all, page);
      }
    }
    // Filters on the same list: the matches in the same order.
    const some = users.filter((_, i) => i % 3 === 1);
    const res = await s.get(`/${kind}/${id}/members/all?${some.map((u) => `user_ids[]=${u}`).join('&')}`, { query: { per_page: '100' } });
    expect(res.body.map((m: { id: number; access_level: number }) => [m.id, m.access_level])).toEqual(
      all.filter((m) => some.includes(m.user_id!)).map((m) => [m.user_id, m.access_level]),
    );
    const query = await s.get(`/${kind}/${id}/members/all`, { query: { query: 'heron1', per_page: '100' } });
    expect(query.body.map((m: { id: number }) => m.id)).toEqual(all.filter((m) => `heron${users.indexOf(m.user_id!)}`.includes('heron1')).map((m) => m.user_id));
    // One member by user id: the same pick; a user outside the list is not found.
    for (const m of all.slice(0, 5)) {
      const one = await s.get(`/${kind}/${id}/members/all/${m.user_id}`);
      expect([one.status, one.body.access_level]).toEqual([200, m.access_level]);
    }
    const outside = users.find((u) => !all.some((m) => m.user_id === u));
    if (outside !== undefined) expect((await s.get(`/${kind}/${id}/members/all/${outside}`)).status).toBe(404);
  }
}

const addRow = (sourceType: string, sourceId: number, userId: number, level: number, extra: { requested_at?: string; expires_at?: string } = {}): number =>
  Number(
    db()
      .prepare(
        `INSERT INTO members (source_type, source_id, user_id, access_level, requested_at, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(sourceType, sourceId, userId, level, extra.requested_at ?? null, extra.expires_at ?? null, NOW, NOW).lastInsertRowid,
  );

beforeAll(async () => {
  s = await TestService.start();
  top = (await s.createGroup({ path: 'estuary' })).id;
  sub = (await s.createGroup({ path: 'creek', parent_id: top })).id;
  other = (await s.createGroup({ path: 'lagoon' })).id;
  project = (await s.createProject({ name: 'mudflat', namespace_id: sub })).id;
  for (let i = 0; i < 30; i++) users.push((await s.createUser({ username: `heron${i}`, name: `Heron ${i}` })).user.id);
  // Later users join first; levels and sources overlap: ties between the source and a group, a
  // higher level above, requests that do not count, an expiry to tell the rows apart.
  [...users].reverse().forEach((u, i) => {
    if (i % 2 === 0) addRow('Namespace', top, u, 10 + (i % 4) * 10);
    if (i % 3 === 0) addRow('Namespace', sub, u, 30, { expires_at: i % 2 ? '2030-01-01' : undefined });
    if (i % 5 === 0) addRow('Project', project, u, 30, { expires_at: '2031-02-02' });
    if (i % 7 === 0 && i % 3 !== 0) addRow('Namespace', sub, u, 50, { requested_at: NOW });
    if (i % 11 === 0) addRow('Namespace', other, u, 40);
  });
});
afterAll(async () => s.stop());

describe('members/all under a group', () => {
  it('every page as the table ranks it, with headers, filters and single members', async () => {
    expect(want('Project', project).length).toBeGreaterThan(3 * PER_PAGE);
    await expectLists();
  });

  it('the same after API writes to the source and to each group above it', async () => {
    const direct = (type: string, id: number) => (db().prepare('SELECT user_id FROM members WHERE source_type = ? AND source_id = ?').all(type, id) as { user_id: number }[]).map((r) => r.user_id);
    await s.addMember('groups', top, users.find((u) => !direct('Namespace', top).includes(u))!, 50);
    const low = want('Project', project).find((m) => m.access_level <= 30 && users.includes(m.user_id!) && !direct('Project', project).includes(m.user_id!))!;
    await s.addMember('projects', project, low.user_id!, 40);
    const raised = direct('Namespace', sub).find((u) => users.includes(u) && !direct('Namespace', top).includes(u))!;
    expect((await s.put(`/groups/${sub}/members/${raised}`, { access_level: 40 })).status).toBe(200);
    await expectLists();
    const gone = want('Project', project).find((m) => m.source_type === 'Project')!.user_id!;
    expect((await s.del(`/projects/${project}/members/${gone}`)).status).toBe(204);
    await expectLists();
  });

  it('the same after SQL writes: a level raised, a request approved, a row deleted, a member moved between sources', async () => {
    db().prepare("UPDATE members SET access_level = 50 WHERE source_type = 'Namespace' AND source_id = ? AND user_id = ?").run(top, want('Project', project)[4]!.user_id);
    db().prepare("UPDATE members SET requested_at = NULL WHERE source_type = 'Namespace' AND source_id = ? AND requested_at IS NOT NULL").run(sub);
    await expectLists();
    db().prepare("DELETE FROM members WHERE id = (SELECT id FROM members WHERE source_type = 'Namespace' AND source_id = ? ORDER BY id LIMIT 1 OFFSET 3)").run(top);
    db()
      .prepare(
        "UPDATE members SET source_id = ? WHERE id = (SELECT id FROM members o WHERE source_type = 'Namespace' AND source_id = ? AND NOT EXISTS (SELECT 1 FROM members t WHERE t.source_type = 'Namespace' AND t.source_id = ? AND t.user_id = o.user_id) ORDER BY id LIMIT 1)",
      )
      .run(top, other, top);
    await expectLists();
  });

  it('the same after the project and the subgroup move to another group', async () => {
    expect((await s.put(`/projects/${project}/transfer`, { namespace: other })).status).toBe(200);
    await expectLists();
    expect((await s.post(`/groups/${sub}/transfer`, { group_id: other })).status).toBe(201);
    expect((await s.put(`/projects/${project}/transfer`, { namespace: sub })).status).toBe(200);
    await expectLists();
  });

  it('a ranking read inside a transaction that rolls back is not kept', async () => {
    await expectLists();
    const source: MemberSource = { type: 'Project', id: project, name: 'mudflat', group: null, project: null, parentGroupId: sub };
    const outsider = users.find((u) => !want('Project', project).some((m) => m.user_id === u))!;
    expect(() =>
      db().transaction(() => {
        addRow('Namespace', sub, outsider, 20);
        expect(inheritedPicks(s.service.context, source).userIds).toContain(outsider);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    // Another write brings the versions where the rolled-back one had them.
    addRow('Namespace', sub, users.find((u) => u !== outsider && !want('Project', project).some((m) => m.user_id === u))!, 10);
    await expectLists();
  });

  it('a query few users match reads its matches once, to count and to page', async () => {
    for (const path of [`/groups/${top}/members`, `/groups/${sub}/members/all`, `/projects/${project}/members/all`]) {
      let res: ApiResult | undefined;
      const prepared = await preparedBy(s, async () => (res = await s.get(path, { query: { query: 'heron1', per_page: '3', page: '2' } })));
      expect(res!.status).toBe(200);
      expect(Number(res!.headers.get('x-total'))).toBeGreaterThan(3);
      expect({ path, counts: prepared.filter((sql) => /count\(\*\)/.test(sql) && sql.includes('members')) }).toEqual({ path, counts: [] });
    }
  });
});
