import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * core/041 logs which record each write to issues and merge requests touched (one row per list
 * version moved, a move in both projects; the last 1,000); core/042 indexes the label rows a data
 * dir already holds by milestone in created_at order. Both on a data dir an earlier main wrote.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-list-writes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('an older data dir: its label rows on a milestone read in created_at order; every later write logged', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/041_issuable_list_writes');
  const mr = before.prepare(
    `INSERT INTO merge_requests (project_id, iid, title, state, author_id, labels, milestone_id, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
     VALUES (7, ?, 'MR', 'opened', 1, ?, ?, 'b', 'main', 7, 7, 'a', 'a', 'a', ?, ?)`,
  );
  mr.run(1, '["bug"]', 3, '2024-01-03T00:00:00.000Z', '2024-01-03T00:00:00.000Z');
  mr.run(2, '["bug"]', 3, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z');
  mr.run(3, '["bug"]', 4, '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:00.000Z');
  mr.run(4, '["bug"]', null, '2024-01-04T00:00:00.000Z', '2024-01-04T00:00:00.000Z');
  before.close();

  const db = openToday(file);
  // No projects or users: the rows stand alone.
  db.pragma('foreign_keys = OFF');
  const onMilestone = db
    .prepare(
      `SELECT issuable_id FROM issuable_labels INDEXED BY issuable_labels_milestone_created
        WHERE issuable_type = 'MergeRequest' AND project_id = 7 AND milestone IS NOT NULL AND milestone = 3 AND title = 'bug' COLLATE NOCASE AND created_at IS NOT NULL
        ORDER BY created_at DESC, issuable_id DESC`,
    )
    .all();
  expect(onMilestone).toEqual([{ issuable_id: 1 }, { issuable_id: 2 }]);
  expect(db.prepare('SELECT count(*) AS n FROM issuable_list_writes').get()).toEqual({ n: 0 });

  db.prepare("UPDATE merge_requests SET title = 'Retitled' WHERE iid = 2").run();
  db.prepare('UPDATE merge_requests SET project_id = 8 WHERE iid = 3').run();
  db.prepare('DELETE FROM merge_requests WHERE iid = 4').run();
  const log = db.prepare('SELECT issuable_type, project_id, issuable_id FROM issuable_list_writes ORDER BY seq').all();
  expect(log).toEqual([
    { issuable_type: 'MergeRequest', project_id: 7, issuable_id: 2 },
    { issuable_type: 'MergeRequest', project_id: 8, issuable_id: 3 },
    { issuable_type: 'MergeRequest', project_id: 7, issuable_id: 3 },
    { issuable_type: 'MergeRequest', project_id: 7, issuable_id: 4 },
  ]);
  // One row per move of the list versions (core/020), in each project.
  const versions = db.prepare('SELECT project_id, version FROM merge_request_list_versions ORDER BY project_id').all() as { project_id: number; version: number }[];
  const seven = versions.find((v) => v.project_id === 7)!.version;
  expect(db.prepare('SELECT project_id, version FROM merge_request_list_versions WHERE project_id = 8').get()).toEqual({ project_id: 8, version: 1 });
  expect(seven).toBeGreaterThanOrEqual(3);
  // The log keeps the last 1,000 writes.
  const touch = db.prepare('UPDATE merge_requests SET updated_at = updated_at WHERE iid = 1');
  for (let i = 0; i < 1_200; i++) touch.run();
  const { n, first, last } = db.prepare('SELECT count(*) AS n, min(seq) AS first, max(seq) AS last FROM issuable_list_writes').get() as { n: number; first: number; last: number };
  expect(n).toBe(1_000);
  expect(last - first).toBe(999);
  db.close();
});
