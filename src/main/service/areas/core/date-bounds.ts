import type { Db } from '../../db/connection';
import type { DateBounds } from '../../db/date-lag';

/**
 * Date filters (created_after/before, updated_after/before) of the issue, merge request and epic
 * lists that every record of the scope meets, or none does, found by one probe of a date index each.
 * A bound every record meets is no condition: it is left out, and the list is read as without it
 * (a date filter, however wide, steered the list away from its order's readers: a project's
 * opened merge requests by title page 50 with updated_before=2030 sorted its 500,000 matches,
 * 280 ms; without it, 0.5 ms). A bound no record meets empties the list (provablyEmpty's `WHERE 0`).
 * Either way the list holds the same records: the answer is the same.
 */

/** Each bound's condition on a record (`x.<column> <op> bound`, as workItemFilters writes it). */
const BOUNDS = {
  created_after: { column: 'created_at', op: '>=', fails: '<' },
  created_before: { column: 'created_at', op: '<=', fails: '>' },
  updated_after: { column: 'updated_at', op: '>=', fails: '<' },
  updated_before: { column: 'updated_at', op: '<=', fails: '>' },
} as const;

export type DateBound = keyof typeof BOUNDS;

/** The bounds as the list should apply them: `kept` (those some record fails), `empty` when one no record meets. */
export interface ScopedDateBounds {
  kept: DateBounds;
  empty: boolean;
}

/**
 * `projectId`: a project's list, probed in its (project_id, column, id) index; any wider scope is
 * probed over the whole table (column, id): a bound every record of the table meets is met by every
 * record of any scope, and one none meets by none (a group's scope can only be narrower).
 */
export function scopedDateBounds(db: Db, type: 'Issue' | 'MergeRequest', projectId: number | undefined, dates: DateBounds): ScopedDateBounds {
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const prefix = `${table}_${projectId !== undefined ? 'project_' : ''}`;
  return dateBoundsIn(
    db,
    { table, scope: projectId !== undefined ? 'project_id = ?' : '', args: projectId !== undefined ? [projectId] : [], index: { created_at: `${prefix}created`, updated_at: `${prefix}updated` } },
    dates,
  );
}

/** Where a list's records are: their table, the condition on its date indexes' leading columns (none: the whole table) and each date column's index. */
export interface DateScope {
  table: string;
  scope: string;
  args: unknown[];
  /** An index of (the scope's columns..., column, ...) for each date column. */
  index: Record<'created_at' | 'updated_at', string>;
}

/**
 * The bounds of `dates` that some record of the scope fails (kept), or empty when one no record
 * meets: two probes of the column's index a bound. Columns are NOT NULL, so a record meets
 * `c >= b` exactly when it does not have `c < b`.
 */
export function dateBoundsIn(db: Db, where: DateScope, dates: DateBounds): ScopedDateBounds {
  const kept: DateBounds = {};
  for (const name of Object.keys(BOUNDS) as DateBound[]) {
    const bound = dates[name];
    if (!bound) continue;
    const { column, op, fails } = BOUNDS[name];
    const probe = (cmp: string): string => `EXISTS (SELECT 1 FROM ${where.table} INDEXED BY ${where.index[column]} WHERE ${where.scope ? `${where.scope} AND ` : ''}${column} ${cmp} ?)`;
    const one = [...where.args, bound];
    const { meets, fails: failed } = db.prepare(`SELECT ${probe(op)} AS meets, ${probe(fails)} AS fails`).get(...one, ...one) as { meets: number; fails: number };
    if (!meets) return { kept: {}, empty: true };
    if (failed) kept[name] = bound;
  }
  return { kept, empty: false };
}
