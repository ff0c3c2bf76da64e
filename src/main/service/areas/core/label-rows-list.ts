import type { RequestContext } from '../../http/route';
import { limitSql } from '../../http/pagination';
import { rowsByIds } from '../../db/written-rows';
import { dateLag } from '../../db/date-lag';
import { type IdSetLists, ISSUE_WRITES, MERGE_REQUEST_WRITES, type Scope, type WorkItemFilters, callerSetFewer } from './workitems';
import { MILESTONE_BY_ID, labelProbe, labelProbeById, labelRowConditions, lowestSpelling } from './label-row-mirrors';

/**
 * Label rows a list's walk reads at most (its titles' rows in the index it walks, from the counters):
 * past it the list reads as before (a common title's rows each asked a selective date bound would
 * read far more than the list's other readers), unless the page reads every row of the same title
 * anyway (readsTitleAnyway).
 */
export const LABEL_ROWS = { walk: 20_000 };

/** The rows of a title (any spelling) in a scope's projects (`projects` their SELECT, `args` its arguments), from the label counters. */
function titleRows(db: RequestContext['svc']['db'], type: string, title: string, projects: string, args: unknown[]): number {
  return (db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM label_counts INDEXED BY label_counts_title WHERE issuable_type = ? AND title = ? COLLATE NOCASE AND +project_id IN (${projects})`).get(type, title, ...args) as { n: number }).n;
}

/**
 * A list in creation or update order whose every condition a label title's rows answer (label
 * rows carry their record's state, author, dates and milestone, and the other titles are asked by
 * the row's id: label-row-mirrors.ts labelRowConditions), read from the rows of its title that has
 * the fewest, in the order's index: an author's through core/148's (type, author, title,
 * created_at), a project's through (type, project, title, created_at|updated_at), else the title's
 * own. The page's records are the only ones read; the count reads the rows alone. A record carrying
 * the title in two spellings has two rows: only its lowest spelling is read. Undefined when a
 * condition is not asked of the rows, the order is another, or the walk would read more than
 * LABEL_ROWS.walk rows (labels=label-1&author_id&updated_before's deep page walked the project's
 * million merge requests in creation order to find the author's 3,700: 460 ms).
 */
export function labelRowsList<T>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  sets?: IdSetLists,
  /** dateLagList walks the list's buckets (its plan 'buckets'; not a narrow range read and sorted). */
  byDates?: boolean,
): { count: { from: string; args: unknown[] }; rows: (limit: number, offset: number) => T[] } | undefined {
  const col = filters.orderColumn;
  if (filters.empty || filters.search || filters.priority || !filters.requiredLabels.length) return undefined;
  if ((col !== 'created_at' && col !== 'updated_at') || filters.order !== `x.${col} ${filters.sort}, x.id ${filters.sort}`) return undefined;
  const db = rc.svc.db;
  const project = scope.projectId;
  // The author every record has, when one is asked (a filter, or the administrator's own records).
  const authorAt = where.indexOf('x.author_id = ?');
  const author = authorAt < 0 ? undefined : args[where.slice(0, authorAt).reduce((n, w) => n + w.split('?').length - 1, 0)];
  // Each title's rows the walk would read: the author's of the title (anywhere), else the project's, else the title's everywhere.
  const walked = (title: string): number =>
    author !== undefined
      ? (db.prepare('SELECT coalesce(sum(n), 0) AS n FROM label_author_counts INDEXED BY label_author_counts_author WHERE issuable_type = ? AND author_id = ? AND title = ? COLLATE NOCASE').get(type, author, title) as { n: number }).n
      : (db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM label_counts WHERE issuable_type = ? AND title = ? COLLATE NOCASE${project !== undefined ? ' AND project_id = ?' : ''}`).get(type, title, ...(project !== undefined ? [project] : [])) as { n: number }).n;
  const [drive, reads] = filters.requiredLabels.map((title) => [title, walked(title)] as const).reduce((a, b) => (b[1] < a[1] ? b : a));
  if (callerSetFewer(rc, scope, reads)) return undefined;
  // Past the cap beside dateLagList's bucket walk (`byDates`), when the rows can start where its buckets do (createdBefore).
  const before = reads > LABEL_ROWS.walk && byDates ? createdBefore(rc, type, filters, where, args) : undefined;
  if (reads > LABEL_ROWS.walk && before === undefined && !readsTitleAnyway(rc, type, scope, filters, where, drive, reads, sets)) return undefined;
  const asked = labelRowConditions(where, args, {
    alias: 'il',
    title: drive,
    project: project !== undefined,
    labelProbe: labelProbe(type),
    byId: (id) => labelProbeById(type, id),
    projects: scope.projects ? [scope.where, scope.unindexed ?? scope.where] : [],
    projectsHold: !!scope.projects && author === undefined && titleRows(db, type, drive, scope.projects, scope.args) === reads,
  });
  if (!asked) return undefined;
  // A title in one spelling (the counters show no other anywhere): each record has one row of it.
  const spellings = (db.prepare('SELECT count(DISTINCT title) AS n FROM label_counts INDEXED BY label_counts_title WHERE issuable_type = ? AND title = ? COLLATE NOCASE AND n > 0').get(type, drive) as { n: number }).n;
  const index = author !== undefined ? 'issuable_labels_author' : project !== undefined ? (col === 'created_at' ? 'issuable_labels_created' : 'issuable_labels_updated') : col === 'created_at' ? 'issuable_labels_title_created' : 'issuable_labels_title_updated';
  // The order's column is in each partial index's condition (the author's holds created_at too).
  const inIndex = ` AND il.${col} IS NOT NULL${author !== undefined && col !== 'created_at' ? ' AND il.created_at IS NOT NULL' : ''}`;
  const rows = `FROM issuable_labels il INDEXED BY ${index} WHERE il.issuable_type = '${type}'${project !== undefined ? ` AND il.project_id = ${Number(project)}` : ''} AND il.title = ? COLLATE NOCASE${inIndex}${asked.sql}`;
  const lowest = spellings > 1 ? lowestSpelling(type) : '';
  const from = `${rows}${before !== undefined ? ' AND il.created_at <= ?' : ''}${lowest}`;
  // The count keeps no order: past the cap from updated_before, the title's rows in that range by
  // update (every label row carries its record's creation time, core/030), not all its rows by
  // creation, each looked up for its update time.
  const counted = author === undefined && before !== undefined
    ? `FROM issuable_labels il INDEXED BY ${project !== undefined ? 'issuable_labels_updated' : 'issuable_labels_title_updated'} WHERE il.issuable_type = '${type}'${project !== undefined ? ` AND il.project_id = ${Number(project)}` : ''} AND il.title = ? COLLATE NOCASE${asked.sql}`
    : rows;
  const fromArgs = [drive, ...asked.args];
  const dir = filters.sort === 'asc' ? 'ASC' : 'DESC';
  const log = type === 'Issue' ? ISSUE_WRITES : MERGE_REQUEST_WRITES;
  return {
    // Two spellings: the count keeps each record's rows once by its id (no probe of the record's other rows).
    count: spellings > 1 ? { from: `FROM (SELECT DISTINCT +il.issuable_id AS id ${counted}) s`, args: fromArgs } : { from: `${counted}${lowest}`, args: fromArgs },
    rows: (limit, offset) => {
      const ids = db.prepare(`SELECT il.issuable_id AS id ${from} ORDER BY il.${col} ${dir}, il.issuable_id ${dir} ${limitSql(limit)} OFFSET ?`).all(...fromArgs, ...(before !== undefined ? [before] : []), offset) as { id: number }[];
      return rowsByIds<T>(db, log, ids.map((r) => r.id));
    },
  };
}

