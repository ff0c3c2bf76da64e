import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { queryPlan } from '../helpers/lists';

/**
 * core/088 keeps each record's discussions as rows (their first note, and the first one a reader
 * without internal notes sees), so a record's discussions list reads them in order instead of
 * grouping every note. The rows are always what grouping the notes gives: on a data dir written
 * before core/088, and through every later write.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-discussions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Db = ReturnType<typeof openToday>;

function expectAsTheNotes(db: Db): void {
  const grouped = db
    .prepare(
      `SELECT noteable_type, noteable_id, discussion_id, min(id) AS first_id, min(CASE WHEN internal = 0 THEN id END) AS first_public_id
       FROM notes NOT INDEXED GROUP BY noteable_type, noteable_id, discussion_id ORDER BY 1, 2, 3`,
    )
    .all();
  expect(db.prepare('SELECT * FROM note_discussions ORDER BY 1, 2, 3').all()).toEqual(grouped);
}

function noteInsert(db: Db) {
  return db.prepare(
    `INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, author_id, body, internal, created_at, updated_at)
     VALUES (7, ?, ?, ?, 1, 'b', ?, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z') RETURNING id`,
  );
}

it('fills the rows of a data dir written before core/088, and keeps them through every write', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/088_note_discussions');
  const note = noteInsert(before);
  for (let i = 0; i < 40; i++) note.run(i % 3 ? 'Issue' : 'MergeRequest', 1 + (i % 4), `d${i % 7}`, i % 5 === 0 ? 1 : 0);
  before.close();

  const db = openToday(file);
  db.pragma('foreign_keys = OFF');
  expect((db.prepare('SELECT count(*) AS n FROM note_discussions').get() as { n: number }).n).toBeGreaterThan(10);
  expectAsTheNotes(db);
  const now = noteInsert(db);
  // A thread begun internal, then a public reply; a reply to an old thread; a new thread.
  const internalFirst = (now.get('Issue', 9, 'x1', 1) as { id: number }).id;
  expectAsTheNotes(db);
  now.get('Issue', 9, 'x1', 0);
  now.get('Issue', 1, 'd1', 0);
  now.get('MergeRequest', 9, 'x2', 0);
  expectAsTheNotes(db);
  db.prepare('UPDATE notes SET internal = 0 WHERE id = ?').run(internalFirst);
  expectAsTheNotes(db);
  db.prepare("UPDATE notes SET internal = 1 WHERE discussion_id = 'd2'").run();
  expectAsTheNotes(db);
  db.prepare("UPDATE notes SET discussion_id = 'd9' WHERE discussion_id = 'd3' AND id % 2 = 0").run();
  expectAsTheNotes(db);
  db.prepare("UPDATE notes SET noteable_id = 9 WHERE noteable_type = 'Issue' AND noteable_id = 2").run();
  db.prepare("UPDATE notes SET noteable_type = 'Epic' WHERE discussion_id = 'd4' AND id % 3 = 0").run();
  expectAsTheNotes(db);
  db.prepare('DELETE FROM notes WHERE id = ?').run(internalFirst);
  db.prepare("DELETE FROM notes WHERE discussion_id = 'd5'").run();
  db.prepare('DELETE FROM notes WHERE id % 4 = 1').run();
  expectAsTheNotes(db);
  db.prepare('DELETE FROM notes').run();
  expect(db.prepare('SELECT count(*) AS n FROM note_discussions').get()).toEqual({ n: 0 });
  // A record's page reads its rows in order from the index, for either reader.
  for (const first of ['first_id', 'first_public_id']) {
    const plan = queryPlan(db, `SELECT discussion_id FROM note_discussions WHERE noteable_type = ? AND noteable_id = ? AND ${first} IS NOT NULL ORDER BY ${first} LIMIT 21 OFFSET ?`, 'Issue', 1, 0);
    expect(plan).toContain(`INDEX note_discussions_${first === 'first_id' ? 'first' : 'first_public'} (noteable_type=? AND noteable_id=?`);
    expect(plan).not.toContain('TEMP B-TREE');
  }
  db.close();
});
