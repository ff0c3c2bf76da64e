import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * core/034 gives the label rows of the issues and merge requests already in a data dir their
 * record's milestone, and counts them per milestone, title, state and confidentiality; epic label
 * rows and records without a milestone stay out of both.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-label-milestones-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('fills the milestone of the label rows a data dir already holds, and their counters', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/034_label_milestone_counts');
  const mr = before.prepare(
    `INSERT INTO merge_requests (project_id, iid, title, state, author_id, labels, milestone_id, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
     VALUES (7, ?, 'MR', ?, 1, ?, ?, 'b', 'main', 7, 7, 'a', 'a', 'a', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`,
  );
  mr.run(1, 'opened', '["bug","Bug"]', 3);
  mr.run(2, 'opened', '["bug"]', 3);
  mr.run(3, 'merged', '["bug"]', 3);
  mr.run(4, 'opened', '["bug"]', null);
  const issue = before.prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, labels, milestone_id, confidential, created_at, updated_at)
     VALUES (7, ?, 'I', 'opened', 1, ?, ?, ?, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`,
  );
  issue.run(1, '["bug"]', 3, 0);
  issue.run(2, '["bug"]', 3, 1);
  issue.run(3, '["other"]', 4, 0);
  issue.run(4, '["bug"]', null, 0);
  before.close();

  const after = openToday(file);
  const rows = after.prepare('SELECT issuable_type, issuable_id, title, milestone FROM issuable_labels ORDER BY issuable_type, issuable_id, title').all();
  expect(rows).toEqual([
    { issuable_type: 'Issue', issuable_id: 1, title: 'bug', milestone: 3 },
    { issuable_type: 'Issue', issuable_id: 2, title: 'bug', milestone: 3 },
    { issuable_type: 'Issue', issuable_id: 3, title: 'other', milestone: 4 },
    { issuable_type: 'Issue', issuable_id: 4, title: 'bug', milestone: null },
    { issuable_type: 'MergeRequest', issuable_id: 1, title: 'Bug', milestone: 3 },
    { issuable_type: 'MergeRequest', issuable_id: 1, title: 'bug', milestone: 3 },
    { issuable_type: 'MergeRequest', issuable_id: 2, title: 'bug', milestone: 3 },
    { issuable_type: 'MergeRequest', issuable_id: 3, title: 'bug', milestone: 3 },
    { issuable_type: 'MergeRequest', issuable_id: 4, title: 'bug', milestone: null },
  ]);
  const counts = after
    .prepare('SELECT issuable_type, project_id, milestone, title, state, confidential, n FROM label_milestone_counts ORDER BY issuable_type, milestone, title, state, confidential')
    .all();
  expect(counts).toEqual([
    { issuable_type: 'Issue', project_id: 7, milestone: 3, title: 'bug', state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'Issue', project_id: 7, milestone: 3, title: 'bug', state: 'opened', confidential: 1, n: 1 },
    { issuable_type: 'Issue', project_id: 7, milestone: 4, title: 'other', state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'MergeRequest', project_id: 7, milestone: 3, title: 'Bug', state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'MergeRequest', project_id: 7, milestone: 3, title: 'bug', state: 'merged', confidential: 0, n: 1 },
    { issuable_type: 'MergeRequest', project_id: 7, milestone: 3, title: 'bug', state: 'opened', confidential: 0, n: 2 },
  ]);
  after.close();
});

it('core/036 counts the merge requests a data dir already holds per project, target branch and state', () => {
  const file = join(dir, 'branches.db');
  const before = openBefore(file, 'core/036_merge_request_state_branch_counts');
  const mr = before.prepare(
    `INSERT INTO merge_requests (project_id, iid, title, state, author_id, labels, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
     VALUES (?, ?, 'MR', ?, 1, '[]', 'b', ?, 7, 7, 'a', 'a', 'a', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`,
  );
  mr.run(7, 1, 'opened', 'main');
  mr.run(7, 2, 'opened', 'main');
  mr.run(7, 3, 'merged', 'main');
  mr.run(7, 4, 'opened', 'stable');
  mr.run(8, 1, 'opened', 'main');
  before.close();

  const after = openToday(file);
  expect(after.prepare('SELECT project_id, target_branch, state, n FROM merge_request_branch_counts ORDER BY 1, 2, 3').all()).toEqual([
    { project_id: 7, target_branch: 'main', state: 'merged', n: 1 },
    { project_id: 7, target_branch: 'main', state: 'opened', n: 2 },
    { project_id: 7, target_branch: 'stable', state: 'opened', n: 1 },
    { project_id: 8, target_branch: 'main', state: 'opened', n: 1 },
  ]);
  after.close();
});
