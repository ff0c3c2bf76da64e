import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { expectCounted, preparedBy } from '../helpers/lists';
import { TestService } from '../helpers/service';

/**
 * A group's or project's own members (the direct list, and members/all of a top-level group)
 * take their total from core/061's counters, and their deep pages (past 1,000 rows) start after
 * a row an earlier page read while the source's version stays. Pinned: every page's members,
 * order, X-Total and paging headers against a fresh query of the table, after every kind of
 * write to the members (through the API and straight into the table).
 */
let s: TestService;
let group: number;
let project: number;

const db = () => s.service.context.db;
const NOW = '2026-01-01T00:00:00.000Z';
// Hundreds of requests a test: past the default 20 s (a loaded machine) a test would go on in the background under the next one.
const SLOW = 120_000;
const PER_PAGE = 100;

/** The active members' user ids in the list's order, as the table says. */
const want = (type: string, id: number, order: 'id' | 'user_id'): number[] =>
  (
    db()
      .prepare(`SELECT user_id FROM members NOT INDEXED WHERE source_type = ? AND source_id = ? AND user_id IS NOT NULL AND requested_at IS NULL ORDER BY ${order}`)
      .all(type, id) as { user_id: number }[]
  ).map((r) => r.user_id);

async function expectPages(path: string, ids: number[], pages: number[]): Promise<void> {
  const last = Math.max(1, Math.ceil(ids.length / PER_PAGE));
  for (const page of pages) {
    const res = await s.get(path, { query: { per_page: String(PER_PAGE), page: String(page) } });
    expectCounted(res, ids.length, PER_PAGE);
    expect({ path, page, ids: (res.body as { id: number }[]).map((m) => m.id) }).toEqual({ path, page, ids: ids.slice((page - 1) * PER_PAGE, page * PER_PAGE) });
    expect(res.headers.get('x-page')).toBe(String(page));
    expect(res.headers.get('x-next-page')).toBe(page < last ? String(page + 1) : '');
    // A page past the end is out of range (Kaminari): no previous page.
    expect(res.headers.get('x-prev-page')).toBe(page > 1 && page <= last ? String(page - 1) : '');
    expect(res.headers.get('link')).toMatch(new RegExp(`[?&]page=${last}&per_page=${PER_PAGE}[^>]*>; rel="last"`));
  }
}

async function expectEveryList(): Promise<void> {
  const direct = want('Namespace', group, 'id');
  const pages = Array.from({ length: Math.ceil(direct.length / PER_PAGE) + 1 }, (_, i) => i + 1);
  // Deep pages twice, and backwards: from the start, then from what the earlier reads remembered.
  for (const order of [pages, [...pages].reverse(), [13, 11, 12, 12]]) {
    await expectPages(`/groups/${group}/members`, direct, order);
    await expectPages(`/groups/${group}/members/all`, want('Namespace', group, 'user_id'), order);
  }
  await expectPages(`/projects/${project}/members`, want('Project', project, 'id'), [1, 2]);
  expect(db().prepare('SELECT source_type, source_id, n FROM member_list_counts ORDER BY 1, 2').all()).toEqual(
    db()
      .prepare(
        'SELECT source_type, source_id, sum(user_id IS NOT NULL AND requested_at IS NULL) AS n FROM members GROUP BY source_type, source_id ORDER BY 1, 2',
      )
      .all(),
  );
}

const insertUser = (d: Pick<ReturnType<typeof db>, 'prepare'>) => (username: string): number =>
  Number(
    d
      .prepare("INSERT INTO users (username, name, email, state, created_at, updated_at) VALUES (?, ?, ?, 'active', ?, ?)")
      .run(username, username, `${username}@example.com`, NOW, NOW).lastInsertRowid,
  );
const addRow = (sourceType: string, sourceId: number, userId: number | null, extra: { requested_at?: string; invite_email?: string } = {}): number =>
  Number(
    db()
      .prepare(
        `INSERT INTO members (source_type, source_id, user_id, access_level, requested_at, invite_email, invite_token, created_at, updated_at)
         VALUES (?, ?, ?, 30, ?, ?, ?, ?, ?)`,
      )
      .run(sourceType, sourceId, userId, extra.requested_at ?? null, extra.invite_email ?? null, extra.invite_email ? `tok-${extra.invite_email}` : null, NOW, NOW)
      .lastInsertRowid,
  );

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup()).id;
  project = (await s.createProject({ namespace_id: group })).id;
  const add = insertUser(db());
  db().transaction(() => {
    const users = Array.from({ length: 1_250 }, (_, i) => add(`many${i}`));
    // Memberships in another order than the users (every 7th user from the end first), some only requested, an invitation.
    const order = users.map((u, i) => ({ u, k: (i * 7919) % users.length })).sort((a, b) => a.k - b.k);
    for (const [i, { u }] of order.entries()) {
      if (i % 97 === 5) addRow('Namespace', group, u, { requested_at: NOW });
      else addRow('Namespace', group, u);
      if (i % 50 === 0) addRow('Project', project, u);
    }
    addRow('Namespace', group, null, { invite_email: 'later@example.com' });
  })();
}, 60_000);
afterAll(async () => s.stop());

