import type { RequestContext } from '../../http/route';
import { declared, t } from '../../http/params';
import { type PageAnchors, type SortDirection, countUpTo, paginateSql } from '../../http/pagination';
import { effectiveProjectAccess, memberProjectsSql, visibleProjectsSql } from '../core/access';
import { findProjectById } from '../core/projects';
import { featureAvailable } from '../core/feature-access';
import type { EventRow } from './entities';
import { type Db, tableVersionsOf } from '../../db/connection';
import { tablesBeyond } from '../core/count-versions';
import { PROJECTS_LISTED_VERSION, namesListedProjectColumnsOnly } from '../core/project-list-version';

export const EVENT_ACTIONS = [
  'created', 'updated', 'closed', 'reopened', 'pushed', 'commented', 'merged', 'joined', 'left', 'destroyed', 'expired', 'approved',
] as const;

/** `target_type` filter values and the stored class names they select (Event::TARGET_TYPES). */
export const TARGET_TYPES: Record<string, string> = {
  issue: 'Issue',
  milestone: 'Milestone',
  merge_request: 'MergeRequest',
  note: 'Note',
  project: 'Project',
  snippet: 'Snippet',
  user: 'User',
  wiki: 'WikiPage::Meta',
  design: 'DesignManagement::Design',
  epic: 'Epic',
};

/** What the events of a list are drawn from before the common filters. */
export type EventSource = { kind: 'author'; userId: number } | { kind: 'project'; projectId: number } | { kind: 'memberProjects' };

/**
 * GitLab's EventsFinder: the source's events in projects the caller can see, filtered by
 * action, target_type, before/after (exclusive whole days) and sorted by id.
 */
