import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * core/038 gives the label rows of the issues already in a data dir their record's created_at
 * (the rows the label filter's page reads in order), and its triggers keep it: on a new issue,
 * a label change and a created_at change. Merge-request and epic rows are left as they were.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-issue-label-dates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('fills created_at on the label rows of the issues a data dir already holds, and keeps it', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/038_issue_label_dates');
  const issue = before.prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, labels, milestone_id, created_at, updated_at) VALUES (7, ?, 'I', 'opened', 1, ?, ?, ?, ?)`,
  );
  issue.run(1, '["Bug","bug"]', null, '2024-01-03T00:00:00.000Z', '2024-01-03T00:00:00.000Z');
  issue.run(2, '["bug"]', 4, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z');
  issue.run(3, '[]', null, '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:00.000Z');
  before
    .prepare(
      `INSERT INTO merge_requests (project_id, iid, title, state, author_id, labels, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
       VALUES (7, 1, 'MR', 'opened', 1, '["bug"]', 'b', 'main', 7, 7, 'a', 'a', 'a', '2024-01-05T00:00:00.000Z', '2024-01-05T00:00:00.000Z')`,
    )
    .run();
  before.close();

  const after = openToday(file);
  const rows = () =>
    after
      .prepare("SELECT issuable_type, issuable_id, title, created_at, milestone FROM issuable_labels WHERE issuable_type != 'Epic' ORDER BY issuable_type, issuable_id, title")
      .all();
  expect(rows()).toEqual([
    { issuable_type: 'Issue', issuable_id: 1, title: 'Bug', created_at: '2024-01-03T00:00:00.000Z', milestone: null },
    { issuable_type: 'Issue', issuable_id: 1, title: 'bug', created_at: '2024-01-03T00:00:00.000Z', milestone: null },
    { issuable_type: 'Issue', issuable_id: 2, title: 'bug', created_at: '2024-01-01T00:00:00.000Z', milestone: 4 },
    { issuable_type: 'MergeRequest', issuable_id: 1, title: 'bug', created_at: '2024-01-05T00:00:00.000Z', milestone: null },
  ]);
  // Both indexes the label page reads hold the filled rows.
  for (const index of ['issuable_labels_created', 'issuable_labels_title_created']) {
    expect(
      after.prepare(`SELECT issuable_id FROM issuable_labels INDEXED BY ${index} WHERE issuable_type = 'Issue' AND title = 'bug' COLLATE NOCASE AND created_at IS NOT NULL ORDER BY created_at`).all(),
    ).toEqual([{ issuable_id: 2 }, { issuable_id: 1 }, { issuable_id: 1 }]);
  }
  // Kept: a new issue, a label change, a created_at change (and nothing else moves it).
  after.pragma('foreign_keys = OFF');
  after.prepare(`INSERT INTO issues (project_id, iid, title, state, author_id, labels, created_at, updated_at) VALUES (7, 4, 'I', 'opened', 1, '["bug"]', ?, ?)`).run(
    '2024-01-04T00:00:00.000Z',
    '2024-01-04T00:00:00.000Z',
  );
  after.prepare(`UPDATE issues SET labels = '["bug","new"]' WHERE iid = 3`).run();
  after.prepare(`UPDATE issues SET created_at = '2020-01-01T00:00:00.000Z' WHERE iid = 2`).run();
  after.prepare(`UPDATE issues SET title = 'Renamed', updated_at = '2025-01-01T00:00:00.000Z' WHERE iid = 1`).run();
  expect(after.prepare("SELECT issuable_id, title, created_at FROM issuable_labels WHERE issuable_type = 'Issue' ORDER BY issuable_id, title").all()).toEqual([
    { issuable_id: 1, title: 'Bug', created_at: '2024-01-03T00:00:00.000Z' },
    { issuable_id: 1, title: 'bug', created_at: '2024-01-03T00:00:00.000Z' },
    { issuable_id: 2, title: 'bug', created_at: '2020-01-01T00:00:00.000Z' },
    { issuable_id: 3, title: 'bug', created_at: '2024-01-02T00:00:00.000Z' },
    { issuable_id: 3, title: 'new', created_at: '2024-01-02T00:00:00.000Z' },
    { issuable_id: 4, title: 'bug', created_at: '2024-01-04T00:00:00.000Z' },
  ]);
  after.close();
});
