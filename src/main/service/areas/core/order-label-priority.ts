import { createHash } from 'node:crypto';
import type { RequestContext } from '../../http/route';
import { COUNT_LIMIT, type PageAnchors, type SqlList, countUpTo, limitSql, listRows, readPage } from '../../http/pagination';
import { rowsByIds } from '../../db/written-rows';
import { idRangeOfDates } from './id-date-zones';
import { labelProbe, lowestSpelling } from './label-row-mirrors';
import { issuableCountPastLimit, listCountAtLeast } from './count-versions';
import { type Scope, type WorkItemFilters, ISSUE_WRITES, MERGE_REQUEST_WRITES, RECORD_CHECK_PER_MATCH, idOrderAnchors, issueOrderVersion, labelRowsView, scopeIdOrderAnchors, searchCheckedByRecord, searchMatchesAtLeast } from './workitems';

/**
 * GitLab's `order_by=label_priority` and `order_by=priority` of issue and merge request lists
 * (Issuable.sort_by_attribute; the API passes `"#{order_by}_#{sort}"` to the finder, which passes
 * the `labels` filter's titles as `excluded_labels`):
 * - label_priority: the record's highest label priority, the lowest `priority` among its labels
 *   prioritized in its own project, leaving out the titles the list is filtered by
 *   (order_labels_priority: a LATERAL MIN over label_priorities), ascending for sort=asc and
 *   descending for sort=desc, records without one last either way (nulls_last);
 * - priority: its milestone's due date first, in the same direction and nulls last, then that
 *   highest label priority (order_due_date_and_labels_priority);
 * - then newest id first, whatever the sort (with_order_id_desc).
 * Sandlab keeps a project label's priority on its row, and a group label's per project in
 * label_priorities (labels/004: only when some group label has one does the SQL read it).
 */
export interface PriorityOrder {
  kind: 'label_priority' | 'priority';
  sort: 'asc' | 'desc';
  /** The `labels` filter's titles, as given (IssuableFinder::Params#label_names). */
  excluded: string[];
  /** Some group label has a priority in some project (label_priorities is not empty). */
  groupLabels: boolean;
}

export const PRIORITY_ORDERS = ['label_priority', 'priority'] as const;

/** The order of a list whose `order_by` is one of PRIORITY_ORDERS; null for any other. */
export function priorityOrder(orderBy: string, sort: string, labels: string[] | undefined, groupLabels: () => boolean): PriorityOrder | null {
  if (orderBy !== 'label_priority' && orderBy !== 'priority') return null;
  return { kind: orderBy, sort: sort === 'asc' ? 'asc' : 'desc', excluded: labels ?? [], groupLabels: groupLabels() };
}

const literal = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The record's highest label priority on alias `x` (NULL: none), as SQL: its project labels' and, with `groupLabels`, its group labels' priorities there. */
function highestPrioritySql(type: 'Issue' | 'MergeRequest', excluded: string[], groupLabels: boolean): string {
  const without = excluded.length ? ` AND il.title NOT IN (${excluded.map(literal).join(', ')})` : '';
  const own = `SELECT min(l.priority) FROM issuable_labels il CROSS JOIN labels l ON l.project_id = x.project_id AND l.title = il.title
    WHERE il.issuable_type = '${type}' AND il.issuable_id = x.id AND l.priority IS NOT NULL${without}`;
  if (!groupLabels) return `(${own})`;
  const group = `SELECT min(lp.priority) FROM issuable_labels il CROSS JOIN label_priorities lp ON lp.project_id = x.project_id CROSS JOIN labels l ON l.id = lp.label_id AND l.title = il.title
    WHERE il.issuable_type = '${type}' AND il.issuable_id = x.id${without}`;
  return `(SELECT min(p) FROM (SELECT (${own}) AS p UNION ALL SELECT (${group})))`;
}

const DUE_SQL = '(SELECT m.due_date FROM milestones m WHERE m.id = x.milestone_id)';