describe('direct member lists from core/061', () => {
  it('every page, in order, with its headers, as the table says; its total not counted per request', async () => {
    await expectEveryList();
    const prepared = await preparedBy(s, () => s.get(`/groups/${group}/members`, { query: { per_page: '20', page: '3' } }));
    expect(prepared.filter((sql) => /count\(\*\)/.test(sql))).toEqual([]);
  }, SLOW);

  it('the same after every kind of write: API adds, updates and removals, requests approved, invitations accepted, rows deleted', async () => {
    const add = insertUser(db());
    const late = add('late-api');
    expect((await s.post(`/groups/${group}/members`, { user_id: late, access_level: 30 })).status).toBe(201);
    await expectEveryList();
    const first = want('Namespace', group, 'id')[1_050];
    expect((await s.put(`/groups/${group}/members/${first}`, { access_level: 40 })).status).toBe(200);
    expect((await s.del(`/groups/${group}/members/${want('Namespace', group, 'id')[1_020]}`)).status).toBe(204);
    await expectEveryList();
    // A request approved, an invitation accepted, a row deleted straight from the table.
    db().prepare('UPDATE members SET requested_at = NULL WHERE id = (SELECT min(id) FROM members WHERE source_type = ? AND source_id = ? AND requested_at IS NOT NULL)').run('Namespace', group);
    db().prepare('UPDATE members SET user_id = ?, invite_token = NULL WHERE invite_email = ?').run(add('accepted'), 'later@example.com');
    db().prepare('DELETE FROM members WHERE id = (SELECT id FROM members WHERE source_type = ? AND source_id = ? ORDER BY id LIMIT 1 OFFSET 1100)').run('Namespace', group);
    await expectEveryList();
  }, SLOW);
});

describe('deep member pages between the anchors of another page size', () => {
  it('read back from the anchor past their start, in the list order (m.id and m.user_id carry no direction to flip)', async () => {
    for (const [path, order] of [[`/groups/${group}/members`, 'id'], [`/groups/${group}/members/all`, 'user_id']] as const) {
      const ids = want('Namespace', group, order);
      // Page 12 of 100 remembers the rows before offsets 1,100 and 1,200; page 13 of 90 starts at 1,080, 20 rows before the first.
      expect((await s.get(path, { query: { per_page: '100', page: '12' } })).status).toBe(200);
      const res = await s.get(path, { query: { per_page: '90', page: '13' } });
      expectCounted(res, ids.length, 90);
      expect((res.body as { id: number }[]).map((m) => m.id)).toEqual(ids.slice(1_080, 1_170));
    }
  }, SLOW);
});

describe('a member as an entity', () => {
  it('the same fields in the same order, with the e-mail for an administrator and the member only', async () => {
    const { user, token } = await s.createUser();
    await s.addMember('groups', group, user.id, 30);
    const row = db().prepare("SELECT * FROM members WHERE source_type = 'Namespace' AND source_id = ? AND user_id = ?").get(group, user.id) as {
      access_level: number;
      created_at: string;
      expires_at: string | null;
    };
    const root = (await s.get('/users/1')).body as Record<string, unknown>;
    const expected = (withEmail: boolean) =>
      JSON.stringify({
        id: user.id,
        username: user.username,
        name: user.name,
        state: 'active',
        locked: false,
        avatar_url: null,
        web_url: `${s.url}/${user.username}`,
        access_level: 30,
        created_at: row.created_at,
        created_by: { id: 1, username: root.username, name: root.name, state: 'active', locked: false, avatar_url: null, web_url: `${s.url}/${root.username}` },
        expires_at: null,
        group_saml_identity: null,
        membership_state: 'active',
        member_role: null,
        ...(withEmail ? { email: user.email } : {}),
      });
    const other = await s.createUser();
    await s.addMember('groups', group, other.user.id, 10);
    for (const [viewer, withEmail] of [[undefined, true], [token, true], [other.token, false]] as const) {
      const one = await s.get(`/groups/${group}/members/${user.id}`, { token: viewer });
      expect(one.text).toBe(expected(withEmail));
      const page = await s.get(`/groups/${group}/members`, { token: viewer, query: { user_ids: String(user.id) } });
      expect(page.text).toBe(`[${expected(withEmail)}]`);
    }
  });
});

describe('core/061 on an existing data dir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-member-list-counts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('counts the members already there', () => {
    const file = join(dir, 'sandlab.db');
    const before = openBefore(file, 'core/061_member_list_counts');
    const add = insertUser(before);
    const row = before.prepare(
      'INSERT INTO members (source_type, source_id, user_id, access_level, requested_at, invite_email, created_at, updated_at) VALUES (?, ?, ?, 30, ?, ?, ?, ?)',
    );
    const a = add('a');
    const b = add('b');
    row.run('Namespace', 5, a, null, null, NOW, NOW);
    row.run('Namespace', 5, b, null, null, NOW, NOW);
    row.run('Namespace', 6, a, NOW, null, NOW, NOW);
    row.run('Project', 5, null, null, 'x@example.com', NOW, NOW);
    row.run('Project', 5, b, null, null, NOW, NOW);
    before.close();
    const after = openToday(file);
    expect(after.prepare('SELECT source_type, source_id, n, version FROM member_list_counts ORDER BY 1, 2').all()).toEqual([
      { source_type: 'Namespace', source_id: 5, n: 2, version: 1 },
      { source_type: 'Namespace', source_id: 6, n: 0, version: 1 },
      { source_type: 'Project', source_id: 5, n: 1, version: 1 },
    ]);
    after.close();
  });
});
