import type { SortDirection } from '../../http/pagination';
import type { RequestContext } from '../../http/route';
import { type IdWalk, type Segment, idsSegment, segmentedRows } from './order-walk';

/**
 * `order_by=due_date` on issue lists of many projects: `x.due_date <dir>, x.id <dir>`, NULL the
 * lowest (SQLite's, as the list's ORDER BY has it). Most issues have no due date: those are the
 * list in id order, a walk (order-walk.ts idWalk); the dated ones, few, are read whole by the
 * due-date index and sorted. Descending: the dated by date then the undated by id, both descending;
 * ascending: the undated by id, then the dated by date, both ascending. The list's SQL sorted every
 * match by the due date (the instance's opened issues page 50: 500 ms).
 */

/** `fewDated`: dated issues of the whole table read as one segment, up to this many; past it the list is read as before (tests lower it). */
export const DUE_DATE_LIMITS = { fewDated: 1_000 };

export function dueDateRows<T>(rc: RequestContext, sort: SortDirection, walk: IdWalk | undefined, where: string[], args: unknown[]): ((limit: number, offset: number) => T[]) | undefined {
  if (!walk) return undefined;
  const db = rc.svc.db;
  // The table's dated issues by the partial index alone (no record read), to know they are few.
  const datedInTable = (db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM issues INDEXED BY issues_due WHERE due_date IS NOT NULL LIMIT ${DUE_DATE_LIMITS.fewDated + 1})`).get() as { n: number }).n;
  if (datedInTable > DUE_DATE_LIMITS.fewDated) return undefined;
  const dir = sort === 'asc' ? 'ASC' : 'DESC';
  let dated: number[] | undefined;
  // The list's dated issues in its order: the index's (due_date, id) order, each record checked against the list.
  const readDated = (): number[] =>
    datedInTable === 0
      ? []
      : (db.prepare(`SELECT x.id AS id FROM issues x INDEXED BY issues_due WHERE x.due_date IS NOT NULL AND ${where.join(' AND ')} ORDER BY x.due_date ${dir}, x.id ${dir}`).all(...args) as { id: number }[]).map((r) => r.id);
  const datedSegment: Segment = {
    count: (cap) => Math.min(cap, (dated ??= readDated()).length),
    ids: (limit, offset) => idsSegment((dated ??= readDated())).ids(limit, offset),
  };
  const restCount = (): number | undefined => {
    const total = walk.total();
    return total === undefined ? undefined : total - (dated ??= readDated()).length;
  };
  const undated = walk.segment('x.due_date IS NULL', [], dir, restCount);
  return segmentedRows<T>(rc, 'Issue', sort === 'asc' ? [undated, datedSegment] : [datedSegment, undated]);
}