/**
 * The order as SQL on alias `x`: the definition, and how a list whose records with a key are too
 * many to read (see priorityOrderRows) is read.
 */
export function priorityOrderSql(type: 'Issue' | 'MergeRequest', order: PriorityOrder): string {
  const dir = order.sort === 'asc' ? 'ASC' : 'DESC';
  const hp = highestPrioritySql(type, order.excluded, order.groupLabels);
  const byPriority = `${hp} IS NULL, ${hp} ${dir}`;
  return order.kind === 'priority' ? `${DUE_SQL} IS NULL, ${DUE_SQL} ${dir}, ${byPriority}, x.id DESC` : `${byPriority}, x.id DESC`;
}

/**
 * Records with a key (a prioritized label, a due-dated milestone) read at most: past it, the list
 * sorts in SQL. `walkBound`: the matches from which the rest is walked instead of sorted (tests).
 */
export const PRIORITY_LIMITS: { keyed: number; walkBound?: number } = { keyed: 10_000 };

interface Keyed {
  id: number;
  due: string | null;
  priority: number | null;
}

/**
 * The rows of a page in the order, read in two parts: the records with a key (a label prioritized in
 * their project, for `priority` also a milestone with a due date) are found by their label rows
 * (the scope's prioritized labels, core/100's index) and their milestones, checked against the
 * list's conditions by id and sorted; every other record follows newest id first, read from the
 * list in id order with those left out (SQLite's rowid walk, or the list's own matches sorted when
 * they are fewer than the walk would read). Most records carry no prioritized label, so page 1 of a
 * million-record project reads the few keyed ones and a page of the rest. Undefined when more than
 * PRIORITY_LIMITS.keyed records have a key: the list then sorts by priorityOrderSql.
 *
 * `walk` is the list as one condition on `x` (FROM <table> x WHERE ...), `source` the same rows
 * perhaps read another way (idSetLists' page: a set's records looked up by id).
 */
