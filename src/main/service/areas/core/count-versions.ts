import type { RequestContext } from '../../http/route';
import { COUNT_LIMIT, type SqlList, countUpTo, walkReadsAsCount } from '../../http/pagination';
import { type Db, tableVersion } from '../../db/connection';
import { MEMORY_BUDGET } from '../../memory';
import { PROJECTS_LISTED_VERSION, readsListedProjectsOnly } from './project-list-version';
import { type Scope, lastListWrite, listVersion, listVersionIn } from './workitems';

/** A count past COUNT_LIMIT is walked this much further, so that it stays past it through as many writes. */
export const PAST_LIMIT_MARGIN = 1_000;

/**
 * The capped count of an issue or merge request list whose SQL reads nothing but the list's own
 * table (own columns, date lags, milestone ids: readsOnly) and its label rows, remembered across writes: a write
 * moves a project's list version (core/019, core/020: every insert, update and delete of its
 * records) or the instance's write log (core/041) by one and changes the count by one at most, so
 * a count of N found at one version is at least N - (versions since) at a later one
 * (countAtLeast). Past COUNT_LIMIT that is all the answer says ("more than"; X-Total
 * omitted), so the count walks PAST_LIMIT_MARGIN further once and is not walked again for as many
 * writes: 10,001 index entries were 0.4-1 ms of every date-filtered or milestone=Any page at a
 * million records. The scope's version: recordsVersion (a project's, the instance's, or the sum over
 * a group's projects). A cap past COUNT_LIMIT + 1 (a reader's bound) the same, counted again when the bound
 * falls under it. A count within COUNT_LIMIT (the list's length) of a group or the instance, or through
 * the full-text index, is kept while the version stays. A cap of COUNT_LIMIT or less only from what
 * is remembered (else undefined: counted as before). Undefined for a count that reads other tables
 * (labels, epics, memberships, more than VERSIONED_PROJECTS projects) or the clock.
 */
export function issuableCountPastLimit(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope): CountKnown {
  const db = rc.svc.db;
  let records: RecordsVersion | null | undefined = null;
  return (from, args, cap, counter) => {
    if (records === null) records = recordsVersion(rc, type, scope);
    if (!records) return undefined;
    const own = records;
    // The records' label rows of any title (a pair's set, a title less another: labelTitlesList's
    // FROM) are kept by the records' triggers from their labels column: they move only with their writes.
    const rows = own.reads(from) || own.reads(from, 'issuable_labels');
    // An issue's epic link (epic_id filters) moves epics/015's version: one link written changes one issue's membership.
    const links = type === 'Issue' && !rows && own.reads(from, EPIC_LINKS);
    // The records' full-text index is kept by their own triggers: it moves only with their writes.
    const searched = !links && !rows && own.reads(from, type === 'Issue' ? 'issues_search' : 'merge_requests_search');
    if (!links && !searched && !rows) return undefined;
    const version = links ? () => own.version() + tableVersionOf(db, EPIC_LINKS) : own.version;
    const key = pastLimitKey(own.keyOf(from), from, args);
    // A cap within COUNT_LIMIT (a reader's bound: label_priority's walk of a page of 20 at a million,
    // 4,629) is answered by a count remembered past it (the paginator's), never counted here: a
    // group's merge requests with a label pair by label_priority counted it again after every write
    // elsewhere (26 ms).
    if (cap <= COUNT_LIMIT) {
      const known = rememberedCount(db, key, version);
      return known === undefined ? undefined : known.exact ? Math.min(cap, known.matches) : known.matches >= cap ? cap : undefined;
    }
    // Within COUNT_LIMIT, a scope of projects' count (it names them: the statement's own answer goes at
    // any project's write) and a full-text one (the index is unversioned) kept at the version; a
    // project's count names its records alone, whose own answer outlives writes to other tables.
    const keepExact = searched || scope.projectId === undefined;
    return Math.min(cap, countAtLeast(db, key, version, () => (counter ?? ((c: number) => countUpTo(db, from, args, c)))(cap + PAST_LIMIT_MARGIN), cap, keepExact));
  };
}

