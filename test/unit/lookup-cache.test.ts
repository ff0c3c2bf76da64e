import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cachedEntity, cachedLookup, constantJson, inTransaction, jsonBody, openDatabase, readTableRows, readUnremembered, rememberedRowsHeld, unchangedEntity, unchangedPage, type Db } from '../../src/main/service/db/connection';
import { rowsByIds, sequenceLog } from '../../src/main/service/db/written-rows';
import { MeasuredText } from '../../src/main/service/http/server';
import { MEMORY_BUDGET } from '../../src/main/service/memory';

let dir: string;
let db: Db;
const open = (): Db => {
  dir = mkdtempSync(join(tmpdir(), 'sandlab-cache-'));
  db = openDatabase(join(dir, 'x.db'), [{ name: 'test/001', sql: 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)' }]);
  db.prepare('INSERT INTO t (id, v) VALUES (1, ?)').run('one');
  return db;
};
const read = (id: number) => cachedLookup(db, 't', id, () => db.prepare('SELECT * FROM t WHERE id = ?').get(id) as { v: string } | undefined);

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cached lookups', () => {
  it('serve the same frozen row until any write', () => {
    open();
    const a = read(1);
    expect(read(1)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    db.prepare('UPDATE t SET v = ? WHERE id = 1').run('uno');
    expect(read(1)?.v).toBe('uno');
  });

  it('see writes made through RETURNING statements', () => {
    open();
    expect(read(2)).toBeUndefined();
    db.prepare("INSERT INTO t (id, v) VALUES (2, 'two') RETURNING id").get();
    expect(read(2)?.v).toBe('two');
  });

  it('never keep a row read inside a transaction that rolled back', () => {
    open();
    expect(() =>
      inTransaction(db, () => {
        db.prepare("INSERT INTO t (id, v) VALUES (3, 'ghost')").run();
        expect(read(3)?.v).toBe('ghost');
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(read(3)).toBeUndefined();
  });

  it('keep each kind apart, and a numeric id apart from the same digits as text', () => {
    open();
    const one = cachedLookup(db, 'a', 1, () => ({ v: 'a1' }));
    expect(cachedLookup(db, 'b', 1, () => ({ v: 'b1' }))?.v).toBe('b1');
    expect(cachedLookup(db, 'a', '1', () => ({ v: 'a"1"' }))?.v).toBe('a"1"');
    expect(cachedLookup(db, 'a', 1, () => ({ v: 'again' }))).toBe(one);
    // An entity and a lookup of the same kind and id are separate stores.
    expect(cachedEntity(db, 'a', 1, () => ({ v: 'entity' })).v).toBe('entity');
    expect(cachedLookup(db, 'a', 1, () => ({ v: 'again' }))).toBe(one);
  });

  it('key a value by parts, each told apart by value and type at its place, until any write', () => {
    open();
    let loads = 0;
    const entity = (...parts: (number | string | boolean | null)[]) => cachedEntity(db, 'composite', parts, () => (loads++, { parts: parts.join('|') }));
    const a = entity(1, 2, 'http://x', null);
    expect(entity(1, 2, 'http://x', null)).toBe(a);
    expect(loads).toBe(1);
    // Each part counts, and so does its type: 2 is not '2', null is not false or 0, order matters.
    for (const other of [
      [1, '2', 'http://x', null],
      [1, 2, 'http://x', false],
      [1, 2, 'http://x', 0],
      [2, 1, 'http://x', null],
      [1, 2, 'http://y', null],
    ] as const) {
      const before = loads;
      expect(entity(...other)).not.toBe(a);
      expect(loads).toBe(before + 1);
    }
    // Part strings made anew (not the same objects) find the same value.
    expect(entity(1, 2, ['http:', '//x'].join(''), null)).toBe(a);
    expect(cachedLookup(db, 'pairs', [7, 8], () => ({ v: 'seven-eight' }))?.v).toBe('seven-eight');
    expect(cachedLookup(db, 'pairs', [7, 8], () => ({ v: 'again' }))?.v).toBe('seven-eight');
    db.prepare('UPDATE t SET v = ? WHERE id = 1').run('uno');
    expect(entity(1, 2, 'http://x', null)).not.toBe(a);
    expect(cachedLookup(db, 'pairs', [7, 8], () => ({ v: 'after the write' }))?.v).toBe('after the write');
  });

  it('count composite keys against the bound like ids, and let them go with the rest', () => {
    open();
    let loads = 0;
    const lookup = (id: number) => cachedLookup(db, 'parts', [id, 'x'], () => (loads++, { id }));
    for (let i = 0; i < 10_000; i++) lookup(i);
    expect(loads).toBe(10_000);
    lookup(0);
    expect(loads).toBe(10_000);
    lookup(10_000); // the 10,001st: the store starts afresh with it
    lookup(10_000);
    expect(loads).toBe(10_001);
    lookup(0);
    expect(loads).toBe(10_002);
  });

  it('let every kind go together once 10,000 values are held, and keep serving what comes after', () => {
    open();
    let loads = 0;
    const lookup = (kind: string, id: number) => cachedLookup(db, kind, id, () => (loads++, { kind, id }));
    for (let i = 0; i < 5000; i++) lookup('x', i);
    for (let i = 0; i < 5000; i++) lookup('y', i);
    expect(loads).toBe(10_000);
    lookup('x', 0);
    expect(loads).toBe(10_000);
    const late = lookup('z', 1); // the 10,001st: the store starts afresh with it
    expect(lookup('z', 1)).toBe(late);
    lookup('x', 0);
    lookup('y', 4999);
    expect(loads).toBe(10_003);
  });

  it('never serve a value its own load read before a write', () => {
    open();
    let loads = 0;
    const outer = () =>
      cachedLookup(db, 'outer', 1, () => {
        loads++;
        const inner = read(1);
        db.prepare('UPDATE t SET v = ? WHERE id = 1').run(`v${loads}`);
        return { seen: inner?.v };
      });
    expect(outer()?.seen).toBe('one');
    expect(outer()?.seen).toBe('v1');
    expect(loads).toBe(2);
  });
});

describe('whether a transaction is open', () => {
  /** Whether a read now is remembered (none is inside a transaction), and SQLite's own answer. */
  let probe = 0;
  const both = (): [boolean, boolean] => {
    const kind = `probe-${probe++}`;
    cachedLookup(db, kind, 1, () => ({}));
    let again = false;
    cachedLookup(db, kind, 1, () => ((again = true), {}));
    return [again, db.inTransaction];
  };

  it('is known without SQLite inside db.transaction functions, their variants and nested ones, and after they end', () => {
    open();
    const seen: [string, [boolean, boolean]][] = [['before', both()]];
    const inner = db.transaction(() => seen.push(['nested', both()]));
    const outer = db.transaction((tag: string) => {
      seen.push([tag, both()]);
      inner();
      seen.push([`${tag} after nested`, both()]);
    });
    outer('default');
    outer.immediate('immediate');
    outer.exclusive('exclusive');
    seen.push(['after', both()]);
    expect(() =>
      inTransaction(db, () => {
        seen.push(['rolled back', both()]);
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    seen.push(['after the rollback', both()]);
    expect(seen).toEqual([
      ['before', [false, false]],
      ['default', [true, true]],
      ['nested', [true, true]],
      ['default after nested', [true, true]],
      ['immediate', [true, true]],
      ['nested', [true, true]],
      ['immediate after nested', [true, true]],
      ['exclusive', [true, true]],
      ['nested', [true, true]],
      ['exclusive after nested', [true, true]],
      ['after', [false, false]],
      ['rolled back', [true, true]],
      ['after the rollback', [false, false]],
    ]);
    expect(() => db.transaction('not a function' as never)).toThrow(TypeError);
  });

  it('asks SQLite once SQL opened one by hand, through exec or a statement, and never keeps what was read inside', () => {
    for (const begin of [() => db.exec('BEGIN'), () => db.prepare('BEGIN IMMEDIATE').run(), () => db.prepare('SAVEPOINT by_hand').run()]) {
      open();
      expect(read(1)?.v).toBe('one');
      begin();
      expect(both()).toEqual([true, true]);
      db.prepare("INSERT INTO t (id, v) VALUES (3, 'ghost')").run();
      expect(read(3)?.v).toBe('ghost');
      expect(db.prepare('SELECT v FROM t WHERE id = ?').get(3)).toEqual({ v: 'ghost' });
      db.exec('ROLLBACK');
      expect(both()).toEqual([false, false]);
      expect(read(3)).toBeUndefined();
      expect(db.prepare('SELECT v FROM t WHERE id = ?').get(3)).toBeUndefined();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
    open();
  });
});

describe('rows read through shared statements', () => {
  it('are plain objects keyed by column, in column order, as better-sqlite3 gives them', () => {
    open();
    db.prepare("INSERT INTO t (id, v) VALUES (2, 'two')").run();
    const row = db.prepare('SELECT v, id, NULL AS "odd name", 1.5 AS "x""y" FROM t WHERE id = ?').get(1);
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(JSON.stringify(row)).toBe('{"v":"one","id":1,"odd name":null,"x\\"y":1.5}');
    expect(db.prepare('SELECT * FROM t ORDER BY id').all()).toEqual([
      { id: 1, v: 'one' },
      { id: 2, v: 'two' },
    ]);
    expect([...db.prepare('SELECT id FROM t ORDER BY id DESC').iterate()]).toEqual([{ id: 2 }, { id: 1 }]);
    expect(db.prepare('SELECT * FROM t WHERE id = ?').get(99)).toBeUndefined();
  });

  it('keep the last of two columns with one name, at the first one\'s place', () => {
    open();
    const row = db.prepare("SELECT id, v, 'later' AS id FROM t WHERE id = 1").get();
    expect(JSON.stringify(row)).toBe('{"id":"later","v":"one"}');
  });

  it('follow a table that gained a column since the statement was prepared', () => {
    open();
    const select = () => db.prepare('SELECT * FROM t WHERE id = 1').get();
    expect(select()).toEqual({ id: 1, v: 'one' });
    db.exec("ALTER TABLE t ADD COLUMN w TEXT DEFAULT 'new'");
    expect(select()).toEqual({ id: 1, v: 'one', w: 'new' });
  });

  it('come back from writes with RETURNING as objects too', () => {
    open();
    expect(db.prepare("INSERT INTO t (id, v) VALUES (5, 'five') RETURNING id, v").get()).toEqual({ id: 5, v: 'five' });
  });

  it('never let a column named __proto__ change what a row is', () => {
    open();
    const row = db.prepare('SELECT v AS __proto__, id FROM t WHERE id = 1').get() as Record<string, unknown>;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(row.id).toBe(1);
  });
});

describe('remembered reads', () => {
  /** A write from another connection: this one's remembered rows do not see it (they last until its own next write). */
  const writeElsewhere = (sql: string): void => {
    const other = new Database(join(dir, 'x.db'));
    other.exec(sql);
    other.close();
  };

  it('are remembered per list of parameter values, telling numbers, text and NULL apart at every position', () => {
    open();
    const read = (...args: unknown[]) => db.prepare('SELECT typeof(?) AS a, ? AS x, typeof(?) AS b, ? AS y, v FROM t WHERE id = 1').get(args[0], args[0], args[1], args[1]);
    const answers = [
      [1, 'a'],
      ['1', 'a'],
      [1, null],
      [null, 1],
      [null, null],
      ['a', 1],
      [1, 1],
      [1.5, ''],
    ].map((args) => [args, read(...args)] as const);
    writeElsewhere("UPDATE t SET v = 'changed elsewhere' WHERE id = 1");
    for (const [args, first] of answers) {
      expect(read(...args)).toEqual(first);
      expect(first).toMatchObject({ x: args[0], y: args[1], v: 'one' });
    }
    expect(answers.map(([, r]) => `${(r as { a: string }).a}/${(r as { b: string }).b}`)).toEqual([
      'real/text',
      'text/text',
      'real/null',
      'null/real',
      'null/null',
      'text/real',
      'real/real',
      'real/text',
    ]);
  });

  it('are remembered per named parameter values too, telling names, values and types apart', () => {
    open();
    const select = () => db.prepare('SELECT @a AS a, typeof(@a) AS ta, @b AS b, v FROM t WHERE id = 1');
    const calls = [{ a: 1, b: 2 }, { b: 2, a: 1 }, { a: 2, b: 1 }, { a: '1', b: 2 }, { a: null, b: 2 }];
    const first = calls.map((args) => select().get(args));
    expect(select().all({ a: 1, b: 2 })).toEqual([first[0]]);
    writeElsewhere("UPDATE t SET v = 'changed elsewhere' WHERE id = 1");
    // Remembered: the other connection's write is not seen until this one's next write.
    calls.forEach((args, i) => expect(select().get(args)).toEqual(first[i]));
    expect(select().all({ a: 1, b: 2 })).toEqual([first[0]]);
    expect(first.map((r) => `${(r as { a: unknown }).a}:${(r as { ta: string }).ta}:${(r as { b: unknown }).b}:${(r as { v: string }).v}`)).toEqual([
      '1:real:2:one',
      '1:real:2:one',
      '2:real:1:one',
      '1:text:2:one',
      'null:null:2:one',
    ]);
    // Anything else named (a Buffer) is read again each time.
    expect(select().get({ a: Buffer.from('x'), b: 2 })).toMatchObject({ ta: 'blob', v: 'changed elsewhere' });
    db.prepare("UPDATE t SET v = 'written here' WHERE id = 1").run();
    expect(select().get({ a: 1, b: 2 })).toMatchObject({ v: 'written here' });
  });

  it('remember long answers of one column (ids) up to their own bound, each row a tenth against the rows held', () => {
    open();
    const ids = MEMORY_BUDGET.rememberedIdRows;
    expect(MEMORY_BUDGET.rememberedListRows).toBeLessThan(500);
    expect(ids).toBeGreaterThanOrEqual(500);
    writeElsewhere(`WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i <= ${ids}) INSERT INTO t (id, v) SELECT i, 'v' || i FROM n`);
    const idsUpTo = (n: number) => db.prepare('SELECT id FROM t WHERE id <= ? ORDER BY id').all(n) as { id: number }[];
    const pairsUpTo = (n: number) => db.prepare('SELECT id, v FROM t WHERE id <= ? ORDER BY id').all(n) as { id: number }[];
    const heldBefore = rememberedRowsHeld(db);
    const lists = [idsUpTo(500), idsUpTo(ids), idsUpTo(ids + 1), pairsUpTo(500)];
    expect(lists.map((l) => l.length)).toEqual([500, ids, ids + 1, 500]);
    expect(rememberedRowsHeld(db) - heldBefore).toBe(Math.ceil(500 / 10) + 1 + Math.ceil(ids / 10) + 1);
    writeElsewhere('DELETE FROM t WHERE id > 1');
    // Remembered: the other connection's delete is not seen until this one's next write.
    expect(idsUpTo(500)).toEqual(lists[0]);
    expect(idsUpTo(ids)).toEqual(lists[1]);
    expect(idsUpTo(ids + 1)).toEqual([{ id: 1 }]);
    expect(pairsUpTo(500)).toEqual([{ id: 1, v: 'one' }]);
    db.prepare("UPDATE t SET v = 'written here' WHERE id = 1").run();
    expect(idsUpTo(500)).toEqual([{ id: 1 }]);
  });

  it('keep what is asked for while a crawl passes their bound, letting the least recently asked go, and the lookups too', () => {
    open();
    const bound = MEMORY_BUDGET.rememberedRows;
    const hot = () => db.prepare('SELECT v FROM t WHERE id = ?').get(1) as { v: string };
    const crawl = (n: number) => db.prepare('SELECT ? AS n, v FROM t WHERE id = 1').get(n) as { n: number; v: string };
    const hotLookup = read(1);
    expect(hot().v).toBe('one');
    expect(crawl(0).v).toBe('one');
    writeElsewhere("UPDATE t SET v = 'changed elsewhere' WHERE id = 1");
    // A crawl of answers never asked again, three times the bound, the hot answer asked every 100.
    let most = 0;
    for (let n = 1; n <= 3 * bound; n++) {
      crawl(n);
      if (n % 100 === 0) expect(hot().v).toBe('one');
      most = Math.max(most, rememberedRowsHeld(db));
    }
    expect(most).toBeLessThanOrEqual(bound + 1);
    // Still remembered (the other connection's write unseen), the lookup the same object.
    expect(hot().v).toBe('one');
    expect(read(1)).toBe(hotLookup);
    // The crawl's first answers went: read again, they see the write.
    expect(crawl(0).v).toBe('changed elsewhere');
    expect(crawl(1).v).toBe('changed elsewhere');
  });

  it('leave a call with the wrong number of parameters to SQLite, and keep what they remember', () => {
    open();
    const select = () => db.prepare('SELECT v, ? AS a, ? AS b FROM t WHERE id = 1');
    const first = select().get(1, 2);
    expect(select().all(1, 2)).toEqual([first]);
    writeElsewhere("UPDATE t SET v = 'changed elsewhere' WHERE id = 1");
    expect(() => select().get(1, 2, 3)).toThrow(RangeError);
    expect(() => select().get(1)).toThrow(RangeError);
    expect(() => select().all(1, 2, 3)).toThrow(RangeError);
    expect(select().get(1, 2)).toEqual(first);
    expect(select().all(1, 2)).toEqual([first]);
  });

  it('hand each caller its own copy of a remembered row, keyed and ordered as the first read', () => {
    open();
    const select = db.prepare('SELECT v, id, NULL AS "odd name" FROM t WHERE id = ?');
    const first = select.get(1) as Record<string, unknown>;
    writeElsewhere("UPDATE t SET v = 'changed elsewhere' WHERE id = 1");
    const second = select.get(1) as Record<string, unknown>;
    // Remembered: the row as first read, not SQLite's current one.
    expect(second.v).toBe('one');
    expect(second).not.toBe(first);
    expect(JSON.stringify(second)).toBe('{"v":"one","id":1,"odd name":null}');
    expect(Object.getPrototypeOf(second)).toBe(Object.prototype);
    expect(Object.isFrozen(second)).toBe(false);
    // A caller editing its row changes nobody else's.
    first.v = 'edited by the first caller';
    second.extra = true;
    expect(select.get(1)).toEqual({ v: 'one', id: 1, 'odd name': null });
    // The next write through this connection lets it go.
    db.prepare('UPDATE t SET id = id WHERE id = 1').run();
    expect((select.get(1) as Record<string, unknown>).v).toBe('changed elsewhere');
  });

  it('hand each caller its own copies of a remembered list', () => {
    open();
    db.prepare("INSERT INTO t (id, v) VALUES (2, 'two')").run();
    const list = () => db.prepare('SELECT * FROM t ORDER BY id').all() as Record<string, unknown>[];
    const first = list();
    writeElsewhere('DELETE FROM t WHERE id = 2');
    const second = list();
    expect(second).toEqual([
      { id: 1, v: 'one' },
      { id: 2, v: 'two' },
    ]);
    expect(second[0]).not.toBe(first[0]);
    first[0].v = 'edited';
    second.pop();
    expect(list()).toEqual([
      { id: 1, v: 'one' },
      { id: 2, v: 'two' },
    ]);
  });

  it('are left to a caller that keeps the rows itself (readUnremembered): read from SQLite each time, as `all` reads them, nothing held', () => {
    open();
    const sql = 'SELECT * FROM t WHERE id <= ? ORDER BY id';
    const remembered = db.prepare(sql).all(1);
    const heldBefore = rememberedRowsHeld(db);
    expect(readUnremembered(db, sql, 1)).toEqual([{ id: 1, v: 'one' }]);
    expect(rememberedRowsHeld(db)).toBe(heldBefore);
    writeElsewhere("UPDATE t SET v = 'changed elsewhere' WHERE id = 1");
    expect(readUnremembered(db, sql, 1)).toEqual([{ id: 1, v: 'changed elsewhere' }]);
    // The statement's own remembered answer is left as it was (it lasts until this connection's next write).
    expect(db.prepare(sql).all(1)).toEqual(remembered);
  });

  it('hold the rows rowsByIds reads once, by id, not as the statement\'s answer too', () => {
    open();
    db.exec('CREATE TABLE t_log (seq INTEGER PRIMARY KEY, row_id INTEGER)');
    db.prepare("WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 40) INSERT INTO t (id, v) SELECT i, 'v' || i FROM n").run();
    const log = sequenceLog('t', 't_log', 'row_id');
    const ids = Array.from({ length: 20 }, (_, i) => 40 - i);
    const heldBefore = rememberedRowsHeld(db);
    const rows = rowsByIds<{ id: number; v: string }>(db, log, ids);
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows[0]).toEqual({ id: 40, v: 'v40' });
    // The log's last entry (one row) alone: the 20 rows are kept by id.
    expect(rememberedRowsHeld(db) - heldBefore).toBe(1);
    expect(rowsByIds(db, log, ids)).toEqual(rows);
  });

  it('read the rows rowsByIds reads as one JSON text (readTableRows), not value by value', () => {
    open();
    db.exec('CREATE TABLE t_log (seq INTEGER PRIMARY KEY, row_id INTEGER)');
    db.prepare("WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 40) INSERT INTO t (id, v) SELECT i, 'v' || i FROM n").run();
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as Db['prepare'];
    const ids = Array.from({ length: 20 }, (_, i) => 40 - i);
    expect(rowsByIds<{ id: number; v: string }>(db, sequenceLog('t', 't_log', 'row_id'), ids).map((r) => [r.id, r.v])).toEqual(ids.map((id) => [id, `v${id}`]));
    expect(prepared.filter((sql) => sql.startsWith('SELECT json_group_array(json_array("id", "v")) AS page FROM t WHERE id IN'))).toHaveLength(1);
    expect(prepared.filter((sql) => sql.startsWith('SELECT * FROM t WHERE'))).toEqual([]);
  });

  it('read through JSON (readTableRows) the values and keys SELECT * reads, columns added later and BLOBs included', () => {
    open();
    db.exec('CREATE TABLE v (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, "odd ""name""" ANY)');
    const insert = db.prepare('INSERT INTO v (id, i, r, s, "odd ""name""") VALUES (?, ?, ?, ?, ?)');
    insert.run(1, 2 ** 53 + 1, 0.1 + 0.2, 'quote " backslash \\ newline \n nul \u0000 line sep \u2028 astral 😀 é', null);
    insert.run(2, -(2 ** 62), 1e300 * 1e10, '', 7.5);
    insert.run(3, null, 2e-7, '{"looks": ["like", "json"]}', 'text');
    insert.run(4, 0, -123456.789012345, '   ', 1234567890123456789n);
    const plain = () => db.prepare('SELECT * FROM v WHERE id > ? ORDER BY id').all(0);
    const byId = (rows: Record<string, unknown>[]) => [...rows].sort((a, b) => (a.id as number) - (b.id as number));
    const read = () => byId(readTableRows<Record<string, unknown>>(db, 'v', 'id > ?', 0));
    expect(read()).toStrictEqual(plain());
    expect(Object.keys(read()[0])).toEqual(['id', 'i', 'r', 's', 'odd "name"']);
    // A column added after a read: the next read has it.
    db.exec("ALTER TABLE v ADD COLUMN later TEXT DEFAULT 'added'");
    expect(read()).toStrictEqual(plain());
    expect(read()[0].later).toBe('added');
    // JSON cannot hold a BLOB: such rows read the plain way.
    insert.run(5, 1, 1, 'blob next', Buffer.from([0, 255]));
    expect(read()).toStrictEqual(plain());
    expect(read()[4]['odd "name"']).toEqual(Buffer.from([0, 255]));
    // A column another connection drops (this one counts no schema change): read the plain way, then by the columns left.
    db.prepare('DELETE FROM v WHERE id = 5').run();
    expect(read()).toHaveLength(4);
    writeElsewhere('ALTER TABLE v DROP COLUMN later');
    expect(read()).toStrictEqual(plain());
    expect(Object.keys(read()[0])).toEqual(['id', 'i', 'r', 's', 'odd "name"']);
  });

  it('copy rows with a column named __proto__ too', () => {
    open();
    const select = db.prepare('SELECT v AS __proto__, id FROM t WHERE id = ?');
    const first = select.get(1) as Record<string, unknown>;
    first.id = 42;
    const second = select.get(1) as Record<string, unknown>;
    expect(second).not.toBe(first);
    expect(second.id).toBe(1);
    expect(Object.getPrototypeOf(second)).toBe(Object.prototype);
  });
});

/** The text of an answer jsonBody gives as text; a measured one's length in bytes checked too (Reply.send sends that many). */
function textOf(body: string | Buffer | MeasuredText): string {
  if (typeof body === 'string') return body;
  expect(body).toBeInstanceOf(MeasuredText);
  const { text, bytes } = body as MeasuredText;
  expect(bytes).toBe(Buffer.byteLength(text));
  return text;
}

describe('constant answer bodies', () => {
  it('serialize as JSON.stringify does, once, and cannot be changed', () => {
    const body = constantJson({ error: '404 Not Found', detail: ['é', 1, null] });
    expect(textOf(jsonBody(body))).toBe('{"error":"404 Not Found","detail":["é",1,null]}');
    expect(jsonBody(body)).toBe(jsonBody(body));
    expect(Object.isFrozen(body)).toBe(true);
    // A list holding one is joined like any remembered entity's.
    expect(textOf(jsonBody([body, body]))).toBe(JSON.stringify([body, body]));
  });
});

describe('the shared statements', () => {
  it('keep a statement in use while thousands of one-off statements come and go', () => {
    open();
    const hot = db.prepare('SELECT v FROM t WHERE id = ?');
    for (let i = 0; i < 3000; i++) {
      db.prepare(`SELECT ${i} AS n FROM t`);
      if (i % 50 === 0) expect(db.prepare('SELECT v FROM t WHERE id = ?')).toBe(hot);
    }
    expect(db.prepare('SELECT v FROM t WHERE id = ?')).toBe(hot);
    expect(db.prepare('SELECT v FROM t WHERE id = ?').get(1)).toEqual({ v: 'one' });
    // A one-off statement met again after the churn is prepared anew and still answers.
    expect(db.prepare('SELECT 5 AS n FROM t').get()).toEqual({ n: 5 });
  });
});

describe('long lists of remembered entities', () => {
  it('are the bytes of their JSON text encoded as UTF-8, ASCII or not, and stay text when short', () => {
    open();
    for (const title of ['plain', 'é and 😀 and \u2028', '"quoted"\n']) {
      const list = Array.from({ length: 1000 }, (_, i) => cachedEntity(db, 'long', `${title}:${i}`, () => ({ id: i, title: i === 500 ? title : `t${i}`, nested: { n: null } })));
      const body = jsonBody(list);
      expect(Buffer.isBuffer(body)).toBe(true);
      expect((body as Buffer).equals(Buffer.from(JSON.stringify(list)))).toBe(true);
      // Asked again (the texts remembered), the same bytes.
      expect((jsonBody(list) as Buffer).equals(body as Buffer)).toBe(true);
      expect(textOf(jsonBody(list.slice(0, 3)))).toBe(JSON.stringify(list.slice(0, 3)));
    }
  });

  it('are made as one text when none of their entities was sent before, each entity getting its own text once sent again', () => {
    open();
    const made = (key: string, title: string) => cachedEntity(db, 'first-sent', key, () => ({ title, padding: 'é'.repeat(200) }));
    const list = Array.from({ length: 100 }, (_, i) => made(`${i}`, `t${i}`));
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      // A page read for the first time: one text for the list, none kept for its entities.
      const body = jsonBody(list) as Buffer;
      expect(stringify.mock.calls.map(([v]) => v)).toEqual([list]);
      expect(body.equals(Buffer.from(JSON.stringify(list)))).toBe(true);
      // Another list of the same entities (a page moved along by one): each entity's text made, then kept.
      stringify.mockClear();
      const moved = [made('new', 'new'), ...list.slice(0, 99)];
      expect((jsonBody(moved) as Buffer).equals(Buffer.from(JSON.stringify(moved)))).toBe(true);
      expect(stringify.mock.calls.length).toBe(100 + 1);
      stringify.mockClear();
      const again = [...moved].reverse();
      expect((jsonBody(again) as Buffer).equals(Buffer.from(JSON.stringify(again)))).toBe(true);
      expect(textOf(jsonBody(list[0]))).toBe(JSON.stringify(list[0]));
      // Only the two checks above stringified anything: every text was kept.
      expect(stringify.mock.calls.length).toBe(2);
      // Short lists too.
      stringify.mockClear();
      const short = [made('a', 'a'), made('b', 'b')];
      expect(textOf(jsonBody(short))).toBe('[' + short.map((e) => JSON.stringify(e)).join(',') + ']');
      expect(stringify.mock.calls.map(([v]) => v)).toEqual([short, short[0], short[1]]);
    } finally {
      stringify.mockRestore();
    }
  });

  it('send the same entities in the same order as the same bytes, and any other list as its own', () => {
    open();
    const made = (key: string, title: string) => cachedEntity(db, 'long-again', key, () => ({ title, padding: 'x'.repeat(200) }));
    const list = Array.from({ length: 100 }, (_, i) => made(`${i}`, `t${i}`));
    const body = jsonBody(list) as Buffer;
    // The same entities (a page whose records read as before): the bytes made last time.
    expect(jsonBody([...list])).toBe(body);
    // The same first entity, another one further on, fewer, or more: each its own bytes.
    const replaced = [...list];
    replaced[50] = made('other', 'é other');
    const variants = [replaced, list.slice(0, 99), [...list, made('more', 'more')], [...list].reverse()];
    for (const other of variants) expect((jsonBody(other) as Buffer).equals(Buffer.from(JSON.stringify(other)))).toBe(true);
    // A list edited after it was sent is not mistaken for the one sent.
    const edited = [...list];
    const sent = jsonBody(edited) as Buffer;
    edited[99] = made('edited', 'edited');
    expect((jsonBody(edited) as Buffer).equals(Buffer.from(JSON.stringify(edited)))).toBe(true);
    expect(sent.equals(Buffer.from(JSON.stringify(list)))).toBe(true);
  });
});

describe('entities built again only when their inputs change', () => {
  let builds = 0;
  const entity = (key: string, inputs: unknown, row: Record<string, unknown> | null = null) => unchangedEntity(db, 'test', key, row, inputs, () => ({ built: ++builds, inputs }));

  it('hands out the same entity, and its text, for inputs that read the same, across writes', () => {
    open();
    const a = entity('k', [{ id: 1, name: 'x', nested: { list: [1, 2] } }, 3]);
    const text = jsonBody(a);
    db.prepare('UPDATE t SET v = ? WHERE id = 1').run('uno');
    const b = entity('k', [{ id: 1, name: 'x', nested: { list: [1, 2] } }, 3]);
    expect(b).toBe(a);
    expect(Object.isFrozen(b)).toBe(true);
    // Handed out through cachedEntity after the write, it keeps the text it had.
    expect(cachedEntity(db, 'test', 'k', () => entity('k', [{ id: 1, name: 'x', nested: { list: [1, 2] } }, 3]))).toBe(a);
    expect(jsonBody(a)).toBe(text);
    expect(entity('other', [{ id: 1, name: 'x', nested: { list: [1, 2] } }, 3])).not.toBe(a);
  });

  it('builds again when any value, key, key order or length differs', () => {
    open();
    const base = { id: 1, name: 'x', nested: { list: [1, 2] as unknown[] }, none: null as unknown };
    let last = entity('k', base);
    for (const changed of [
      { ...base, name: 'y' },
      { ...base, nested: { list: [1, 3] } },
      { ...base, nested: { list: [1, 3, 4] } },
      { ...base, none: undefined },
      { ...base, none: 0 },
      { ...base, extra: 1 },
      { name: 'x', id: 1, nested: { list: [1, 3, 4] }, none: 0, extra: 1 },
      { id: 1, name: 'x', nested: { list: [1, 3, 4] }, extra: 1, none: 0 },
    ]) {
      const next = entity('k', changed);
      expect(next).not.toBe(last);
      expect(entity('k', structuredClone(changed))).toBe(next);
      last = next;
    }
  });

  it("compares the record's row field by field, in any order", () => {
    open();
    const row = { id: 1, title: 't', n: null as unknown, blob: [1] as unknown };
    let last = entity('k', [], row);
    expect(entity('k', [], { n: null, title: 't', blob: [1], id: 1 })).toBe(last);
    for (const changed of [
      { ...row, title: 'u' },
      { ...row, n: 0 },
      { ...row, blob: [2] },
      { id: 1, title: 'u', blob: [2] },
      { id: 1, title: 'u', blob: [2], other: undefined },
      { id: 1, title: 'u', blob: [2], another: undefined },
      { id: 1, title: 'u', blob: [2], other: 1, more: 2 },
    ]) {
      const next = entity('k', [], changed);
      expect(next).not.toBe(last);
      expect(entity('k', [], { ...changed })).toBe(next);
      last = next;
    }
    expect(entity('k', [], null)).not.toBe(last);
  });

  it('keeps nothing built inside a transaction', () => {
    open();
    const a = inTransaction(db, () => entity('k', [1]));
    expect(entity('k', [1])).not.toBe(a);
  });

  it('keeps a bounded number per kind, the oldest going first', () => {
    open();
    const first = entity('first', [1]);
    for (let i = 0; i < 1000; i++) entity(`k${i}`, [i]);
    expect(entity('first', [1])).not.toBe(first);
  });
});

describe('pages built again only when a row or their inputs change', () => {
  let builds = 0;
  let checks = 0;
  /** A page of `rows` whose inputs read `inputs()` now: its entities name the build that made them. */
  const page = (rows: object[], inputs: () => number = () => 0, key = 'k') =>
    unchangedPage(
      db,
      'test-page',
      key,
      rows,
      (then: number) => (checks++, then === inputs()),
      () => {
        const built = ++builds;
        return { entities: rows.map((_, i) => ({ built, i })), inputs: inputs() };
      },
    );
  const write = () => db.prepare('UPDATE t SET v = ? WHERE id = 1').run(`v${builds}`);
  const rows = (n: number) => Array.from({ length: n }, (_, id) => Object.freeze({ id }));

  it('hands out the same entities (in an array of its own) for the same frozen rows, checking the inputs once after each write', () => {
    open();
    const r = rows(3);
    const a = page(r);
    checks = 0;
    const b = page([...r]);
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
    b.forEach((e, i) => expect(e).toBe(a[i]));
    expect(checks).toBe(0);
    write();
    expect(page(r)[0]).toBe(a[0]);
    expect(page(r)[0]).toBe(a[0]);
    expect(checks).toBe(1);
    let now = 0;
    write();
    now = 1;
    expect(page(r, () => now)[0]).not.toBe(a[0]);
  });

  it('tells pages apart by every row (compared by identity), their length and the key', () => {
    open();
    const r = rows(3);
    const a = page(r);
    const others = [[r[0], r[1]], [r[0], r[2], r[1]], [r[0], r[1], Object.freeze({ id: 2 })], [...r, Object.freeze({ id: 3 })]];
    const built = others.map((other) => {
      const b = page(other);
      expect(b[0]).not.toBe(a[0]);
      expect(page(other)[0]).toBe(b[0]);
      return b;
    });
    // Pages that start with the same row are kept side by side, four of them.
    others.forEach((other, i) => expect(page(other)[0]).toBe(built[i][0]));
    expect(page(r)[0]).not.toBe(a[0]);
    expect(page(r, () => 0, 'other viewer')[0]).not.toBe(page(r)[0]);
  });

  it('keeps no page of rows that may change (not frozen), and none built inside a transaction', () => {
    open();
    const open_ = [{ id: 1 }, { id: 2 }];
    expect(page(open_)[0]).not.toBe(page(open_)[0]);
    const r = rows(2);
    const a = inTransaction(db, () => page(r));
    expect(page(r)[0]).not.toBe(a[0]);
  });

  it("keeps a fresh page's entities in the page alone, and those of a page built again one by one too", () => {
    open();
    let built = 0;
    /** A page whose entities go through unchangedEntity (kind 'test', the page's 'test-page'), current while `now` holds. */
    const entityPage = (rows: object[], now: number) =>
      unchangedPage(
        db,
        'test-page',
        'k',
        rows,
        (then: number) => then === now,
        () => ({ entities: rows.map((r) => unchangedEntity(db, 'test', String((r as { id: number }).id), r as Record<string, unknown>, null, () => ({ built: ++built }))), inputs: now }),
      );
    const r = rows(3);
    const a = entityPage(r, 0);
    // Read once (pages in turn), its entities were kept by the page only: built again with it.
    write();
    const b = entityPage(r, 1);
    b.forEach((e, i) => expect(e).not.toBe(a[i]));
    // Built again, the page kept them one by one: the next build hands them out.
    write();
    const c = entityPage(r, 2);
    c.forEach((e, i) => expect(e).toBe(b[i]));
    // A page that ends as a kept page did (its first row written) is no fresh page: its new first entity kept.
    write();
    const d = entityPage([Object.freeze({ id: 7 }), r[1], r[2]], 3);
    expect(d[1]).toBe(b[1]);
    write();
    expect(entityPage([Object.freeze({ id: 7 }), r[1], r[2]], 4)[0]).toBe(d[0]);
    // Nor one whose second row starts a kept page (moved along by one row).
    write();
    const f = entityPage([Object.freeze({ id: 9 }), r[0], r[1]], 5);
    write();
    expect(entityPage([Object.freeze({ id: 9 }), r[0], r[1]], 6)[0]).toBe(f[0]);
    // Nor one whose first row is a kept page's second (moved back by one row).
    write();
    const h = entityPage([r[1], r[2], Object.freeze({ id: 11 })], 7);
    write();
    expect(entityPage([r[1], r[2], Object.freeze({ id: 11 })], 8)[2]).toBe(h[2]);
  });

  it("sends a fresh page's entities as one text kept nowhere; handed out again, they are kept as bytes", () => {
    open();
    const long = 'x'.repeat(2_000);
    /** A page of entities long enough to go out as bytes once kept (jsonBody), built through unchangedEntity; moved along by one row builds that row alone. */
    const entityPage = (rows: object[]) =>
      unchangedPage(
        db,
        'test-page',
        'k',
        rows,
        () => true,
        () => ({ entities: rows.map((r) => unchangedEntity(db, 'test', String((r as { id: number }).id), r as Record<string, unknown>, null, () => ({ r, long }))), inputs: 0 }),
        (kept, pageRows, added) => {
          const entities = [...kept.entities];
          const r = pageRows[added] as { id: number };
          entities.splice(added, 0, unchangedEntity(db, 'test', String(r.id), r as Record<string, unknown>, null, () => ({ r, long })));
          return { entities, inputs: 0 };
        },
      );
    const r = rows(10);
    const a = entityPage(r);
    const text = jsonBody(a);
    expect(typeof text).toBe('string');
    expect(text).toBe(JSON.stringify(a));
    // Read again: its entities are listed, and the page's bytes kept for the next time.
    const bytes = jsonBody(entityPage(r));
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect((bytes as Buffer).toString()).toBe(text);
    expect(jsonBody(entityPage(r))).toBe(bytes);
    // A page moved along by one row from a fresh page lists the entities it keeps.
    const s = rows(11);
    entityPage(s.slice(1));
    const moved = entityPage(s.slice(0, 10));
    expect(Buffer.isBuffer(jsonBody(moved))).toBe(true);
    expect(jsonBody(moved).toString()).toBe(JSON.stringify(moved));
  });

  it('keeps pages of a kind up to 1,000 entities, the oldest going first', () => {
    open();
    const first = rows(100);
    const a = page(first);
    for (let i = 0; i < 9; i++) page(rows(100));
    expect(page(first)[0]).toBe(a[0]);
    page(rows(100));
    page(rows(100));
    expect(page(first)[0]).not.toBe(a[0]);
  });
});