export function listEvents(rc: RequestContext, source: EventSource): EventRow[] {
  const q = declared(rc.params, {
    action: t.string().values(EVENT_ACTIONS),
    target_type: t.string().values(Object.keys(TARGET_TYPES)),
    before: t.date(),
    after: t.date(),
    sort: t.string().values(['asc', 'desc']).default('desc'),
  });
  const where: string[] = [];
  const args: unknown[] = [];
  let everyProject = true;
  if (source.kind === 'author') {
    where.push('e.author_id = ?');
    args.push(source.userId);
  } else if (source.kind === 'project') {
    where.push('e.project_id = ?');
    args.push(source.projectId);
  } else {
    const member = memberProjectsSql(rc.svc, rc.requireUser());
    where.push(member.sql);
    args.push(...member.args);
    everyProject = member.sql === '1 = 1';
  }
  // Events outside a project (group memberships) and in projects the caller cannot see stay hidden.
  const visible = visibleProjectsSql(rc.svc, rc.user);
  // One project's events: whether the caller sees the project holds for the whole list, asked once.
  const listVisible = source.kind === 'project' && visible.sql !== '1 = 1' ? projectSeenOnce(rc.svc.db, source.projectId, visible) : visible;
  where.push(listVisible.sql);
  args.push(...listVisible.args);
  // The caller sees every event of the source that is in a project (an administrator): the list's
  // rows are then the table's own, whatever the projects' visibility and membership.
  const seesAll = everyProject && visible.sql === '1 = 1';
  if (q.action) {
    where.push('e.action = ?');
    args.push(q.action);
  }
  if (q.target_type) {
    where.push('e.target_type = ?');
    args.push(TARGET_TYPES[q.target_type]);
  }
  // `after` a day before `before` or later: no time lies in both, so the list is empty (nothing read, as for a contradiction of issue filters).
  const noTime = !!(q.before && q.after && nextDay(q.after) >= `${q.before}T00:00:00.000Z`);
  if (noTime) where.push('0');
  // Without a condition on each event's project, the list reads no project row: an event with a
  // project has one (events go with their project, by the foreign key), so `e.project_id IS NOT
  // NULL` keeps the rows the join kept, over the same partial indexes (project_id IS NOT NULL).
  // Its statements then name no `projects`, and a write to any project (which moves that table's
  // version) leaves their remembered answers: the instance's events page 500 before a date counted
  // ~10,000 events again, each with its project's row, after every project write.
  const perProject = !(everyProject && (listVisible.sql === '1 = 1' || listVisible.sql === '0'));
  const events = perProject ? 'FROM events e JOIN projects p ON p.id = e.project_id WHERE' : 'FROM events e WHERE e.project_id IS NOT NULL AND';
  // The list without its dates, and the id range they are (when both split).
  const undated = { from: `${events} ${where.join(' AND ')}`, args: [...args] };
  let range: { from?: number; to?: number } | undefined = {};
  // A date is an id range when no exception (core/058) crosses its split: the list then reads its
  // own index in id order from the split instead of comparing every event's date. Otherwise the
  // dates are id ranges from core/179's runs, when they are few.
  const beforeAt = q.before && !noTime ? `${q.before}T00:00:00.000Z` : undefined;
  const afterAt = q.after && !noTime ? nextDay(q.after) : undefined;
  const splits = [beforeAt, afterAt].map((at) => (at === undefined ? undefined : eventTimeSplit(rc.svc.db, at)));
  const ranges = (beforeAt && splits[0] === undefined) || (afterAt && splits[1] === undefined) ? eventRunRanges(rc.svc.db, beforeAt, afterAt) : undefined;
  if (ranges?.length === 1) {
    const one = idRangeSql(ranges[0]);
    if (one.sql) where.push(one.sql);
    args.push(...one.args);
    range = { from: Number.isFinite(ranges[0][0]) ? ranges[0][0] : undefined, to: Number.isFinite(ranges[0][1]) ? ranges[0][1] : undefined };
  } else if (ranges?.length === 0) {
    where.push('0');
  } else if (ranges) {
    // The hull bounds the index walk; each range is checked on the ids within it.
    const parts = [idRangeSql([ranges[0][0], ranges[ranges.length - 1][1]]), ...ranges.map(idRangeSql)];
    where.push(`${parts[0].sql ? `${parts[0].sql} AND ` : ''}(${parts.slice(1).map((x) => x.sql).join(' OR ')})`);
    args.push(...parts.flatMap((x) => x.args));
    range = undefined;
  } else {
    if (beforeAt) {
      const split = splits[0];
      where.push(split === undefined ? 'e.created_at < ?' : 'e.id < ?');
      args.push(split ?? beforeAt);
      if (split === undefined) range = undefined;
      else if (range) range.to = split;
    }
    if (afterAt) {
      const split = splits[1];
      where.push(split === undefined ? 'e.created_at >= ?' : 'e.id >= ?');
      args.push(split ?? afterAt);
      if (split === undefined) range = undefined;
      else if (range) range.from = split;
    }
  }
  const sql = `${events} ${where.join(' AND ')}`;
  const order = q.sort === 'asc' ? 'ASC' : 'DESC';
  const anchors =
    source.kind === 'project'
      ? projectEventAnchors(rc, source.projectId, { from: sql, args }, q.sort as SortDirection)
      : seesAll
        ? authorEventAnchors(rc, source, { from: sql, args }, q.sort as SortDirection)
        : viewedEventAnchors(rc, source, { from: sql, args }, q.sort as SortDirection);
  // Unfiltered, or by target type alone: counters may hold the total; with dates too, the total
  // less the events outside the dates' id range, when those are fewer.
  // A project's list counts as its rows are read (listVisible: the project seen once); the others by `visible`.
  const counted = q.action ? undefined : countedEvents(rc, source, source.kind === 'project' ? listVisible : visible, seesAll, q.target_type ? TARGET_TYPES[q.target_type] : undefined);
  const dated = !!(q.before || q.after);
  const inRange = range && counted && { count: (cap: number) => countInRange(rc.svc.db, undated, range, counted.total, cap) };
  const countFrom = noTime || ranges?.length === 0 ? { total: () => 0 } : dated ? inRange || undefined : counted;
  const rows = paginateSql<EventRow>(rc, rc.svc.db, { select: 'e.*', from: sql, args, order: `e.id ${order}`, anchors, countFrom });
  return rows.filter((e) => targetVisible(rc, e));
}

/**
 * The total of an unfiltered events list (or one by target type alone: core/046's counters) from
 * the counters core/035 and core/045 keep, when they
 * hold it: a project's events (visible or not, by the list's own condition on the project), an
 * author's events in projects for a caller who sees them all, or every project's
 * events for a caller who sees them all (the table's rows less those outside any project; events
 * of a deleted project go with it, by its foreign key); a page past the end is then not read.
 * Otherwise the list counts itself.
 */
