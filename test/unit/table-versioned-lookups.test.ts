import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cachedLookup, inTransaction, lookupKnown, tableVersion } from '../../src/main/service/db/connection';
import { openBefore, openToday } from '../helpers/older-data-dir';

/**
 * cachedLookup kinds that name the tables they read (core/099's versions) keep their values
 * across writes to other tables, and let them go at any write to a row of theirs: an insert, an
 * update, a delete, SQL through exec, a cascade, a write inside a transaction (kept or rolled
 * back); kinds without tables, and a database before core/099, go at every write as before.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-table-lookups-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Db = ReturnType<typeof openToday>;
const USERS = ['users'];

function readers(db: Db) {
  const user = (id: number) => cachedLookup(db, 'user', id, () => db.prepare('SELECT * FROM users WHERE id = ?').get(id) as { name: string } | undefined, USERS);
  const untabled = (id: number) => cachedLookup(db, 'user-untabled', id, () => db.prepare('SELECT * FROM users WHERE id = ?').get(id) as { name: string } | undefined);
  return { user, untabled };
}

function seed(db: Db): void {
  const at = '2024-01-01T00:00:00.000Z';
  const insert = db.prepare("INSERT INTO users (id, username, name, email, state, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, ?)");
  for (const id of [11, 12]) insert.run(id, `u${id}`, `User ${id}`, `u${id}@example.com`, at, at);
  db.prepare("INSERT INTO namespaces (id, kind, name, path, full_path, visibility, created_at, updated_at) VALUES (50, 'group', 'g', 'g', 'g', 'public', ?, ?)").run(at, at);
}

it('keeps a kind of rows across writes to other tables, and lets it go at a write to its own', () => {
  const db = openToday(join(dir, 'today.db'));
  seed(db);
  const { user, untabled } = readers(db);
  const first = user(11);
  const other = untabled(11);
  expect(first?.name).toBe('User 11');
  // A write elsewhere: the same object for the kind with tables, read again for the other.
  db.prepare("UPDATE namespaces SET name = 'renamed' WHERE id = 50").run();
  expect(user(11)).toBe(first);
  expect(lookupKnown(db, 'user', 11)).toBe(true);
  expect(untabled(11)).not.toBe(other);
  // Each kind of write to users: an update of another row, an insert, a delete, SQL by exec.
  db.prepare("UPDATE users SET name = 'Other' WHERE id = 12").run();
  expect(lookupKnown(db, 'user', 11)).toBe(false);
  const second = user(11);
  expect(second).not.toBe(first);
  expect(second).toEqual(first);
  db.prepare("UPDATE users SET name = 'Renamed' WHERE id = 11").run();
  expect(user(11)?.name).toBe('Renamed');
  expect(user(13)).toBeUndefined();
  db.prepare("INSERT INTO users (id, username, name, email, state, created_at, updated_at) VALUES (13, 'u13', 'User 13', 'u13@example.com', 'active', 'x', 'x')").run();
  expect(user(13)?.name).toBe('User 13');
  db.exec("UPDATE users SET name = 'By exec' WHERE id = 11");
  expect(user(11)?.name).toBe('By exec');
  db.prepare('DELETE FROM users WHERE id = 13').run();
  expect(user(13)).toBeUndefined();
  // Inside a transaction: nothing kept; a rolled-back write leaves the committed row.
  expect(() =>
    inTransaction(db, () => {
      db.prepare("UPDATE users SET name = 'Rolled back' WHERE id = 11").run();
      expect(user(11)?.name).toBe('Rolled back');
      throw new Error('roll back');
    }),
  ).toThrow('roll back');
  expect(user(11)?.name).toBe('By exec');
  inTransaction(db, () => void db.prepare("UPDATE users SET name = 'Committed' WHERE id = 11").run());
  expect(user(11)?.name).toBe('Committed');
  db.close();
});

it('lets every value go at any write on a database before core/099', () => {
  const file = join(dir, 'before.db');
  const db = openBefore(file, 'core/099_table_versions');
  db.pragma('foreign_keys = ON');
  seed(db);
  const { user } = readers(db);
  const first = user(11);
  db.prepare("UPDATE namespaces SET name = 'renamed' WHERE id = 50").run();
  expect(user(11)).not.toBe(first);
  expect(user(11)).toEqual(first);
  db.close();
});

it('reads every table version in one statement per generation, and each anew after any write', () => {
  const db = openToday(join(dir, 'versions.db'));
  seed(db);
  const prepare = db.prepare;
  const versionReads: string[] = [];
  db.prepare = ((sql: string) => (/table_versions/.test(sql) && /^\s*SELECT/i.test(sql) && versionReads.push(sql), prepare.call(db, sql))) as typeof db.prepare;
  const own = (name: string) => (prepare.call(db, 'SELECT version FROM table_versions WHERE name = ?').get(name) as { version: number }).version;
  const { user } = readers(db);
  const group = (id: number) => cachedLookup(db, 'group', id, () => prepare.call(db, 'SELECT * FROM namespaces WHERE id = ?').get(id) as { name: string } | undefined, ['namespaces']);
  const users = own('users');
  const namespaces = own('namespaces');
  db.prepare("UPDATE namespaces SET name = 'renamed' WHERE id = 50").run();
  versionReads.length = 0;
  // Two kinds of two tables and the versions themselves: one statement for all of them.
  expect(user(11)?.name).toBe('User 11');
  expect(group(50)?.name).toBe('renamed');
  expect(tableVersion(db, 'users')).toBe(users);
  expect(tableVersion(db, 'namespaces')).toBe(namespaces + 1);
  expect(tableVersion(db, 'no_such_table')).toBeUndefined();
  expect(versionReads).toEqual(['SELECT json_group_object(name, version) AS versions FROM table_versions']);
  // Each kind of write ends the generation: the versions are read again and show it.
  for (const write of [
    () => db.prepare("UPDATE users SET name = 'Other' WHERE id = 12").run(),
    () => db.exec("UPDATE users SET name = 'By exec' WHERE id = 12"),
    () => db.prepare('DELETE FROM users WHERE id = 12').run(),
  ]) {
    const before = tableVersion(db, 'users')!;
    write();
    expect(tableVersion(db, 'users')).toBe(before + 1);
    expect(tableVersion(db, 'users')).toBe(own('users'));
  }
  // Inside a transaction: read afresh, its own writes seen; a rollback leaves the committed version.
  const committed = tableVersion(db, 'users')!;
  expect(() =>
    inTransaction(db, () => {
      db.prepare("UPDATE users SET name = 'Rolled back' WHERE id = 11").run();
      expect(tableVersion(db, 'users')).toBe(committed + 1);
      throw new Error('roll back');
    }),
  ).toThrow('roll back');
  expect(tableVersion(db, 'users')).toBe(committed);
  db.prepare = prepare;
  db.close();
});

it("keeps a read statement's answers across writes to tables it does not read, while core/099 versions every table it names", () => {
  const file = join(dir, 'statements.db');
  const db = openToday(file);
  seed(db);
  // A write the connection does not see (another one's, its version put back): an answer shows it only when read again.
  const other = openToday(file);
  const behind = (sql: string) => {
    const { version } = other.prepare("SELECT version FROM table_versions WHERE name = 'users'").get() as { version: number };
    other.prepare(sql).run();
    other.prepare("UPDATE table_versions SET version = ? WHERE name = 'users'").run(version);
  };
  const name = (id: number) => (db.prepare('SELECT name FROM users WHERE id = ?').get(id) as { name: string }).name;
  const names = () => (db.prepare('SELECT name FROM users ORDER BY id').all() as { name: string }[]).map((r) => r.name);
  // spam_logs has no version: this statement's answers go at every write.
  const keyless = (id: number) => (db.prepare('SELECT name FROM users WHERE id = ? AND NOT EXISTS (SELECT 1 FROM spam_logs k WHERE k.user_id = users.id)').get(id) as { name: string }).name;
  expect([name(11), keyless(11), names()]).toEqual(['User 11', 'User 11', ['User 11', 'User 12']]);
  behind("UPDATE users SET name = 'Behind' WHERE id = 11");
  db.prepare("UPDATE namespaces SET name = 'renamed' WHERE id = 50").run();
  expect([name(11), keyless(11), names()]).toEqual(['User 11', 'Behind', ['User 11', 'User 12']]);
  // A write to users (another row): read again.
  db.prepare("UPDATE users SET name = 'Written' WHERE id = 12").run();
  expect([name(11), names()]).toEqual(['Behind', ['Behind', 'Written']]);
  // A write to users inside a transaction that rolled back: the version is back where it was, the answers stay.
  behind("UPDATE users SET name = 'Behind 2' WHERE id = 11");
  expect(() =>
    inTransaction(db, () => {
      db.prepare("UPDATE users SET name = 'Rolled back' WHERE id = 12").run();
      expect(name(12)).toBe('Rolled back');
      throw new Error('roll back');
    }),
  ).toThrow('roll back');
  expect([name(11), names()]).toEqual(['Behind', ['Behind', 'Written']]);
  // A schema change lets every answer go.
  db.exec('CREATE INDEX users_name_test ON users (name)');
  expect([name(11), names()]).toEqual(['Behind 2', ['Behind 2', 'Written']]);
  other.close();
  db.close();
});

it('versions the tables the lists read (core/173, core/174): a write to one moves its version', () => {
  const db = openToday(join(dir, 'list-tables.db'));
  for (const table of ['issues', 'issuable_labels', 'label_counts', 'events', 'event_time_runs', 'notes', 'members']) expect(tableVersion(db, table)).toBeTypeOf('number');
  const before = tableVersion(db, 'event_time_runs')!;
  db.prepare("INSERT INTO event_time_runs (first_id, min_created_at, max_created_at) VALUES (1000, '2024-01-01', '2024-01-02')").run();
  expect(tableVersion(db, 'event_time_runs')).toBe(before + 1);
  db.close();
});

/** The tables core/187, core/188, labels/005, snippets/005, epics/017 and epics/018 version. */
const OTHER_LIST_TABLES = [
  'identities', 'emails', 'ssh_keys', 'user_statuses', 'notes_search_versions', 'jobs',
  'application_settings', 'badges', 'uploads', 'merge_request_diffs',
  'labels', 'label_priorities', 'label_subscriptions', 'label_owner_counts',
  'snippets', 'snippet_blobs', 'snippet_user_agent_details', 'project_snippet_counts', 'project_snippet_list_versions',
  'epics', 'epic_counts', 'epic_created_counts', 'epic_label_counts', 'epic_list_writes', 'epic_dates_out_of_order', 'epic_award_emoji', 'epic_label_events', 'epic_todos',
  'epic_list_versions',
];

