import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { pagedReads } from '../helpers/lists';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * Deep pages of /users and /groups (an administrator's and an anonymous caller's) start after a
 * row an earlier page read while the table's version (core/052) stays: a page asked again, or the
 * next in turn, skips no row. Every write that may add, drop or move a row moves the version, so
 * each page still holds the rows, order and headers of a fresh query; a user's last activity does
 * not move it.
 */
let s: TestService;
const db = () => s.service.context.db;
const USERS = 1_150;
const GROUPS = 1_500;

beforeAll(async () => {
  s = await TestService.start();
  const at = (i: number) => new Date(Date.UTC(2024, 0, 1) + ((i * 7919) % 100_000) * 60_000).toISOString();
  const user = db().prepare('INSERT INTO users (username, name, email, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  const group = db().prepare(
    "INSERT INTO namespaces (name, path, full_path, kind, parent_id, visibility, created_at, updated_at) VALUES (?, ?, ?, 'group', NULL, ?, '2024-01-01', '2024-01-01')",
  );
  db().transaction(() => {
    for (let i = 0; i < USERS; i++) user.run(`crane${i}`, `Crane ${(i * 37) % 500}`, `crane${i}@example.org`, i % 20 ? 'active' : 'blocked', at(i), at(i));
    for (let i = 0; i < GROUPS; i++) group.run(`Flock ${(i * 53) % 700}`, `flock-${i}`, `flock-${i}`, i % 10 ? 'public' : 'private');
  })();
});
afterAll(async () => s.stop());

const ids = (sql: string): number[] => (db().prepare(sql).all() as { id: number }[]).map((r) => r.id);

function expectPage(res: ApiResult, all: number[], page: number, perPage: number, what: string): void {
  expect(res.status, what).toBe(200);
  expect(res.body.map((x: any) => x.id), what).toEqual(all.slice((page - 1) * perPage, page * perPage));
  const pages = Math.max(1, Math.ceil(all.length / perPage));
  expect(res.headers.get('x-total'), what).toBe(String(all.length));
  expect(res.headers.get('x-total-pages'), what).toBe(String(pages));
  expect(res.headers.get('x-next-page'), what).toBe(page < pages ? String(page + 1) : '');
  // A page past the end is out of range (Kaminari): no previous page.
  expect(res.headers.get('x-prev-page'), what).toBe(page > 1 && page <= pages ? String(page - 1) : '');
  expect(res.headers.get('link'), what).toMatch(new RegExp(`[?&]page=${pages}&per_page=${perPage}[^>]*>; rel="last"`));
}

/** Deep pages 11-13 of 100 and page 12 again, against `expected()` read fresh each time. */
async function checkDeepPages(path: string, expected: () => number[], token?: string | null): Promise<void> {
  for (const page of [11, 12, 13, 12]) {
    const res = await s.get(`${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`, { token });
    expectPage(res, expected(), page, 100, `${path} page ${page}`);
  }
}

const LISTS: [string, string, string | null | undefined][] = [
  ['/users', "SELECT id FROM users ORDER BY id DESC", undefined],
  ['/users?order_by=name&sort=asc', 'SELECT id FROM users ORDER BY name, id', undefined],
  ['/users?order_by=created_at', 'SELECT id FROM users ORDER BY created_at DESC, id DESC', undefined],
  ['/users?order_by=username&active=true', "SELECT id FROM users WHERE state = 'active' ORDER BY username DESC, id DESC", undefined],
  ['/groups', "SELECT id FROM namespaces WHERE kind = 'group' ORDER BY name, id", undefined],
  ['/groups?order_by=id&sort=desc', "SELECT id FROM namespaces WHERE kind = 'group' ORDER BY id DESC", undefined],
  ['/groups?order_by=path', "SELECT id FROM namespaces WHERE kind = 'group' AND visibility = 'public' ORDER BY path, id", null],
];

