import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService, ok } from '../helpers/service';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectEveryPage, preparedBy, queryPlan } from '../helpers/lists';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { type SnippetRow, canReadSnippet, createSnippet, currentPaths } from '../../src/main/service/areas/snippets/snippets';
import { findProjectById } from '../../src/main/service/areas/core/projects';
import { findUserById } from '../../src/main/service/areas/core/users';

/**
 * The Search API's snippet_titles scope: the snippets a caller may read (canReadSnippet) whose title,
 * description or a current file name holds the term (JavaScript's case folding), newest update
 * first, as GitLab's SnippetSearchResults (Snippet.search over title, description and file name,
 * `reorder(updated_at: :desc)`). Each answer is checked against the snippets one by one, as the
 * scope read them before, every page with its headers, for every kind of caller.
 */
let s: TestService;
const callers: Record<string, { id: number; token: string }> = {};
let privateProject: number;
let publicProject: number;

const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  for (const name of ['author', 'member', 'external', 'plain']) {
    const u = await s.createUser(name === 'external' ? { external: true } : {});
    callers[name] = { id: u.user.id, token: u.token };
  }
  privateProject = (await s.createProject({ name: 'secret garden', visibility: 'private' })).id;
  publicProject = (await s.createProject({ name: 'open field', visibility: 'public' })).id;
  ok(await s.post(`/projects/${privateProject}/members`, { user_id: callers.member.id, access_level: 10 }));
  ok(await s.post(`/projects/${publicProject}/members`, { user_id: callers.author.id, access_level: 30 }));
  const visibilities = ['public', 'internal', 'private'] as const;
  for (let i = 1; i <= 36; i++) {
    const visibility = visibilities[i % 3];
    // The term in the title, the description, a file name, or (every 6th) nowhere; non-ASCII cases on a few.
    const where = i % 6;
    const title = where === 0 ? `Plain ${i}` : where === 1 ? `Kiwi recipe ${i}` : where === 2 ? `ÉCOLE kiwi ${i}` : `Snippet ${i}`;
    const description = where === 3 ? `about KIWIS ${i}` : null;
    const file = where === 4 ? `kiwi-${i}.md` : where === 5 ? `docs/Kiwi/${i}.txt` : `file-${i}.txt`;
    const body = { title, description, visibility, files: [{ file_path: file, content: `content ${i}` }] };
    const token = i % 4 === 0 ? callers.author.token : undefined;
    const path = i % 3 === 0 ? '/snippets' : `/projects/${i % 2 ? privateProject : publicProject}/snippets`;
    const created = ok(await s.post(path, body, { token: path.startsWith('/projects') ? undefined : token }));
    // Updated out of creation order, some at the same minute.
    s.service.context.db.prepare('UPDATE snippets SET updated_at = ? WHERE id = ?').run(at((i * 17) % 25), created.id);
  }
  // Letters JavaScript folds to ASCII that the index's tokenizer folds otherwise (İ: 'i' + U+0307) or alike (the Kelvin sign).
  ok(await s.post('/snippets', { title: 'SKİ slope', visibility: 'public', files: [{ file_path: 'a.txt', content: 'a' }] }));
  ok(await s.post('/snippets', { title: '\u212Aelvin scale', visibility: 'public', files: [{ file_path: 'b.txt', content: 'b' }] }));
  // A file renamed in a later revision: only the latest revision's names count.
  const renamed = (s.service.context.db.prepare("SELECT id, project_id FROM snippets WHERE title = 'Snippet 4'").get() as { id: number; project_id: number | null });
  ok(await s.put(renamed.project_id ? `/projects/${renamed.project_id}/snippets/${renamed.id}` : `/snippets/${renamed.id}`, { files: [{ action: 'move', previous_path: 'kiwi-4.md', file_path: 'plain-4.md' }] }));
}, 120_000);
afterAll(async () => s.stop());

/** The snippets as the scope read them one by one (canReadSnippet, the latest files), plus the description, in GitLab's order. */
function truth(term: string, userId: number): number[] {
  const svc = s.service.context;
  const user = findUserById(svc, userId) ?? null;
  const needle = term.toLowerCase();
  const rows = (svc.db.prepare('SELECT * FROM snippets').all() as SnippetRow[]).filter((sn) => {
    const project = sn.project_id === null ? null : (findProjectById(svc, sn.project_id) ?? undefined);
    if (project === undefined || !canReadSnippet(svc, user, sn, project)) return false;
    return sn.title.toLowerCase().includes(needle) || (sn.description ?? '').toLowerCase().includes(needle) || currentPaths(svc, sn.id).some((p) => p.toLowerCase().includes(needle));
  });
  rows.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : b.id - a.id));
  return rows.map((r) => r.id);
}

/** Terms: from the index (printable ASCII, three characters or more), and asked of every snippet (shorter, other characters). */
const TERMS = ['kiwi', 'KIWI recipe', 'école', 'docs/', '.md', 'nothing-like-it', 'i', 'ski', 'SKI SLOPE', 'kelvin', 'wi "q'];