/**
 * A list's count from `from` up to `cap` kept across writes (issuableCountPastLimit), or undefined:
 * counted by `counter` when given (the same count read another way: searchRowsCount's checked
 * records), else from `from`.
 */
export type CountKnown = (from: string, args: unknown[], cap: number, counter?: (cap: number) => number) => number | undefined;

/**
 * A project's list past COUNT_LIMIT counted to the page (SqlList.countToPage) where that costs less
 * than the walk to it: the walk reads the order's index of the project's records, about
 * cap * records / matches entries, where the count reads at most the state's records (their index,
 * core/017's counters say how many), which bound the matches. Counted when state^2 <= cap * records,
 * then remembered as issuableCountPastLimit's. A project's closed issues labels=Any by due_date page
 * 500 walked all 1,000,000 records to find 33,334 (~560 ms); counting the 100,000 closed reads ~60 ms.
 */
export function issuableCountToPage(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, state: string | null): SqlList<unknown>['countToPage'] {
  if (scope.projectId === undefined) return undefined;
  const projectId = scope.projectId;
  const pastLimit = issuableCountPastLimit(rc, type, scope);
  return (from, args, cap, walk) => {
    const db = rc.svc.db;
    const inState = (which: string | null): number =>
      (db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ? AND project_id = ?${which ? ' AND state = ?' : ''}`).get(type, projectId, ...(which ? [which] : [])) as { n: number }).n;
    const matchesAtMost = inState(state);
    if (matchesAtMost * matchesAtMost > cap * (state ? inState(null) : matchesAtMost)) return undefined;
    // Not where the walk reads the state's records in order as the count does (the state's created_at
    // index): closed issues created_after by created_at, page 500 of 100, counted 50,001 then walked them.
    if (walkReadsAsCount(db, walk, { from, args })) return undefined;
    return pastLimit(from, args, cap) ?? countUpTo(db, from, args, cap);
  };
}

/**
 * A list's count, capped at COUNT_LIMIT + 1, as paginateSql counts it (its countFrom: in hand, from
 * counters, by its own reader or its narrower SQL; else the list's own FROM), a count past the
 * limit remembered at the records' version: the paginator's count after finds it remembered. For a
 * reader that chooses how to read the page by the list's length.
 */
export function listCountAtLeast(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  list: { from: string; args: unknown[] },
  countFrom: SqlList<unknown>['countFrom'],
  cap = COUNT_LIMIT + 1,
): number {
  // A count in hand past COUNT_LIMIT says "more than" only: counted further for a cap past it.
  if (countFrom && 'counted' in countFrom && (countFrom.exact || countFrom.counted <= COUNT_LIMIT || cap <= COUNT_LIMIT + 1)) return countFrom.counted;
  if (countFrom && 'total' in countFrom) return countFrom.total();
  if (countFrom && 'count' in countFrom) return countFrom.count(cap);
  const { from, args } = countFrom && 'from' in countFrom ? countFrom : list;
  return issuableCountPastLimit(rc, type, scope)(from, args, cap) ?? countUpTo(rc.svc.db, from, args, cap);
}

/** A scope of many projects is versioned by its projects' list versions up to this many projects (one sum over them a request). */
export const VERSIONED_PROJECTS = 64;

/**
 * What moves whenever a record a list's SQL may read is written, for the scope's records:
 * `version` (only grows; each write of one record moves it by one at least), `key` (what else the
 * SQL's answer depends on, for a key of what is remembered) and `reads` (the SQL reads nothing but
 * the records and what their own writes keep: readsOnly, their label rows (issuable_labels, kept
 * by the records' triggers from their labels column), `also`).
 * - a project: its list version (core/019, core/020);
 * - a scope with no project condition (an administrator's instance, with or without `scope`'s
 *   author): the instance's write log (core/041);
 * - a scope of projects (a group's, or those a caller sees), of at most VERSIONED_PROJECTS: the
 *   projects' ids read now (their SELECT, SQL the version cannot see: projects moved, archived,
 *   made private) are the key, the sum of their list versions the version; the SELECT's own text
 *   is left out of `reads`.
 * Undefined for a larger scope of projects.
 */
export interface RecordsVersion {
  key: unknown;
  version: () => number;
  reads: (sql: string, also?: string) => boolean;
  /** `key` for what `sql` reads: with the milestones' table version (core/099) when it names milestones by title (any milestone write a new key). */
  keyOf: (sql: string) => unknown;
  /** The other tables `sql` reads (tablesBeyond), the scope's projects' SELECT left out. */
  beyond: (sql: string) => string[] | null;
}

/**
 * A label title's rows as the FROM of a set's list (idSetLists' `(SELECT DISTINCT +il.issuable_id AS
 * id FROM issuable_labels il ... WHERE il.issuable_type = ... AND <the rows' own columns>) s CROSS
 * JOIN <table> x`): kept by the records' triggers as OWN_LABEL_ROWS are, so a count through them
 * changes only with a write to a record. (Its count of a group's merge requests bug&not[labels]&
 * assignee_id=None, past COUNT_LIMIT, was walked again after every write: 20-40 ms.)
 */
const LABEL_SET_ROWS = /\(SELECT DISTINCT \+il\.issuable_id AS id FROM issuable_labels il(?: INDEXED BY \w+)? WHERE il\.issuable_type = '(?:Issue|MergeRequest)' AND [^()]*\) s CROSS JOIN /g;

export function recordsVersion(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope): RecordsVersion | undefined {
  const db = rc.svc.db;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const own = (sql: string, also?: string): boolean => readsOwn(sql, table, also);
  const keyed = (key: unknown) => (sql: string) => (sql.includes(MILESTONE_TITLE) ? [key, tableVersion(db, 'milestones') ?? 0] : key);
  if (scope.projectId !== undefined) {
    const projectId = scope.projectId;
    return { key: projectId, version: () => listVersionIn(db, type, projectId), reads: own, keyOf: keyed(projectId), beyond: (sql) => tablesBeyond(db, sql, table) };
  }
  if (scope.instance || (!scope.projects && !scope.unindexed && !scope.idSets?.length && readsOnly(`FROM ${table} x WHERE ${scope.where}`, table))) {
    return { key: 'instance', version: () => lastListWrite(db), reads: own, keyOf: keyed('instance'), beyond: (sql) => tablesBeyond(db, sql, table) };
  }
  if (!scope.projects) return undefined;
  const ids = (db.prepare(`SELECT id FROM (${scope.projects}) LIMIT ${VERSIONED_PROJECTS + 1}`).all(...scope.args) as { id: number }[]).map((r) => r.id).sort((a, b) => a - b);
  if (ids.length > VERSIONED_PROJECTS) return undefined;
  const projects = scope.projects;
  const versions = type === 'Issue' ? 'issue_list_versions' : 'merge_request_list_versions';
  const idList = JSON.stringify(ids);
  return {
    key: ids,
    version: () => (db.prepare(`SELECT coalesce(sum(version), 0) AS v FROM ${versions} WHERE project_id IN (SELECT value FROM json_each(?))`).get(idList) as { v: number }).v,
    reads: (sql, also) => own(sql.split(projects).join(''), also),
    keyOf: keyed(ids),
    beyond: (sql) => tablesBeyond(db, sql.split(projects).join(''), table),
  };
}

/**
 * A page's records' version (SqlList.keptRows) for a scope of more projects than VERSIONED_PROJECTS
 * (recordsVersion has none: a member's or an anonymous caller's instance, every public and internal
 * project and their own): the instance's write log, its projects' SELECT left in the SQL whose other
 * tables' versions key the page (projects by their listed columns, memberships, namespaces:
 * tablesBeyond). A member's /issues?scope=all read its scope and planned its list again after every
 * write elsewhere (4-9 ms).
 */
export function wideScopeVersion(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope): Pick<RecordsVersion, 'version' | 'keyOf' | 'beyond'> | undefined {
  if (!scope.projects) return undefined;
  const db = rc.svc.db;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  return {
    version: () => lastListWrite(db),
    keyOf: (sql) => (sql.includes(MILESTONE_TITLE) ? ['wide', tableVersion(db, 'milestones') ?? 0] : 'wide'),
    beyond: (sql) => tablesBeyond(db, sql, table),
  };
}

/**
 * A milestone title's ids (milestoneSet): which milestones bear the title moves with no record
 * written, so a count or anchors reading it are kept under the milestones' table version too
 * (RecordsVersion.keyOf), which any milestone write moves.
 */
const MILESTONE_TITLE = '(SELECT id FROM milestones WHERE title = ?)';
const MILESTONE_TITLES = /\(SELECT id FROM milestones WHERE title = \?\)/g;

/**
 * A label filter's probe of a record's own label rows (`EXISTS (SELECT 1 FROM issuable_labels il WHERE
 * il.issuable_type = '...' AND il.issuable_id = +x.id AND ...)`, labelProbe): the rows are the record's labels
 * column as its triggers keep them, so they change only with a write to the record.
 */
const OWN_LABEL_ROWS = /\(SELECT 1 FROM issuable_labels il WHERE il\.issuable_type = '(?:Issue|MergeRequest)' AND il\.issuable_id = \+x\.id AND [^()]*\)/g;

/**
 * Whether a scope holds more than COUNT_LIMIT records (its own condition alone, e.g. an
 * administrator's `scope=created_by_me`), counted once past it and kept across writes as
 * issuableCountPastLimit's.
 */
export function manyScopeRecords(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope): boolean {
  // An administrator's own records in every project: the author's filter counters (core/018, core/028) hold their number.
  if (scope.everyProject && scope.authorId !== undefined) {
    const counters = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
    return (rc.svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM ${counters} WHERE author = ?`).get(scope.authorId) as { n: number }).n > COUNT_LIMIT;
  }
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const from = `FROM ${table} x WHERE ${scope.where}`;
  const records = recordsVersion(rc, type, scope);
  if (!records?.reads(from)) return countUpTo(rc.svc.db, from, scope.args, COUNT_LIMIT + 1) > COUNT_LIMIT;
  const key = pastLimitKey(records.key, from, scope.args);
  return countAtLeast(rc.svc.db, key, records.version, () => countUpTo(rc.svc.db, from, scope.args, COUNT_LIMIT + 1 + PAST_LIMIT_MARGIN)) > COUNT_LIMIT;
}

