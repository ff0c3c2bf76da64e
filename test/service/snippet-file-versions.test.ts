import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { preparedBy } from '../helpers/lists';

// A snippet's current paths (file_name, files) are kept across writes to other tables while the
// versions of snippet_revisions and snippet_revision_files (core/145) hold
// (areas/snippets/snippets.ts currentPathsOf). These tests pin that every write that changes a
// snippet's files — through the API, in SQL to either table, a revision deleted, the snippet
// deleted — shows at the next page of the project's snippet list (a page of all, and the first page of two) and in the
// snippet's own GET, each as a build with nothing kept shows it; and that a page after a write
// elsewhere reads no file of a snippet it already knows.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const db = () => s.service.context.db;
const sql = (text: string, ...args: unknown[]) => db().prepare(text).run(...args);

describe('snippet paths kept across writes', () => {
  let project: any;
  let other: any;
  const snippets: any[] = [];
  let touches = 0;

  const elsewhere = async (): Promise<void> => void ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${++touches}` }));
  const lists = (): string[] => [`/projects/${project.id}/snippets?per_page=100`, `/projects/${project.id}/snippets?per_page=2`];

  /** The paths of the project's snippets as built with nothing kept: the project's list read while a transaction is open. */
  const afresh = async (): Promise<Map<number, string[]>> => {
    sql('SAVEPOINT afresh');
    try {
      return byId(ok(await s.get(`/projects/${project.id}/snippets?per_page=100`)));
    } finally {
      sql('RELEASE afresh');
    }
  };
  const byId = (rows: any[]): Map<number, string[]> =>
    new Map(rows.filter((r) => r.project_id === project.id).map((r) => [r.id, [r.file_name, ...r.files.map((f: any) => f.path)]]));

  /** Each list's paths of the project's snippets after a write elsewhere, twice (the second reads what the first kept), and each snippet's own GET: all as built afresh. */
  const paths = async (): Promise<Map<number, string[]>> => {
    const fresh = await afresh();
    for (let round = 0; round < 2; round++) {
      await elsewhere();
      for (const path of lists()) {
        const got = byId(ok(await s.get(path)));
        for (const [id, want] of got) expect(want, `${path} snippet ${id}`).toEqual(fresh.get(id));
        if (path.endsWith('=100')) expect(got, path).toEqual(fresh);
      }
    }
    for (const [id, want] of fresh) expect(byId([ok(await s.get(`/projects/${project.id}/snippets/${id}`))]).get(id)).toEqual(want);
    return fresh;
  };

  beforeAll(async () => {
    project = await s.createProject();
    other = await s.createProject();
    for (let i = 0; i < 3; i++) {
      snippets.push(
        ok(
          await s.post(`/projects/${project.id}/snippets`, {
            title: `Snippet ${i}`,
            visibility: 'private',
            files: [
              { file_path: `b${i}.txt`, content: 'b' },
              { file_path: `a${i}.txt`, content: 'a' },
            ],
          }),
        ),
      );
    }
  });

  it('show files changed through the API at the next page', async () => {
    expect((await paths()).get(snippets[0].id)).toEqual(['a0.txt', 'a0.txt', 'b0.txt']);
    ok(await s.put(`/projects/${project.id}/snippets/${snippets[0].id}`, { files: [{ action: 'create', file_path: '0first.txt', content: 'new' }] }));
    expect((await paths()).get(snippets[0].id)).toEqual(['0first.txt', '0first.txt', 'a0.txt', 'b0.txt']);
    ok(await s.put(`/projects/${project.id}/snippets/${snippets[0].id}`, { files: [{ action: 'move', previous_path: 'b0.txt', file_path: 'z0.txt' }] }));
    expect((await paths()).get(snippets[0].id)).toEqual(['0first.txt', '0first.txt', 'a0.txt', 'z0.txt']);
    ok(await s.put(`/projects/${project.id}/snippets/${snippets[0].id}`, { files: [{ action: 'delete', file_path: '0first.txt' }] }));
    expect((await paths()).get(snippets[0].id)).toEqual(['a0.txt', 'a0.txt', 'z0.txt']);
  });

  it('show files and revisions written in SQL at the next page', async () => {
    const id = snippets[1].id;
    expect((await paths()).get(id)).toEqual(['a1.txt', 'a1.txt', 'b1.txt']);
    const latest = db().prepare('SELECT max(id) AS id FROM snippet_revisions WHERE snippet_id = ?').get(id) as { id: number };
    sql("UPDATE snippet_revision_files SET path = 'c1.txt' WHERE revision_id = ? AND path = 'a1.txt'", latest.id);
    expect((await paths()).get(id)).toEqual(['b1.txt', 'b1.txt', 'c1.txt']);
    // A newer revision with one file, inserted in SQL: the snippet shows it.
    const blob = db().prepare('SELECT blob_id FROM snippet_revision_files WHERE revision_id = ? LIMIT 1').get(latest.id) as { blob_id: number };
    const added = sql("INSERT INTO snippet_revisions (snippet_id, sha, parent_sha, message, author_id, created_at) VALUES (?, 'f00d', NULL, 'by SQL', 1, '2024-01-01T00:00:00.000Z')", id);
    expect((await paths()).get(id)).toEqual([null]);
    sql("INSERT INTO snippet_revision_files (revision_id, path, blob_id) VALUES (?, 'only.txt', ?)", added.lastInsertRowid, blob.blob_id);
    expect((await paths()).get(id)).toEqual(['only.txt', 'only.txt']);
    sql('DELETE FROM snippet_revision_files WHERE revision_id = ?', added.lastInsertRowid);
    expect((await paths()).get(id)).toEqual([null]);
    // The newer revision deleted: the one before shows again.
    sql('DELETE FROM snippet_revisions WHERE id = ?', added.lastInsertRowid);
    expect((await paths()).get(id)).toEqual(['b1.txt', 'b1.txt', 'c1.txt']);
    // Its revisions moved to another snippet in SQL: it has none left; the other keeps its newer own.
    sql('UPDATE snippet_revisions SET snippet_id = ? WHERE snippet_id = ?', snippets[2].id, id);
    const moved = await paths();
    expect(moved.get(id)).toEqual([null]);
    expect(moved.get(snippets[2].id)).toEqual(['a2.txt', 'a2.txt', 'b2.txt']);
  });

  it('show a deleted snippet gone and a new one with its files', async () => {
    ok(await s.del(`/projects/${project.id}/snippets/${snippets[0].id}`));
    expect((await paths()).has(snippets[0].id)).toBe(false);
    const added = ok(await s.post(`/projects/${project.id}/snippets`, { title: 'New', visibility: 'private', files: [{ file_path: 'new.txt', content: 'n' }] }));
    expect((await paths()).get(added.id)).toEqual(['new.txt', 'new.txt']);
  });

  it('read no file of a snippet already known after a write elsewhere', async () => {
    await paths();
    await elsewhere();
    const reads = (await preparedBy(s, () => s.get(`/projects/${project.id}/snippets?per_page=100`))).filter((text) => /\bsnippet_revision/.test(text));
    expect(reads).toEqual([]);
    // A write to the files' tables: the next page reads them again.
    sql("UPDATE snippet_revision_files SET path = path WHERE path = 'new.txt'");
    const again = (await preparedBy(s, () => s.get(`/projects/${project.id}/snippets?per_page=100`))).filter((text) => /\bsnippet_revision/.test(text));
    expect(again.length).toBeGreaterThan(0);
  });
});