/**
 * The updated_before D of a list in creation order bounded by it alone on the update date, beside
 * dateLagList's walk (the list's order walked in the scope's records, each asked every title): its
 * title's rows in the same order are some of those records, each looked up once for its update
 * time. Only when no record of the type updated before it was created, or with a date that is not
 * canonical (date-lag.ts dateLag: -1 or NULL), was created after D: then every match was created
 * at or before D (text order), and the rows start there as the buckets do; else undefined (the
 * walk would look up every newer row first: a group's merge requests labels=bug,label-4 by
 * creation with updated_before, 59,000 of label-4's rows). Page 50 of 100 walked a million merge
 * requests' buckets, each asked label-4 (120 ms of 254).
 */
function createdBefore(rc: RequestContext, type: 'Issue' | 'MergeRequest', filters: WorkItemFilters, where: string[], args: unknown[]): string | undefined {
  if (filters.orderColumn !== 'created_at' || where.includes('x.updated_at >= ?')) return undefined;
  const at = where.indexOf('x.updated_at <= ?');
  if (at < 0) return undefined;
  const d = args[where.slice(0, at).reduce((n, w) => n + w.split('?').length - 1, 0)];
  if (typeof d !== 'string') return undefined;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const lag = dateLag('x.');
  const early = rc.svc.db
    .prepare(`SELECT EXISTS (SELECT 1 FROM ${table} x INDEXED BY ${table}_lag_created WHERE ${lag} = -1 AND x.created_at > ?) OR EXISTS (SELECT 1 FROM ${table} x INDEXED BY ${table}_lag_created WHERE ${lag} IS NULL) AS n`)
    .get(d) as { n: number };
  return early.n ? undefined : d;
}

