import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * core/054 on a data dir an earlier main wrote: its label rows get their record's author and
 * updated_at, the label-author counters count them, and later writes keep both.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-label-authors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('an older data dir: label rows carry author and updated_at, counted by author, kept by later writes', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/054_issuable_label_authors_updated');
  const issue = before.prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, labels, confidential, created_at, updated_at) VALUES (7, ?, 'I', ?, ?, ?, ?, '2024-01-01T00:00:00.000Z', ?)`,
  );
  issue.run(1, 'opened', 3, '["bug","Other"]', 0, '2024-02-01T00:00:00.000Z');
  issue.run(2, 'closed', 3, '["bug"]', 1, '2024-02-03T00:00:00.000Z');
  issue.run(3, 'opened', 4, '["bug"]', 0, '2024-02-02T00:00:00.000Z');
  before
    .prepare(
      `INSERT INTO merge_requests (project_id, iid, title, state, author_id, labels, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
       VALUES (7, 1, 'MR', 'merged', 4, '["bug"]', 'b', 'main', 7, 7, 'a', 'a', 'a', '2024-01-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z')`,
    )
    .run();
  before.close();

  const db = openToday(file);
  db.pragma('foreign_keys = OFF');
  const counters = (): unknown[] =>
    db.prepare('SELECT issuable_type, project_id, author_id, title, state, confidential, n FROM label_author_counts WHERE n != 0 ORDER BY 1, 2, 3, 4, 5, 6').all();
  expect(counters()).toEqual([
    { issuable_type: 'Issue', project_id: 7, author_id: 3, title: 'Other', state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'Issue', project_id: 7, author_id: 3, title: 'bug', state: 'closed', confidential: 1, n: 1 },
    { issuable_type: 'Issue', project_id: 7, author_id: 3, title: 'bug', state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'Issue', project_id: 7, author_id: 4, title: 'bug', state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'MergeRequest', project_id: 7, author_id: 4, title: 'bug', state: 'merged', confidential: 0, n: 1 },
  ]);
  const byUpdated = (): unknown[] =>
    db
      .prepare(
        `SELECT issuable_id FROM issuable_labels INDEXED BY issuable_labels_updated
          WHERE issuable_type = 'Issue' AND project_id = 7 AND title = 'BUG' COLLATE NOCASE AND updated_at IS NOT NULL ORDER BY updated_at DESC, issuable_id DESC`,
      )
      .all();
  expect(byUpdated()).toEqual([{ issuable_id: 2 }, { issuable_id: 3 }, { issuable_id: 1 }]);
  db.prepare("UPDATE issues SET updated_at = '2024-05-01T00:00:00.000Z', author_id = 4 WHERE iid = 1").run();
  db.prepare('DELETE FROM issues WHERE iid = 2').run();
  expect(byUpdated()).toEqual([{ issuable_id: 1 }, { issuable_id: 3 }]);
  expect(counters()).toEqual([
    { issuable_type: 'Issue', project_id: 7, author_id: 4, title: 'Other', state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'Issue', project_id: 7, author_id: 4, title: 'bug', state: 'opened', confidential: 0, n: 2 },
    { issuable_type: 'MergeRequest', project_id: 7, author_id: 4, title: 'bug', state: 'merged', confidential: 0, n: 1 },
  ]);
  db.close();
});