it("versions the tables the other lists read (core/187-188, labels/005, snippets/005, epics/017-018): a statement's answers outlive other writes, and go at a write to its own", () => {
  const file = join(dir, 'other-list-tables.db');
  const db = openToday(file);
  seed(db);
  for (const table of OTHER_LIST_TABLES) expect([table, tableVersion(db, table)]).toEqual([table, expect.any(Number)]);
  // Another connection's write the first does not see (every version put back): a kept answer shows the row only when read again.
  const other = openToday(file);
  const behind = (sql: string) => {
    const versions = other.prepare('SELECT name, version FROM table_versions').all() as { name: string; version: number }[];
    other.exec(sql);
    const put = other.prepare('UPDATE table_versions SET version = ? WHERE name = ?');
    for (const v of versions) put.run(v.version, v.name);
  };
  const at = "'2024-01-01T00:00:00.000Z'";
  const cases: { table: string; read: string; first: string; second: string; write: string }[] = [
    {
      table: 'labels',
      read: 'SELECT group_concat(title) AS v FROM labels WHERE group_id = 50',
      first: `INSERT INTO labels (group_id, title, color, created_at, updated_at) VALUES (50, 'first', '#ffffff', ${at}, ${at})`,
      second: `INSERT INTO labels (group_id, title, color, created_at, updated_at) VALUES (50, 'behind', '#ffffff', ${at}, ${at})`,
      write: "UPDATE labels SET color = '#000000' WHERE title = 'first'",
    },
    {
      table: 'epics',
      read: 'SELECT group_concat(title) AS v FROM epics WHERE group_id = 50',
      first: `INSERT INTO epics (group_id, iid, title, author_id, created_at, updated_at) VALUES (50, 1, 'first', 11, ${at}, ${at})`,
      second: `INSERT INTO epics (group_id, iid, title, author_id, created_at, updated_at) VALUES (50, 2, 'behind', 11, ${at}, ${at})`,
      write: "UPDATE epics SET description = 'd' WHERE iid = 1",
    },
    {
      table: 'snippets',
      read: 'SELECT group_concat(title) AS v FROM snippets WHERE author_id = 11',
      first: `INSERT INTO snippets (author_id, title, visibility, created_at, updated_at) VALUES (11, 'first', 'public', ${at}, ${at})`,
      second: `INSERT INTO snippets (author_id, title, visibility, created_at, updated_at) VALUES (11, 'behind', 'public', ${at}, ${at})`,
      write: "UPDATE snippets SET description = 'd' WHERE title = 'first'",
    },
    {
      table: 'jobs',
      read: "SELECT group_concat(kind) AS v FROM jobs WHERE state = 'created'",
      first: `INSERT INTO jobs (kind, created_at, updated_at) VALUES ('first', ${at}, ${at})`,
      second: `INSERT INTO jobs (kind, created_at, updated_at) VALUES ('behind', ${at}, ${at})`,
      write: "UPDATE jobs SET attempts = 1 WHERE kind = 'first'",
    },
    {
      table: 'identities',
      read: 'SELECT group_concat(provider) AS v FROM identities WHERE user_id = 11',
      first: `INSERT INTO identities (user_id, provider, extern_uid, created_at) VALUES (11, 'first', 'a', ${at})`,
      second: `INSERT INTO identities (user_id, provider, extern_uid, created_at) VALUES (11, 'behind', 'b', ${at})`,
      write: "UPDATE identities SET extern_uid = 'c' WHERE provider = 'first'",
    },
    {
      table: 'epic_list_versions',
      read: "SELECT group_concat(CASE group_id WHEN 9001 THEN 'first' ELSE 'behind' END) AS v FROM epic_list_versions WHERE group_id IN (9001, 9002)",
      first: 'INSERT INTO epic_list_versions (group_id, version) VALUES (9001, 1)',
      second: 'INSERT INTO epic_list_versions (group_id, version) VALUES (9002, 1)',
      write: 'UPDATE epic_list_versions SET version = version + 1 WHERE group_id = 9001',
    },
    {
      table: 'application_settings',
      read: 'SELECT overrides AS v FROM application_settings WHERE id = 1',
      first: `INSERT INTO application_settings (id, overrides, created_at, updated_at) VALUES (1, 'first', ${at}, ${at})`,
      second: "UPDATE application_settings SET overrides = 'behind'",
      write: `UPDATE application_settings SET updated_at = ${at}`,
    },
  ];
  for (const c of cases) {
    const read = () => [c.table, (db.prepare(c.read).get() as { v: string | null }).v];
    db.exec(c.first);
    const first = read();
    expect(first[1]).toMatch(/first/);
    behind(c.second);
    // A write to another table: the answer is kept (the row written behind its back unseen).
    db.prepare("UPDATE namespaces SET name = 'renamed' WHERE id = 50").run();
    expect(read()).toEqual(first);
    // A write to its own table: read again.
    db.prepare(c.write).run();
    expect(read()).toEqual([c.table, expect.stringMatching(/behind/)]);
  }
  other.close();
  db.close();
});
