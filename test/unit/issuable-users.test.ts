import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { queryPlan } from '../helpers/lists';

/**
 * core/066 fills issuable_users from the assignee and reviewer lists a data dir already holds, and
 * its triggers keep the rows equal to the lists after; core/067's partial indexes serve
 * confidential=true. The rows must answer `user_id = <number>` exactly as the lists' json_each did
 * (numbers only; a list that is not JSON, a string or a null holds none).
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-issuable-users-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROWS = 'SELECT issuable_type, role, user_id, project_id, issuable_id FROM issuable_users ORDER BY 1, 2, 3, 4, 5';
const FROM_LISTS = `SELECT * FROM (
  SELECT 'Issue' AS issuable_type, 'assignee' AS role, j.value AS user_id, x.project_id, x.id AS issuable_id FROM issues x, json_each(CASE WHEN json_valid(x.assignee_ids) THEN x.assignee_ids ELSE '[]' END) j WHERE j.type IN ('integer', 'real')
  UNION SELECT 'MergeRequest', 'assignee', j.value, x.project_id, x.id FROM merge_requests x, json_each(CASE WHEN json_valid(x.assignee_ids) THEN x.assignee_ids ELSE '[]' END) j WHERE j.type IN ('integer', 'real')
  UNION SELECT 'MergeRequest', 'reviewer', j.value, x.project_id, x.id FROM merge_requests x, json_each(CASE WHEN json_valid(x.reviewer_ids) THEN x.reviewer_ids ELSE '[]' END) j WHERE j.type IN ('integer', 'real')
) ORDER BY 1, 2, 3, 4, 5`;

it('an older data dir: its lists become rows, and every later write keeps them equal', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/066_issuable_users');
  const issue = before.prepare(`INSERT INTO issues (project_id, iid, title, assignee_ids, confidential, created_at, updated_at) VALUES (?, ?, 'I', ?, ?, '2024-01-01', '2024-01-01')`);
  issue.run(7, 1, '[5]', 0);
  issue.run(7, 2, '[5, 6, 5]', 1);
  issue.run(7, 3, '["5", null, 6.0, [5]]', 0);
  issue.run(7, 4, 'not json', 1);
  issue.run(8, 1, '[]', 0);
  const mr = before.prepare(
    `INSERT INTO merge_requests (project_id, iid, title, assignee_ids, reviewer_ids, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
     VALUES (7, ?, 'MR', ?, ?, 'b', 'main', 7, 7, 'a', 'a', 'a', '2024-01-01', '2024-01-01')`,
  );
  mr.run(1, '[5]', '[6]');
  mr.run(2, '[]', '[5, 6]');
  before.close();

  const db = openToday(file);
  db.pragma('foreign_keys = OFF');
  const rows = (): unknown[] => db.prepare(ROWS).all();
  expect(rows()).toEqual(db.prepare(FROM_LISTS).all());
  // Who matches `user_id = 5` is who json_each's `value = 5` matched.
  const byRows = (user: number): unknown[] =>
    db.prepare("SELECT x.id FROM issues x WHERE x.id IN (SELECT issuable_id FROM issuable_users WHERE issuable_type = 'Issue' AND role = 'assignee' AND user_id = ?) ORDER BY x.id").all(user);
  const byLists = (user: number): unknown[] =>
    db.prepare('SELECT x.id FROM issues x WHERE json_valid(x.assignee_ids) AND EXISTS (SELECT 1 FROM json_each(x.assignee_ids) WHERE value = ?) ORDER BY x.id').all(user);
  for (const user of [5, 6, 7]) expect(byRows(user)).toEqual(byLists(user));
  expect(byRows(5)).toHaveLength(2);
  expect(byRows(6)).toHaveLength(2);

  // Writes: a list changed, emptied, a record moved (and its id changed), deleted, created.
  db.prepare("UPDATE issues SET assignee_ids = '[6, 7]' WHERE project_id = 7 AND iid = 1").run();
  db.prepare("UPDATE issues SET assignee_ids = '[]' WHERE project_id = 7 AND iid = 2").run();
  db.prepare('UPDATE issues SET project_id = 9, iid = 5 WHERE project_id = 7 AND iid = 3').run();
  db.prepare("UPDATE issues SET assignee_ids = '[5]' WHERE project_id = 7 AND iid = 4").run();
  db.prepare('UPDATE issues SET id = 1000 WHERE project_id = 9 AND iid = 5').run();
  db.prepare("UPDATE issues SET title = 'retitled' WHERE project_id = 8").run();
  db.prepare('DELETE FROM merge_requests WHERE iid = 1').run();
  db.prepare("UPDATE merge_requests SET reviewer_ids = '[7]', project_id = 8 WHERE iid = 2").run();
  db.prepare(`INSERT INTO issues (project_id, iid, title, assignee_ids, created_at, updated_at) VALUES (8, 2, 'New', '[5, 8]', '2024-01-02', '2024-01-02')`).run();
  expect(rows()).toEqual(db.prepare(FROM_LISTS).all());
  expect(rows()).toHaveLength(7);

  // core/067: confidential issues by their partial indexes (the value named in the SQL).
  const plan = (sql: string): string => queryPlan(db, sql);
  expect(plan('SELECT id FROM issues c WHERE c.confidential = 1 AND c.project_id = 7')).toContain('issues_project_confidential_created');
  expect(plan('SELECT id FROM issues c WHERE c.confidential = 1')).toContain('issues_confidential_created');
  expect(db.prepare('SELECT id FROM issues c WHERE c.confidential = 1 AND c.project_id = 7 ORDER BY id').all()).toHaveLength(2);
  // core/069: a project's assignee rows without naming a user.
  expect(plan("SELECT 1 FROM issuable_users u WHERE u.issuable_type = 'Issue' AND u.role = 'assignee' AND u.project_id = 7")).toContain('issuable_users_project');
  db.close();
});
