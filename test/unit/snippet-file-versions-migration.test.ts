import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tableVersion } from '../../src/main/service/db/connection';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * core/145 gives snippet_revisions and snippet_revision_files core/099's versions: a data dir from
 * before it opens with its snippets intact and both versions at 0, and every write to a row of
 * either table (insert, update, delete, a snippet's delete cascading to both) moves that table's.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-snippet-file-versions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('opens a data dir from before core/145 with its snippets, and moves each version at every write to its table', () => {
  const file = join(dir, 'before.db');
  const at = '2024-01-01T00:00:00.000Z';
  const before = openBefore(file, 'core/145_snippet_file_versions');
  before.prepare("INSERT INTO users (id, username, name, email, state, created_at, updated_at) VALUES (1, 'u', 'U', 'u@example.com', 'active', ?, ?)").run(at, at);
  before.prepare("INSERT INTO snippets (id, project_id, author_id, title, visibility, created_at, updated_at) VALUES (7, NULL, 1, 'S', 'public', ?, ?)").run(at, at);
  before.prepare("INSERT INTO snippet_blobs (id, snippet_id, sha, content) VALUES (3, 7, 'b', 'x')").run();
  before.prepare("INSERT INTO snippet_revisions (id, snippet_id, sha, message, author_id, created_at) VALUES (5, 7, 'r', 'm', 1, ?)").run(at);
  before.prepare("INSERT INTO snippet_revision_files (revision_id, path, blob_id) VALUES (5, 'a.txt', 3)").run();
  before.close();

  const db = openToday(file);
  expect(db.prepare('SELECT path FROM snippet_revision_files WHERE revision_id = 5').all()).toEqual([{ path: 'a.txt' }]);
  const versions = (): number[] => [tableVersion(db, 'snippet_revisions')!, tableVersion(db, 'snippet_revision_files')!];
  expect(versions()).toEqual([0, 0]);
  db.prepare("INSERT INTO snippet_revision_files (revision_id, path, blob_id) VALUES (5, 'b.txt', 3)").run();
  expect(versions()).toEqual([0, 1]);
  db.prepare("UPDATE snippet_revision_files SET path = 'c.txt' WHERE path = 'b.txt'").run();
  expect(versions()).toEqual([0, 2]);
  db.prepare("INSERT INTO snippet_revisions (id, snippet_id, sha, message, author_id, created_at) VALUES (6, 7, 's', 'm', 1, ?)").run(at);
  expect(versions()).toEqual([1, 2]);
  db.prepare("UPDATE snippet_revisions SET message = 'n' WHERE id = 6").run();
  expect(versions()).toEqual([2, 2]);
  db.prepare('DELETE FROM snippet_revisions WHERE id = 6').run();
  expect(versions()).toEqual([3, 2]);
  // The snippet's delete cascades to its revision and the revision's two files.
  db.prepare('DELETE FROM snippets WHERE id = 7').run();
  expect(db.prepare('SELECT count(*) AS n FROM snippet_revision_files').get()).toEqual({ n: 0 });
  expect(versions()).toEqual([4, 4]);
  db.close();
});