/** FROMs seen by pastLimitKey, each with its number (never reused: a number names one text for good). */
const fromNumbers = new Map<string, number>();
let nextFromNumber = 0;

/**
 * A remembered count's key: what else decides it (`scope`), its FROM by number and its
 * arguments. The FROM of a list of date-lag buckets is 8-15 KB of SQL, kept as one string
 * (date-lag.ts's plans): looked up by it, where written into every key it was copied and
 * hashed whole on each count.
 */
function pastLimitKey(scope: unknown, from: string, args: unknown[]): string {
  let n = fromNumbers.get(from);
  if (n === undefined) {
    if (fromNumbers.size >= MEMORY_BUDGET.largeLists) fromNumbers.clear();
    fromNumbers.set(from, (n = nextFromNumber++));
  }
  return JSON.stringify(['past limit', scope, n, args]);
}

/** Counts found past COUNT_LIMIT per database: key -> the version and the count then. */
const pastLimit = new WeakMap<Db, Map<string, { version: number; matches: number }>>();
/**
 * Counts within COUNT_LIMIT per database (the list's length): key -> the version and the count
 * then. Apart from pastLimit's, so that the many short lists never crowd out a long one's count.
 */
const exactCounts = new WeakMap<Db, Map<string, { version: number; matches: number }>>();

