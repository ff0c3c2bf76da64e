import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';

/** core/051 fills the group search index with the groups a data dir already holds (not users' namespaces). */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-group-search-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('indexes the groups of a data dir written before core/051, and only them', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/051_group_search');
  const insert = before.prepare(`INSERT INTO namespaces (id, name, path, full_path, kind, parent_id, owner_id, visibility, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'public', '2024-01-01', '2024-01-01')`);
  insert.run(40, 'Crane Group', 'crane-group', 'crane-group', 'group', null, null);
  insert.run(41, 'Sub Crane', 'sub-crane', 'crane-group/sub-crane', 'group', 40, null);
  insert.run(42, 'cranefan', 'cranefan', 'cranefan', 'user', null, 1);
  before.close();

  const after = openToday(file);
  const match = (term: string): number[] =>
    (after.prepare(`SELECT rowid AS id FROM groups_search WHERE groups_search MATCH ? ORDER BY rowid`).all(`{name path} : "${term}"`) as { id: number }[]).map((r) => r.id);
  expect(match('crane')).toEqual([40, 41]);
  expect(match('sub-cr')).toEqual([41]);
  expect(match('cranefan')).toEqual([]);
  after.close();
});