export function priorityOrderRows<T extends { id: number }>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  walk: { where: string; args: unknown[] },
  source: { from: string; args: unknown[] },
  view: { seesAll: boolean; ownFilters: boolean; countFrom?: SqlList<unknown>['countFrom'] },
): ((limit: number, offset: number) => T[]) | undefined {
  const db = rc.svc.db;
  const order = filters.priority!;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  // A date bound: the rest's walk starts at the ids its dates leave (id-date-zones.ts).
  const range = idRangeOfDates(db, type, scope, filters.dates);
  if (range) walk = { where: `${walk.where} AND ${range.sql}`, args: [...walk.args, ...range.args] };
  const keys = new Map<number, Keyed>();
  let read = 0;
  const cap = PRIORITY_LIMITS.keyed;
  // The scope's prioritized project labels (core/100: only those are in its index).
  const inScope = scope.projectId !== undefined ? ' AND l.project_id = ?' : scope.projects ? ` AND l.project_id IN (${scope.projects})` : '';
  const inScopeArgs = scope.projectId !== undefined ? [scope.projectId] : scope.projects ? scope.args : [];
  const without = order.excluded.length ? ` AND l.title NOT IN (${order.excluded.map(() => '?').join(', ')})` : '';
  const prioritized = db
    .prepare(`SELECT l.project_id AS project, l.title, l.priority FROM labels l INDEXED BY labels_prioritized WHERE l.priority IS NOT NULL${inScope}${without}`)
    .all(...inScopeArgs, ...order.excluded) as { project: number; title: string; priority: number }[];
  // Group labels prioritized in the scope's projects (label_priorities: few).
  if (order.groupLabels) {
    const inScopeLp = inScope.replace('l.project_id', 'lp.project_id');
    prioritized.push(
      ...(db
        .prepare(`SELECT lp.project_id AS project, l.title, lp.priority FROM label_priorities lp CROSS JOIN labels l ON l.id = lp.label_id WHERE 1 = 1${inScopeLp}${without}`)
        .all(...inScopeArgs, ...order.excluded) as { project: number; title: string; priority: number }[]),
    );
  }
  // No label of the scope prioritized: no record has a key, so the order is newest id first.
  if (!prioritized.length && order.kind === 'label_priority') {
    const byRows = labelRowsIds(rc, type, scope, filters, walk, view.seesAll);
    if (byRows) return (limit, offset) => rowsByIds<T>(db, type === 'Issue' ? ISSUE_WRITES : MERGE_REQUEST_WRITES, byRows(limit, offset));
  }
  // Read from the index alone (id and state).
  const carriers = db.prepare(
    `SELECT il.issuable_id AS id, il.state FROM issuable_labels il INDEXED BY issuable_labels_project
      WHERE il.issuable_type = '${type}' AND il.project_id = ? AND il.title = ? COLLATE NOCASE AND il.title = ? ${limitSql(cap + 1)}`,
  );
  // The confidential ones among them, from core/016's partial index (merge requests are never confidential).
  const confidentialCarriers = db.prepare(
    `SELECT il.issuable_id AS id FROM issuable_labels il INDEXED BY issuable_labels_confidential WHERE il.issuable_type = '${type}' AND il.project_id = ? AND il.title = ? AND il.confidential = 1`,
  );
  // Page 1 of a project's list streamed by priority group whatever their size: it reads its own rows
  // only (5,557 keyed issues were all read and sorted for page 1: ~6 ms); deeper pages read the keyed
  // ones apart, with anchors for the rest.
  if (scope.projectId !== undefined && prioritized.length && readPage(rc.params).offset === 0) {
    const streamed = streamedRows<T>(rc, type, scope, filters, walk, prioritized, view);
    if (streamed) return streamed;
  }
  // A project's list filtered by nothing but a state (and the caller's view): a carrier's label row
  // holds its state and confidentiality, so only confidential ones are looked up to be checked.
  const counted = filters.counted;
  const byRows = view.ownFilters && scope.projectId !== undefined && counted !== null && counted.authorId === null && counted.milestone === null;
  const inList = new Set<number>();
  // Too many by the label counters (core/016) already: streamed without reading them first.
  if (scope.projectId !== undefined && prioritized.length) {
    const titles = prioritized.map((p) => p.title);
    const { n } = db
      .prepare(`SELECT coalesce(sum(n), 0) AS n FROM label_counts WHERE issuable_type = ? AND project_id = ? AND title IN (${titles.map(() => '?').join(', ')})`)
      .get(type, scope.projectId, ...titles) as { n: number };
    if (n > cap) return streamedRows<T>(rc, type, scope, filters, walk, prioritized, view);
  }
  for (const { project, title, priority } of prioritized) {
    const rows = carriers.all(project, title, title) as { id: number; state: string }[];
    if ((read += rows.length) > cap) return streamedRows<T>(rc, type, scope, filters, walk, prioritized, view);
    const confidential = byRows && type === 'Issue' ? new Set((confidentialCarriers.all(project, title) as { id: number }[]).map((r) => r.id)) : undefined;
    for (const { id, state } of rows) {
      if (byRows && counted.state !== null && state !== counted.state) continue;
      if (byRows && !confidential?.has(id)) inList.add(id);
      const known = keys.get(id);
      if (!known) keys.set(id, { id, due: null, priority });
      else if (known.priority === null || priority < known.priority) known.priority = priority;
    }
  }
  if (read > cap) return streamedRows<T>(rc, type, scope, filters, walk, prioritized, view);
  if (order.kind === 'priority') {
    // Records whose milestone has a due date (core/100's index holds only those milestones).
    const inProject = scope.projectId !== undefined ? ` AND x.project_id = ${Number(scope.projectId)}` : '';
    const dated = db
      .prepare(
        `SELECT x.id, m.due_date AS due FROM milestones m INDEXED BY milestones_due CROSS JOIN ${table} x ON x.milestone_id = m.id
          WHERE m.due_date IS NOT NULL${inProject} ${limitSql(cap + 1 - read)}`,
      )
      .all() as { id: number; due: string }[];
    if ((read += dated.length) > cap) return undefined;
    for (const { id, due } of dated) {
      const known = keys.get(id);
      if (known) known.due = due;
      else keys.set(id, { id, due, priority: null });
    }
  }
  // Those in the list: looked up by id (NOT INDEXED: not the list walked to find them).
  const unknown = [...keys.keys()].filter((id) => !inList.has(id));
  const byId = searchCheckedByRecord(filters, walk.where, walk.args, unknown.length);
  const listed = [
    ...inList,
    ...(unknown.length
      ? (db.prepare(`SELECT x.id FROM ${table} x NOT INDEXED WHERE ${byId.sql} AND x.id IN (SELECT value FROM json_each(?))`).all(...byId.args, JSON.stringify(unknown)) as { id: number }[]).map((r) => r.id)
      : []),
  ];
  const sign = order.sort === 'asc' ? 1 : -1;
  const compare = (a: Keyed, b: Keyed): number => {
    if (a.due !== b.due) return a.due === null ? 1 : b.due === null ? -1 : (a.due < b.due ? -1 : 1) * sign;
    if (a.priority !== b.priority) return a.priority === null ? 1 : b.priority === null ? -1 : (a.priority - b.priority) * sign;
    return b.id - a.id;
  };
  const first = listed.map((id) => keys.get(id)!).sort(compare).map((k) => k.id);
  const rest = restList(rc, type, scope, filters, walk, source, first, view);
  const log = type === 'Issue' ? ISSUE_WRITES : MERGE_REQUEST_WRITES;
  return (limit, offset) => {
    const head = first.slice(offset, offset + limit);
    const more = limit - head.length;
    const tail = more > 0 ? rest(more, Math.max(0, offset - first.length)) : [];
    return rowsByIds<T>(db, log, [...head, ...tail]);
  };
}

