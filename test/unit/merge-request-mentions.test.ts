import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { queryPlan } from '../helpers/lists';

/**
 * core/062 keeps the issue numbers each merge request's title, description and comments mention
 * (`#<digits>`), so an issue's related merge requests read their own rows. For every number, the
 * merge requests its rows name are exactly those whose title, description or a comment holds
 * `#<number>` as a substring (the LIKE '%#N%' the list scanned every merge request and comment with
 * before): on a data dir written before core/062, and through every later write.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-mentions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Db = ReturnType<typeof openToday>;

/** The merge requests a LIKE scan finds for `#n`, and those core/062's rows name (numbers from n's digits up to n's digits + ':'). */
function both(db: Db, n: number): { scanned: number[]; indexed: number[] } {
  const like = `%#${n}%`;
  const scanned = db
    .prepare(
      `SELECT id FROM merge_requests m WHERE m.title LIKE ? OR m.description LIKE ?
         OR m.id IN (SELECT noteable_id FROM notes WHERE noteable_type = 'MergeRequest' AND body LIKE ?) ORDER BY id`,
    )
    .all(like, like, like) as { id: number }[];
  const indexed = db
    .prepare('SELECT DISTINCT merge_request_id AS id FROM merge_request_mentions WHERE number >= ? AND number < ? ORDER BY id')
    .all(String(n), `${n}:`) as { id: number }[];
  return { scanned: scanned.map((r) => r.id), indexed: indexed.map((r) => r.id) };
}

function expectSameForEveryNumber(db: Db): void {
  for (let n = 0; n <= 130; n++) {
    const { scanned, indexed } = both(db, n);
    expect(indexed, `#${n}`).toEqual(scanned);
  }
}

const TEXTS = [
  'Closes #12 and #5, see ##100x',
  'no references at all',
  'a "quoted" #7\\n#8 é#9\n#10#11 {"json": "#120"}',
  '#',
  'trailing #',
  'group/project#33 and https://example.com/g/p/-/issues/44',
  '#0100 is not #100',
  '#1',
  'Title mentions #2',
  'Arabic digits #١٢ are not digits',
];

function mergeRequestInsert(db: Db) {
  return db.prepare(
    `INSERT INTO merge_requests (project_id, iid, title, description, state, author_id, labels, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
     VALUES (7, ?, ?, ?, 'opened', 1, '[]', 'b', 'main', 7, 7, 'a', 'a', 'a', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z') RETURNING id`,
  );
}

function noteInsert(db: Db) {
  return db.prepare(
    `INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, author_id, body, created_at, updated_at)
     VALUES (7, ?, ?, 'd', 1, ?, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z') RETURNING id`,
  );
}

it('fills the rows of a data dir written before core/062, and keeps them through every write', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/062_merge_request_mentions');
  const mr = mergeRequestInsert(before);
  const note = noteInsert(before);
  TEXTS.forEach((text, i) => {
    const { id } = mr.get(i + 1, i % 3 ? `MR ${i}` : `MR #${i + 100}`, i % 2 ? text : null) as { id: number };
    note.run('MergeRequest', id, TEXTS[(i + 3) % TEXTS.length]);
    note.run('Issue', id, '#13 on an issue with the same id');
  });
  before.close();

  const db = openToday(file);
  db.pragma('foreign_keys = OFF');
  expect((db.prepare('SELECT count(*) AS n FROM merge_request_mentions').get() as { n: number }).n).toBeGreaterThan(10);
  expectSameForEveryNumber(db);

  // Later writes: created, retitled, described, comments added, edited, moved, deleted.
  const mrNow = mergeRequestInsert(db);
  const noteNow = noteInsert(db);
  const created = (mrNow.get(50, 'New #3 and #121', 'refs #4') as { id: number }).id;
  const plain = (mrNow.get(51, 'plain', null) as { id: number }).id;
  expectSameForEveryNumber(db);
  db.prepare("UPDATE merge_requests SET title = 'Retitled #6' WHERE id = ?").run(created);
  db.prepare("UPDATE merge_requests SET description = 'now #110 and #111' WHERE id = ?").run(plain);
  db.prepare("UPDATE merge_requests SET description = NULL WHERE iid = 2").run();
  db.prepare("UPDATE merge_requests SET state = 'closed' WHERE iid = 4").run();
  expectSameForEveryNumber(db);
  const comment = (noteNow.get('MergeRequest', plain, 'see #15') as { id: number }).id;
  noteNow.get('MergeRequest', plain, 'see #15 again');
  expectSameForEveryNumber(db);
  db.prepare("UPDATE notes SET body = 'see #16 instead' WHERE id = ?").run(comment);
  expectSameForEveryNumber(db);
  db.prepare('UPDATE notes SET noteable_id = ? WHERE id = ?').run(created, comment);
  expectSameForEveryNumber(db);
  db.prepare("UPDATE notes SET noteable_type = 'Issue' WHERE id = ?").run(comment);
  expectSameForEveryNumber(db);
  db.prepare("UPDATE notes SET noteable_type = 'MergeRequest' WHERE id = ?").run(comment);
  expectSameForEveryNumber(db);
  db.prepare("UPDATE notes SET body = 'no number' WHERE noteable_type = 'Issue'").run();
  db.prepare("DELETE FROM notes WHERE noteable_type = 'MergeRequest' AND body LIKE '%#1%'").run();
  expectSameForEveryNumber(db);
  db.prepare('DELETE FROM merge_requests WHERE iid IN (1, 4, 50)').run();
  expectSameForEveryNumber(db);
  // A deleted merge request leaves no rows (its comments' rows included).
  expect(db.prepare('SELECT count(*) AS n FROM merge_request_mentions WHERE merge_request_id NOT IN (SELECT id FROM merge_requests)').get()).toEqual({ n: 0 });
  db.close();
});

it('an issue number reads its own rows by the primary key, not every merge request', () => {
  const file = join(dir, 'plan.db');
  const db = openToday(file);
  const details = queryPlan(
    db,
    `SELECT m.* FROM merge_requests m WHERE m.id IN (SELECT merge_request_id FROM merge_requests_closing_issues WHERE issue_id = ?
       UNION SELECT merge_request_id FROM merge_request_mentions WHERE number >= ? AND number < ?) ORDER BY m.id`,
    1, '5', '5:',
  ).split('\n');
  expect(details).toContain('SEARCH m USING INTEGER PRIMARY KEY (rowid=?)');
  expect(details.some((d) => /SEARCH merge_request_mentions USING PRIMARY KEY \(number>\? AND number<\?\)/.test(d))).toBe(true);
  expect(details.some((d) => /SCAN m\b/.test(d))).toBe(false);
  db.close();
});
