import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { preparedBy } from '../helpers/lists';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * A label search's candidates from the full-text index (labels_search) are kept until core/154's
 * version of what it indexes moves: a label created or deleted, a title or description changed,
 * through the API or SQL. Any other write (a project's description, a label's color) keeps them.
 * Every answer is compared with what the labels say.
 */
let s: TestService;
let project: number;
let other: number;
let touches = 0;

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'labelled' })).id;
  other = (await s.createProject({ name: 'other' })).id;
  const db = s.service.context.db;
  const insert = db.prepare("INSERT INTO labels (project_id, title, color, description, created_at, updated_at) VALUES (?, ?, '#428bca', ?, '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')");
  db.transaction(() => {
    for (let i = 0; i < 400; i++) insert.run(project, `scale-${String(i).padStart(4, '0')}`, i % 50 === 0 ? 'About Rare things' : null);
  })();
}, 60_000);
afterAll(async () => s.stop());

const titles = (res: ApiResult): string[] => res.body.map((l: any) => l.name);
/** The titles the labels say match (LIKE: the terms are ASCII), in the list's order (title). */
const expected = (term: string): string[] =>
  (
    s.service.context.db
      .prepare("SELECT title FROM labels WHERE project_id = ? AND (title LIKE ? OR ifnull(description, '') LIKE ?) ORDER BY title, id")
      .all(project, `%${term}%`, `%${term}%`) as { title: string }[]
  ).map((r) => r.title);
const touch = async (): Promise<void> => {
  expect((await s.put(`/projects/${other}`, { description: `touched ${++touches}` })).status).toBe(200);
};
/** The search's answer (checked against the labels) and whether it read the full-text index. */
async function search(term: string): Promise<boolean> {
  let res!: ApiResult;
  const reads = await preparedBy(s, async () => {
    res = await s.get(`/projects/${project}/labels`, { query: { search: term, per_page: '100' } });
  });
  expect(res.status).toBe(200);
  const want = expected(term);
  expect(titles(res), term).toEqual(want.slice(0, 100));
  expect(res.headers.get('x-total'), term).toBe(String(want.length));
  return reads.some((sql) => sql.includes('labels_search MATCH'));
}

describe("a label search's candidates", () => {
  it('are read once and kept through writes elsewhere and to what the index leaves out', async () => {
    expect(await search('scale-012')).toBe(true);
    await touch();
    expect(await search('scale-012')).toBe(false);
    expect(await search('rare thing')).toBe(true);
    const label = s.service.context.db.prepare('SELECT id FROM labels WHERE project_id = ? AND title = ?').get(project, 'scale-0120') as { id: number };
    expect((await s.put(`/projects/${project}/labels/${label.id}`, { color: '#ff0000' })).status).toBe(200);
    expect(await search('scale-012')).toBe(false);
    expect(await search('rare thing')).toBe(false);
  });

  it('are read again after a label is created, renamed, described or deleted, through the API or SQL', async () => {
    const db = s.service.context.db;
    expect(await search('scale-012')).toBe(false);
    expect((await s.post(`/projects/${project}/labels`, { name: 'new scale-0125x', color: '#00ff00' })).status).toBe(201);
    expect(await search('scale-012')).toBe(true);
    const id = (title: string): number => (db.prepare('SELECT id FROM labels WHERE project_id = ? AND title = ?').get(project, title) as { id: number }).id;
    expect((await s.put(`/projects/${project}/labels/${id('scale-0121')}`, { new_name: 'renamed' })).status).toBe(200);
    expect(await search('scale-012')).toBe(true);
    expect(await search('scale-012')).toBe(false);
    db.prepare("UPDATE labels SET title = 'scale-0129 again' WHERE id = ?").run(id('scale-0300'));
    expect(await search('scale-012')).toBe(true);
    db.prepare("UPDATE labels SET description = 'a rare thing now' WHERE id = ?").run(id('scale-0301'));
    expect(await search('rare thing')).toBe(true);
    expect((await s.del(`/projects/${project}/labels/${id('scale-0122')}`)).status).toBe(204);
    expect(await search('scale-012')).toBe(true);
    db.prepare('DELETE FROM labels WHERE id = ?').run(id('scale-0123'));
    expect(await search('scale-012')).toBe(true);
    // A label of another project: the index is the instance's.
    db.prepare("INSERT INTO labels (project_id, title, color, created_at, updated_at) VALUES (?, 'scale-0127', '#428bca', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')").run(other);
    expect(await search('scale-012')).toBe(true);
  });
});

describe('core/154 on a data dir written before it', () => {
  it('opens with every label and the version at 0, moved by the next label write', () => {
    const dir = mkdtempSync(join(tmpdir(), 'label-search-version-'));
    try {
      const file = join(dir, 'sandlab.db');
      const before = openBefore(file, 'core/154_labels_search_version');
      before.exec("INSERT INTO namespaces (name, path, full_path, kind, visibility, created_at, updated_at) VALUES ('g', 'g', 'g', 'group', 'public', '2024', '2024')");
      const group = (before.prepare("SELECT id FROM namespaces WHERE path = 'g'").get() as { id: number }).id;
      before.prepare("INSERT INTO labels (group_id, title, color, created_at, updated_at) VALUES (?, 'old', '#428bca', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')").run(group);
      before.close();
      const today = openToday(file);
      expect(today.prepare('SELECT title FROM labels').all()).toEqual([{ title: 'old' }]);
      const version = (): number => (today.prepare("SELECT version FROM table_versions WHERE name = 'labels_search'").get() as { version: number }).version;
      expect(version()).toBe(0);
      today.prepare("UPDATE labels SET color = '#000000'").run();
      expect(version()).toBe(0);
      today.prepare("UPDATE labels SET title = 'older'").run();
      expect(version()).toBe(1);
      today.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
