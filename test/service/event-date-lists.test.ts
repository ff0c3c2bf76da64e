import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { expectCounted, expectEveryPage, expectUncounted, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { TestService } from '../helpers/service';
import { EVENT_RUNS, EVENT_SPLIT } from '../../src/main/service/areas/events/events';

/**
 * Events by date (`before`, `after`): events' ids follow their created_at, so a date is an id
 * range (core/058 keeps the events that break that order, and a date they would cross is filtered
 * by created_at as before). Pinned: every page's rows, order, X-Total and paging headers and Link
 * of every events list with the date filters (a project's, a user's, one's own, every project's),
 * against a fresh query of the table by created_at, for an administrator and a member, before and
 * after writes that set the clock back, move an event's date and delete events.
 */
// Hundreds of requests a test: 9-17 s on a machine loaded ~16. Past the default 20 s a test goes
// on in the background while the next one runs, and its writes change the next one's events.
const SLOW = 120_000;

let s: TestService;
let mine: number;
let other: number;
let member: { id: number; token: string };

const db = () => s.service.context.db;
const insert = (projectId: number | null, authorId: number, createdAt: string, action = 'created'): number =>
  Number(
    db()
      .prepare(`INSERT INTO events (project_id, author_id, action, target_type, created_at) VALUES (?, ?, ?, NULL, ?)`)
      .run(projectId, authorId, action, createdAt).lastInsertRowid,
  );
// Days after the events the service writes itself (at the real time) while the test sets up.
const day = (d: number): string => `2030-01-${String(d).padStart(2, '0')}`;

/** The rows a list must answer: the table by created_at, newest first (NOT INDEXED: no split involved). */
const ids = (where: string, args: unknown[], q: Record<string, string>): number[] => {
  const cond = [where];
  const all = [...args];
  if (q.before) {
    cond.push('e.created_at < ?');
    all.push(`${q.before}T00:00:00.000Z`);
  }
  if (q.after) {
    const next = new Date(`${q.after}T00:00:00.000Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    cond.push('e.created_at >= ?');
    all.push(next.toISOString());
  }
  if (q.action) {
    cond.push('e.action = ?');
    all.push(q.action);
  }
  return (
    db()
      .prepare(`SELECT e.id FROM events e NOT INDEXED JOIN projects p ON p.id = e.project_id WHERE ${cond.join(' AND ')} ORDER BY e.id DESC`)
      .all(...all) as { id: number }[]
  ).map((r) => r.id);
};

const DATES: Record<string, string>[] = [
  {},
  { before: day(5) },
  { after: day(3) },
  { after: day(2), before: day(7) },
  { before: day(1) },
  { after: day(9) },
  { after: '2029-12-01' },
  { before: day(4), action: 'closed' },
];

async function expectEveryList(): Promise<void> {
  for (const q of DATES) {
    for (const [sort, perPage] of [['desc', 4], ['asc', 5]] as const) {
      const order = (want: number[]): number[] => (sort === 'asc' ? [...want].reverse() : want);
      const query = { ...q, sort };
      await expectEveryPage(s, `/projects/${mine}/events`, query, order(ids('e.project_id = ?', [mine], q)), perPage);
      await expectEveryPage(s, `/projects/${other}/events`, query, order(ids('e.project_id = ?', [other], q)), perPage);
      await expectEveryPage(s, `/projects/${mine}/events`, query, order(ids('e.project_id = ?', [mine], q)), perPage, member.token);
      await expectEveryPage(s, `/users/${member.id}/events`, query, order(ids('e.author_id = ?', [member.id], q)), perPage);
      // Their own events in the projects they can see (not `other`, private to them).
      await expectEveryPage(s, '/events', query, order(ids('e.author_id = ? AND e.project_id = ?', [member.id, mine], q)), perPage, member.token);
      await expectEveryPage(s, '/events', { ...query, scope: 'all' }, order(ids('1 = 1', [], q)), perPage);
      await expectEveryPage(s, '/events', { ...query, scope: 'all' }, order(ids('e.project_id = ?', [mine], q)), perPage, member.token);
    }
  }
}

const readsOf = async (path: string, query: Record<string, string>): Promise<string[]> =>
  (await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '2' } })))).map((r) => r.sql);

beforeAll(async () => {
  s = await TestService.start();
  mine = (await s.createProject({ name: 'mine', visibility: 'private' })).id;
  other = (await s.createProject({ name: 'other', visibility: 'private' })).id;
  const u = await s.createUser();
  member = { id: u.user.id, token: u.token };
  await s.addMember('projects', mine, member.id, 30);
  // Eight days, a few events an hour apart on each, in both projects and outside any, by two authors.
  db().transaction(() => {
    for (let d = 2; d <= 8; d++) {
      for (const h of ['03', '11', '19']) {
        const at = `${day(d)}T${h}:00:00.000Z`;
        insert(mine, member.id, at, h === '11' ? 'closed' : 'created');
        insert(other, 1, at);
        insert(null, member.id, at);
        insert(other, member.id, at, 'closed');
      }
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

describe('event lists by date', () => {
  it('every list, every page, in order, with its headers, as the table says by created_at', async () => {
    expect(db().prepare('SELECT count(*) AS n FROM event_time_exceptions').get()).toEqual({ n: 0 });
    await expectEveryList();
  }, SLOW);

  it("a date reads as an id range from the list index; a date an out-of-order event would cross reads core/179's runs", async () => {
    for (const sql of await readsOf(`/projects/${mine}/events`, { before: day(5), after: day(2) })) {
      expect(sql).toContain('e.id < ?');
      expect(sql).toContain('e.id >= ?');
      expect(sql).not.toContain('created_at');
      const plan = queryPlan(db(), sql, mine, 1, 2, 0);
      expect(plan).toContain('USING INDEX events_project (project_id=? AND id>? AND id<?)');
      expect(plan).not.toContain('TEMP B-TREE');
    }
    const planOf = (sql: string): string => queryPlan(db(), sql, ...Array.from({ length: sql.split('?').length - 1 }, () => 1));
    for (const sql of await readsOf(`/users/${member.id}/events`, { before: day(5) })) {
      expect(planOf(sql)).toContain('USING INDEX events_author_in_projects (author_id=? AND id<?)');
    }
    for (const sql of await readsOf('/events', { scope: 'all', after: day(5) })) expect(planOf(sql)).toContain('USING INDEX events_in_projects (id>?)');
    // core/059: a user's events in projects only, not their events outside any (a page walked those and dropped them).
    for (const sql of await readsOf(`/users/${member.id}/events`, {})) expect(planOf(sql)).toContain('USING INDEX events_author_in_projects (author_id=?)');
    // The clock set back: an event of day 3 written last. A date before it is crossed; after it, not.
    insert(mine, member.id, `${day(3)}T12:00:00.000Z`);
    expect(db().prepare('SELECT count(*) AS n FROM event_time_exceptions').get()).toEqual({ n: 1 });
    for (const sql of await readsOf(`/projects/${mine}/events`, { before: day(5) })) {
      // The first run to its split, and the late event's run (open at the ids' ends: no bound there).
      expect(sql).toContain('(e.id < ? OR e.id >= ?)');
      expect(sql).not.toContain('created_at');
    }
    for (const sql of await readsOf(`/projects/${mine}/events`, { before: day(3) })) expect(sql).toContain('e.id < ?');
    // Past EVENT_RUNS (the runs, or the ranges a date makes of them), by created_at.
    const runs = EVENT_RUNS.runs;
    EVENT_RUNS.runs = 1;
    try {
      for (const sql of await readsOf(`/projects/${mine}/events`, { before: day(5) })) expect(sql).toContain('e.created_at < ?');
    } finally {
      EVENT_RUNS.runs = runs;
    }
    // An author's events of one target type between two dates: their own entries (core/170), as with a split.
    const range = (await readsOf(`/users/${member.id}/events`, { before: day(5), after: day(2), target_type: 'issue' })).filter((sql) => sql.includes('BETWEEN'));
    expect(range.length).toBeGreaterThan(0);
    for (const sql of range) expect(planOf(sql)).toContain('USING INDEX events_author_target (author_id=? AND target_type=? AND id>');
  });

  it('the same answers after writes that break the order: the clock set back, a date moved, events deleted', async () => {
    insert(mine, member.id, `${day(2)}T20:00:00.000Z`);
    insert(null, member.id, `${day(6)}T01:00:00.000Z`);
    insert(other, member.id, `${day(9)}T01:00:00.000Z`);
    insert(mine, member.id, `${day(9)}T02:00:00.000Z`);
    insert(other, 1, `${day(7)}T00:00:00.000Z`);
    await expectEveryList();
    db().prepare('UPDATE events SET created_at = ? WHERE id = (SELECT min(id) FROM events WHERE project_id = ?)').run(`${day(8)}T23:00:00.000Z`, mine);
    db().prepare('UPDATE events SET created_at = ? WHERE id = (SELECT max(id) FROM events WHERE project_id = ?)').run(`${day(4)}T05:00:00.000Z`, other);
    db().prepare("DELETE FROM events WHERE id IN (SELECT id FROM events WHERE project_id = ? AND created_at LIKE '2030-01-05%')").run(mine);
    await expectEveryList();
    // Deleted exceptions leave core/058's list with the events.
    db().prepare('DELETE FROM events WHERE id = (SELECT max(id) FROM event_time_exceptions)').run();
    expect(db().prepare('SELECT count(*) AS n FROM event_time_exceptions WHERE id NOT IN (SELECT id FROM events)').get()).toEqual({ n: 0 });
    await expectEveryList();
  }, SLOW);
});

describe('event lists by date with many out-of-order events', () => {
  it('past EVENT_SPLIT.exceptions a date reads by created_at without searching for its split, with the same answers', async () => {
    const exceptions = (db().prepare('SELECT count(*) AS n FROM event_time_exceptions').get() as { n: number }).n;
    expect(exceptions).toBeGreaterThan(1);
    // A date no exception crosses: read as an id range while the exceptions are few.
    const uncrossed = { before: '2031-01-01' };
    expect((await readsOf(`/projects/${mine}/events`, uncrossed)).join('\n')).toContain('e.id < ?');
    const saved = EVENT_SPLIT.exceptions;
    const runs = EVENT_RUNS.runs;
    EVENT_SPLIT.exceptions = exceptions - 1;
    // Past core/179's runs too (below, the runs).
    EVENT_RUNS.runs = 0;
    try {
      expect((await readsOf(`/projects/${mine}/events`, uncrossed)).join('\n')).toContain('e.created_at < ?');
      // Not one probe of the search.
      const prepared = await preparedBy(s, async () => void (await s.get(`/projects/${mine}/events`, { query: uncrossed })));
      expect(prepared.filter((sql) => sql.includes('NOT IN (SELECT id FROM event_time_exceptions)'))).toEqual([]);
      await expectEveryList();
    } finally {
      EVENT_SPLIT.exceptions = saved;
      EVENT_RUNS.runs = runs;
    }
  }, SLOW);

  it("past EVENT_SPLIT.exceptions a date is one split per run of core/179, with the same answers; the runs follow every write", async () => {
    const saved = EVENT_SPLIT.exceptions;
    EVENT_SPLIT.exceptions = 0;
    try {
      expectRunsInOrder();
      // The clock set back twice: three runs, each in order; a date splits each once.
      insert(mine, member.id, `${day(4)}T06:00:00.000Z`);
      insert(other, member.id, `${day(5)}T06:00:00.000Z`);
      insert(mine, 1, `${day(1)}T06:00:00.000Z`);
      insert(mine, member.id, `${day(3)}T07:00:00.000Z`);
      expectRunsInOrder();
      const probes = (sqls: string[]): string[] => sqls.filter((sql) => sql.includes('event_time_exceptions'));
      for (const q of [{ before: day(5) }, { after: day(3) }, { after: day(2), before: day(7) }] as Record<string, string>[]) {
        const prepared = await preparedBy(s, async () => void (await s.get(`/projects/${mine}/events`, { query: q })));
        const list = prepared.filter((sql) => sql.includes('FROM events e')).join('\n');
        expect(list, JSON.stringify(q)).toContain('e.id BETWEEN ? AND ?');
        // Days in several runs: their ranges, each checked within the hull.
        if (q.after && q.before) expect(list).toContain(' OR e.id BETWEEN ? AND ?');
        expect(list, JSON.stringify(q)).not.toContain('created_at');
        // Only the exceptions' count: no split searched among them.
        expect(probes(prepared).every((sql) => sql.includes('LIMIT ?)')), JSON.stringify(q)).toBe(true);
      }
      await expectEveryList();
      // An event inserted below the last id, dates moved, events deleted: the runs stay in order.
      const low = (db().prepare('SELECT min(id) + 1 AS id FROM events WHERE project_id = ?').get(mine) as { id: number }).id;
      db().prepare('DELETE FROM events WHERE id = ?').run(low);
      db().prepare("INSERT INTO events (id, project_id, author_id, action, created_at) VALUES (?, ?, ?, 'created', ?)").run(low, mine, member.id, `${day(9)}T00:00:00.000Z`);
      db().prepare('UPDATE events SET created_at = ? WHERE id = (SELECT max(id) FROM events WHERE project_id = ? AND created_at < ?)').run(`${day(1)}T01:00:00.000Z`, mine, day(4));
      db().prepare('UPDATE events SET created_at = ? WHERE id = (SELECT min(id) FROM events WHERE project_id = ? AND created_at > ?)').run(`${day(8)}T22:00:00.000Z`, other, day(6));
      db().prepare("DELETE FROM events WHERE id IN (SELECT id FROM events WHERE project_id = ? AND created_at LIKE '2030-01-06%')").run(mine);
      insert(other, member.id, `${day(9)}T05:00:00.000Z`);
      insert(mine, member.id, `${day(9)}T06:00:00.000Z`);
      insert(mine, member.id, `${day(2)}T06:00:00.000Z`);
      expectRunsInOrder();
      await expectEveryList();
      // Open at either end of the ids: no bound there, so a list's SQL and arguments (its deep-page
      // anchors' key) stay while events are added.
      const openReads = async (): Promise<unknown[]> =>
        (await pagedReads(s, async () => void (await s.get(`/projects/${mine}/events`, { query: { after: '2000-01-01', per_page: '2', page: '3' } })))).map((r) => [r.sql, r.args]);
      const open = await openReads();
      expect(open.length).toBeGreaterThan(0);
      // Added to this project's list: its page, kept at the list's version (rowsAtVersion), is read again.
      insert(mine, 1, `${day(9)}T23:00:00.000Z`);
      expect(await openReads()).toEqual(open);
      // Past EVENT_RUNS.ranges a date reads by created_at.
      const ranges = EVENT_RUNS.ranges;
      EVENT_RUNS.ranges = 0;
      try {
        expect((await readsOf(`/projects/${mine}/events`, { before: day(5) })).join('\n')).toContain('e.created_at < ?');
      } finally {
        EVENT_RUNS.ranges = ranges;
      }
    } finally {
      EVENT_SPLIT.exceptions = saved;
    }
  }, SLOW);
});

/** core/179's runs: every event in the last run starting at or below its id, created_at never down within a run, within the run's bounds. */
function expectRunsInOrder(): void {
  const broken = db()
    .prepare(
      `SELECT id, created_at, run, prev, lo, hi FROM (
         SELECT e.id, e.created_at, r.first_id AS run, r.min_created_at AS lo, r.max_created_at AS hi,
           lag(e.created_at) OVER (PARTITION BY r.first_id ORDER BY e.id) AS prev
         FROM events e LEFT JOIN event_time_runs r ON r.first_id = (SELECT max(first_id) FROM event_time_runs WHERE first_id <= e.id)
       ) WHERE run IS NULL OR created_at < prev OR created_at < lo OR created_at > hi`,
    )
    .all();
  expect(broken).toEqual([]);
}

describe('event lists by dates no time meets', () => {
  it('after the day before `before` or later: empty, with its headers, read as WHERE 0', async () => {
    for (const q of [{ after: day(5), before: day(5) }, { after: day(4), before: day(5) }, { after: day(7), before: day(3) }]) {
      for (const [path, query] of [
        [`/projects/${mine}/events`, q],
        [`/users/${member.id}/events`, q],
        ['/events', { ...q, scope: 'all' }],
      ] as [string, Record<string, string>][]) {
        await expectEveryPage(s, path, query, [], 20);
        // A page read `WHERE ... AND 0`, which SQLite answers without a row.
        for (const sql of await readsOf(path, query)) expect(sql, `${path} ${JSON.stringify(query)}`).toMatch(/ AND 0 /);
      }
    }
    // The day between them: its events.
    const q = { after: day(4), before: day(6) };
    await expectEveryPage(s, `/projects/${mine}/events`, q, ids('e.project_id = ?', [mine], q), 3);
  });
});

describe('event lists by date past 10,000', () => {
  it('counted from the counters less the events outside the dates, when those are fewer; uncounted past 10,000', async () => {
    const busy = (await s.createProject({ name: 'busy', visibility: 'private' })).id;
    const author = (await s.createUser()).user.id as number;
    db().transaction(() => {
      for (let i = 0; i < 200; i++) insert(busy, author, `${day(10)}T00:00:${String(i % 60).padStart(2, '0')}.000Z`);
      for (let i = 0; i < 9_000; i++) insert(busy, author, `${day(11)}T${String(Math.floor(i / 600)).padStart(2, '0')}:00:00.000Z`);
      for (let i = 0; i < 1_100; i++) insert(busy, author, `${day(12)}T01:00:00.000Z`);
    })();
    const lists: [string, Record<string, string>, string, unknown[]][] = [
      [`/projects/${busy}/events`, {}, 'e.project_id = ?', [busy]],
      [`/users/${author}/events`, {}, 'e.author_id = ?', [author]],
      ['/events', { scope: 'all' }, '1 = 1', []],
    ];
    // 200, 9,000 and 1,100 events on three days: each side of a date is the smaller one somewhere.
    const dates: Record<string, string>[] = [{ before: day(11) }, { after: day(11) }, { after: day(10) }, { before: day(12) }, { after: day(10), before: day(12) }, { after: day(9) }];
    for (const [path, extra, where, args] of lists) {
      for (const q of dates) {
        const want = ids(where, args, q);
        const query = { ...extra, ...q, per_page: '100' };
        const sql = await preparedBy(s, async () => {
          const first = await s.get(path, { query });
          if (want.length > 10_000) expectUncounted(first, '2');
          else expectCounted(first, want.length, 100);
          expect((first.body as { id: number }[]).map((e) => e.id)).toEqual(want.slice(0, 100));
        });
        // Never 10,001 rows walked to count: the smaller side is counted.
        expect({ path, q, counts: sql.filter((x) => /LIMIT 10001/.test(x)) }).toEqual({ path, q, counts: [] });
        const deep = await s.get(path, { query: { ...query, page: '101' } });
        expect((deep.body as { id: number }[]).map((e) => e.id)).toEqual(want.slice(10_000, 10_100));
      }
    }
  }, SLOW);
});

describe('core/058 on an existing data dir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-event-time-order-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the events already out of order, and the latest time', () => {
    const file = join(dir, 'sandlab.db');
    const before = openBefore(file, 'core/058_event_time_order');
    const add = before.prepare(`INSERT INTO events (project_id, author_id, action, created_at) VALUES (7, 1, 'created', ?)`);
    for (const at of ['2024-01-03', '2024-01-01', '2024-01-05', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-02']) add.run(`${at}T00:00:00.000Z`);
    before.close();
    const after = openToday(file);
    expect(after.prepare('SELECT id, created_at FROM event_time_exceptions ORDER BY id').all()).toEqual([
      { id: 2, created_at: '2024-01-01T00:00:00.000Z' },
      { id: 4, created_at: '2024-01-04T00:00:00.000Z' },
      { id: 7, created_at: '2024-01-02T00:00:00.000Z' },
    ]);
    expect(after.prepare('SELECT max_created_at FROM event_time_order').get()).toEqual({ max_created_at: '2024-01-06T00:00:00.000Z' });
    after.close();
  });

  it('core/179 finds the runs of events in order', () => {
    const file = join(dir, 'runs.db');
    const before = openBefore(file, 'core/179_event_time_runs');
    const add = before.prepare(`INSERT INTO events (project_id, author_id, action, created_at) VALUES (7, 1, 'created', ?)`);
    for (const at of ['2024-01-03', '2024-01-01', '2024-01-05', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-02']) add.run(`${at}T00:00:00.000Z`);
    before.close();
    const after = openToday(file);
    const runs = (): string[] =>
      (after.prepare('SELECT first_id, min_created_at, max_created_at FROM event_time_runs ORDER BY first_id').all() as Record<string, string>[]).map(
        (r) => `${r.first_id} ${r.min_created_at.slice(0, 10)} ${r.max_created_at.slice(0, 10)}`,
      );
    expect(runs()).toEqual(['1 2024-01-03 2024-01-03', '2 2024-01-01 2024-01-05', '4 2024-01-04 2024-01-06', '7 2024-01-02 2024-01-02']);
    // Appended in order: the last run goes on; out of order: a new one.
    after.pragma('foreign_keys = OFF');
    after.prepare(`INSERT INTO events (project_id, author_id, action, created_at) VALUES (7, 1, 'created', '2024-01-02T00:00:00.000Z')`).run();
    after.prepare(`INSERT INTO events (project_id, author_id, action, created_at) VALUES (7, 1, 'created', '2024-01-01T00:00:00.000Z')`).run();
    expect(runs().slice(3)).toEqual(['7 2024-01-02 2024-01-02', '9 2024-01-01 2024-01-01']);
    after.close();
  });
});
