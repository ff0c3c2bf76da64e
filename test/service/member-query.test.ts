import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCounted, preparedBy, queryPlan, statementReads } from '../helpers/lists';
import { TestService } from '../helpers/service';

/**
 * Members by `query`: a member is in when their username or name holds the query, or their e-mail
 * is it, compared in JavaScript's lower case (Unicode). SQLite's ASCII LIKE tries members first;
 * the answers must stay exactly what JavaScript's comparison gives, for ASCII and other text.
 */
let s: TestService;
let group: number;
let project: number;
const people: { id: number; username: string; name: string; email: string }[] = [];

const db = () => s.service.context.db;
/** The members the query keeps, as the service compared them before (every text through toLowerCase). */
const expected = (query: string, ids: number[]): number[] => {
  const needle = query.replace(/\\/g, '').toLowerCase();
  return people
    .filter((p) => ids.includes(p.id))
    .filter((p) => p.username.toLowerCase().includes(needle) || p.name.toLowerCase().includes(needle) || p.email.toLowerCase() === needle)
    .map((p) => p.id);
};

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup()).id;
  // The group's creator (root) is its first member.
  people.push(db().prepare('SELECT id, username, name, email FROM users WHERE id = 1').get() as (typeof people)[number]);
  project = (await s.createProject({ namespace_id: group })).id;
  const texts: [string, string, string][] = [
    ['alice', 'Alice Smith', 'Alice.Smith@Example.com'],
    ['bob_builder', 'Bob The Builder', 'bob@example.com'],
    ['carol', 'CAROL 100% sure', 'carol@example.com'],
    ['dave', 'Ünïcødé Dave', 'dave@example.com'],
    ['erin', 'İstanbul Erin', 'erin@example.com'],
    ['frank', 'Frank \u212Aelvin', 'frank@example.com'],
    ['grace', 'Grace\tTab', 'grace@example.com'],
    ['heidi', 'Heidi a_b', 'heidi@example.com'],
    ['ivan', 'Ivan Back\\slash', 'IVAN@EXAMPLE.COM'],
  ];
  for (const [username, name, email] of texts) {
    const { user } = await s.createUser({ username });
    // Straight into the row: the API may refuse some of these texts, the list must still answer as before.
    db().prepare('UPDATE users SET name = ?, email = ? WHERE id = ?').run(name, email, user.id);
    people.push({ id: user.id, username, name, email });
    await s.addMember('groups', group, user.id, 30);
  }
  // Non-ASCII in a username and an e-mail too.
  db().prepare("UPDATE users SET username = 'dåve' WHERE id = ?").run(people[4].id);
  people[4].username = 'dåve';
  db().prepare("UPDATE users SET email = 'ÉRIN@example.com' WHERE id = ?").run(people[5].id);
  people[5].email = 'ÉRIN@example.com';
}, 60_000);
afterAll(async () => s.stop());

