import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { queryPlan } from '../helpers/lists';

/**
 * core/098 keeps each record's commenters as rows (each author's first note on it, and their first
 * one a reader without internal notes sees), so a record's participants read them instead of
 * grouping every note. The rows are always what grouping the notes gives: on a data dir written
 * before core/098, and through every later write (SQL ones included).
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-note-authors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Db = ReturnType<typeof openToday>;

function expectAsTheNotes(db: Db): void {
  const grouped = db
    .prepare(
      `SELECT noteable_type, noteable_id, author_id, min(id) AS first_id, min(CASE WHEN internal = 0 THEN id END) AS first_public_id
       FROM notes NOT INDEXED WHERE author_id IS NOT NULL GROUP BY noteable_type, noteable_id, author_id ORDER BY 1, 2, 3`,
    )
    .all();
  expect(db.prepare('SELECT * FROM note_authors ORDER BY 1, 2, 3').all()).toEqual(grouped);
}

function noteInsert(db: Db) {
  return db.prepare(
    `INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, author_id, body, internal, created_at, updated_at)
     VALUES (7, ?, ?, 'd', ?, 'b', ?, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z') RETURNING id`,
  );
}

it('fills the rows of a data dir written before core/098, and keeps them through every write', () => {
  const file = join(dir, 'sandlab.db');
  const before = openBefore(file, 'core/098_note_authors');
  const note = noteInsert(before);
  for (let i = 0; i < 60; i++) note.run(i % 3 ? 'Issue' : 'MergeRequest', 1 + (i % 4), i % 7 === 6 ? null : 1 + (i % 5), i % 4 === 0 ? 1 : 0);
  before.close();

  const db = openToday(file);
  db.pragma('foreign_keys = OFF');
  expect((db.prepare('SELECT count(*) AS n FROM note_authors').get() as { n: number }).n).toBeGreaterThan(15);
  expectAsTheNotes(db);
  const now = noteInsert(db);
  // A new commenter's internal note, then their public one; another note of a known author; no author.
  const internalFirst = (now.get('Issue', 9, 8, 1) as { id: number }).id;
  expectAsTheNotes(db);
  now.get('Issue', 9, 8, 0);
  now.get('Issue', 1, 2, 0);
  now.get('Issue', 1, null, 0);
  expectAsTheNotes(db);
  db.prepare('UPDATE notes SET internal = 0 WHERE id = ?').run(internalFirst);
  expectAsTheNotes(db);
  db.prepare('UPDATE notes SET internal = 1 WHERE author_id = 3').run();
  expectAsTheNotes(db);
  db.prepare('UPDATE notes SET internal = 0 WHERE author_id = 3 AND id % 3 = 0').run();
  expectAsTheNotes(db);
  // A note moved to another record, given to another author, its author's user deleted (NULL), and back.
  db.prepare("UPDATE notes SET noteable_id = 9 WHERE noteable_type = 'Issue' AND noteable_id = 2 AND id % 2 = 0").run();
  db.prepare("UPDATE notes SET noteable_type = 'Epic' WHERE author_id = 4 AND id % 3 = 0").run();
  db.prepare('UPDATE notes SET author_id = 5 WHERE author_id = 1 AND id % 2 = 1').run();
  db.prepare('UPDATE notes SET author_id = NULL WHERE author_id = 2').run();
  expectAsTheNotes(db);
  db.prepare('UPDATE notes SET author_id = 6 WHERE author_id IS NULL AND id % 2 = 0').run();
  expectAsTheNotes(db);
  db.prepare('DELETE FROM notes WHERE id = ?').run(internalFirst);
  db.prepare('DELETE FROM notes WHERE author_id = 5 AND id % 3 = 1').run();
  db.prepare('DELETE FROM notes WHERE id % 4 = 1').run();
  expectAsTheNotes(db);
  db.prepare('DELETE FROM notes').run();
  expect(db.prepare('SELECT count(*) AS n FROM note_authors').get()).toEqual({ n: 0 });
  db.close();
});

it('reads a record\'s commenters by their rows and its notes that may mention someone by the partial index', () => {
  const db = openToday(join(dir, 'plans.db'));
  for (const first of ['first_id', 'first_public_id']) {
    expect(queryPlan(db, `SELECT author_id FROM note_authors WHERE noteable_type = ? AND noteable_id = ? AND ${first} IS NOT NULL ORDER BY ${first}`, 'Issue', 1)).toContain(
      'SEARCH note_authors USING PRIMARY KEY (noteable_type=? AND noteable_id=?)',
    );
  }
  for (const visible of ['', ' AND internal = 0']) {
    expect(queryPlan(db, `SELECT body FROM notes WHERE noteable_type = ? AND noteable_id = ? AND instr(body, '@') > 0${visible} ORDER BY id`, 'Issue', 1)).toContain(
      'SEARCH notes USING INDEX notes_mentioning (noteable_type=? AND noteable_id=?)',
    );
  }
  db.close();
});