/**
 * The page for a project whose keyed records are too many to read on every page (a prioritized
 * `bug` on 155,000 merge requests: 1.5 s sorted in SQL): the records in groups of one highest
 * priority, in the order's direction, each group newest id first as its label rows' index holds
 * them (one arm per title and state, merged by SQLite: UNION with ORDER BY, no sort), a record
 * carrying a title of a lower priority left to that group; a page reads its group's rows from its
 * offset, counting the groups before it (up to the offset) to find it; the rest follow. For
 * order_by=priority only where no record of the project has a milestone with a due date (then the
 * order is the same); else, and for a scope of many projects, undefined: the list sorts in SQL.
 */
function streamedRows<T extends { id: number }>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  walk: { where: string; args: unknown[] },
  prioritized: { project: number; title: string; priority: number }[],
  view: { seesAll: boolean; ownFilters: boolean; countFrom?: SqlList<unknown>['countFrom'] },
): ((limit: number, offset: number) => T[]) | undefined {
  const db = rc.svc.db;
  const order = filters.priority!;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  if (scope.projectId === undefined) return undefined;
  const projectId = Number(scope.projectId);
  if (order.kind === 'priority') {
    const dated = db
      .prepare(`SELECT 1 AS one FROM milestones m INDEXED BY milestones_due CROSS JOIN ${table} x ON x.milestone_id = m.id WHERE m.due_date IS NOT NULL AND x.project_id = ? LIMIT 1`)
      .get(projectId);
    if (dated) return undefined;
  }
  // The list's one state when it has one (an arm of another state would walk its rows to find none).
  const state = filters.counted?.state ?? filters.labelOnly?.state ?? filters.labelTitles?.state ?? null;
  const states = state !== null ? [state] : (db.prepare('SELECT state FROM issuable_state_counts WHERE issuable_type = ? AND project_id = ? AND n > 0').all(type, projectId) as { state: string }[]).map((r) => r.state);
  const priorities = [...new Set(prioritized.map((p) => p.priority))].sort((a, b) => (order.sort === 'asc' ? a - b : b - a));
  const groups = priorities.map((priority) => {
    const titles = prioritized.filter((p) => p.priority === priority).map((p) => p.title);
    const lower = prioritized.filter((p) => p.priority < priority).map((p) => p.title);
    const notLower = lower.length
      ? ` AND NOT EXISTS (SELECT 1 FROM issuable_labels q WHERE q.issuable_type = '${type}' AND q.issuable_id = il.issuable_id AND q.title IN (${lower.map(literal).join(', ')}))`
      : '';
    const arms = titles.flatMap((title) =>
      states.map(
        (state) =>
          `SELECT il.issuable_id AS id FROM issuable_labels il INDEXED BY issuable_labels_project CROSS JOIN ${table} x ON x.id = il.issuable_id
            WHERE il.issuable_type = '${type}' AND il.project_id = ${projectId} AND il.title = ${literal(title)} COLLATE NOCASE AND il.title = ${literal(title)}
            AND il.state = ${literal(state)}${notLower} AND ${walk.where}`,
      ),
    );
    const sql = arms.length === 1 ? `${arms[0]} ORDER BY il.issuable_id DESC` : `${arms.join(' UNION ')} ORDER BY id DESC`;
    return { sql, args: arms.flatMap(() => walk.args) };
  });
  const rest = restList(rc, type, scope, filters, walk, { from: `FROM ${table} x WHERE ${walk.where}`, args: walk.args }, null, view);
  const log = type === 'Issue' ? ISSUE_WRITES : MERGE_REQUEST_WRITES;
  return (limit, offset) => {
    const ids: number[] = [];
    let skip = offset;
    for (const group of groups) {
      if (ids.length >= limit) break;
      if (skip > 0) {
        const n = countUpTo(db, `FROM (${group.sql})`, group.args, skip + 1);
        if (n <= skip) {
          skip -= n;
          continue;
        }
      }
      const rows = db.prepare(`${group.sql} ${limitSql(limit - ids.length)} OFFSET ?`).all(...group.args, skip) as { id: number }[];
      ids.push(...rows.map((r) => r.id));
      skip = 0;
    }
    if (ids.length < limit) ids.push(...rest(limit - ids.length, skip));
    return rowsByIds<T>(db, log, ids);
  };
}

