import { COUNT_LIMIT, type SqlList, limitSql, listRows } from '../../http/pagination';
import type { RequestContext } from '../../http/route';
import { rowsByIds } from '../../db/written-rows';
import { ISSUE_WRITES, MERGE_REQUEST_WRITES, type Scope, type WorkItemFilters, issuableListAnchors } from './workitems';

/** Complements of more rows than this are not walked around: the list walks itself. */
const COMPLEMENT_WALK_ROWS = COUNT_LIMIT;
/** Pages that start before this offset are walked: they read few records. */
const SHALLOW_PAGE = 200;

interface Keyed {
  id: number;
  v: string;
}

/**
 * The pages of a project's list by a condition most of its records meet (filters.complement:
 * issues issue_type=issue, due_date=0; merge requests wip=no), perhaps in a state, nothing else,
 * read as the project's list without that condition (the base list: its order's index alone, no
 * record read, from its anchors on a deep page) less the few records that fail it (the complement,
 * each read for its place in the order). A deep page walked by the condition read every record up
 * to it (page 2500: 50,000 records, 12-20 ms); here the complement's K records and the offset's
 * index entries. The row at the list's offset `o` is the base list's row past `o` less the
 * complement rows before it: from the base row at `o`, skip as many others as complement rows sort
 * before that row, then take the page, passing over complement rows.
 *
 * Only for a caller who sees every record (seesAll: the base list is then the project's records in
 * the state), and orders whose base list is an index alone: created_at (with or without a state),
 * updated_at and title without one (no (project, state, updated_at|title) index). `plain` reads the
 * list as it is written (a page not deeper than the complement is long, or a complement too long).
 */
export function complementWalk<T>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  seesAll: boolean,
  plain: SqlList<T>,
): ((limit: number, offset: number) => T[]) | undefined {
  const complement = filters.complement;
  const projectId = scope.projectId;
  if (!complement || projectId === undefined || !seesAll) return undefined;
  const col = filters.orderColumn;
  const { state } = complement;
  if (!(col === 'created_at' || (state === null && (col === 'updated_at' || col === 'title')))) return undefined;
  // The column's own order (not label priority's, which reports created_at as its column).
  if (filters.priority || filters.order !== `x.${col} ${filters.sort}, x.id ${filters.sort}`) return undefined;
  const db = rc.svc.db;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  // Written as the project's own list in that state is (listIssues, listMergeRequests), so the two share their anchors.
  const conditions = [...(state ? ['x.state = ?'] : []), 'x.project_id = ?', ...(type === 'Issue' ? ['1 = 1'] : [])].join(' AND ');
  const baseArgs = [...(state ? [state] : []), projectId];
  const baseFrom = { from: `FROM ${table} x WHERE ${conditions}`, args: baseArgs };
  const counted = { state, authorId: null, milestone: null };
  const anchors = issuableListAnchors<Keyed & Record<'created_at' | 'updated_at' | 'title', string>>(
    rc,
    type,
    scope,
    { ...filters, counted, labelOnly: null, milestoneById: false },
    baseFrom,
    seesAll,
  );
  const base: SqlList<Keyed> = {
    select: `x.id AS id, x.${col} AS v, x.${col} AS ${col}`,
    from: baseFrom.from,
    args: baseArgs,
    order: filters.order,
    anchors: anchors as unknown as SqlList<Keyed>['anchors'],
  };
  // SQLite compares the order's values (its BINARY collation), as the list's ORDER BY does.
  const op = filters.sort === 'asc' ? '<' : '>';
  const before = `(c.${col} ${op} ? OR (c.${col} = ? AND c.id ${op} ?))`;
  const others = `${complement.walk}${state ? ' AND c.state = ?' : ''}`;
  const othersArgs = [projectId, ...(state ? [state] : [])];
  return (limit, offset) => {
    // A walk to a page this shallow reads few records.
    if (offset < SHALLOW_PAGE) return listRows(db, plain, limit, offset);
    const first = listRows(db, base, limit + 1, offset);
    if (!first.length) return [];
    // The complement's records in the base list (the state), counted from their index alone, and
    // those that sort before the base list's row at `offset`: as many of its other rows to skip.
    // More than the walk would read to reach the page (or than a walk around may hold): walked.
    const most = Math.min(offset + limit, COMPLEMENT_WALK_ROWS);
    const counted = db
      .prepare(`SELECT count(*) AS n, coalesce(sum(${before}), 0) AS skip FROM (SELECT c.id AS id, c.${col} AS ${col} ${others} ${limitSql(most + 1)}) c`)
      .get(first[0].v, first[0].v, first[0].id, ...othersArgs) as { n: number; skip: number };
    if (counted.n > most) return listRows(db, plain, limit, offset);
    const inComplement = db.prepare(`SELECT c.id AS id ${others} AND c.id IN (SELECT value FROM json_each(?))`);
    let skip = counted.skip;
    const ids: number[] = [];
    // From `offset` on, the complement's rows passed over: read in chunks, as it is sparse in the base list.
    for (let at = offset, n = limit + 1, window = first; ; at += n, n *= 2, window = listRows(db, base, n, at)) {
      const skipped = counted.n ? new Set((inComplement.all(...othersArgs, JSON.stringify(window.map((r) => r.id))) as { id: number }[]).map((r) => r.id)) : undefined;
      for (const row of window) {
        if (skipped?.has(row.id)) continue;
        if (skip > 0) skip--;
        else if (ids.push(row.id) === limit) break;
      }
      if (ids.length === limit || window.length < n) break;
    }
    return rowsByIds<T>(db, type === 'Issue' ? ISSUE_WRITES : MERGE_REQUEST_WRITES, ids);
  };
}
