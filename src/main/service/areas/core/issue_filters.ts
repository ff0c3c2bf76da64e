import type { IdSet, Scope } from './workitems';

/** The issue types the REST API lists and accepts (WorkItems::Type.allowed_types_for_issues). */
export const ISSUE_TYPES = ['issue', 'incident', 'test_case', 'task'] as const;

/**
 * The issues lists' `due_date` values (lib/api/issues.rb; Issue::NoDueDate ... DueNextMonthAndPreviousTwoWeeks):
 * anything else is a 400, '' filters nothing.
 */
export const DUE_DATE_FILTERS = ['0', 'any', 'today', 'tomorrow', 'overdue', 'week', 'month', 'next_month_and_previous_two_weeks', ''] as const;

/**
 * A filter on an issue's own column: its condition on `x`, the set of its few records (idSetLists),
 * or, when it holds for most, the rows of the few others in a project (`complement`: see
 * complementBoundCount; the project's id its one argument).
 */
export interface OwnCondition {
  sql: string;
  args: unknown[];
  set?: IdSet;
  complement?: Complement;
}

/**
 * The few records of a project that fail a dense filter: `rows` (FROM ... WHERE ..., the project's
 * id its one argument) to count them; `walk`, the same rows as alias `c` from an index that holds
 * their state and every order column (core/111), to place them in the list's order (complement-walk.ts).
 */
export interface Complement {
  rows: string;
  walk: string;
}

const DAY_MS = 86_400_000;
const ymd = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The due dates IssuesFinder#by_due_date keeps for a value, on the service's clock (UTC days): none
 * (`null`: no due date), or a range (either end open). Closed issues count as open ones do; a week
 * runs Monday to Sunday (Rails' beginning_of_week); next_month_and_previous_two_weeks from two weeks
 * ago to the end of next month.
 */
export function dueDateRange(value: string, now: Date): null | { low?: string; high?: string } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  switch (value) {
    case '0':
      return null;
    case 'any':
      return {};
    case 'today':
      return { low: ymd(today), high: ymd(today) };
    case 'tomorrow':
      return { low: ymd(today + DAY_MS), high: ymd(today + DAY_MS) };
    case 'overdue':
      // due_before(Date.today): strictly before today.
      return { high: ymd(today - DAY_MS) };
    case 'week': {
      const monday = today - ((now.getUTCDay() + 6) % 7) * DAY_MS;
      return { low: ymd(monday), high: ymd(monday + 6 * DAY_MS) };
    }
    case 'month':
      return { low: ymd(Date.UTC(y, m, 1)), high: ymd(Date.UTC(y, m + 1, 0)) };
    default:
      // next_month_and_previous_two_weeks: (Date.today + 1.month).end_of_month is next month's last day.
      return { low: ymd(today - 14 * DAY_MS), high: ymd(Date.UTC(y, m + 2, 0)) };
  }
}

/**
 * `due_date=` as a condition on `x` and, when an index can read its records, a set of them (see
 * idSetLists): a range by issues_project_due (a project's, a group's projects') or core/089's
 * issues_due (the instance's); no due date by issues_project_due, for a project or a group (the
 * instance's would be read whole). The condition walked is `+x.due_date` (an order index walked,
 * not issues_project_due read and sorted). Counted through the set's rows, each record looked up:
 * counted as a condition on `x` (`indexed`), SQLite walked the project's opened issues by their
 * state index to count 2,000 due dates among a million (184 ms).
 */
export function dueDateCondition(value: string, now: Date, scope: Scope): OwnCondition {
  const range = dueDateRange(value, now);
  if (range === null) {
    const probe = '(+x.due_date IS NULL)';
    // Its complement: a project's issues with a due date (complementBoundCount).
    const complement = {
      rows: 'FROM issues due INDEXED BY issues_project_due WHERE due.project_id = ? AND due.due_date IS NOT NULL',
      walk: 'FROM issues c INDEXED BY issues_due_order WHERE c.due_date IS NOT NULL AND c.project_id = ?',
    };
    if (scope.projectId === undefined && !scope.projects) return { sql: probe, args: [], complement };
    // Its complement in the scope: a project's, or its projects' by the same index (IdSet.others).
    const others =
      scope.projectId !== undefined
        ? { rows: complement.rows, args: [scope.projectId] }
        : { rows: `FROM issues due INDEXED BY issues_project_due WHERE due.project_id IN (${scope.projects}) AND due.due_date IS NOT NULL`, args: scope.args };
    return { sql: probe, args: [], complement, set: { probe, id: 'due.id', rows: 'FROM issues due WHERE due.due_date IS NULL', args: [], projectColumn: 'due.project_id', others } };
  }
  const terms = (column: string): string => {
    if (range.low === undefined && range.high === undefined) return `${column} IS NOT NULL`;
    if (range.low !== undefined && range.low === range.high) return `${column} = ?`;
    return [range.low !== undefined ? `${column} >= ?` : '', range.high !== undefined ? `${column} <= ?` : ''].filter(Boolean).join(' AND ');
  };
  const args = range.low !== undefined && range.low === range.high ? [range.low] : [range.low, range.high].filter((d) => d !== undefined);
  const probe = `(${terms('+x.due_date')})`;
  const covering = `FROM issues c INDEXED BY issues_due_order WHERE ${terms('c.due_date')}`;
  return { sql: probe, args, set: { probe, id: 'due.id', rows: `FROM issues due WHERE ${terms('due.due_date')}`, args, projectColumn: 'due.project_id', covering } };
}

/**
 * `issue_type=` as a condition on `x`; a type other than `issue` (few records, as a rule) also as
 * the set core/089's partial index issues_typed reads (its condition spelled out so SQLite may use
 * it). `issue`, the type of most, is walked.
 */
export function issueTypeCondition(value: string): OwnCondition {
  const probe = '(x.issue_type = ?)';
  // Its complement: a project's issues of the other types (complementBoundCount), from issues_typed
  // (the types other than `issue` of every project: few) rather than the project's million issues
  // SQLite read for their type by a project index.
  if (value === 'issue') {
    return {
      sql: probe,
      args: [value],
      complement: {
        rows: "FROM issues typed INDEXED BY issues_typed WHERE typed.issue_type != 'issue' AND typed.project_id = ?",
        walk: "FROM issues c INDEXED BY issues_typed_order WHERE c.issue_type != 'issue' AND c.project_id = ?",
      },
    };
  }
  return {
    sql: probe,
    args: [value],
    set: {
      probe,
      id: 'typed.id',
      rows: "FROM issues typed WHERE typed.issue_type != 'issue' AND typed.issue_type = ?",
      args: [value],
      projectColumn: 'typed.project_id',
      indexed: "(x.issue_type != 'issue' AND x.issue_type = ?)",
      covering: "FROM issues c INDEXED BY issues_typed_order WHERE c.issue_type != 'issue' AND c.issue_type = ?",
    },
  };
}

/**
 * `closed_by_id=` (lib/api/issues.rb's issues_params, an integer; IssuableFinder#by_closed_by): the
 * issues the user closed (a reopened issue has no closer). Few as a rule: also the set of their
 * records, read by core/107's index of the closed issues by closer and project.
 */
export function closedByCondition(userId: number): OwnCondition {
  const probe = 'x.closed_by_id = ?';
  return { sql: probe, args: [userId], set: { probe, id: 'c.id', rows: 'FROM issues c WHERE c.closed_by_id = ?', args: [userId], projectColumn: 'c.project_id' } };
}