function countedEvents(
  rc: RequestContext,
  source: EventSource,
  visible: { sql: string; args: unknown[] },
  seesAll: boolean,
  targetType: string | undefined,
): { total: () => number } | undefined {
  const db = rc.svc.db;
  if (targetType !== undefined) return countedEventsOfType(rc, source, visible, seesAll, targetType);
  if (source.kind === 'project') {
    // `visible`: the list's own for one project (seen once: every event or none), so the counter
    // alone, not the project's row too (any project's write sent the count back to SQLite).
    if (visible.sql !== '1 = 1') return { total: () => 0 };
    return { total: () => (db.prepare('SELECT coalesce((SELECT n FROM event_counts WHERE project_id = ?), 0) AS n').get(source.projectId) as { n: number }).n };
  }
  if (source.kind === 'author' && seesAll) {
    return {
      total: () => (db.prepare('SELECT coalesce((SELECT n FROM event_author_counts WHERE author_id = ?), 0) AS n').get(source.userId) as { n: number }).n,
    };
  }
  if (source.kind === 'memberProjects' && seesAll) {
    return {
      total: () =>
        (db.prepare('SELECT (SELECT count(*) FROM events) - coalesce((SELECT n FROM event_counts WHERE project_id = 0), 0) AS n').get() as { n: number }).n,
    };
  }
  return undefined;
}

/** Whether the caller sees a project (the list's condition on it, `visible`), as a condition that holds or fails for every event of it. */
function projectSeenOnce(db: Db, projectId: number, visible: { sql: string; args: unknown[] }): { sql: string; args: unknown[] } {
  const seen = db.prepare(`SELECT 1 AS seen FROM projects p WHERE p.id = ? AND ${visible.sql}`).get(projectId, ...visible.args);
  return { sql: seen ? '1 = 1' : '0', args: [] };
}

/**
 * Anchors for deep pages (PageAnchors) of a project's events: its rows change only when the
 * project's events are written, which core/022 counts per project. The project's visibility
 * (the other condition) shows or hides the whole list at once, so rows never move under an anchor.
 */
function projectEventAnchors(rc: RequestContext, projectId: number, list: { from: string; args: unknown[] }, sort: SortDirection): PageAnchors<EventRow> {
  return {
    key: JSON.stringify(['events', list.from, list.args, sort]),
    version: () => (rc.svc.db.prepare('SELECT coalesce((SELECT version FROM event_list_versions WHERE project_id = ?), 0) AS v').get(projectId) as { v: number }).v,
    column: 'e.id',
    idColumn: 'e.id',
    sort,
    value: (row) => row.id,
    id: (row) => row.id,
    // core/022's version moves on every insert, update and delete of the project's events; the caller's view is in the key.
    rowsAtVersion: true,
  };
}

/** The same from the counters per target type core/046 keeps: a project's, or every project's for a caller who sees them all. */
function countedEventsOfType(
  rc: RequestContext,
  source: EventSource,
  visible: { sql: string; args: unknown[] },
  seesAll: boolean,
  targetType: string,
): { total: () => number } | undefined {
  const db = rc.svc.db;
  if (source.kind === 'project') {
    // As countedEvents: the project seen once (`visible` is the list's own), its counter alone.
    if (visible.sql !== '1 = 1') return { total: () => 0 };
    return {
      total: () =>
        (db.prepare('SELECT coalesce((SELECT n FROM event_target_counts WHERE target_type = ? AND project_id = ?), 0) AS n').get(targetType, source.projectId) as { n: number }).n,
    };
  }
  if (source.kind === 'memberProjects' && seesAll) {
    return {
      total: () =>
        (db.prepare('SELECT coalesce(sum(n), 0) AS n FROM event_target_counts WHERE target_type = ? AND project_id != 0').get(targetType) as { n: number }).n,
    };
  }
  return undefined;
}

/**
 * Anchors for deep pages of an author's events, or of every project's, when the caller sees them
 * all: core/045 moves an author's version on every write to their events, so the list of one
 * author stays while theirs does, and the list of every project while the authors' sum does.
 */
