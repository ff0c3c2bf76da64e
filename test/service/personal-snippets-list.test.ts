import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * GET /snippets lists the caller's personal snippets (no project), newest first, through core/169's
 * index of them by author: each page and header against the snippets' own rows, with and without
 * creation dates, while the caller also authors project snippets (which snippets_author holds and
 * a page walked) and another user personal ones; the page read's plan pinned (a plan comes from the
 * query's shape alone, the same here as at a million project snippets); an older data dir opens
 * with its personal snippets listed.
 */
let s: TestService;
let project: any;
let other: { user: any; token: string };
/** The caller's personal snippets, oldest first: id and created_at. */
const personal: { id: number; createdAt: string }[] = [];

const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  project = await s.createProject();
  other = await s.createUser();
  const file = (i: number) => ({ title: `S${i}`, visibility: 'internal', files: [{ file_path: `s${i}.txt`, content: `c${i}` }] });
  for (let i = 0; i < 40; i++) {
    // Project snippets of the caller between the personal ones, and another user's personal ones.
    if (i % 3 === 0) {
      const id = ok(await s.post('/snippets', file(i))).id as number;
      personal.push({ id, createdAt: at(i) });
    } else if (i % 3 === 1) ok(await s.post(`/projects/${project.id}/snippets`, file(i)));
    else ok(await s.post('/snippets', file(i), { token: other.token }));
  }
  // Creation times an hour apart in the order written (the API writes them at the same second).
  const stamp = s.service.context.db.prepare('UPDATE snippets SET created_at = ? WHERE id = ?');
  for (const p of personal) stamp.run(p.createdAt, p.id);
}, 60_000);
afterAll(async () => s?.stop());

const newestFirst = (rows: { id: number }[]): number[] => rows.map((r) => r.id).sort((a, b) => b - a);

describe('GET /snippets', () => {
  it('pages the caller\'s personal snippets alone, newest first, with their headers', async () => {
    expect(personal).toHaveLength(14);
    await expectEveryPage(s, '/snippets', {}, newestFirst(personal), 4);
    await expectEveryPage(s, '/snippets', {}, newestFirst(personal), 100);
  });

  it('by creation dates', async () => {
    const after = at(10);
    const before = at(31);
    await expectEveryPage(s, '/snippets', { created_after: after }, newestFirst(personal.filter((p) => p.createdAt > after)), 3);
    await expectEveryPage(s, '/snippets', { created_before: before }, newestFirst(personal.filter((p) => p.createdAt < before)), 3);
    await expectEveryPage(s, '/snippets', { created_after: after, created_before: before }, newestFirst(personal.filter((p) => p.createdAt > after && p.createdAt < before)), 3);
    await expectEveryPage(s, '/snippets', { created_after: at(100) }, [], 3);
  });

  it('another author sees their own', async () => {
    const theirs = ok(await s.get('/snippets', { token: other.token, query: { per_page: '100' } })) as any[];
    expect(theirs).toHaveLength(13);
    expect(theirs.every((sn) => sn.author.id === other.user.id && sn.project_id === null)).toBe(true);
  });

  it('reads them through the index of personal snippets by author, not every snippet of the author', async () => {
    const reads = await pagedReads(s, async () => void ok(await s.get('/snippets', { query: { page: '2', per_page: '3' } })));
    expect(reads).toHaveLength(1);
    const plan = queryPlan(s.service.context.db, reads[0].sql, ...reads[0].args);
    expect(plan).toContain('USING INDEX snippets_personal_author (author_id=?)');
    expect(plan).not.toContain('TEMP B-TREE');
  });
});

describe('core/169 on a data dir written before it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-personal-snippets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('indexes the personal snippets already there, and the ones written after', () => {
    const file = join(dir, 'before.db');
    const before = openBefore(file, 'core/169_personal_snippets_author');
    before.prepare("INSERT INTO users (id, username, name, email, state, created_at, updated_at) VALUES (1, 'u', 'U', 'u@example.com', 'active', ?, ?)").run(at(0), at(0));
    const insert = before.prepare('INSERT INTO snippets (id, project_id, author_id, title, visibility, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?)');
    insert.run(7, null, 'mine', 'public', at(1), at(1));
    insert.run(8, 3, 'in a project', 'public', at(2), at(2));
    before.close();
    const db = openToday(file);
    db.prepare('INSERT INTO snippets (id, project_id, author_id, title, visibility, created_at, updated_at) VALUES (9, NULL, 1, ?, ?, ?, ?)').run('later', 'public', at(3), at(3));
    const read = 'SELECT id FROM snippets INDEXED BY snippets_personal_author WHERE project_id IS NULL AND author_id = 1 ORDER BY id DESC';
    expect(db.prepare(read).all()).toEqual([{ id: 9 }, { id: 7 }]);
    db.close();
  });
});