describe('GET /search?scope=snippet_titles', () => {
  it('answers as the snippets say, for every caller, every page and header, in updated_at order', async () => {
    for (const [name, caller] of [['root', { id: 1, token: undefined }], ...Object.entries(callers)] as const) {
      for (const term of TERMS) {
        const want = truth(term, caller.id);
        for (const [page, perPage] of [[1, 5], [2, 5], [1, 100], [9, 5]] as const) {
          const res = await s.get('/search', { query: { scope: 'snippet_titles', search: term, page: String(page), per_page: String(perPage) }, token: caller.token });
          const where = `${name} ${term} ${page}x${perPage}`;
          expect(res.status, where).toBe(200);
          expect(res.body.map((x: any) => x.id), where).toEqual(want.slice((page - 1) * perPage, page * perPage));
          expect(res.headers.get('x-total'), where).toBe(String(want.length));
          expect(res.headers.get('x-total-pages'), where).toBe(String(Math.max(1, Math.ceil(want.length / perPage))));
          expect(res.headers.get('x-next-page'), where).toBe(want.length > page * perPage ? String(page + 1) : '');
        }
      }
    }
    // Some callers see fewer than others, and the description and file names match too.
    expect(truth('kiwi', callers.plain.id).length).toBeLessThan(truth('kiwi', 1).length);
    expect(truth('kiwis', 1).length).toBeGreaterThan(0);
  }, 120_000);

  it('follows writes to titles, descriptions and files (API and SQL)', async () => {
    const db = s.service.context.db;
    db.prepare("UPDATE snippets SET title = 'Now a kiwi too' WHERE title = 'Plain 6'").run();
    db.prepare("UPDATE snippets SET description = 'kiwi inside' WHERE title = 'Plain 12'").run();
    db.prepare("UPDATE snippets SET title = 'No fruit' WHERE title = 'Kiwi recipe 7'").run();
    db.prepare("DELETE FROM snippets WHERE title = 'Kiwi recipe 13'").run();
    const plain = db.prepare("SELECT id, project_id FROM snippets WHERE title = 'Plain 18'").get() as { id: number; project_id: number | null };
    ok(await s.put(plain.project_id ? `/projects/${plain.project_id}/snippets/${plain.id}` : `/snippets/${plain.id}`, { files: [{ action: 'create', file_path: 'more/kiwi.txt', content: 'x' }] }));
    for (const term of ['kiwi', 'plain', 'fruit']) {
      for (const [name, caller] of [['root', { id: 1, token: undefined }], ['plain', callers.plain]] as const) {
        const want = truth(term, caller.id);
        expect(want.length, `${name} ${term}`).toBeGreaterThan(0);
        await expectEveryPage(s, '/search', { scope: 'snippet_titles', search: term }, want, 4, caller.token);
      }
    }
  }, 120_000);

  it('reads a term of three ASCII characters or more through snippets_search, each candidate by id', async () => {
    const prepared = await preparedBy(s, async () => void ok(await s.get('/search', { query: { scope: 'snippet_titles', search: 'kiwi' } })));
    const page = prepared.find((sql) => sql.includes('FROM snippets s WHERE') && sql.includes('ORDER BY'));
    expect(page).toContain('snippets_search MATCH ?');
    const plan = queryPlan(s.service.context.db, page!.replace(/^SELECT[\s\S]*?FROM/, 'SELECT s.id FROM'), ...pageArgs(page!));
    expect(plan).toMatch(/SCAN q VIRTUAL TABLE INDEX/);
    expect(plan).toMatch(/SEARCH s USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    for (const term of ['ki', 'école']) {
      const other = await preparedBy(s, async () => void ok(await s.get('/search', { query: { scope: 'snippet_titles', search: term } })));
      expect(other.find((sql) => sql.includes('FROM snippets s WHERE'))).not.toContain('snippets_search');
    }
  });

  it('reads a page in SQL, not every snippet', async () => {
    const prepared = await preparedBy(s, async () => void ok(await s.get('/search', { query: { scope: 'snippet_titles', search: 'kiwi' } })));
    expect(prepared.some((sql) => sql === 'SELECT * FROM snippets ORDER BY id DESC')).toBe(false);
    expect(prepared.some((sql) => sql.includes('FROM snippets s WHERE') && sql.includes('js_lower(s.title)'))).toBe(true);
  });
});

describe('a term more than 1,000 snippets hold', () => {
  it('pages walk snippets_updated, each snippet checked; the count reads the candidates; the same rows and headers', async () => {
    const svc = s.service.context;
    const visibilities = ['public', 'internal', 'private'] as const;
    svc.db.transaction(() => {
      for (let i = 1; i <= 1_400; i++) {
        // The term in the title, a file name, or (every 5th) nowhere; updated out of creation order, some at the same minute.
        const title = i % 5 === 0 ? `Melon ${i}` : i % 5 === 1 ? `notes-${i}.md` : `Grape jam ${i}`;
        const file = i % 5 === 1 ? `grape/${i}.txt` : `f-${i}.txt`;
        const projectId = i % 4 === 0 ? null : i % 2 ? privateProject : publicProject;
        createSnippet(svc, { projectId, authorId: i % 7 === 0 ? callers.author.id : 1, title, visibility: visibilities[i % 3], files: [{ path: file, content: 'x' }], createdAt: at(i), updatedAt: at((i * 37) % 900) });
      }
    })();
    for (const [name, caller] of [['root', { id: 1, token: undefined }], ['plain', callers.plain], ['external', callers.external]] as const) {
      const want = truth('GRAPE', caller.id);
      expect(want.length).toBeGreaterThan(name === 'root' ? 1_000 : 100);
      for (const [page, perPage] of [[1, 20], [3, 100], [Math.ceil(want.length / 40), 20], [Math.ceil(want.length / 20), 20]] as const) {
        let res!: ApiResult;
        const prepared = await preparedBy(s, async () => {
          res = await s.get('/search', { query: { scope: 'snippet_titles', search: 'GRAPE', page: String(page), per_page: String(perPage) }, token: caller.token });
        });
        const where = `${name} ${page}x${perPage}`;
        expect(res.body.map((x: any) => x.id), where).toEqual(want.slice((page - 1) * perPage, page * perPage));
        expect(res.headers.get('x-total'), where).toBe(String(want.length));
        expect(res.headers.get('x-total-pages'), where).toBe(String(Math.ceil(want.length / perPage)));
        // The page in the list's order from core/166's index, not every snippet sorted; the count from the candidates.
        const pageSql = prepared.find((sql) => sql.includes('FROM snippets s WHERE') && sql.includes('ORDER BY'))!;
        expect(pageSql, where).not.toContain('snippets_search');
        const plan = queryPlan(svc.db, pageSql, ...Array.from(pageSql.matchAll(/\?/g), (_, k) => (k < 3 ? 'grape' : caller.id)));
        expect(plan, where).toMatch(/SCAN s USING INDEX snippets_updated/);
        expect(plan, where).not.toContain('TEMP B-TREE');
        expect(prepared.some((sql) => sql.includes('count(*)') && sql.includes('FROM snippets_search q CROSS JOIN snippets s')), where).toBe(true);
      }
    }
  }, 120_000);
});

/** Placeholder values for a page statement's plan (the plan does not depend on them). */
function pageArgs(sql: string): unknown[] {
  return Array.from(sql.matchAll(/\?/g), () => '"kiwi"');
}

describe('snippets/004 on a data dir written before it', () => {
  it('indexes the snippets it finds (title, description, every revision\'s file names); the index then follows every write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandlab-snippets-search-'));
    try {
      const file = join(dir, 'sandlab.db');
      const before = openBefore(file, 'snippets/004_snippets_search');
      const snippet = before.prepare("INSERT INTO snippets (id, project_id, author_id, title, description, visibility, created_at, updated_at) VALUES (?, NULL, 1, ?, ?, 'public', '2024', '2024')");
      snippet.run(1, 'An old zebra', null);
      snippet.run(2, 'Plain', 'a ZEBRA described');
      snippet.run(3, 'Plain', null);
      snippet.run(4, 'ZEBRİ', null);
      before.prepare("INSERT INTO snippet_revisions (id, snippet_id, sha, message, created_at) VALUES (10, 3, 'a', 'm', '2024'), (11, 3, 'b', 'm', '2024')").run();
      before.prepare("INSERT INTO snippet_revision_files (revision_id, path, blob_id) VALUES (10, 'zebra.txt', 1), (11, 'other.txt', 1)").run();
      before.close();
      const db = openToday(file);
      db.pragma('foreign_keys = OFF');
      const indexed = (term: string): number[] => (db.prepare('SELECT rowid FROM snippets_search WHERE snippets_search MATCH ? ORDER BY rowid').all(`"${term}"`) as { rowid: number }[]).map((r) => r.rowid);
      expect(indexed('zebra')).toEqual([1, 2, 3]);
      expect(indexed('ebri')).toEqual([4]);
      db.prepare("UPDATE snippets SET title = 'no more' WHERE id = 1").run();
      db.prepare("UPDATE snippets SET description = NULL WHERE id = 2").run();
      db.prepare("INSERT INTO snippets (id, project_id, author_id, title, visibility, created_at, updated_at) VALUES (5, NULL, 1, 'zebra new', 'public', '2024', '2024')").run();
      db.prepare("INSERT INTO snippets (id, project_id, author_id, title, visibility, created_at, updated_at) VALUES (6, NULL, 1, 'plain', 'public', '2024', '2024')").run();
      db.prepare("INSERT INTO snippet_revisions (id, snippet_id, sha, message, created_at) VALUES (12, 6, 'c', 'm', '2024')").run();
      db.prepare("INSERT INTO snippet_revision_files (revision_id, path, blob_id) VALUES (12, 'a.txt', 1)").run();
      db.prepare("UPDATE snippet_revision_files SET path = 'Zebra.md' WHERE revision_id = 12").run();
      expect(indexed('zebra')).toEqual([3, 5, 6]);
      db.prepare('DELETE FROM snippets WHERE id = 5').run();
      db.prepare('UPDATE snippet_revisions SET snippet_id = 4 WHERE id = 10').run();
      expect(indexed('zebra')).toEqual([3, 4, 6]);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