function authorEventAnchors(
  rc: RequestContext,
  source: Exclude<EventSource, { kind: 'project' }>,
  list: { from: string; args: unknown[] },
  sort: SortDirection,
): PageAnchors<EventRow> {
  const db = rc.svc.db;
  return {
    key: JSON.stringify(['events', source.kind, list.from, list.args, sort]),
    version:
      source.kind === 'author'
        ? () => (db.prepare('SELECT coalesce((SELECT version FROM event_author_counts WHERE author_id = ?), 0) AS v').get(source.userId) as { v: number }).v
        : () => (db.prepare('SELECT coalesce(sum(version), 0) AS v FROM event_author_counts').get() as { v: number }).v,
    column: 'e.id',
    idColumn: 'e.id',
    sort,
    value: (row) => row.id,
    id: (row) => row.id,
  };
}

/**
 * authorEventAnchors for a caller who sees only some projects' events (a member, a Guest): the
 * list's rows also follow the projects, memberships and groups its conditions read, whose table
 * versions go in the key; projects by their listed columns' version (core/130) when the SQL names
 * no other column of theirs (the list selects `e.*`), so a description or an event's activity time
 * keeps them. A Guest's /events?scope=all page 2500 walked 50,000 events again after every write
 * elsewhere (22 ms). None where the SQL's tables cannot be told.
 */
function viewedEventAnchors(
  rc: RequestContext,
  source: Exclude<EventSource, { kind: 'project' }>,
  list: { from: string; args: unknown[] },
  sort: SortDirection,
): PageAnchors<EventRow> | undefined {
  const db = rc.svc.db;
  const listedOnly = namesListedProjectColumnsOnly(db, list.from);
  const tables = tablesBeyond(db, list.from, 'events')?.map((t) => (t === 'projects' && listedOnly ? PROJECTS_LISTED_VERSION : t));
  if (!tables) return undefined;
  const versions = tableVersionsOf(db, tables);
  if (versions.includes(undefined)) return undefined;
  const anchors = authorEventAnchors(rc, source, list, sort);
  return { ...anchors, key: JSON.stringify([anchors.key, tables, versions]) };
}

/**
 * The count (up to `cap`) of a list's events in an id range, from the list's total without the
 * range (counters) less its events outside the range, or counted in the range, whichever side
 * holds fewer: both are counted a little at a time (x8 a round), so the cost is that of the smaller.
 * A date near either end of a project's million events counts a few rows, not 10,001.
 */
function countInRange(
  db: Db,
  list: { from: string; args: unknown[] },
  range: { from?: number; to?: number },
  total: () => number,
  cap: number,
): number {
  const inside = { from: list.from, args: [...list.args] };
  const outside: { from: string; args: unknown[] }[] = [];
  if (range.from !== undefined) {
    inside.from += ' AND e.id >= ?';
    inside.args.push(range.from);
    outside.push({ from: `${list.from} AND e.id < ?`, args: [...list.args, range.from] });
  }
  if (range.to !== undefined) {
    inside.from += ' AND e.id < ?';
    inside.args.push(range.to);
    outside.push({ from: `${list.from} AND e.id >= ?`, args: [...list.args, range.to] });
  }
  for (let step = 128; ; step *= 8) {
    const limit = Math.min(step, cap);
    const n = countUpTo(db, inside.from, inside.args, limit);
    if (n < limit || limit === cap) return n;
    let out = 0;
    let all = true;
    for (const side of outside) {
      const m = countUpTo(db, side.from, side.args, step);
      out += m;
      if (m === step) all = false;
    }
    if (all) return Math.min(total() - out, cap);
  }
}

/** Past this many of core/058's exceptions a date is filtered by created_at, not searched for its split (a variable so tests can stand for many). */
export const EVENT_SPLIT = { exceptions: 500 };

/**
 * The id that splits events at a time: every event created before `at` has a smaller id, every
 * other one an id at least this, or undefined when core/058 knows an event that breaks it. Events
 * outside core/058's exceptions are in created_at order by id, so the split is the first of them
 * created at `at` or later (a binary search over ids: ~20 reads of a row at a million events), and
 * it holds for all events while no exception lies on the wrong side of it. With more exceptions than
 * EVENT_SPLIT.exceptions, undefined without a search: each probe walks a run of them and the
 * check reads them all (a million events written with older dates than the ones before them:
 * ~100 ms a date, on every events list, a project of three events too).
 */