/**
 * The list's records but `first`, newest id first, as ids. A walk of the table in rowid order (NOT
 * INDEXED: with an equality on an indexed column SQLite would read every match and sort them, a
 * million for the big project) when the walk reads fewer rows than the matches number (counted up
 * to that bound, as idSetLists decides); else the matches read and sorted. A project's walk starts
 * deep pages after a row an earlier page read (idOrderAnchors).
 */
function restList(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  walk: { where: string; args: unknown[] },
  source: { from: string; args: unknown[] },
  first: number[] | null,
  view: { seesAll: boolean; ownFilters: boolean; countFrom?: SqlList<unknown>['countFrom'] },
): (limit: number, offset: number) => number[] {
  const db = rc.svc.db;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  // Each record walked asked whether it has a key (its label rows, each title's label in its
  // project; its milestone), rather than the keyed ids listed in the statement.
  const order = filters.priority!;
  const without = order.excluded.length ? ` AND p.title NOT IN (${order.excluded.map(literal).join(', ')})` : '';
  const noKey =
    ` AND NOT EXISTS (SELECT 1 FROM issuable_labels p CROSS JOIN labels l ON l.project_id = x.project_id AND l.title = p.title WHERE p.issuable_type = '${type}' AND p.issuable_id = x.id AND l.priority IS NOT NULL${without})` +
    (order.groupLabels
      ? ` AND NOT EXISTS (SELECT 1 FROM issuable_labels p CROSS JOIN label_priorities lp ON lp.project_id = x.project_id CROSS JOIN labels l ON l.id = lp.label_id AND l.title = p.title WHERE p.issuable_type = '${type}' AND p.issuable_id = x.id${without})`
      : '') +
    (order.kind === 'priority' ? ' AND NOT EXISTS (SELECT 1 FROM milestones m WHERE m.id = x.milestone_id AND m.due_date IS NOT NULL)' : '');
  const page = readPage(rc.params);
  const records = scopeRecords(rc, type, scope);
  const total = (db.prepare('SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ?').get(type) as { n: number }).n;
  // Page 1's reach: a deep page walks from an anchor an earlier page read.
  const bound = PRIORITY_LIMITS.walkBound ?? Math.ceil(Math.sqrt((page.perPage + 1) * Math.max(1, total)));
  // One label's list of a project whose label rows are fewer than the bound (label_counts, every
  // state and confidentiality): its matches found from that title's label rows (core's
  // issuable_labels_project; NOT INDEXED: each looked up by id, in id order), not by the project's
  // records each asked for the label (label-1 on 2,778 of a million issues: counted up to the bound
  // in 353 ms, read and sorted in 400 ms). A label on more is read as before (its rows all read
  // first: `bug` on 112,000 issues, confidential=false p3, 19 -> 28 ms).
  const label = filters.labelOnly;
  const labelRows =
    label && scope.projectId !== undefined
      ? (db.prepare('SELECT coalesce(sum(n), 0) AS n FROM label_counts WHERE issuable_type = ? AND project_id = ? AND title = ? COLLATE NOCASE').get(type, scope.projectId, label.title) as { n: number }).n
      : Infinity;
  const matches =
    label && labelRows < bound
      ? {
          from: `FROM ${table} x NOT INDEXED WHERE x.id IN (SELECT il.issuable_id FROM issuable_labels il INDEXED BY issuable_labels_project WHERE il.issuable_type = '${type}' AND il.project_id = ? AND il.title = ? COLLATE NOCASE) AND ${walk.where}`,
          args: [scope.projectId, label.title, ...walk.args],
        }
      : source;
  // The list's own count where the list has one (in hand, or its narrower SQL counted as the
  // paginator counts it, which then finds it remembered): a group's merge requests with a label pair
  // were counted up to the bound again by a walk of every record, each asked both labels (94 ms,
  // where labelPairCount had counted them). A count capped under the bound (COUNT_LIMIT + 1 under
  // a page of 100's) says too little: the list's own count goes on up to the bound (a group's issues
  // milestone=Any, page 500 of 100: the walk's SQL, `+x.milestone_id`, read every record to 10,050).
  const counted = (): number => {
    const listCount = view.countFrom && matches === source ? listCountAtLeast(rc, type, scope, source, view.countFrom, bound) : undefined;
    if (listCount !== undefined && (listCount >= bound || listCount <= COUNT_LIMIT)) return listCount;
    // Up to the bound, remembered across writes that cannot bring it under (a group's issues with
    // milestone=Any, page 500: 10,050 counted again after every write elsewhere, 25-33 ms).
    return issuableCountPastLimit(rc, type, scope)(matches.from, matches.args, bound) ?? countUpTo(db, matches.from, matches.args, bound);
  };
  const walks = records >= bound && ((view.ownFilters && (countedAtLeast(rc, type, scope, filters) ?? 0) >= bound) || counted() >= bound);
  if (!walks) {
    return (limit, offset) =>
      (db.prepare(`SELECT x.id ${matches.from}${noKey} ORDER BY x.id DESC ${limitSql(limit)} OFFSET ?`).all(...matches.args, offset) as { id: number }[]).map((r) => r.id);
  }
  // A project's records in one state: walked in id order by core/103's (project_id, state, id) index,
  // where the table's own order crossed every record of the instance (a project's merged merge
  // requests, page 500 of 100: a million rows read for 50,000, 190-1,570 ms the first time).
  const conditions = walk.where.split(' AND ');
  const walked = scope.projectId !== undefined && filters.state !== null && conditions.includes('x.state = ?') && conditions.includes('x.project_id = ?') ? `INDEXED BY ${table}_project_state_id` : 'NOT INDEXED';
  // A common term's records checked as the walk reads them, where the walk reads fewer than its
  // matches (about `records / matches` records for each row it needs; searchCheckedByRecord):
  // search=issue page 500 read a million matches, ~200 ms, after every write.
  const wanted = page.offset + page.perPage + 1;
  const matchCount = searchMatchesAtLeast(filters, db, Math.ceil(Math.sqrt(RECORD_CHECK_PER_MATCH * wanted * records)));
  const checked = matchCount > 0 ? searchCheckedByRecord(filters, walk.where, walk.args, Math.ceil((wanted * records) / matchCount), matchCount) : { sql: walk.where, args: walk.args };
  const list = { select: 'x.id', from: `FROM ${table} x ${walked} WHERE ${checked.sql}${noKey}`, args: checked.args, order: 'x.id DESC' };
  const projectId = scope.projectId;
  // Keyed records not listed (too many: streamedRows): no digest of them for the anchors' key, so no anchors.
  // A scope of many projects: while its records' SQL is theirs alone (the key digest, below, holds the keys read from labels).
  const anchors =
    first === null
      ? undefined
      : projectId !== undefined
      ? idOrderAnchors<{ id: number }>(rc, type, projectId, list, view.seesAll)
      : scopeIdOrderAnchors<{ id: number }>(rc, type, scope, `FROM ${table} x WHERE ${walk.where}`, list, view.seesAll);
  // Filtered by the issues' own columns alone (a state, an author, the caller's view; the keyed ids
  // are in the key): rows move only with the writes issueOrderVersion counts, not a description's.
  if (anchors && type === 'Issue' && view.ownFilters && filters.counted && filters.counted.milestone === null) anchors.version = () => issueOrderVersion(rc, projectId!);
  // The keyed records of the list in the key: a record gaining or losing a key (a priority set on
  // a label, a record relabelled) leaves or enters the rest without a write the version counts.
  if (anchors) anchors.key = JSON.stringify([anchors.key, first!.length, createHash('sha1').update(first!.join(',')).digest('base64')]);
  return (limit, offset) => (listRows<{ id: number }>(db, { ...list, anchors: anchors as PageAnchors<{ id: number }> | undefined }, limit, offset)).map((r) => r.id);
}