describe('deep pages of the instance lists', () => {
  it('hold what a fresh query gives after every kind of write, for an administrator and anonymously', async () => {
    const check = async () => {
      for (const [path, sql, token] of LISTS) await checkDeepPages(path, () => ids(sql), token);
    };
    await check();
    const some = ids("SELECT id FROM users WHERE username LIKE 'crane%' ORDER BY id LIMIT 1 OFFSET 1000")[0];
    // Users: a rename through the API, state and creation time in SQL, a new user, a deletion.
    expect((await s.put(`/users/${some}`, { name: 'Aaa First' })).status).toBe(200);
    db().prepare("UPDATE users SET state = 'blocked' WHERE id = ?").run(some - 3);
    db().prepare("UPDATE users SET created_at = '2030-01-01T00:00:00.000Z' WHERE id = ?").run(some - 7);
    await s.createUser({ username: 'aardvark', name: 'A New One' });
    db().prepare('DELETE FROM users WHERE id = ?').run(some - 11);
    // Groups: renamed, moved under another, made private, a new one, a deletion.
    const g = ids("SELECT id FROM namespaces WHERE kind = 'group' ORDER BY id LIMIT 1 OFFSET 900")[0];
    db().prepare("UPDATE namespaces SET name = 'AAA Flock' WHERE id = ?").run(g);
    db().prepare("UPDATE namespaces SET path = 'aaa-flock' WHERE id = ?").run(g - 1);
    db().prepare("UPDATE namespaces SET visibility = 'private' WHERE id = ?").run(g - 2);
    db().prepare("UPDATE namespaces SET visibility = 'public' WHERE id = ?").run(g - 3);
    await s.createGroup({ name: 'Aaa Group', path: 'aaa-group', visibility: 'public' });
    db().prepare('DELETE FROM namespaces WHERE id = ?').run(g - 5);
    await check();
    // One write alone, that only moves an anonymous list: a group made private before its deep pages.
    const anonymous = LISTS.find(([, , token]) => token === null)!;
    await checkDeepPages(anonymous[0], () => ids(anonymous[1]), null);
    db().prepare('UPDATE namespaces SET visibility = ? WHERE id = ?').run('private', ids(anonymous[1])[3]);
    await checkDeepPages(anonymous[0], () => ids(anonymous[1]), null);
  });

  it('a page asked again, and the next in turn, skips no row', async () => {
    // (A filter most rows pass whose matches are few against the page's reach sorts them instead: SqlList.narrow.)
    for (const [path, , token] of LISTS.filter(([p]) => !p.includes('active'))) {
      const page = (n: number) => s.get(`${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${n}`, { token });
      await page(11);
      const reads = await pagedReads(s, async () => {
        await page(11);
        await page(12);
      });
      expect(reads, path).toHaveLength(2);
      for (const read of reads) expect(read.args.at(-1), path).toBe(0);
    }
  });

  it('a user who acts (last activity) moves no anchor; a renamed one does', async () => {
    const page = () => s.get('/users?per_page=100&page=11');
    await page();
    db().prepare("UPDATE users SET last_activity_on = '2026-01-01' WHERE id = 5").run();
    const kept = await pagedReads(s, async () => void (await page()));
    expect(kept[0].args.at(-1)).toBe(0);
    db().prepare("UPDATE users SET username = 'crane-renamed' WHERE id = 5").run();
    const moved = await pagedReads(s, async () => void (await page()));
    expect(moved[0].args.at(-1)).toBeGreaterThan(0);
  });
});

describe('core/052 on a data dir written before it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-instance-versions-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts both versions and moves them on writes', () => {
    const file = join(dir, 'sandlab.db');
    openBefore(file, 'core/052_instance_list_versions').close();
    const today = openToday(file);
    const version = (list: string) => (today.prepare('SELECT version FROM instance_list_versions WHERE list = ?').get(list) as { version: number }).version;
    const [users, namespaces] = [version('users'), version('namespaces')];
    today.prepare("INSERT INTO users (username, name, email, created_at, updated_at) VALUES ('x', 'X', 'x@example.org', '2024', '2024')").run();
    expect(version('users')).toBe(users + 1);
    expect(version('namespaces')).toBe(namespaces);
    today.prepare("INSERT INTO namespaces (name, path, full_path, kind, visibility, created_at, updated_at) VALUES ('g', 'g', 'g', 'group', 'public', '2024', '2024')").run();
    expect(version('namespaces')).toBe(namespaces + 1);
    today.close();
  });
});