export function eventTimeSplit(db: Db, at: string): number | undefined {
  const { n } = db.prepare('SELECT count(*) AS n FROM (SELECT 1 FROM event_time_exceptions LIMIT ?)').get(EVENT_SPLIT.exceptions + 1) as { n: number };
  if (n > EVENT_SPLIT.exceptions) return undefined;
  const first = db.prepare(
    'SELECT id, created_at >= ? AS late FROM events WHERE id >= ? AND id < ? AND id NOT IN (SELECT id FROM event_time_exceptions) ORDER BY id LIMIT 1',
  );
  const hi = (db.prepare('SELECT coalesce(max(id), 0) + 1 AS n FROM events').get() as { n: number }).n;
  // The first event kept in order and created at or after `at` is in [0, hi), or there is none (hi).
  const split = firstLateId(first, at, 0, hi);
  const crossed = db
    .prepare('SELECT 1 FROM event_time_exceptions WHERE (id >= ? AND created_at < ?) OR (id < ? AND created_at >= ?) LIMIT 1')
    .get(split, at, split, at);
  return crossed ? undefined : split;
}

/**
 * Within [lo, hi) of ids whose created_at never goes down (`first` reads the first event at or
 * above an id and below `hi`, and whether it was created at or after `at`), the first id created
 * at or after `at`, or `hi`: a binary search.
 */
function firstLateId(first: { get(...args: unknown[]): unknown }, at: string, lo: number, hi: number): number {
  let split = hi;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    // SQLite compares the dates, as the list's own `created_at < ?` would.
    const row = first.get(at, mid, hi) as { id: number; late: number } | undefined;
    if (!row) hi = mid;
    else if (row.late) {
      split = row.id;
      hi = mid;
    } else lo = row.id + 1;
  }
  return split;
}

/** Past this many of core/179's runs, or of id ranges for a list's dates, the dates are filtered by created_at (variables so tests can stand for many). */
export const EVENT_RUNS = { runs: 1000, ranges: 16 };

/**
 * The ids of the events created before `before` (when given) and at or after `after` (when
 * given), as sorted disjoint ranges [from, to), from core/179's runs: within a run created_at
 * never goes down, so a date splits each run once (a binary search, only in runs whose bounds
 * straddle it). Undefined past EVENT_RUNS (each run is read, each range is an OR in the list).
 */
export function eventRunRanges(db: Db, before: string | undefined, after: string | undefined): [number, number][] | undefined {
  const { n } = db.prepare('SELECT count(*) AS n FROM (SELECT 1 FROM event_time_runs LIMIT ?)').get(EVENT_RUNS.runs + 1) as { n: number };
  if (n > EVENT_RUNS.runs) return undefined;
  const end = (db.prepare('SELECT coalesce(max(id), 0) + 1 AS n FROM events').get() as { n: number }).n;
  if (n === 0) return end === 1 ? [] : undefined;
  const runsAt = db.prepare('SELECT first_id, max_created_at < ? AS below, min_created_at >= ? AS above FROM event_time_runs ORDER BY first_id');
  const first = db.prepare('SELECT id, created_at >= ? AS late FROM events WHERE id >= ? AND id < ? ORDER BY id LIMIT 1');
  /** The events created before `at`: [run start, split) of each run, adjacent ones joined. */
  const earlier = (at: string): [number, number][] => {
    const runs = runsAt.all(at, at) as { first_id: number; below: number; above: number }[];
    const out: [number, number][] = [];
    for (let i = 0; i < runs.length; i++) {
      const from = runs[i].first_id;
      const to = i + 1 < runs.length ? runs[i + 1].first_id : Math.max(end, from);
      const split = runs[i].above ? from : runs[i].below ? to : firstLateId(first, at, from, to);
      const last = out[out.length - 1];
      if (split === from) continue;
      if (last && last[1] === from) last[1] = split;
      else out.push([from, split]);
    }
    return out;
  };
  // Events below the first run's start: none (core/179 covers every event).
  const firstRun = (db.prepare('SELECT min(first_id) AS m FROM event_time_runs').get() as { m: number }).m;
  const start = Math.min(0, firstRun);
  let ranges: [number, number][] = before === undefined ? [[start, end]] : earlier(before);
  if (after !== undefined) {
    // At or after `after`: the gaps between the events before it, within the ranges so far.
    const gaps: [number, number][] = [];
    let at = start;
    for (const [from, to] of earlier(after)) {
      if (from > at) gaps.push([at, from]);
      at = to;
    }
    if (end > at) gaps.push([at, end]);
    ranges = ranges.flatMap(([a, b]) => gaps.filter(([c, d]) => c < b && d > a).map(([c, d]): [number, number] => [Math.max(a, c), Math.min(b, d)]));
  }
  if (ranges.length > EVENT_RUNS.ranges) return undefined;
  // Open at either end of the ids: no bound there, so the list's SQL and arguments (its deep-page
  // anchors' key) stay the same while events are added (a bound at max(id) + 1 moved with each).
  return ranges.map(([from, to]) => [from <= firstRun ? -Infinity : from, to >= end ? Infinity : to]);
}