/**
 * One label's list of a project, perhaps in one state and filtered by nothing else but the caller's
 * view, newest id first, as ids read from that title's label rows (issuable_labels_project holds a
 * state's rows in id order), no record read but a confidential issue's for a caller who may not see
 * it (labelRowsView; a Guest's issues with bug, page 500 of 100: 875 ms first):
 * restList walked the project's records asking each for the label (label-2 on 111,111 of
 * 1,020,000 merge requests by label_priority, page 500: 450,000 records, 620 ms first). Rows of one
 * state are read from an anchor an earlier page read (for a view with no membership in it, as
 * labelRowsPage); of several, one arm a state merged by SQLite (UNION: also a record's second
 * spelling dropped). Undefined for any other list.
 */
function labelRowsIds(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  walk: { where: string; args: unknown[] },
  seesAll: boolean,
): ((limit: number, offset: number) => number[]) | undefined {
  const label = filters.labelOnly;
  const projectId = scope.projectId;
  if (!label || label.milestone !== null || label.authorId !== null || projectId === undefined) return undefined;
  const conditions = [...(label.state ? ['x.state = ?'] : []), labelProbe(type), scope.where, ...(type === 'Issue' ? [filters.view ?? '1 = 1'] : [])];
  if (walk.where !== conditions.join(' AND ')) return undefined;
  const viewArgs = walk.args.slice((label.state ? 1 : 0) + 1 + scope.args.length);
  const view = labelRowsView(type, scope, { sql: filters.view ?? '1 = 1', args: viewArgs });
  if (view.joined) return undefined;
  const db = rc.svc.db;
  // The title's spellings and states in the project (the label counters, every confidentiality).
  const kept = db
    .prepare(`SELECT DISTINCT title, state FROM label_counts WHERE issuable_type = ? AND project_id = ? AND title = ? COLLATE NOCASE AND n > 0${label.state ? ' AND state = ?' : ''}`)
    .all(type, projectId, label.title, ...(label.state ? [label.state] : [])) as { title: string; state: string }[];
  const states = [...new Set(kept.map((k) => k.state))];
  if (!states.length) return () => [];
  const rows = `FROM issuable_labels il INDEXED BY issuable_labels_project WHERE il.issuable_type = '${type}' AND il.project_id = ? AND il.title = ? COLLATE NOCASE AND il.state = ?${view.sql}`;
  if (states.length > 1) {
    const sql = `${states.map(() => `SELECT il.issuable_id AS id ${rows}`).join(' UNION ')} ORDER BY id DESC`;
    const args = states.flatMap((state) => [projectId, label.title, state, ...viewArgs]);
    return (limit, offset) => (db.prepare(`${sql} ${limitSql(limit)} OFFSET ?`).all(...args, offset) as { id: number }[]).map((r) => r.id);
  }
  const spellings = new Set(kept.map((k) => k.title)).size;
  const list = { select: 'il.issuable_id AS id', from: `${rows}${spellings > 1 ? lowestSpelling(type) : ''}`, args: [projectId, label.title, states[0], ...viewArgs], order: 'il.issuable_id DESC' };
  const anchors: PageAnchors<{ id: number }> | undefined = viewArgs.length ? undefined : { ...idOrderAnchors<{ id: number }>(rc, type, projectId, list, seesAll), column: 'il.issuable_id', idColumn: 'il.issuable_id' };
  return (limit, offset) => listRows<{ id: number }>(db, { ...list, anchors }, limit, offset).map((r) => r.id);
}

