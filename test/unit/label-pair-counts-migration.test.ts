import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * core/092 on a data dir an earlier main wrote: the label pair counters count the pairs its records
 * already carry (the binary-lower title first; two spellings of a title in one counter, as the filters match them), and
 * later writes keep them.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-label-pairs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('an older data dir: pairs counted by type, titles, project, state and confidentiality, kept by later writes', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/092_label_pair_counts');
  const issue = before.prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, labels, confidential, created_at, updated_at) VALUES (7, ?, 'I', ?, 3, ?, ?, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')`,
  );
  issue.run(1, 'opened', '["bug","ux","Rare"]', 0);
  issue.run(2, 'closed', '["ux","bug"]', 1);
  issue.run(3, 'opened', '["bug","ux"]', 0);
  issue.run(4, 'opened', '["Bug","ux"]', 0);
  issue.run(5, 'opened', '["bug"]', 0);
  before
    .prepare(
      `INSERT INTO merge_requests (project_id, iid, title, state, author_id, labels, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
       VALUES (7, 1, 'MR', 'merged', 4, '["ux","bug"]', 'b', 'main', 7, 7, 'a', 'a', 'a', '2024-01-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z')`,
    )
    .run();
  before.close();

  const db = openToday(file);
  db.pragma('foreign_keys = OFF');
  const counters = (): unknown[] =>
    db
      .prepare('SELECT issuable_type, lower(a) AS a, lower(b) AS b, project_id, state, confidential, sum(n) AS n FROM label_pair_counts GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) != 0 ORDER BY 1, 2, 3, 4, 5, 6')
      .all();
  expect(counters()).toEqual([
    { issuable_type: 'Issue', a: 'bug', b: 'ux', project_id: 7, state: 'closed', confidential: 1, n: 1 },
    { issuable_type: 'Issue', a: 'bug', b: 'ux', project_id: 7, state: 'opened', confidential: 0, n: 3 },
    { issuable_type: 'Issue', a: 'rare', b: 'bug', project_id: 7, state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'Issue', a: 'rare', b: 'ux', project_id: 7, state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'MergeRequest', a: 'bug', b: 'ux', project_id: 7, state: 'merged', confidential: 0, n: 1 },
  ]);
  db.prepare("UPDATE issues SET state = 'closed' WHERE iid = 3").run();
  db.prepare('UPDATE issues SET confidential = 0 WHERE iid = 2').run();
  db.prepare('DELETE FROM issues WHERE iid = 1').run();
  db.prepare(`UPDATE issues SET labels = '["bug","Rare"]' WHERE iid = 5`).run();
  expect(counters()).toEqual([
    { issuable_type: 'Issue', a: 'bug', b: 'ux', project_id: 7, state: 'closed', confidential: 0, n: 2 },
    { issuable_type: 'Issue', a: 'bug', b: 'ux', project_id: 7, state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'Issue', a: 'rare', b: 'bug', project_id: 7, state: 'opened', confidential: 0, n: 1 },
    { issuable_type: 'MergeRequest', a: 'bug', b: 'ux', project_id: 7, state: 'merged', confidential: 0, n: 1 },
  ]);
  db.close();
});