/**
 * An id range [from, to) as a condition (none for an unbounded side). Two-sided, written BETWEEN
 * (ids are integers: the range's last id): as `>= ? AND < ?`, SQLite walked events_author_in_projects
 * for an author's events of one target type instead of their own entries in events_author_target
 * (an author's milestones in two days: 0.3 -> 13 ms).
 */
function idRangeSql([from, to]: [number, number]): { sql: string; args: number[] } {
  if (Number.isFinite(from) && Number.isFinite(to)) return { sql: 'e.id BETWEEN ? AND ?', args: [from, to - 1] };
  if (Number.isFinite(from)) return { sql: 'e.id >= ?', args: [from] };
  if (Number.isFinite(to)) return { sql: 'e.id < ?', args: [to] };
  return { sql: '', args: [] };
}

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}

/**
 * Drops events whose target the caller may not read (Event#visible_to_user?): internal notes,
 * confidential issues, and issues or merge requests (and notes on them) of a project whose feature
 * the caller may not use (feature-access.ts), administrators included where it is disabled, and its
 * milestones where both are.
 */
function targetVisible(rc: RequestContext, e: EventRow): boolean {
  const user = rc.user;
  if (!e.project_id) return true;
  const project = findProjectById(rc.svc, e.project_id);
  if (!project) return true;
  const isNote = !!e.target_type && ['Note', 'DiffNote', 'DiscussionNote'].includes(e.target_type) && e.target_id !== null;
  const hidden = { Issue: !featureAvailable(rc.svc, user, project, 'Issue'), MergeRequest: !featureAvailable(rc.svc, user, project, 'MergeRequest') };
  if ((e.target_type === 'Issue' || e.target_type === 'MergeRequest') && hidden[e.target_type]) return false;
  // read_milestone: not where neither issues nor merge requests are available.
  if (e.target_type === 'Milestone' && hidden.Issue && hidden.MergeRequest) return false;
  if (isNote && (hidden.Issue || hidden.MergeRequest)) {
    const n = rc.svc.db.prepare('SELECT noteable_type FROM notes WHERE id = ?').get(e.target_id) as { noteable_type: string } | undefined;
    if ((n?.noteable_type === 'Issue' || n?.noteable_type === 'MergeRequest') && hidden[n.noteable_type]) return false;
  }
  if (user?.admin) return true;
  const level = effectiveProjectAccess(rc.svc, user, project);
  if (e.target_type === 'Issue' && e.target_id !== null) {
    const i = rc.svc.db.prepare('SELECT confidential, author_id, assignee_ids FROM issues WHERE id = ?').get(e.target_id) as
      | { confidential: number; author_id: number | null; assignee_ids: string }
      | undefined;
    if (i?.confidential && level < 15 && i.author_id !== user?.id && !(JSON.parse(i.assignee_ids) as number[]).includes(user?.id ?? -1)) return false;
  }
  if (isNote) {
    const n = rc.svc.db.prepare('SELECT internal FROM notes WHERE id = ?').get(e.target_id) as { internal: number } | undefined;
    if (n?.internal && level < 15) return false;
  }
  return true;
}