/**
 * How many records a list of a project, a group's projects or the instance holds at least, from the
 * counters, when its filters are its records' own (a state and an author: the filter counters,
 * core/018) or one label and perhaps a state (the label counters, core/016): the confidential ones
 * left out, which not every caller sees. (A group's merged merge requests were counted up to the
 * walk's bound, 10,150 of them, to choose: 250 ms.)
 */
function countedAtLeast(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters): number | undefined {
  // A scope the counters name (the caller's own records of the instance are not one).
  const counters: [string, unknown[]] | undefined =
    scope.projectId !== undefined ? [' AND project_id = ?', [scope.projectId]] : scope.projects ? [` AND project_id IN (${scope.projects})`, scope.args] : scope.instance ? ['', []] : undefined;
  if (!counters) return undefined;
  const [inScope, scopeArgs] = counters;
  const db = rc.svc.db;
  const counted = filters.counted;
  if (counted && counted.milestone === null) {
    const table = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
    const where = [...(counted.state ? ['state = ?'] : []), ...(counted.authorId !== null ? ['author = ?'] : []), ...(type === 'Issue' ? ['confidential = 0'] : [])];
    const args = [...(counted.state ? [counted.state] : []), ...(counted.authorId !== null ? [counted.authorId] : [])];
    return (db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM ${table} WHERE 1 = 1${inScope}${where.map((w) => ` AND ${w}`).join('')}`).get(...scopeArgs, ...args) as { n: number }).n;
  }
  const label = filters.labelOnly;
  if (label && label.milestone === null && label.authorId === null) {
    const state = label.state ? ' AND state = ?' : '';
    return (
      db
        .prepare(`SELECT coalesce(sum(n), 0) AS n FROM label_counts WHERE issuable_type = ?${inScope} AND title = ? COLLATE NOCASE AND confidential = 0${state}`)
        .get(type, ...scopeArgs, label.title, ...(label.state ? [label.state] : [])) as { n: number }
    ).n;
  }
  return undefined;
}

/** The scope's records of the type (all states) from the state counters (core/017). */
function scopeRecords(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope): number {
  const [cond, args] = scope.projectId !== undefined ? [' AND project_id = ?', [scope.projectId]] : scope.projects ? [` AND +project_id IN (${scope.projects})`, scope.args] : ['', []];
  return (rc.svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ?${cond}`).get(type, ...args) as { n: number }).n;
}