/**
 * `count()`, or a lower bound past COUNT_LIMIT: a count past it found at one version, less the
 * versions since (a version moves by one with each write, which adds or drops one record at most),
 * while that bound holds `atLeast` (a count up to a cap past COUNT_LIMIT + 1: counted again below it).
 * A count within COUNT_LIMIT is the list's length (every caller counts past it), kept at its version
 * alone when asked (`keepExact`: issuableCountPastLimit's; a group's count names its projects, so the
 * statement's own answer went at every write to any project: /groups/2/merge_requests?state=merged&
 * labels=Any&created_after=2024-06-01 counted 8,797 again after each, 38 ms). Not inside a
 * transaction (it may roll back).
 */
function countAtLeast(db: Db, key: string, version: () => number, count: () => number, atLeast = COUNT_LIMIT + 1, keepExact = false): number {
  if (db.inTransaction) return count();
  let lists = pastLimit.get(db);
  if (!lists) pastLimit.set(db, (lists = new Map()));
  let exact = exactCounts.get(db);
  if (!exact) exactCounts.set(db, (exact = new Map()));
  const now = version();
  // A count within COUNT_LIMIT (under the cap counted to: the list's length) holds while the version stays.
  const length = keepExact ? exact.get(key) : undefined;
  if (length?.version === now) return length.matches;
  const known = lists.get(key);
  if (known && now >= known.version && known.matches - (now - known.version) >= Math.max(atLeast, COUNT_LIMIT + 1)) return known.matches - (now - known.version);
  const matches = count();
  if (matches > COUNT_LIMIT) {
    if (!known && lists.size >= MEMORY_BUDGET.largeLists) lists.clear();
    lists.set(key, { version: now, matches });
    exact.delete(key);
  } else {
    lists.delete(key);
    if (keepExact) {
      if (!length && exact.size >= MEMORY_BUDGET.largeLists) exact.clear();
      exact.set(key, { version: now, matches });
    }
  }
  return matches;
}

