import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * core/030 gives the label rows of the merge requests already in a data dir their record's
 * created_at (the rows the label filter's page reads in order); issue label rows get theirs from
 * core/038 (test/unit/issue-label-dates.test.ts).
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-label-dates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('fills created_at on the label rows of the merge requests a data dir already holds', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/030_merge_request_label_dates');
  const insert = before.prepare(
    `INSERT INTO merge_requests (project_id, iid, title, state, author_id, labels, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
     VALUES (7, ?, 'MR', 'opened', 1, ?, 'b', 'main', 7, 7, 'a', 'a', 'a', ?, ?)`,
  );
  insert.run(1, '["bug","Bug"]', '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:00.000Z');
  insert.run(2, '["bug"]', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z');
  before.prepare(`INSERT INTO issues (project_id, iid, title, state, author_id, labels, created_at, updated_at) VALUES (7, 1, 'I', 'opened', 1, '["bug"]', ?, ?)`).run(
    '2024-01-03T00:00:00.000Z',
    '2024-01-03T00:00:00.000Z',
  );
  before.close();

  const after = openToday(file);
  const rows = after.prepare('SELECT issuable_type, issuable_id, title, created_at FROM issuable_labels ORDER BY issuable_type, issuable_id, title').all();
  expect(rows).toEqual([
    { issuable_type: 'Issue', issuable_id: 1, title: 'bug', created_at: '2024-01-03T00:00:00.000Z' },
    { issuable_type: 'MergeRequest', issuable_id: 1, title: 'Bug', created_at: '2024-01-02T00:00:00.000Z' },
    { issuable_type: 'MergeRequest', issuable_id: 1, title: 'bug', created_at: '2024-01-02T00:00:00.000Z' },
    { issuable_type: 'MergeRequest', issuable_id: 2, title: 'bug', created_at: '2024-01-01T00:00:00.000Z' },
  ]);
  after.close();
});
