/** Appends a SQL condition (with `?` placeholders) and its values to a WHERE list being built. */
export function addFilter(where: string[], args: unknown[], condition: string, ...values: unknown[]): void {
  where.push(condition);
  args.push(...values);
}

/**
 * A list's WHERE conditions in two forms. `narrow` writes them as given, so SQLite may read a
 * condition's own index: to count the matches, or to read and sort the few there are. `walk` writes
 * each condition on a column as `+column`, which no index serves, so the plan reads the list's
 * order index and stops at the page instead of sorting every match of a condition that holds for
 * most rows. Without planner statistics SQLite takes any `column = ?` on an index for a handful of
 * rows; only a count can tell which form fits (see SqlList.narrow).
 */
export class ListWhere {
  readonly narrow: string[] = [];
  readonly walk: string[] = [];
  readonly args: unknown[] = [];

  /** A condition written the same in both forms. */
  add(condition: string, ...values: unknown[]): void {
    this.narrow.push(condition);
    this.walk.push(condition);
    this.args.push(...values);
  }

  /** Conditions written the same in both forms, with the values of all of them in order. */
  addAll(conditions: string[], values: unknown[]): void {
    this.narrow.push(...conditions);
    this.walk.push(...conditions);
    this.args.push(...values);
  }

  /** `column rest` (one comparison, e.g. `= ?`, `IN (SELECT ...)`): indexable in `narrow`, `+column rest` in `walk`. */
  on(column: string, rest: string, ...values: unknown[]): void {
    this.narrow.push(`${column} ${rest}`);
    this.walk.push(`+${column} ${rest}`);
    this.args.push(...values);
  }

  /**
   * A range on an indexed column (`column rest`, e.g. `> ?`): as `on`, with `narrow` told few rows
   * meet it (`unlikely`). Without statistics SQLite takes a range for a quarter of the table and
   * walks the order's index rather than sort it, so a narrow read chosen because the count found few
   * matches (paginateSql's sortsFewer) walked the whole order anyway. The index still serves it.
   */
  range(column: string, rest: string, ...values: unknown[]): void {
    this.narrow.push(`unlikely(${column} ${rest})`);
    this.walk.push(`+${column} ${rest}`);
    this.args.push(...values);
  }
}