/** What countAtLeast holds for `key` now, without counting: the count at this version (`exact`), or a lower bound. */
function rememberedCount(db: Db, key: string, version: () => number): { matches: number; exact: boolean } | undefined {
  if (db.inTransaction) return undefined;
  const length = exactCounts.get(db)?.get(key);
  const known = pastLimit.get(db)?.get(key);
  if (!length && !known) return undefined;
  const now = version();
  if (length?.version === now) return { matches: length.matches, exact: true };
  return known && now >= known.version ? { matches: known.matches - (now - known.version), exact: false } : undefined;
}

/**
 * A count of a project's records (`from` reading its table alone), up to `cap`, or a lower bound
 * past COUNT_LIMIT remembered as issuableCountPastLimit's (walked PAST_LIMIT_MARGIN further once).
 */
export function projectRecordsAtLeast(rc: RequestContext, type: 'Issue' | 'MergeRequest', projectId: number, from: string, args: unknown[], cap: number): number {
  const db = rc.svc.db;
  const key = pastLimitKey(projectId, from, args);
  return countAtLeast(db, key, () => listVersion(rc, type, projectId), () => countUpTo(db, from, args, cap + PAST_LIMIT_MARGIN));
}

/** The issues' epic links, versioned by epics/015. */
const EPIC_LINKS = 'epic_issues';

/** A table's version in table_versions (core/099, epics/015; 0 before its migration). */
function tableVersionOf(db: Db, name: string): number {
  return tableVersion(db, name) ?? 0;
}

/** readsOwn's answers by table (and `also`), then SQL text (beyond this many texts of a table, all are let go). */
const ownReads = new Map<string, Map<string, boolean>>();
const OWN_READS = 500;