describe('members by query', () => {
  const queries = [
    'alice', 'ALICE', 'smith', 'alice.smith@example.com', 'ALICE.SMITH@EXAMPLE.COM', 'example', 'ivan@example.com', 'b', '_', '%', 'a_b',
    '100%', 'ü', 'Ü', 'ünïcødé', 'å', 'DÅVE', 'i', 'İ', 'érin@example.com', 'ÉRIN@EXAMPLE.COM', 'k', 'K', '\u212A', 'elvin', 'kelvin', 'i\u0307s', 'İs', '\t', 'tab',
    'back\\slash', '\\', 'nobody',
  ];
  it('keeps the members JavaScript’s lower case matches, in order, with their totals, for groups and members/all of a project', async () => {
    const groupIds = people.map((p) => p.id);
    for (const query of queries) {
      const res = await s.get(`/groups/${group}/members`, { query: { query, per_page: '100' } });
      const want = expected(query, groupIds);
      expect({ query, ids: (res.body as { id: number }[]).map((m) => m.id) }).toEqual({ query, ids: want });
      expectCounted(res, want.length, 100);
      const all = await s.get(`/projects/${project}/members/all`, { query: { query, per_page: '100' } });
      expect({ query, ids: (all.body as { id: number }[]).map((m) => m.id).filter((id) => groupIds.includes(id)) }).toEqual({ query, ids: want });
    }
  });

  it('pages a query’s members with their headers', async () => {
    const want = expected('e', people.map((p) => p.id));
    expect(want.length).toBeGreaterThan(6);
    const second = await s.get(`/groups/${group}/members`, { query: { query: 'e', per_page: '3', page: '2' } });
    expect((second.body as { id: number }[]).map((m) => m.id)).toEqual(want.slice(3, 6));
    expectCounted(second, want.length, 3);
    expect(second.headers.get('x-next-page')).toBe('3');
  });

  it('a query of a trigram or more reads its candidates’ memberships, every page the same with its headers (core/060)', async () => {
    // Members added in another order than their users were made, some matching only by a non-ASCII name or an e-mail.
    const added: (typeof people)[number][] = [];
    for (let i = 0; i < 7; i++) {
      const { user } = await s.createUser({ username: i % 3 === 2 ? `other${i}` : `tester${i}` });
      const row = db().prepare('SELECT id, username, name, email FROM users WHERE id = ?').get(user.id) as (typeof people)[number];
      added.push(row);
    }
    db().prepare("UPDATE users SET name = 'TÉSTER Ünï' WHERE id = ?").run(added[2].id);
    added[2].name = 'TÉSTER Ünï';
    db().prepare("UPDATE users SET email = 'TESTER@example.org' WHERE id = ?").run(added[5].id);
    added[5].email = 'TESTER@example.org';
    for (const p of [...added].reverse()) {
      await s.addMember('groups', group, p.id, 30);
      people.push(p);
    }
    for (const query of ['tester', 'TESTER@EXAMPLE.ORG', 'tÉster', 'ster']) {
      const inGroup = (db().prepare("SELECT user_id FROM members WHERE source_type = 'Namespace' AND source_id = ? AND user_id IS NOT NULL ORDER BY id").all(group) as {
        user_id: number;
      }[]).map((m) => m.user_id);
      const want = expected(query, inGroup).sort((a, b) => inGroup.indexOf(a) - inGroup.indexOf(b));
      const pages = Math.max(1, Math.ceil(want.length / 2));
      for (let page = 1; page <= pages + 1; page++) {
        const res = await s.get(`/groups/${group}/members`, { query: { query, per_page: '2', page: String(page) } });
        expect({ query, page, ids: (res.body as { id: number }[]).map((m) => m.id) }).toEqual({ query, page, ids: want.slice((page - 1) * 2, page * 2) });
        expectCounted(res, want.length, 2);
        expect(res.headers.get('x-page')).toBe(String(page));
        expect(res.headers.get('x-next-page')).toBe(page < pages ? String(page + 1) : '');
        // A page past the end is out of range (Kaminari): no previous page.
        expect(res.headers.get('x-prev-page')).toBe(page > 1 && page <= pages ? String(page - 1) : '');
        expect(res.headers.get('link')).toMatch(new RegExp(`[?&]page=${pages}&per_page=2[^>]*>; rel="last"`));
        // members/all: by user id.
        const all = await s.get(`/projects/${project}/members/all`, { query: { query, per_page: '2', page: String(page) } });
        const byUser = [...want].sort((a, b) => a - b);
        const allIds = (all.body as { id: number }[]).map((m) => m.id);
        expect({ query, page, ids: allIds }).toEqual({ query, page, ids: byUser.slice((page - 1) * 2, page * 2) });
        expectCounted(all, want.length, 2);
      }
    }
    // The matches' ids read once in order (fewRowsByIds), counted and paged from there.
    const reads = await matchReads(async () => void (await s.get(`/groups/${group}/members`, { query: { query: 'tester', per_page: '2' } })));
    expect(reads).toHaveLength(1);
    const plan = queryPlan(db(), reads[0].sql, ...reads[0].args);
    expect(plan).toContain('USING INDEX members_source_user (source_type=? AND source_id=? AND user_id=?)');
    // The users with other characters come from their own index (core/060), not a read of every user.
    const prepared = await preparedBy(s, () => s.get(`/groups/${group}/members`, { query: { query: 'tester' } }));
    const candidates = prepared.find((sql) => sql.includes("GLOB '*[^ -~]*'"));
    const found = queryPlan(db(), candidates!, '[]', 'x');
    expect(found).toContain('USING INDEX users_not_ascii');
    expect(found).not.toMatch(/SCAN users(?! USING INDEX users_not_ascii)/);
  });
});

/** The statements reading a members list's matched ids (fewRowsByIds), with their arguments, while `fn` runs. */
async function matchReads(fn: () => Promise<void>): Promise<{ sql: string; args: unknown[] }[]> {
  return statementReads(s, (sql) => sql.startsWith('SELECT m.id AS id '), fn);
}