/**
 * A list whose page reads every row of `title` anyway, or more: idSetLists' walk of the instance's
 * order for a group's (unindexed) or the instance's list, each record probed for the title, reads
 * every record the title's rows in the same order would, and more (a group's issues
 * labels=bug&milestone=None by creation, page 100 of 100, walked ~86,000 issues, each probed for
 * bug: 88-95 ms; bug's rows 34-37 ms); or idSetLists' set, read through the title's
 * index and sorted (sets.readsTitle; a title is no set with a bound on the other date column,
 * workItemFilters). The walk in the order's index reads no more of those rows, reads only its
 * page's records and sorts nothing: a group's merge requests labels=label-1&milestone=None by
 * creation, page 500 of 100, read and sorted label-1's 113,000 rows and records (245-320 ms); a
 * project's opened issues bug&not[labels]=label-3&milestone=None, asc, page 500 of 100, bug's
 * 100,000 opened rows (220-240 ms). A project's set is read by its rows' index, which seeks a
 * milestone by id (labelRowsIndexed) and the state: not walked with a milestone, nor when the
 * title's rows in the state are fewer than half its `rows` (merged merge requests with label-1: none
 * of 111,000, 2 ms sought, 6 walked).
 */
function readsTitleAnyway(rc: RequestContext, type: string, scope: Scope, filters: WorkItemFilters, where: string[], title: string, rows: number, sets: IdSetLists | undefined): boolean {
  // The instance's order walked (an administrator's, or a group's unindexed scope), each record
  // probed for the title: its rows in the same order are some of those records.
  const walksInstance = scope.instance || (scope.unindexed !== undefined && where.includes(scope.unindexed));
  if (scope.projectId === undefined && walksInstance && sets?.walksTitle?.toLowerCase() === title.toLowerCase()) return true;
  if (sets?.readsTitle?.toLowerCase() !== title.toLowerCase()) return false;
  if (scope.projectId === undefined) return true;
  if (where.includes(MILESTONE_BY_ID)) return false;
  if (!filters.state) return true;
  const inState = rc.svc.db
    .prepare('SELECT coalesce(sum(n), 0) AS n FROM label_counts WHERE issuable_type = ? AND project_id = ? AND title = ? COLLATE NOCASE AND state = ?')
    .get(type, scope.projectId, title, filters.state) as { n: number };
  return inState.n * 2 >= rows;
}
