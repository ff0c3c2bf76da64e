import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiResult, TestService, ok } from '../helpers/service';
import { pagedReads } from '../helpers/lists';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * The Search API's notes scope (GET /projects/:id/search?scope=notes): a project's user notes whose
 * text holds the term (case-insensitively), hidden as the caller's own reads hide them, newest
 * update first as GitLab orders them (ProjectSearchResults#notes_finder: updated_at DESC). From
 * three characters through core/076's full-text index, few matches read by id, many found by
 * walking the project's notes in order; the answers are the ones the notes' own columns give.
 */
let s: TestService;
let project: number;
let other: number;
let guest: { id: number; token: string };
const COMMON = 10_030;

const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'notes', visibility: 'public' })).id;
  other = (await s.createProject({ name: 'other', visibility: 'public' })).id;
  const g = await s.createUser();
  guest = { id: g.user.id, token: g.token };
  ok(await s.post(`/projects/${project}/members`, { user_id: guest.id, access_level: 10 }));
  const issue = (await s.post(`/projects/${project}/issues`, { title: 'Open' })).body;
  const secret = (await s.post(`/projects/${project}/issues`, { title: 'Secret', confidential: true })).body;
  const otherIssue = (await s.post(`/projects/${other}/issues`, { title: 'Elsewhere' })).body;
  const db = s.service.context.db;
  const insert = db.prepare(
    `INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, author_id, body, system, internal, created_at, updated_at)
      VALUES (?, 'Issue', ?, ?, 1, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 1; i <= COMMON; i++) {
      // Updated out of id order (ties among every 7th); a rare word on a few, a quote on some, internal and confidential ones, system notes.
      const body = `Common remark ${i}${i % 997 === 0 ? ' with a Zebra in it' : ''}${i % 1_500 === 0 ? ' said "quoted" once' : ''}`;
      const on = i % 50 === 0 ? secret.id : issue.id;
      insert.run(project, on, `d${i}`, body, i % 400 === 0 ? 1 : 0, i % 300 === 0 ? 1 : 0, at(i), at(i % 7 === 0 ? 5 : (i * 7919) % 20_000));
    }
    insert.run(other, otherIssue.id, 'o1', 'Common remark with a zebra elsewhere', 0, 0, at(1), at(1));
  })();
}, 120_000);
afterAll(async () => s.stop());

/** The notes as their own columns say: the project's user notes holding `term` (ASCII case-insensitively), as `viewer` may read them, in GitLab's order. */
function truth(term: string, viewer: 'root' | 'guest' | 'anonymous'): number[] {
  const hidden = viewer === 'root' ? '' : ` AND n.internal = 0 AND NOT (n.noteable_type = 'Issue' AND EXISTS (SELECT 1 FROM issues i WHERE i.id = n.noteable_id AND i.confidential = 1))`;
  return (
    s.service.context.db
      .prepare(`SELECT n.id FROM notes n WHERE n.project_id = ? AND n.system = 0 AND instr(lower(n.body), lower(?)) > 0${hidden} ORDER BY n.updated_at DESC, n.id DESC`)
      .all(project, term) as { id: number }[]
  ).map((r) => r.id);
}

async function expectPages(term: string, viewer: 'root' | 'guest' | 'anonymous', pages: [number, number][]): Promise<void> {
  const want = truth(term, viewer);
  const token = viewer === 'root' ? undefined : viewer === 'guest' ? guest.token : null;
  for (const [page, perPage] of pages) {
    const res: ApiResult = await s.get(`/projects/${project}/search`, { query: { scope: 'notes', search: term, page: String(page), per_page: String(perPage) }, token });
    const where = `${term} ${viewer} page ${page}x${perPage}`;
    if (viewer === 'anonymous') {
      // The Search API asks for a signed-in caller (authenticate!).
      expect(res.status, where).toBe(401);
      return;
    }
    expect(res.status, where).toBe(200);
    expect(res.body.map((n: any) => n.id), where).toEqual(want.slice((page - 1) * perPage, page * perPage));
    expect(res.headers.get('x-next-page'), where).toBe(want.length > page * perPage ? String(page + 1) : '');
    if (want.length > 10_000) {
      expect(res.headers.has('x-total'), where).toBe(false);
      expect(res.headers.get('link') ?? '', where).not.toContain('rel="last"');
    } else {
      expect(res.headers.get('x-total'), where).toBe(String(want.length));
      expect(res.headers.get('x-total-pages'), where).toBe(String(Math.max(1, Math.ceil(want.length / perPage))));
      expect(res.headers.get('link'), where).toContain('rel="last"');
    }
  }
}

// Rare (read by id), common (walked; `Common` past 10,000), below three characters (LIKE), none.
const TERMS = ['zebra', 'ZEBRA in', 'remark 12', '"quoted"', 'k 9', '99', 'z', 'nowhere at all', 'Common'];
const PAGES: [number, number][] = [[1, 20], [2, 20], [3, 100], [60, 100]];

describe('GET /projects/:id/search?scope=notes', () => {
  it('answers as the notes say: every term, page, header and view; updated_at order', async () => {
    for (const term of TERMS) {
      for (const viewer of ['root', 'guest', 'anonymous'] as const) await expectPages(term, viewer, PAGES);
    }
  }, 180_000);

  it('reads few matches by id, walks the notes in order for many, below three characters by LIKE', async () => {
    const reads = async (term: string): Promise<string> =>
      (await pagedReads(s, async () => void ok(await s.get(`/projects/${project}/search`, { query: { scope: 'notes', search: term } })))).map((r) => r.sql).join('\n');
    expect(await reads('zebra')).toContain('FROM notes n NOT INDEXED WHERE n.id IN (SELECT s.rowid & 4294967295 FROM notes_search s');
    expect(await reads('remark')).toContain('FROM notes n INDEXED BY notes_project_updated');
    expect(await reads('remark')).not.toContain('MATCH ? AND s.rowid = ');
    expect(await reads('99')).toContain('LIKE');
    const plan = (sql: string, ...args: unknown[]): string => (s.service.context.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('\n');
    expect(plan("SELECT n.id FROM notes n WHERE n.project_id = ? AND n.system = 0 AND lower(n.body) LIKE '%99%' ORDER BY n.updated_at DESC, n.id DESC", project)).toContain('USING INDEX notes_project_updated (project_id=?)');
    expect(plan("SELECT n.id FROM notes n NOT INDEXED WHERE n.id IN (SELECT s.rowid & 4294967295 FROM notes_search s WHERE s.notes_search MATCH '\"zebra\"' AND s.rowid BETWEEN (? << 32) AND (? << 32) + 4294967295) ORDER BY n.updated_at DESC, n.id DESC", project, project)).toMatch(/SEARCH n USING INTEGER PRIMARY KEY \(rowid=\?\)/);
  });

  it('follows writes: notes edited, moved, deleted, created (API and SQL), a system note never', async () => {
    const db = s.service.context.db;
    const issue = (db.prepare("SELECT iid FROM issues WHERE project_id = ? AND title = 'Open'").get(project) as { iid: number }).iid;
    const created = ok(await s.post(`/projects/${project}/issues/${issue}/notes`, { body: 'A fresh zebra sighting' }));
    ok(await s.put(`/projects/${project}/issues/${issue}/notes/${created.id}`, { body: 'A fresh ZEBRA sighting, edited' }));
    db.prepare("UPDATE notes SET body = 'no stripes now' WHERE project_id = ? AND body LIKE '%remark 997 %'").run(project);
    db.prepare("UPDATE notes SET body = body || ' zebra' WHERE project_id = ? AND id % 1009 = 0").run(project);
    db.prepare("UPDATE notes SET project_id = ? WHERE project_id = ? AND body LIKE '%remark 1994 %'").run(other, project);
    db.prepare("UPDATE notes SET project_id = ? WHERE project_id = ? AND body LIKE '%elsewhere%'").run(project, other);
    db.prepare("DELETE FROM notes WHERE project_id = ? AND body LIKE '%remark 2991 %'").run(project);
    db.prepare("INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, author_id, body, system, created_at, updated_at) SELECT ?, 'Issue', id, 'sys', 1, 'changed the zebra', 1, ?, ? FROM issues WHERE project_id = ? LIMIT 1").run(project, at(1), at(30_000), project);
    db.prepare("UPDATE notes SET updated_at = ? WHERE project_id = ? AND body LIKE '%remark 3988 %'").run(at(40_000), project);
    for (const term of ['zebra', 'Common', 'remark 19']) {
      for (const viewer of ['root', 'guest'] as const) await expectPages(term, viewer, PAGES);
    }
  }, 180_000);
});

describe("a common term's count, remembered while the project's notes stay unwritten (core/095)", () => {
  it('stays past 10,000 through writes only as far as they leave it there, and is exact again at 10,000', async () => {
    const db = s.service.context.db;
    const issue = (db.prepare("SELECT id FROM issues WHERE project_id = ? AND title = 'Open'").get(project) as { id: number }).id;
    const common = (): number => truth('Common', 'root').length;
    await expectPages('Common', 'root', [[1, 20]]);
    // Down to 10,000 by deletes in SQL (and an edit), asking after each: uncounted until it is 10,000, then counted exactly.
    while (common() > 10_001) db.prepare("DELETE FROM notes WHERE id = (SELECT max(id) FROM notes WHERE project_id = ? AND system = 0 AND body LIKE 'Common%')").run(project);
    await expectPages('Common', 'root', [[1, 20]]);
    db.prepare("UPDATE notes SET body = 'no longer' WHERE id = (SELECT max(id) FROM notes WHERE project_id = ? AND system = 0 AND body LIKE 'Common%')").run(project);
    expect(common()).toBe(10_000);
    await expectPages('Common', 'root', [[1, 20], [500, 20]]);
    // A note elsewhere changes nothing here; one more here (API) is past 10,000 again; one moved away, 10,000 again.
    db.prepare("INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, author_id, body, system, internal, created_at, updated_at) VALUES (?, 'Issue', 1, 'x', 1, 'Common elsewhere', 0, 0, ?, ?)").run(other, at(1), at(1));
    await expectPages('Common', 'root', [[1, 20]]);
    ok(await s.post(`/projects/${project}/issues/${(db.prepare('SELECT iid FROM issues WHERE id = ?').get(issue) as { iid: number }).iid}/notes`, { body: 'Common again' }));
    await expectPages('Common', 'root', [[1, 20]]);
    db.prepare("UPDATE notes SET project_id = ? WHERE body = 'Common again'").run(other);
    expect(common()).toBe(10_000);
    await expectPages('Common', 'root', [[1, 20], [2, 100]]);
  }, 120_000);
});

describe('core/076 on a data dir written before it', () => {
  it('indexes the user notes it finds; the index then follows every write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandlab-notes-search-'));
    try {
      const file = join(dir, 'sandlab.db');
      const before = openBefore(file, 'core/076_notes_search');
      const note = before.prepare("INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, body, system, created_at, updated_at) VALUES (?, 'Issue', 1, 'd', ?, ?, '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')");
      note.run(7, 'An old zebra', 0);
      note.run(7, 'A system zebra', 1);
      note.run(null, 'A zebra without a project', 0);
      note.run(8, 'Another ZEBRA', 0);
      before.close();
      const db = openToday(file);
      db.pragma('foreign_keys = OFF');
      const indexed = (): number[] => (db.prepare(`SELECT rowid FROM notes_search WHERE notes_search MATCH '"zebra"' ORDER BY rowid`).all() as { rowid: number }[]).map((r) => r.rowid);
      const expected = (): number[] =>
        (db.prepare("SELECT (project_id << 32) + id AS k FROM notes WHERE project_id IS NOT NULL AND system = 0 AND instr(lower(body), 'zebra') > 0 ORDER BY k").all() as { k: number }[]).map((r) => r.k);
      expect(indexed()).toEqual(expected());
      expect(indexed()).toHaveLength(2);
      db.prepare("UPDATE notes SET body = 'no more' WHERE body = 'An old zebra'").run();
      db.prepare("UPDATE notes SET project_id = 9 WHERE body = 'A zebra without a project'").run();
      db.prepare("UPDATE notes SET system = 0 WHERE body = 'A system zebra'").run();
      db.prepare("UPDATE notes SET id = 100 WHERE body = 'Another ZEBRA'").run();
      db.prepare("INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, body, system, created_at, updated_at) VALUES (3, 'Issue', 1, 'd', 'zebra new', 0, '2024', '2024')").run();
      expect(indexed()).toEqual(expected());
      db.prepare("DELETE FROM notes WHERE body = 'zebra new'").run();
      expect(indexed()).toEqual(expected());
      expect(indexed()).toHaveLength(3);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