/**
 * Whether `sql` reads nothing but `table`'s records and what their own writes keep (readsOnly,
 * their own label rows, a label's rows as a set's FROM and milestone titles left out), by its text: asked of a list's SQL on
 * every page (its count's and anchors' versions), 8-15 KB of text for a list of date-lag buckets,
 * which three patterns scanned each time.
 */
function readsOwn(sql: string, table: string, also?: string): boolean {
  const of = also === undefined ? table : `${table} ${also}`;
  let known = ownReads.get(of);
  if (!known) ownReads.set(of, (known = new Map()));
  let reads = known.get(sql);
  if (reads === undefined) {
    if (known.size >= OWN_READS) known.clear();
    known.set(sql, (reads = readsOnly(sql.replace(OWN_LABEL_ROWS, '').replace(LABEL_SET_ROWS, '').replace(MILESTONE_TITLES, ''), table, also)));
  }
  return reads;
}

/** tablesBeyond's answers by table, then SQL text (beyond this many texts of a table, all are let go). */
const beyondReads = new Map<string, Map<string, string[] | null>>();

/**
 * The tables `sql` reads (after FROM or JOIN) besides `table` and what its records' own writes keep
 * (readsOwn's label rows and milestone titles), and json_each of an argument (what it reads is in
 * the arguments), each once: those whose versions (core/099, core/109, core/173) must hold too for
 * an answer read at the records' version to hold. A WITH clause's names are no tables (what they
 * read, their own FROMs name); projects read only through their listed columns (a caller's
 * memberships: readsListedProjectsOnly) are named by those columns' version, projects_listed
 * (core/130). Null where the text cannot tell (readsOnly's refusals: a comma join, a time that
 * moves on its own). Asked on every page: remembered by text.
 */
export function tablesBeyond(db: Db, sql: string, table: string): string[] | null {
  let known = beyondReads.get(table);
  if (!known) beyondReads.set(table, (known = new Map()));
  let tables = known.get(sql);
  if (tables === undefined) {
    if (known.size >= OWN_READS) known.clear();
    const text = sql.replace(OWN_LABEL_ROWS, '').replace(LABEL_SET_ROWS, '').replace(MILESTONE_TITLES, '');
    const named = new Set<string>();
    for (const m of text.matchAll(/\b(?:FROM|JOIN)\s+([^\s(),]+)(\(\?\))?/gi)) if (m[1] !== table && !(m[1] === 'json_each' && m[2])) named.add(m[1]);
    for (const m of text.matchAll(WITH_NAMES)) named.delete(m[1]);
    if (named.has('projects') && readsListedProjectsOnly(db, text)) {
      named.delete('projects');
      named.add(PROJECTS_LISTED_VERSION);
    }
    tables = tablesTold(text) ? [...named] : null;
    known.set(sql, tables);
  }
  return tables;
}

/** The name a WITH clause gives what it reads (`WITH RECURSIVE ug(id) AS (`: access.ts's memberships). */
const WITH_NAMES = /\bWITH\s+(?:RECURSIVE\s+)?(\w+)\s*(?:\([^()]*\))?\s*AS\s*\(/gi;

/** Whether `sql`'s FROMs and JOINs name every table it reads, and it names no time that moves on its own. */
function tablesTold(sql: string): boolean {
  if (/'now'|current_(date|time|timestamp)|random\(/i.test(sql)) return false;
  // A comma join is not looked into; a FROM followed by a subquery's parenthesis reads what the subquery's own FROMs name.
  return !/\bFROM\s+\w+(\s+(AS\s+)?\w+)?(\s+INDEXED\s+BY\s+\w+)?\s*,/i.test(sql);
}

/** Every table `sql` reads (after FROM or JOIN) is `table` (or `also`), and it names no time that moves on its own. */
export function readsOnly(sql: string, table: string, also?: string): boolean {
  if (!tablesTold(sql)) return false;
  for (const m of sql.matchAll(/\b(?:FROM|JOIN)\s+([^\s(),]+)/gi)) if (m[1] !== table && m[1] !== also) return false;
  return true;
}
