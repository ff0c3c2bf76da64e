import { anyGroupLabelPriority } from '../labels/priorities';
import { type FeatureType, featureAvailable, featureHiddenProjectIds, featureHiddenSql } from './feature-access';
import { addFilter } from '../../db/filter';
import { COUNT_LIMIT, type OrderMoves, type PageAnchors, type SortDirection, type SqlList, countInHand, countUpTo, limitSql, listRows, readPage } from '../../http/pagination';
import { createHash } from 'node:crypto';
import type { RequestContext } from '../../http/route';
import { type Db, tableVersionsOf } from '../../db/connection';
import { declared, requireMutuallyExclusive, t } from '../../http/params';
import { forbidden, recordNotFound, validationError } from '../../http/errors';
import type { IssueRow, MergeRequestRow } from './entities';
import type { Project } from './projects';
import { findUserById } from './users';
import { likeEscape } from './routes/users';
import { loadGroup, visibleProjectsSql } from './access';
import { selfAndDescendantIds } from './namespaces';
import { isoTime } from './time';
import { milestoneInScope, milestoneInScopeByTitle } from './milestones';
import { rowsByIds, sequenceLog } from '../../db/written-rows';
import { type Complement, DUE_DATE_FILTERS, ISSUE_TYPES, closedByCondition, dueDateCondition, issueTypeCondition } from './issue_filters';
import { integerNoneAnyParam } from './integer_none_any';
import { weightConditions, weightOrder } from './issue_weight';
import { epicConditions } from './issue_epic';
import { ANCHORED_FROM, type BucketAnchor, type DateBounds, type DateLagList, type DateLagTable, bucketAnchoredWalk, boundsOtherDate, countDirection, dateLag, otherDateList } from '../../db/date-lag';
import { MEMORY_BUDGET } from '../../memory';
import { popularityOrder, popularityRows } from './order-popularity';
import { relativePositionOrder, relativePositionRows } from './order-relative-position';
import { milestoneDueOrder, milestoneDueRows } from './order-milestone-due';
import { dueDateRows } from './order-due-date';
import { scopeArmsRows } from './order-scope-arms';
import { FILTERED_WALK, type IdWalk, type LabelRows, filteredWalk, idWalk } from './order-walk';
import { idRangeOfDates } from './id-date-zones';
import { type CountKnown, manyScopeRecords, projectRecordsAtLeast, recordsVersion, wideScopeVersion } from './count-versions';
import { provablyEmpty } from './filter-plan';
import { scopedDateBounds } from './date-bounds';
import { type PriorityOrder, priorityOrder, priorityOrderSql } from './order-label-priority';
import { MILESTONE_BY_ID, labelProbe, lowestSpelling, labelProbeById, labelRowConditions, labelRowsIndexed, labelRowsOnlyCount, mirroredConditions } from './label-row-mirrors';

/** Next per-project iid for a table of project-scoped records (issues, merge requests, ...). */
export function nextIid(rc: RequestContext, table: 'issues' | 'merge_requests', projectId: number): number {
  return (rc.svc.db.prepare(`SELECT coalesce(max(iid), 0) + 1 AS n FROM ${table} WHERE project_id = ?`).get(projectId) as { n: number }).n;
}

/**
 * The project's issue by iid. Where the caller may not use the project's issues (feature-access.ts):
 * a 404 as for a missing one (find_project_issue reads through IssuesFinder), or a 403 for the
 * writes that find the issue first and then authorize (`denied`).
 */
export function findIssue(rc: RequestContext, project: Project, iid: string, denied: 'notFound' | 'forbidden' = 'notFound'): IssueRow {
  const row = /^\d+$/.test(iid)
    ? (rc.svc.db.prepare('SELECT * FROM issues WHERE project_id = ? AND iid = ?').get(project.id, Number(iid)) as IssueRow | undefined)
    : undefined;
  if (!row) throw recordNotFound();
  if (!featureAvailable(rc.svc, rc.user, project, 'Issue')) throw denied === 'forbidden' ? forbidden() : recordNotFound();
  return row;
}

/**
 * The project's merge request by iid; where the caller may not use its merge requests, a 403
 * (find_merge_request_with_access), or a 404 as for a missing one for the notes and discussions
 * APIs (`denied`: find_noteable reads through MergeRequestsFinder).
 */
export function findMergeRequest(rc: RequestContext, project: Project, iid: string, denied: 'notFound' | 'forbidden' = 'forbidden'): MergeRequestRow {
  const row = /^\d+$/.test(iid)
    ? (rc.svc.db.prepare('SELECT * FROM merge_requests WHERE project_id = ? AND iid = ?').get(project.id, Number(iid)) as MergeRequestRow | undefined)
    : undefined;
  if (!row) throw recordNotFound();
  if (!featureAvailable(rc.svc, rc.user, project, 'MergeRequest')) throw denied === 'forbidden' ? forbidden() : recordNotFound();
  return row;
}

/** A stand-in commit SHA: stable for the same inputs, so diff_refs stay put until the MR changes. */
export function fakeSha(...parts: (string | number)[]): string {
  return createHash('sha1').update(parts.join('\0')).digest('hex');
}

/** New label list from `labels` (replace), then `add_labels` and `remove_labels`. */
export function applyLabels(current: string[], p: { labels?: string[] | null; add_labels?: string[] | null; remove_labels?: string[] | null }): string[] {
  let labels = p.labels === undefined ? [...current] : (p.labels ?? []);
  for (const l of p.add_labels ?? []) if (!labels.includes(l)) labels.push(l);
  if (p.remove_labels) labels = labels.filter((l) => !p.remove_labels!.includes(l));
  return [...new Set(labels)];
}

/** Assignee ids that exist (unknown ids are dropped, as GitLab does). */
export function existingUserIds(rc: RequestContext, ids: number[] | undefined | null): number[] | undefined {
  if (ids === undefined) return undefined;
  return (ids ?? []).filter((id) => id > 0 && findUserById(rc.svc, id));
}

/** `milestone_id` list filter values (the wildcards; a title goes in `milestone`). */
const MILESTONE_WILDCARDS = ['Any', 'None', 'Upcoming', 'Started'];

/**
 * GitLab's legacy REST milestone filtering as a condition on `x` that is never NULL (so `NOT`
 * keeps issues without a milestone): None, Any, Upcoming (each project's or group's next active
 * milestone due after today), Started (active and started), or a milestone title. Any, Upcoming,
 * Started and a title that names no one milestone of the project also come as a set of records
 * (`set`, see idSetLists): its milestones' records, read by the milestone index and sorted when
 * they are few, else the list walked in its order and each record asked (`+`: SQLite would read
 * every record of the milestones by their index and sort them, 250,000 for a milestone on a
 * quarter of a million records, to give a page of 20).
 */
function milestoneCondition(rc: RequestContext, value: string, type: 'Issue' | 'MergeRequest', scope: Scope): { sql: string; args: unknown[]; set?: IdSet } {
  const today = rc.svc.now().toISOString().slice(0, 10);
  switch (value.toLowerCase()) {
    case 'none':
    case 'no milestone':
      // Over many projects, records without a milestone that are many (the usual case) are walked in
      // the list's order, each asked (`+`): SQLite read every one of them by the milestone index
      // and sorted them (a group's 750,000 by updated_at, page 50: 500 ms). A project's list reads
      // them by its (project_id, milestone_id, created_at) index, in order.
      return { sql: scope.projectId === undefined && manyWithoutMilestone(rc, type, scope) ? '(+x.milestone_id IS NULL)' : '(x.milestone_id IS NULL)', args: [] };
    case 'any': {
      // A project whose records carry one milestone: that milestone's records, by id (see milestoneTitleCondition).
      const carried = scope.projectId !== undefined ? carriedMilestones(rc, type, scope.projectId, null) : [];
      return carried.length === 1 ? { sql: MILESTONE_BY_ID, args: carried } : milestoneSet(rc, type, scope, 'IS NOT NULL', []);
    }
    case 'upcoming':
    case '#upcoming':
      return milestoneSet(
        rc,
        type,
        scope,
        `IN (SELECT m.id FROM milestones m WHERE m.state = 'active' AND m.due_date > ? AND NOT EXISTS (
          SELECT 1 FROM milestones o WHERE o.state = 'active' AND o.due_date > ? AND o.project_id IS m.project_id AND o.group_id IS m.group_id
            AND (o.due_date < m.due_date OR (o.due_date = m.due_date AND o.id < m.id))))`,
        [today, today],
      );
    case 'started':
    case '#started':
      return milestoneSet(rc, type, scope, "IN (SELECT id FROM milestones WHERE state = 'active' AND start_date <= ?)", [today]);
    default:
      return milestoneTitleCondition(rc, value, type, scope);
  }
}

/** A scope of projects (a group's, the instance's) where at least 1/DENSE_SET of the records carry no milestone (the filter counters' milestone 0). */
function manyWithoutMilestone(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope): boolean {
  if (!scope.instance && !scope.projects) return false;
  const counters = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  return countedInScope(rc, counters, 'milestone = 0', [], scope) * DENSE_SET >= scopeStateCount(rc, type, scope, null);
}

/**
 * The records whose milestone_id `test`s true (`IS NOT NULL`, `IN (<milestones>)`), as a condition
 * and a set, sized from the filter counters (core/018, core/028: 0 for no milestone).
 */
function milestoneSet(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, test: string, args: unknown[]): { sql: string; args: unknown[]; set: IdSet } {
  const probe = test === 'IS NOT NULL' ? '(+x.milestone_id IS NOT NULL)' : `(x.milestone_id IS NOT NULL AND +x.milestone_id ${test})`;
  const rows = `FROM ${type === 'Issue' ? 'issues' : 'merge_requests'} c WHERE c.milestone_id ${test}`;
  const counters = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  const counted = test === 'IS NOT NULL' ? 'milestone > 0' : `milestone ${test}`;
  const size = (): number => countedInScope(rc, counters, counted, args, scope);
  const arms = (): [number, number][] | undefined => {
    const [inScope, scopeArgs] = countersInScope(scope);
    const pairs = rc.svc.db
      .prepare(`SELECT project_id, milestone FROM ${counters} WHERE ${counted}${inScope} GROUP BY project_id, milestone HAVING sum(n) > 0 LIMIT ${MILESTONE_ARMS + 1}`)
      .all(...args, ...scopeArgs) as { project_id: number; milestone: number }[];
    return pairs.length > MILESTONE_ARMS ? undefined : pairs.map((r) => [r.project_id, r.milestone]);
  };
  const inProjects = (state: string | null, limit: number): { project_id: number; n: number }[] | undefined => {
    const [inScope, scopeArgs] = countersInScope(scope);
    const rows = rc.svc.db
      .prepare(`SELECT project_id, sum(n) AS n FROM ${counters} WHERE ${counted}${state ? ' AND state = ?' : ''}${inScope} GROUP BY project_id HAVING sum(n) > 0 LIMIT ${limit + 1}`)
      .all(...args, ...(state ? [state] : []), ...scopeArgs) as { project_id: number; n: number }[];
    return rows.length > limit ? undefined : rows;
  };
  return { sql: probe, args, set: { probe, id: 'c.id', rows, args, projectColumn: 'c.project_id', indexed: `(x.milestone_id ${test})`, size, arms, inProjects } };
}

/** A milestone set's (project, milestone) pairs up to this many are each walked by their index and merged (IdSet.arms). */
const MILESTONE_ARMS = 16;

/**
 * A milestone by title. Many projects and groups may have a milestone of that title; a project's
 * records carry those its filter counters (core/018, core/028) count. When that is one milestone
 * (the usual case), the condition names its id, so the index on (project, milestone, created_at)
 * reads the page in order; a title matching several is the set of those milestones' records; a
 * title none of them carries holds no record.
 */
function milestoneTitleCondition(rc: RequestContext, title: string, type: 'Issue' | 'MergeRequest', scope: Scope): { sql: string; args: unknown[]; set?: IdSet } {
  if (scope.projectId !== undefined) {
    const carried = carriedMilestones(rc, type, scope.projectId, title);
    if (carried.length === 1) return { sql: MILESTONE_BY_ID, args: [carried[0]] };
    // None of the project's records carries one: a constant false, which SQLite checks once
    // instead of walking every record to find none.
    if (carried.length === 0) return { sql: '(0)', args: [] };
  }
  return milestoneSet(rc, type, scope, 'IN (SELECT id FROM milestones WHERE title = ?)', [title]);
}


/**
 * The milestones (of a title, or any: null) that a project's records carry, as its filter counters
 * (core/018, core/028; 0 for none) count them: none, one, or two (more).
 */
function carriedMilestones(rc: RequestContext, type: 'Issue' | 'MergeRequest', projectId: number, title: string | null): number[] {
  const counts = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  const which = title === null ? 'milestone > 0' : 'milestone IN (SELECT id FROM milestones WHERE title = ?)';
  const rows = rc.svc.db
    .prepare(`SELECT DISTINCT milestone FROM ${counts} WHERE project_id = ? AND ${which} AND n > 0 LIMIT 2`)
    .all(projectId, ...(title === null ? [] : [title])) as { milestone: number }[];
  return rows.map((r) => r.milestone);
}

/** Whether the user reacted to any record of the type (award_emoji_user). */
function reactsTo(rc: RequestContext, type: 'Issue' | 'MergeRequest', userId: number): boolean {
  return rc.svc.db.prepare('SELECT 1 FROM award_emoji WHERE user_id = ? AND awardable_type = ? LIMIT 1').get(userId, type) !== undefined;
}

/**
 * No record of `scope` has a row of `rows` (`FROM ... WHERE ...`, `args`; `projectColumn` the rows'
 * project): none of the type anywhere, else none in the scope's project or projects (the instance's
 * other scopes: not proven). A filter every record then meets is left out, as my_reaction_emoji=None
 * and a date bound every record meets are, and the list keeps the readers of its other filters:
 * assignee_id=None where no record names an assignee (core/066's rows: every list written is a JSON
 * list of user ids, so a list other than '[]' has a row, as labelBoundCount counts them), wip=no where
 * none is a draft. /merge_requests?labels=label-2&assignee_id=None page 500 read label-2's rows'
 * records one by one for their assignees, where its label rows alone answer it.
 */
export function noneInScope(rc: RequestContext, rows: string, args: unknown[], projectColumn: string, scope: Scope): boolean {
  const has = (sql: string, a: unknown[]): boolean => rc.svc.db.prepare(`SELECT 1 ${sql} LIMIT 1`).get(...a) !== undefined;
  if (!has(rows, args)) return true;
  if (scope.projectId !== undefined) return !has(`${rows} AND ${projectColumn} = ?`, [...args, scope.projectId]);
  return !!scope.projects && !has(`${rows} AND ${projectColumn} IN (${scope.projects})`, [...args, ...scope.args]);
}

/** A user filter's value (assignee_id, reviewer_id), but None undefined where no record of `scope` names anyone in the role (noneInScope). */
function unlessNoneInRole(rc: RequestContext, type: 'Issue' | 'MergeRequest', role: 'assignee' | 'reviewer', value: number | 'none' | 'any' | undefined, scope: Scope): number | 'none' | 'any' | undefined {
  if (value !== 'none') return value;
  return noneInScope(rc, `FROM issuable_users u WHERE u.issuable_type = '${type}' AND u.role = '${role}'`, [], 'u.project_id', scope) ? undefined : value;
}

/** `my_reaction_emoji`: the caller reacted with that emoji, with anything (Any), or not at all (None). */
function reactionCondition(type: 'Issue' | 'MergeRequest', userId: number, value: string): { sql: string; args: unknown[]; set?: IdSet } {
  const mine = 'SELECT 1 FROM award_emoji a WHERE a.user_id = ? AND a.awardable_type = ? AND a.awardable_id = x.id';
  // The set: the caller's reactions by award_emoji_user (`+`: not every reaction of the type through the unique index).
  switch (value.toLowerCase()) {
    case 'none':
      return { sql: `(NOT EXISTS (${mine}))`, args: [userId, type] };
    case 'any': {
      const sql = `(EXISTS (${mine}))`;
      return { sql, args: [userId, type], set: { probe: sql, id: 'a.awardable_id', rows: 'FROM award_emoji a WHERE a.user_id = ? AND +a.awardable_type = ?', args: [userId, type], projectColumn: null } };
    }
    default: {
      const sql = `(EXISTS (${mine} AND a.name = ?))`;
      return {
        sql,
        args: [userId, type, value],
        set: { probe: sql, id: 'a.awardable_id', rows: 'FROM award_emoji a WHERE a.user_id = ? AND +a.awardable_type = ? AND a.name = ?', args: [userId, type, value], projectColumn: null },
      };
    }
  }
}

/**
 * Records a user is assigned to (`assignee`) or asked to review (`reviewer`, merge requests), from
 * their rows in issuable_users (core/066) rather than each record's JSON list.
 */
/** The records of the scope (its project, its projects, or all) that a counter table counts under `where` (their sum of n). */
function countedInScope(rc: RequestContext, table: string, where: string, args: unknown[], scope: Scope): number {
  const [inScope, scopeArgs] = countersInScope(scope);
  return (rc.svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM ${table} WHERE ${where}${inScope}`).get(...args, ...scopeArgs) as { n: number }).n;
}

/** A counter table's rows of the scope's projects (all for the instance, or a scope of more than projects), as a condition to append and its arguments. */
export function countersInScope(scope: Scope): [string, unknown[]] {
  if (scope.projectId !== undefined) return [' AND project_id = ?', [scope.projectId]];
  return scope.instance || !scope.projects ? ['', []] : [` AND +project_id IN (${scope.projects})`, scope.args];
}

/** A set's rows (alias `alias`) kept to a project's own, for a project's list: its id in the SQL, so the set's statement stays the same for every caller. */
function projectRows(scope: Scope, alias: string): string {
  return scope.projectId !== undefined ? ` AND ${alias}.project_id = ${Number(scope.projectId)}` : '';
}

/** A user's id by username (case-insensitively, as GitLab finds them); 0, which no user has, for an unknown name. */
export function userIdByUsername(rc: RequestContext, username: string): number {
  return (rc.svc.db.prepare('SELECT id FROM users WHERE lower(username) = lower(?)').get(username) as { id: number } | undefined)?.id ?? 0;
}

export function userRowsSet(type: 'Issue' | 'MergeRequest', role: 'assignee' | 'reviewer', userId: unknown): { sql: string; args: unknown[]; set: IdSet } {
  const rows = `FROM issuable_users u WHERE u.issuable_type = '${type}' AND u.role = '${role}' AND u.user_id = ?`;
  const probe = `EXISTS (SELECT 1 ${rows} AND u.project_id = x.project_id AND u.issuable_id = x.id)`;
  return { sql: probe, args: [userId], set: { probe, id: 'u.issuable_id', rows, args: [userId], projectColumn: 'u.project_id' } };
}

/** Not assigned to (or asked to review) a user: see userRowsSet. */
export function notUserRowsCondition(type: 'Issue' | 'MergeRequest', role: 'assignee' | 'reviewer'): string {
  return `NOT ${userRowsSet(type, role, 0).sql}`;
}

/** The JSON list that names a record's users in a role (the rows in issuable_users mirror it). */
const ROLE_COLUMNS = { assignee: 'assignee_ids', reviewer: 'reviewer_ids' } as const;

/**
 * Records that name someone in a role (assignee_id=Any, reviewer_id=Any): walked, each record's
 * list is asked; read, the role's rows (core/066) are (every one lists a record naming someone):
 * the project's by issuable_users_project (its id in the SQL: the probe has no arguments to
 * share), else the instance's.
 */
export function anyUserRowsSet(type: 'Issue' | 'MergeRequest', role: 'assignee' | 'reviewer', scope: Scope): { sql: string; set: IdSet } {
  const probe = `x.${ROLE_COLUMNS[role]} != '[]'`;
  const rows = `FROM issuable_users u WHERE u.issuable_type = '${type}' AND u.role = '${role}'${projectRows(scope, 'u')}`;
  return { sql: probe, set: { probe, id: 'u.issuable_id', rows, args: [], projectColumn: scope.projectId === undefined ? 'u.project_id' : null } };
}

/** integerNoneAnyParam, but an empty value names no user (0), as before. */
function integerNoneAny(params: Record<string, unknown>, name: string): number | 'none' | 'any' | undefined {
  if (params[name] === '') return 0;
  return integerNoneAnyParam(params, name);
}

/**
 * The records naming `value` in a role: a user's (their rows), None (an empty list) or Any (see
 * anyUserRowsSet). Pushed on `where`/`args` (and `idSets` when rows can be read instead).
 */
function addUserRoleFilter(type: 'Issue' | 'MergeRequest', role: 'assignee' | 'reviewer', value: number | 'none' | 'any', scope: Scope, where: string[], args: unknown[], idSets: IdSet[]): void {
  if (value === 'none') {
    where.push(`x.${ROLE_COLUMNS[role]} = '[]'`);
  } else if (value === 'any') {
    const any = anyUserRowsSet(type, role, scope);
    where.push(any.sql);
    idSets.push(any.set);
  } else {
    const cond = userRowsSet(type, role, value);
    addFilter(where, args, cond.sql, ...cond.args);
    idSets.push(cond.set);
  }
}

/**
 * A filter by a set of records that rows of another table list (a user's assignments or reviews,
 * the caller's reactions, a milestone's records), in two forms with the same arguments: `probe`, a
 * condition on `x` (the list walked in its order, each record asked), and the set read (its
 * records looked up and sorted): `rows` (FROM ..., `args`), whose column `id` holds the records'
 * ids. `projectColumn`: their project, when they carry it.
 */
export interface IdSet {
  probe: string;
  id: string;
  rows: string;
  args: unknown[];
  projectColumn: string | null;
  /** The condition as SQLite can read it through an index of `x` (project, milestone), if there is one: for counts. */
  indexed?: string;
  /** The set's records in the scope as counters count them (no rows read), when counters do. */
  size?: () => number;
  /** The probe asked of a record's id alone (`args` its arguments): checked on another set's rows before their record is read. */
  probeById?: (id: string) => string;
  /**
   * The set as (project, milestone) pairs holding its records in the scope (from the counters), when
   * they are few (else undefined): each pair's records are in creation order in the (project,
   * milestone, created_at) index, so a list in that order merges their walks (see idSetLists).
   */
  arms?: () => [number, number][] | undefined;
  /** The set's records in each project of the scope in a state (any: null), from the counters, up to `limit` projects (more: undefined). */
  inProjects?: (state: string | null, limit: number) => { project_id: number; n: number }[] | undefined;
  /**
   * The scope's records not in the set (any state; FROM ... WHERE ..., `args` its arguments), when
   * the set is a condition most records meet (due_date=0): the set is counted as the scope's
   * records less these, read by their own index, not by its own rows (a quarter of a million index
   * entries to find the set larger than idSetLists' bound; a group's, after every write elsewhere).
   */
  others?: { rows: string; args: unknown[] };
  /**
   * The set's records as alias `c` from an index that holds their project, state and every order
   * column (core/111; FROM ... WHERE ..., `args` its arguments): a list filtered by the set alone
   * (and perhaps a state), for a caller who sees every record, is read from it without a record.
   */
  covering?: string;
  /**
   * The set's rows are exactly the records that meet the probe (a search's matches): a record read
   * from them is not asked the probe again (a full-text probe per record cost ~250 us).
   */
  exact?: true;
  /**
   * The set's rows are label rows (this their alias): they carry their record's state, author,
   * dates and milestone (kept by the records' triggers: core/030-054), so the list's conditions on
   * those are asked of the rows before their record is read (see mirroredConditions).
   */
  mirrors?: string;
}

/**
 * The filters GitLab's issue and merge request lists share, as SQL on alias `x`.
 * `states` lists the values `state` may take besides `all`.
 */
export interface WorkItemFilters {
  where: string[];
  args: unknown[];
  order: string;
  /** The order's column on `x` (created_at, updated_at, title, due_date, merged_at, weight), or a computed order's name (popularity, relative_position, milestone_due). */
  orderColumn: string;
  sort: SortDirection;
  /**
   * The filters are one label title and perhaps a state, a milestone title or an author id (not
   * both), nothing else: see labelRowsCount.
   */
  labelOnly: LabelFilter | null;
  /** `search`, as `where[0]`: see searchRowsCount. */
  search: SearchPlan | null;
  /** Filters by sets of records other tables list, each in `where` as its probe: see idSetLists. */
  idSets: IdSet[];
  /** created_after/before, updated_after/before, each in `where` as `x.<column> >=/<= ?`: see dateLagList. */
  dates: DateBounds;
  /** author_id, as `x.author_id = ?` in `where` (null: not filtered by it): see dateLagList. */
  authorId: number | null;
  /** The label titles every record must carry (not None or Any), each an EXISTS on its rows in `where`: see dateLagList. */
  requiredLabels: string[];
  /** Label titles a record carries (`all`, at least one) and does not (`without`), two or more in all, perhaps a state, nothing else: see labelTitlesList. */
  labelTitles: { all: string[]; without: string[]; state: string | null } | null;
  /** The filters are one of labels=Any, labels=None, not[labels]=<one title>, perhaps with a state, nothing else: see labelBoundCount. */
  labelBound: { kind: 'any' | 'anyNot' | 'none' | 'not' | 'noUser' | 'notUser'; title: string; role?: 'assignee' | 'reviewer'; user?: number; state: string | null } | null;
  /** One author's records (author_id, a caller's created_by_me) by labels=None or one not[labels] title, perhaps with a state, nothing else: see authorLabelBoundCount. */
  authorLabelBound: { kind: 'none' | 'not'; title: string; authorId: number; state: string | null } | null;
  /** `search` and perhaps a state, no other filter (conditions on the records' own columns alone): see searchWalkRows. */
  searchAlone: boolean;
  /**
   * No filter but perhaps a state (null: all states), an author id and a milestone title (null:
   * not filtered by them), which the counters count: see countersCount.
   */
  counted: { state: string | null; authorId: number | null; milestone: string | null } | null;
  /** milestone=None and perhaps a state and an author id, nothing else (the filter counters' milestone 0): see milestoneNoneCount. */
  milestoneNone: { state: string | null; authorId: number | null } | null;
  /**
   * What the milestone filter leaves of a record's milestone: 'none' (milestone=None), 'some' (Any,
   * Upcoming, Started, a title: `title` when a title), or null (not filtered by one): see milestoneDueRows.
   */
  milestoneHeld: { held: 'none' | 'some'; title: string | null } | null;
  /** The filters are one set's condition (filters.idSets' one) and perhaps a state, nothing else: see order-scope-arms.ts. */
  oneSet: IdSet | null;
  /**
   * The milestone title's condition names the one milestone the project's records carry by its
   * id: the rows it keeps then change only with writes to the records (see issuableListAnchors).
   */
  milestoneById: boolean;
  /**
   * The filters are one condition on the records' own columns that holds for most of them (issues
   * issue_type=issue, due_date=0; merge requests wip=no), perhaps with a state, nothing else: the
   * rows of its few others in a project (FROM ... WHERE ..., the project's id its one argument),
   * and the state. See complementBoundCount.
   */
  complement: (Complement & { state: string | null }) | null;
  /** order_by=label_priority or priority (GitLab's orders by label priority): `order` is its SQL; see priorityOrderRows. */
  priority: PriorityOrder | null;
  /** `state` (null: all), also in `where` as `x.state = ?`. */
  state: string | null;
  /** No record can meet the filters (filter-plan.ts): `where` is `0`, the list counted as none. */
  empty?: true;
  /**
   * The caller's view of the records in `where` when it is a condition of its own (issues'
   * confidentialSql for any caller but an administrator: the OR of not confidential, own, assigned
   * or a Planner's project; anonymous: not confidential): checked on each record read, no filter of
   * the list's (see labelRowsFallback). Set by the route.
   */
  view?: string;
}

/** One label title and what else a list filtered by it may be filtered by (null: not filtered by it). */
export interface LabelFilter {
  title: string;
  state: string | null;
  milestone: string | null;
  authorId: number | null;
}

/**
 * The orders each list accepts (IssuesHelpers.sort_options, MergeRequestsHelpers.sort_options):
 * issues have no merged_at, merge requests no due date or relative position (both were a 500, or
 * an answer where GitLab's is a 400).
 */
const ORDER_BY = {
  Issue: ['created_at', 'updated_at', 'title', 'label_priority', 'priority', 'due_date', 'relative_position', 'popularity', 'weight', 'milestone_due'],
  MergeRequest: ['created_at', 'updated_at', 'title', 'label_priority', 'priority', 'popularity', 'merged_at', 'milestone_due'],
} as const;

/**
 * A page reader for a computed order (popularity, relative_position, milestone_due; issues' due_date, mostly NULL), from its
 * module, when the list can be walked in id order (order-walk.ts); undefined for the others, or
 * when the list is sorted by its ORDER BY. `where` and `args` are the whole list's (scope and
 * caller's view included); `plain`: the route added no filter of its own; `seesAll`: the caller sees
 * every record the counters count (no confidential one hidden).
 */
export function computedOrderRows<T>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  plain: boolean,
  seesAll: boolean,
  source?: { from: string; args: unknown[] },
  countFrom?: SqlList<unknown>['countFrom'],
): ((limit: number, offset: number) => T[]) | undefined {
  const order = filters.orderColumn;
  if (order === 'due_date' && (type !== 'Issue' || scope.projectId !== undefined)) {
    // Issues' due date over many projects only: a project's list walks its (project_id, due_date, id)
    // index, the undated in id order already, by the index alone.
    return undefined;
  }
  if (order !== 'due_date' && order !== 'popularity' && order !== 'relative_position' && order !== 'milestone_due') return undefined;
  // A date bound: the walks start at the ids its dates leave (id-date-zones.ts), the list's own
  // statement too when it is the plain one (a set's page reads its records by id already).
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const range = idRangeOfDates(rc.svc.db, type, scope, filters.dates);
  if (range) {
    const plainFrom = `FROM ${table} x WHERE ${where.join(' AND ')}`;
    where = [...where, range.sql];
    args = [...args, ...range.args];
    if (source?.from === plainFrom) source = { from: `${plainFrom} AND ${range.sql}`, args: [...source.args, ...range.args] };
  }
  const plainFrom = `FROM ${table} x WHERE ${where.join(' AND ')}`;
  // A common term's list (its plan reads every match: a million for a term every record holds,
  // 400-700 ms) with its check on each record instead, for the readers that read records one by one.
  const checked = searchMatchesAtLeast(filters) > COUNT_LIMIT ? searchRecordChecked(filters, where.join(' AND '), args) : undefined;
  // Other filters, many projects: the list's own statement walked in id order (`source`: its FROM,
  // perhaps read through its id sets; `countFrom`: the list's count, when the route has it).
  const filtered = (): IdWalk | undefined => {
    if (!FILTERED_WALK.filtered) return undefined;
    const readsPlain = source === undefined || source.from === plainFrom;
    const walked = { ...(source ?? { from: plainFrom, args }), ...(checked && readsPlain ? { checked: { from: `FROM ${table} x WHERE ${checked.sql}`, args: checked.args } } : {}) };
    // A list for a caller who sees every record whose rows move only with writes to them: a project's
    // filtered by its records' own columns (state, author) or labels alone (labelsAlone), by its list
    // version; a group's or the instance's by recordsVersion (its projects' ids in the key) when the
    // list's SQL reads only the records and their label rows (a group's merge requests with bug by
    // popularity, page 500 of 20, walked 10,000 matches after every write: 35 ms).
    const ownRows = plain && seesAll && !scope.idSets?.length;
    const records = ownRows && scope.projectId === undefined ? recordsVersion(rc, type, scope) : undefined;
    const versioned = records?.reads(walked.from) ? { version: records.version, key: records.keyOf(walked.from) } : undefined;
    return filteredWalk(
      rc,
      type,
      walked,
      countInHand(countFrom),
      ownRows && scope.projectId !== undefined && ((filters.counted && filters.counted.milestone === null) || labelsAlone(filters))
        ? ((projectId: number) => () => listVersion(rc, type, projectId))(scope.projectId)
        : versioned?.version,
      scope.projectId !== undefined ? ((projectId: number) => () => projectRecords(rc, type, projectId))(scope.projectId) : undefined,
      range ? { low: range.args[0], high: range.args[1] } : undefined,
      versioned?.key,
      labelRowsFallback(rc, type, scope, filters),
    );
  };
  const walk = idWalk(rc, type, scope, filters, where, args, plain && !scope.idSets?.length, seesAll);
  // The undated walked in id order: by the list's own statement too when a date bound gives it a start
  // (else a group's other filters are read by its projects' due-date arms, order-scope-arms.ts), or
  // for an author's list that no author arms read (the instance's many projects: /issues' default
  // created_by_me, author_id), which the list's SQL read whole and sorted by the due date.
  if (order === 'due_date') {
    const authorOnly = !walk && !range && (filters.authorId !== null || scope.authorId !== undefined) && !filters.search && !filters.idSets.length;
    const arms = authorOnly ? scopeArmsRows<T>(rc, type, scope, filters, where, args, countFrom) : undefined;
    return arms ?? dueDateRows<T>(rc, filters.sort, walk ?? (range || authorOnly ? filtered() : undefined), where, args);
  }
  // The upvoted records read by the award index, each checked.
  if (order === 'popularity') return popularityRows<T>(rc, type, filters.sort, walk ?? filtered(), checked ? [checked.sql] : where, checked?.args ?? args);
  if (order === 'relative_position') return relativePositionRows<T>(rc, filters.sort, walk ?? filtered());
  const [sql, scopeArgs] = countersInScope(scope);
  // An author's list: the milestones of the author's records (a project's merge requests by author 3,
  // none with a milestone: the milestone's segment counted all 50,000 of theirs to find none, 200 ms).
  const author = filters.authorId ?? scope.authorId ?? null;
  const byAuthor = author !== null ? { sql: `${sql} AND author = ?`, args: [...scopeArgs, author] } : { sql, args: scopeArgs };
  return milestoneDueRows<T>(rc, type, filters.sort, walk ?? filtered(), { ...byAuthor, state: filters.state }, filters.milestoneHeld);
}

/**
 * The label title (and its rows in the scope) whose rows a filtered walk that falls short reads (filteredWalk's `labelRows`),
 * each record looked up by id and checked, instead of sorting every match read by the conditions'
 * indexes: the rarest title the list requires, when its rows in the scope (and state) are fewer
 * than the records the sort reads, which the filter counters give (the scope's, in the state, the
 * author's, without a milestone for milestone=None). Only when the filters are titles (required or
 * not), a state, an author and milestone=None, nothing else: no other filter (a search, iids, a
 * date, a set) that an index reads fewer records by. The title's 112,000 rows against the author's
 * 950,000 issues the sort read (/issues?labels=bug&state=all by relative_position, page 50 of 100:
 * 436 -> 38 ms); author 3's 50,000 issues with bug are sorted still (its title's rows read whole
 * would be more). The caller's view (filters.view: a member's or anonymous caller's confidentiality)
 * is checked on each record as the other conditions are: a Reporter's project issues with bug and
 * milestone=None by popularity, page 500, after an issue write, sorted bug's 112,000 (521 -> 97 ms).
 * A common term too (its plan reads every match: more than COUNT_LIMIT), checked on each record
 * (filteredWalk's checked walk): a project's issues labels=bug&search=issue by relative_position,
 * page 500, sorted every match with bug (1.5-2 s).
 * Undefined when the filters are others; else asked only when the walk falls short.
 */
function labelRowsFallback(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters): (() => LabelRows | undefined) | undefined {
  if (!filters.requiredLabels.length || scope.idSets?.length) return undefined;
  const probe = labelProbe(type);
  const noMilestone = filters.milestoneHeld?.held === 'none';
  // A common term's plan writes the project and the state unindexed (INDEXED_AGAIN), for its matches read by id.
  const commonTerm = !!filters.search?.check && searchMatchesAtLeast(filters) > COUNT_LIMIT;
  const own = (w: string): boolean =>
    w === probe || w === `NOT ${probe}` || w === 'x.state = ?' || w === 'x.author_id = ?' || w === '1 = 1' || w === filters.view || w === scope.where || w === scope.unindexed || (noMilestone && (w === '(x.milestone_id IS NULL)' || w === '(+x.milestone_id IS NULL)')) ||
    (commonTerm && (w === filters.search?.sql || INDEXED_AGAIN.includes(w)));
  if (!filters.where.every(own)) return undefined;
  return () => {
    const { state } = filters;
    const inState = state ? ' AND state = ?' : '';
    const stateArgs = state ? [state] : [];
    const labelCounts = scope.projectId !== undefined ? 'label_counts' : 'label_counts INDEXED BY label_counts_title';
    const rows = filters.requiredLabels.map((title) => ({ title, n: countedInScope(rc, labelCounts, `issuable_type = ? AND title = ? COLLATE NOCASE${inState}`, [type, title, ...stateArgs], scope) }));
    const rarest = rows.reduce((a, b) => (b.n < a.n ? b : a));
    const author = filters.authorId ?? scope.authorId ?? null;
    const counted = [`1 = 1${inState}`, ...(author !== null ? ['author = ?'] : []), ...(noMilestone ? ['milestone = 0'] : [])].join(' AND ');
    const sorted = countedInScope(rc, type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts', counted, [...stateArgs, ...(author !== null ? [author] : [])], scope);
    return rarest.n < sorted ? { title: rarest.title, rows: rarest.n } : undefined;
  };
}

/** Orders on something besides the record's own column: each module's ORDER BY on `x`. */
function computedOrder(type: 'Issue' | 'MergeRequest', orderBy: string, sort: SortDirection): string | null {
  if (orderBy === 'popularity') return popularityOrder(type, sort);
  if (orderBy === 'relative_position') return relativePositionOrder(sort);
  if (orderBy === 'milestone_due') return milestoneDueOrder(sort);
  return null;
}

/** `scope` on a project's or a group's list (IssuableFinder#by_scope; the instance's lists take it in globalScope). */
const CALLER_SCOPES = {
  Issue: ['created_by_me', 'assigned_to_me', 'all', 'created-by-me', 'assigned-to-me'],
  MergeRequest: ['created_by_me', 'assigned_to_me', 'reviews_for_me', 'all', 'created-by-me', 'assigned-to-me'],
} as const;

/**
 * The caller's own records of a project's or a group's list (`scope`): those they wrote, are assigned
 * to, or are asked to review; none for an anonymous caller (IssuableFinder: `items.none` when the
 * scope is about the current user and there is none).
 */
function addCallerScope(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, where: string[], args: unknown[], idSets: IdSet[]): number | null {
  if (scope.byCaller) return null;
  if (scope.ownRecords !== undefined) {
    addFilter(where, args, 'x.author_id = ?', scope.ownRecords);
    return scope.ownRecords;
  }
  const which = declared(rc.params, { scope: t.string().values(CALLER_SCOPES[type]) }).scope;
  if (!which || which === 'all') return null;
  if (!rc.user) where.push('0');
  else if (which.startsWith('created')) {
    addFilter(where, args, 'x.author_id = ?', rc.user.id);
    return rc.user.id;
  } else {
    const cond = userRowsSet(type, which.startsWith('assigned') ? 'assignee' : 'reviewer', rc.user.id);
    addFilter(where, args, cond.sql, ...cond.args);
    idSets.push(cond.set);
  }
  return null;
}

export function workItemFilters(rc: RequestContext, states: readonly string[], type: 'Issue' | 'MergeRequest', scope: Scope): WorkItemFilters {
  const q = declared(rc.params, {
    state: t.string().values(['all', ...states]),
    labels: t.commaList(),
    search: t.string(),
    in: t.string(),
    author_id: t.integer(),
    author_username: t.string(),
    assignee_id: t.string(),
    assignee_username: t.commaList(),
    iids: t.commaIntegers(),
    created_after: t.dateTime(),
    created_before: t.dateTime(),
    updated_after: t.dateTime(),
    updated_before: t.dateTime(),
    milestone: t.string(),
    milestone_id: t.string().values(MILESTONE_WILDCARDS),
    my_reaction_emoji: t.string(),
    not: t.hash(),
    order_by: t.string().values(ORDER_BY[type]).default('created_at'),
    sort: t.string().values(['asc', 'desc']).default('desc'),
    ...(type === 'Issue' ? { issue_type: t.string().values(ISSUE_TYPES), due_date: t.string().values(DUE_DATE_FILTERS), closed_by_id: t.integer() } : {}),
  });
  const where: string[] = [];
  const args: unknown[] = [];
  const idSets: IdSet[] = [];
  // A label by title, ASCII case-insensitively, through the record's rows in issuable_labels.
  const hasLabel = labelProbe(type);
  if (q.state && q.state !== 'all') addFilter(where, args, 'x.state = ?', q.state);
  for (const label of q.labels ?? []) {
    if (label.toLowerCase() === 'none') where.push("x.labels = '[]'");
    else if (label.toLowerCase() === 'any') where.push("x.labels != '[]'");
    else addFilter(where, args, hasLabel, label);
  }
  if (q.author_id !== undefined) addFilter(where, args, 'x.author_id = ?', q.author_id);
  if (q.author_username) addFilter(where, args, 'x.author_id = (SELECT id FROM users WHERE lower(username) = lower(?))', q.author_username);
  const assignee = unlessNoneInRole(rc, type, 'assignee', integerNoneAny(rc.params, 'assignee_id'), scope);
  if (assignee !== undefined) addUserRoleFilter(type, 'assignee', assignee, scope, where, args, idSets);
  // assignee_username: assigned to every user named (a name no user has: none), as assignee_id.
  requireMutuallyExclusive(rc.params, ['assignee_id', 'assignee_username']);
  for (const username of q.assignee_username ?? []) {
    const cond = userRowsSet(type, 'assignee', userIdByUsername(rc, username));
    addFilter(where, args, cond.sql, ...cond.args);
    idSets.push(cond.set);
  }
  // Merge requests' reviewers: reviewer_id as assignee_id; reviewer_username one user's name (a
  // name no user has, None and Any among them, matches nothing, as in MergeRequestsFinder).
  const reviewer = type === 'MergeRequest' ? unlessNoneInRole(rc, type, 'reviewer', integerNoneAny(rc.params, 'reviewer_id'), scope) : undefined;
  if (type === 'MergeRequest') {
    const r = declared(rc.params, { reviewer_id: t.string(), reviewer_username: t.string() });
    requireMutuallyExclusive(rc.params, ['reviewer_id', 'reviewer_username']);
    const value = reviewer ?? (r.reviewer_username != null ? userIdByUsername(rc, r.reviewer_username) : undefined);
    if (value !== undefined) addUserRoleFilter(type, 'reviewer', value, scope, where, args, idSets);
  }
  if (q.iids?.length) {
    // A project's list finds them by (project_id, iid); a wider scope reads the iids' records by id (core/070).
    const marks = q.iids.map(() => '?').join(',');
    const table = type === 'Issue' ? 'issues' : 'merge_requests';
    const probe = `x.iid IN (${marks})`;
    addFilter(where, args, probe, ...q.iids);
    if (scope.projectId === undefined) {
      const rows = `FROM ${table} r WHERE r.iid IN (${marks})`;
      idSets.push({ probe, id: 'r.id', rows, args: q.iids, projectColumn: 'r.project_id' });
    }
  }
  // A date bound every record of the scope meets is left out; one none meets empties the list (date-bounds.ts).
  const bounds = scopedDateBounds(rc.svc.db, type, scope.projectId, { created_after: q.created_after, created_before: q.created_before, updated_after: q.updated_after, updated_before: q.updated_before });
  const d = bounds.kept;
  if (d.created_after) addFilter(where, args, 'x.created_at >= ?', d.created_after);
  if (d.created_before) addFilter(where, args, 'x.created_at <= ?', d.created_before);
  if (d.updated_after) addFilter(where, args, 'x.updated_at >= ?', d.updated_after);
  if (d.updated_before) addFilter(where, args, 'x.updated_at <= ?', d.updated_before);
  requireMutuallyExclusive(rc.params, ['milestone_id', 'milestone']);
  const milestoneFilter = q.milestone ?? q.milestone_id;
  // A milestone by title (not a wildcard: None, Any, Upcoming, Started).
  const milestoneTitle =
    milestoneFilter != null && !['none', 'no milestone', 'any', 'upcoming', '#upcoming', 'started', '#started'].includes(milestoneFilter.toLowerCase()) ? milestoneFilter : null;
  let milestoneById = false;
  if (milestoneFilter != null) {
    const cond = milestoneCondition(rc, milestoneFilter, type, scope);
    milestoneById = milestoneTitle !== null && cond.sql === MILESTONE_BY_ID;
    addFilter(where, args, cond.sql, ...cond.args);
    if (cond.set) idSets.push(cond.set);
  }
  // None from a caller with no reaction to any record of the type holds for every record: no
  // filter, so the list keeps the readers its other filters have (instance MRs opened&label-1 by
  // title&my_reaction_emoji=None page 500 sorted every match instead of walking label-1's arms).
  if (q.my_reaction_emoji && rc.user && !(q.my_reaction_emoji.toLowerCase() === 'none' && !reactsTo(rc, type, rc.user.id))) {
    const cond = reactionCondition(type, rc.user.id, q.my_reaction_emoji);
    addFilter(where, args, cond.sql, ...cond.args);
    if (cond.set) idSets.push(cond.set);
  }
  // created_by_me: the caller as the author, as author_id (counted by the filter counters) unless that is given too.
  const createdBy = addCallerScope(rc, type, scope, where, args, idSets);
  const authorParam = q.author_id ?? (createdBy ?? undefined);
  // Issues' own: their type, their due date, their closer (IssuesFinder#by_issue_types, #by_due_date, #by_closed_by).
  const own = [
    'issue_type' in q && q.issue_type != null ? issueTypeCondition(q.issue_type) : null,
    'due_date' in q && q.due_date ? dueDateCondition(q.due_date, rc.svc.now(), scope) : null,
    'closed_by_id' in q && q.closed_by_id != null ? closedByCondition(q.closed_by_id) : null,
  ].filter((cond) => cond !== null);
  // EE's: weight, not[weight], epic_id (EE IssuesFinder#by_weight, #by_negated_weight, #by_epic).
  if (type === 'Issue') own.push(...weightConditions(rc.params), ...epicConditions(rc.params));
  for (const cond of own) {
    addFilter(where, args, cond.sql, ...cond.args);
    if (cond.set) idSets.push(cond.set);
  }
  let notLabels: string[] = [];
  let notAuthorId: number | null = null;
  let notUser: { role: 'assignee' | 'reviewer'; user: number } | null = null;
  if (q.not) {
    const not = declared(q.not, {
      labels: t.commaList(),
      milestone: t.string(),
      milestone_id: t.string().values(MILESTONE_WILDCARDS),
      author_id: t.integer(),
      author_username: t.string(),
      assignee_id: t.integer(),
      assignee_username: t.commaList(),
      iids: t.commaIntegers(),
      my_reaction_emoji: t.string(),
      ...(type === 'MergeRequest' ? { reviewer_id: t.integer(), reviewer_username: t.string() } : {}),
    }, 'not');
    if (not.my_reaction_emoji && rc.user) {
      const cond = reactionCondition(type, rc.user.id, not.my_reaction_emoji);
      addFilter(where, args, `NOT ${cond.sql}`, ...cond.args);
    }
    const notMilestone = not.milestone ?? not.milestone_id;
    if (notMilestone != null) {
      const cond = milestoneCondition(rc, notMilestone, type, scope);
      addFilter(where, args, `NOT ${cond.sql}`, ...cond.args);
    }
    notLabels = not.labels ?? [];
    for (const label of not.labels ?? []) {
      addFilter(where, args, `NOT ${hasLabel}`, label);
    }
    if (not.author_id != null) addFilter(where, args, 'x.author_id IS NOT ?', (notAuthorId = not.author_id));
    if (not.author_username) addFilter(where, args, 'x.author_id IS NOT (SELECT id FROM users WHERE lower(username) = lower(?))', not.author_username);
    if (not.assignee_id != null) addFilter(where, args, notUserRowsCondition(type, 'assignee'), (notUser = { role: 'assignee', user: not.assignee_id }).user);
    for (const username of not.assignee_username ?? []) addFilter(where, args, notUserRowsCondition(type, 'assignee'), userIdByUsername(rc, username));
    if (not.iids?.length) addFilter(where, args, `x.iid NOT IN (${not.iids.map(() => '?').join(',')})`, ...not.iids);
    if (type === 'MergeRequest') {
      requireMutuallyExclusive(q.not, ['reviewer_id', 'reviewer_username'], 'not');
      const notReviewer = 'reviewer_id' in not && not.reviewer_id != null ? not.reviewer_id : 'reviewer_username' in not && not.reviewer_username != null ? userIdByUsername(rc, not.reviewer_username) : null;
      // A user who does not exist: no merge request at all (MergeRequestsFinder#by_negated_reviewer).
      if (notReviewer !== null && !findUserById(rc.svc, notReviewer)) where.push('0');
      else if (notReviewer !== null) addFilter(where, args, notUserRowsCondition(type, 'reviewer'), (notUser = { role: 'reviewer', user: notReviewer }).user);
    }
  }
  // A computed order's column is its name: the readers keyed on a column (created_at, updated_at, title) leave it alone.
  const computed = computedOrder(type, q.order_by, q.sort as SortDirection);
  const col = computed ? q.order_by : ['created_at', 'updated_at', 'title', 'due_date', 'merged_at', 'weight'].includes(q.order_by) ? q.order_by : 'created_at';
  const state = q.state && q.state !== 'all' ? q.state : null;
  // Authors are ids from 1 (the counters keep no author as 0).
  const authorId = authorParam != null && authorParam > 0 ? authorParam : null;
  const [label, ...moreLabels] = q.labels ?? [];
  const labelOnly =
    label !== undefined && !moreLabels.length && !['none', 'any'].includes(label.toLowerCase()) && !q.search &&
    !(authorId !== null && milestoneTitle !== null) &&
    where.length === 1 + (state ? 1 : 0) + (milestoneTitle !== null ? 1 : 0) + (authorId !== null ? 1 : 0)
      ? { title: label, state, milestone: milestoneTitle, authorId }
      : null;
  // Several titles (labels=a,b, not[labels]) and perhaps a state, nothing else: labelTitlesList
  // reads a project's list, or a scope of projects', in either date order from its label rows.
  const titles = q.labels ?? [];
  const labelTitles =
    !q.search && titles.length > 0 && titles.every((title) => !['none', 'any'].includes(title.toLowerCase())) &&
    titles.length + notLabels.length >= 2 && where.length === titles.length + notLabels.length + (state ? 1 : 0)
      ? { all: titles, without: notLabels, state }
      : null;
  // Titles (besides one alone): each a set of records its label rows list (idSetLists reads the
  // smallest set and probes the rest), instead of walking the list's order and probing every record;
  // kept also where labelTitlesList reads the page, for a list it does not serve (a branch, wip, a
  // confidential=false walked a million issues: 840 ms). Not with a date on the other column than
  // the order, which dateLagList serves (its count reads the label's rows).
  const otherDate = col === 'created_at' ? d.updated_after || d.updated_before : col === 'updated_at' ? d.created_after || d.created_before : undefined;
  // One title alone over many projects too: labelRowsPage reads a project's (a group's rare title
  // walked its million issues in order: 468 ms), and idSetLists walks the order for a common one.
  if ((!labelOnly || scope.projectId === undefined) && !otherDate) {
    for (const title of q.labels ?? []) {
      if (['none', 'any'].includes(title.toLowerCase())) continue;
      const rows = `FROM issuable_labels il WHERE il.issuable_type = '${type}'${projectRows(scope, 'il')} AND il.title = ? COLLATE NOCASE`;
      const size = (): number => countedInScope(rc, 'label_counts', 'issuable_type = ? AND title = ? COLLATE NOCASE', [type, title], scope);
      // No project column: a title's rows are read whole by the title's index, each record's project
      // checked on the record (kept to a group's projects, SQLite read every label row of the type).
      const probeById = (id: string): string => labelProbeById(type, id);
      idSets.push({ probe: hasLabel, id: 'il.issuable_id', rows, args: [title], projectColumn: null, size, probeById, mirrors: 'il' });
    }
  }
  const wildcard = q.labels?.length === 1 && !notLabels.length ? q.labels[0].toLowerCase() : null;
  // labels=Any with one not[labels] title (no other filter): bounded by another title's counters.
  const anyNot = q.labels?.length === 1 && q.labels[0].toLowerCase() === 'any' && notLabels.length === 1 && !['none', 'any'].includes(notLabels[0].toLowerCase());
  const labelBound =
    q.search
      ? null
      : anyNot && where.length === 2 + (state ? 1 : 0)
      ? { kind: 'anyNot' as const, title: notLabels[0], state }
      : where.length !== 1 + (state ? 1 : 0)
      ? null
      : wildcard === 'any' || wildcard === 'none'
      ? { kind: wildcard as 'any' | 'none', title: '', state }
      : !q.labels?.length && notLabels.length === 1
      ? { kind: 'not' as const, title: notLabels[0], state }
      : assignee === 'none' || reviewer === 'none'
      ? { kind: 'noUser' as const, title: '', role: assignee === 'none' ? ('assignee' as const) : ('reviewer' as const), state }
      : notUser !== null
      ? { kind: 'notUser' as const, title: '', role: notUser.role, user: notUser.user, state }
      : null;
  const notTitle = !q.labels?.length && notLabels.length === 1 && !['none', 'any'].includes(notLabels[0].toLowerCase()) ? notLabels[0] : null;
  const authorLabelBound =
    !q.search && authorId !== null && where.length === 2 + (state ? 1 : 0) && (wildcard === 'none' || notTitle !== null)
      ? { kind: wildcard === 'none' ? ('none' as const) : ('not' as const), title: notTitle ?? '', authorId, state }
      : null;
  const countedFilters = (state ? 1 : 0) + (authorId !== null ? 1 : 0) + (milestoneTitle !== null ? 1 : 0);
  const counted = !q.search && where.length === countedFilters ? { state, authorId, milestone: milestoneTitle } : null;
  const noMilestone = milestoneFilter != null && ['none', 'no milestone'].includes(milestoneFilter.toLowerCase());
  const milestoneAny = milestoneFilter != null && milestoneFilter.toLowerCase() === 'any';
  const milestoneNone = noMilestone && !q.search && where.length === countedFilters + 1 ? { state, authorId } : null;
  const milestoneHeld = milestoneFilter == null ? null : { held: noMilestone ? ('none' as const) : ('some' as const), title: milestoneTitle };
  // The search goes first, so searchRowsCount can replace it.
  let search: SearchPlan | null = null;
  const searchAlone = !!q.search && where.length === (state ? 1 : 0);
  if (q.search) {
    const fields = (q.in ?? 'title,description').split(',').map((s) => s.trim()).filter((f) => f === 'title' || f === 'description');
    search = searchCondition(rc, type, [...new Set(fields)], q.search, scope);
    // A search that reads its matches looks each one up by id: the state is checked on the
    // record, not walked by the instance's state index (a project of 3 records walked the
    // 100,000 merged ones of another project to find its page).
    const readsMatches = (search.project && !search.project.walk) || (search.many && !search.many.walk);
    const stateAt = where.indexOf('x.state = ?');
    if (readsMatches && stateAt >= 0) where[stateAt] = '+x.state = ?';
    where.unshift(search.sql);
    args.unshift(...search.args);
    if (search.set) idSets.push(search.set);
  }
  const dates = { created_after: d.created_after, created_before: d.created_before, updated_after: d.updated_after, updated_before: d.updated_before };
  const requiredLabels = (q.labels ?? []).filter((l) => !['none', 'any'].includes(l.toLowerCase()));
  const ownComplement = own.length === 1 ? own[0].complement : undefined;
  const complement = !q.search && ownComplement && where.length === 1 + (state ? 1 : 0) ? { ...ownComplement, state } : null;
  const priority = priorityOrder(q.order_by, q.sort, q.labels ?? undefined, () => anyGroupLabelPriority(rc.svc.db));
  const order = priority ? priorityOrderSql(type, priority) : computed ?? (col === 'weight' ? weightOrder(q.sort as SortDirection) : `x.${col} ${q.sort}, x.id ${q.sort}`);
  // The caller's own records of the instance (globalScope's created_by_me) are an author's too.
  const authorIds = [q.author_id, createdBy, scope.authorId].filter((id): id is number => id != null && id > 0);
  const combined = { type, projectId: scope.projectId, projects: scope.projects, projectArgs: scope.args, state, labels: q.labels ?? [], notLabels, authorIds, notAuthorId, milestone: milestoneTitle, milestoneHeld: noMilestone ? ('none' as const) : milestoneAny ? ('some' as const) : null, dates };
  // A term no record of the scope holds (counted exactly): nothing to read or count.
  if (search?.none || bounds.empty || provablyEmpty(rc.svc.db, combined)) return emptyFilters(q.sort as SortDirection);
  const oneSet = !q.search && idSets.length === 1 && where.length === (state ? 1 : 0) + 1 ? idSets[0] : null;
  return { where, args, order, orderColumn: col, priority, sort: q.sort as SortDirection, labelOnly, search, idSets, dates, authorId: authorParam ?? null, requiredLabels, labelBound, authorLabelBound, searchAlone, counted, milestoneNone, milestoneHeld, milestoneById, labelTitles, complement, state, oneSet };
}

/**
 * A list no record can meet (filter-plan.ts): `WHERE 0` and none of the readers that a filter's
 * shape selects, so nothing is read or counted (the plain answer: no rows, X-Total 0).
 */
function emptyFilters(sort: SortDirection): WorkItemFilters {
  return {
    where: ['0'], args: [], order: `x.created_at ${sort}, x.id ${sort}`, orderColumn: 'created_at', priority: null, sort, labelOnly: null, search: null, idSets: [], dates: {},
    authorId: null, requiredLabels: [], labelBound: null, authorLabelBound: null, searchAlone: false, counted: null, milestoneNone: null, milestoneHeld: null, milestoneById: false, labelTitles: null, complement: null, state: null, oneSet: null, empty: true,
  };
}

/**
 * The capped count of a project's issues or merge requests filtered by one label (and perhaps a
 * state) from the label rows' index (core/014), instead of walking the records in list order
 * and probing each one's labels: a label on a tenth of a million records would read 100,000
 * records to find 10,001. `extra` is any remaining condition on the record `x` (confidentiality),
 * joined only when there is one. DISTINCT because one record can carry titles that differ only
 * in case. When the label counters (core/016) already show more than COUNT_LIMIT records that
 * every reader of the list sees (not confidential) under one spelling of the title, the list is
 * uncounted and nothing is walked.
 */
export function labelRowsCount(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  extra: { sql: string; args: unknown[] },
): { from: string; args: unknown[] } | { counted: number } | undefined {
  if (!filters.labelOnly) return undefined;
  const { title, state, milestone, authorId } = filters.labelOnly;
  if (authorId !== null) {
    return scope.projectId === undefined ? manyProjectsAuthorLabelCount(rc, type, scope, filters.labelOnly, authorId, extra) : authorLabelCount(rc, type, scope.projectId, filters.labelOnly, authorId, extra);
  }
  if (scope.projectId === undefined) return manyProjectsLabelCount(rc, type, scope, filters.labelOnly);
  // With a milestone's title: the counters and label rows by milestone (core/034), over every
  // milestone of that title (the records of the project carry one of them, whichever it is).
  const inMilestones = (column: string): string =>
    milestone === null ? '' : ` AND ${column} IS NOT NULL AND ${column} IN (SELECT id FROM milestones WHERE title = ?)`;
  const milestoneArgs = milestone === null ? [] : [milestone];
  const visible = rc.svc.db
    .prepare(
      `SELECT coalesce(max(n), 0) AS n FROM (SELECT sum(n) AS n FROM ${milestone === null ? 'label_counts' : 'label_milestone_counts'}
        WHERE issuable_type = ? AND project_id = ?${inMilestones('milestone')} AND title = ? COLLATE NOCASE${state ? ' AND state = ?' : ''} AND confidential = 0 GROUP BY title)`,
    )
    .get(type, scope.projectId, ...milestoneArgs, title, ...(state ? [state] : [])) as { n: number };
  if (visible.n > COUNT_LIMIT) return { counted: COUNT_LIMIT + 1 };
  const view = labelRowsView(type, scope, extra);
  return {
    from: `FROM (SELECT DISTINCT il.issuable_id FROM issuable_labels il INDEXED BY ${milestone === null ? 'issuable_labels_project' : 'issuable_labels_milestone'}
      WHERE il.issuable_type = '${type}' AND il.project_id = ?${inMilestones('il.milestone')} AND il.title = ? COLLATE NOCASE${state ? ' AND il.state = ?' : ''}${view.sql})`,
    args: [scope.projectId, ...milestoneArgs, title, ...(state ? [state] : []), ...extra.args],
  };
}

/**
 * The count of a project's issues or merge requests by one label and an author (perhaps a state
 * too) from the label-author counters (core/054) instead of walking the author's records and
 * probing each one's labels (50,000 at scale). Counted so only when the project's records carry
 * the title in one spelling (a record carrying two would count twice); otherwise undefined (the
 * list is counted by walking it). Confidential issues the caller may not see all of (`extra` not
 * trivial) are counted from their own label rows (core/016's small index), each checked against
 * the record: the counters add the others, which everyone sees.
 */
function authorLabelCount(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  projectId: number,
  label: LabelFilter,
  authorId: number,
  extra: { sql: string; args: unknown[] },
): { counted: number } | undefined {
  const db = rc.svc.db;
  const { title, state } = label;
  const spellings = db
    .prepare(`SELECT DISTINCT title FROM label_counts WHERE issuable_type = ? AND project_id = ? AND title = ? COLLATE NOCASE AND n > 0 LIMIT 2`)
    .all(type, projectId, title) as { title: string }[];
  if (spellings.length === 0) return { counted: 0 };
  if (spellings.length > 1) return undefined;
  const exact = spellings[0].title;
  const counts = db
    .prepare(
      `SELECT coalesce(sum(n) FILTER (WHERE confidential = 0), 0) AS open, coalesce(sum(n) FILTER (WHERE confidential != 0), 0) AS confidential
        FROM label_author_counts WHERE issuable_type = ? AND project_id = ? AND author_id = ? AND title = ?${state ? ' AND state = ?' : ''}`,
    )
    .get(type, projectId, authorId, exact, ...(state ? [state] : [])) as { open: number; confidential: number };
  if (extra.sql === '1 = 1' || counts.confidential === 0) return { counted: counts.open + counts.confidential };
  if (counts.open > COUNT_LIMIT) return { counted: COUNT_LIMIT + 1 };
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const seen = db
    .prepare(
      `SELECT count(*) AS n FROM issuable_labels il INDEXED BY issuable_labels_confidential CROSS JOIN ${table} x ON x.id = il.issuable_id
        WHERE il.issuable_type = ? AND il.project_id = ? AND il.title = ?${state ? ' AND il.state = ?' : ''} AND il.confidential = 1
          AND il.author_id = ? AND ${extra.sql}`,
    )
    .get(type, projectId, exact, ...(state ? [state] : []), authorId, ...extra.args) as { n: number };
  return { counted: counts.open + seen.n };
}

/**
 * authorLabelCount over many projects (a group's list, the instance's scope=all): the label-author
 * counters (core/054) of the scope's projects, read by author and title (core/075) and each
 * checked against the scope, instead of walking the author's records of every project and
 * probing each one's labels (50,000 at scale: 27 ms). Counted so only when no record of the
 * type anywhere carries another spelling of the title (a record carrying two would count twice),
 * and for issues only when the caller sees every record counted (`extra` trivial), or none of
 * them is confidential; "more than COUNT_LIMIT" when those nobody is denied already are. Else
 * undefined: the list is counted by walking it, as before.
 */
function manyProjectsAuthorLabelCount(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  label: LabelFilter,
  authorId: number,
  extra: { sql: string; args: unknown[] },
): { counted: number } | undefined {
  if (!scope.projects && !scope.instance) return undefined;
  const db = rc.svc.db;
  const { title, state } = label;
  const spellings = db
    .prepare(`SELECT DISTINCT title FROM label_counts INDEXED BY label_counts_title WHERE issuable_type = ? AND title = ? COLLATE NOCASE AND n > 0 LIMIT 2`)
    .all(type, title) as { title: string }[];
  if (spellings.length === 0) return { counted: 0 };
  if (spellings.length > 1) return undefined;
  const inScope = scope.projects ? ` AND +project_id IN (${scope.projects})` : '';
  const counts = db
    .prepare(
      `SELECT coalesce(sum(n) FILTER (WHERE confidential = 0), 0) AS open, coalesce(sum(n) FILTER (WHERE confidential != 0), 0) AS confidential
        FROM label_author_counts INDEXED BY label_author_counts_author
        WHERE issuable_type = ? AND author_id = ? AND title = ?${state ? ' AND state = ?' : ''}${inScope}`,
    )
    .get(type, authorId, spellings[0].title, ...(state ? [state] : []), ...(scope.projects ? scope.args : [])) as { open: number; confidential: number };
  if (extra.sql === '1 = 1' || counts.confidential === 0) return { counted: counts.open + counts.confidential };
  return counts.open > COUNT_LIMIT ? { counted: COUNT_LIMIT + 1 } : undefined;
}

/**
 * A label filter over many projects (a group's list, the instance's scope=all): "more than
 * COUNT_LIMIT" when the label counters (core/016) of the scope's projects already show that many
 * records nobody is denied (not confidential) under one spelling of the title; otherwise the
 * list is counted by walking it, as before.
 */
function manyProjectsLabelCount(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  label: LabelFilter,
): { counted: number } | undefined {
  if (!scope.projects && !scope.instance) return undefined;
  const { title, state, milestone } = label;
  const inScope = scope.projects ? ` AND +project_id IN (${scope.projects})` : '';
  const scopeArgs = scope.projects ? scope.args : [];
  const visible = rc.svc.db
    .prepare(
      // By the title's counters (core/031), each checked against the scope's projects: not one
      // lookup per project of the scope (an administrator's instance-wide list has them all).
      // With a milestone's title, the type's counters by milestone (core/034), few rows.
      milestone === null
        ? `SELECT coalesce(max(n), 0) AS n FROM (SELECT sum(n) AS n FROM label_counts INDEXED BY label_counts_title
        WHERE issuable_type = ? AND title = ? COLLATE NOCASE${state ? ' AND state = ?' : ''}${inScope} AND confidential = 0 GROUP BY title)`
        : `SELECT coalesce(max(n), 0) AS n FROM (SELECT sum(n) AS n FROM label_milestone_counts
        WHERE issuable_type = ? AND milestone IN (SELECT id FROM milestones WHERE title = ?) AND title = ? COLLATE NOCASE${state ? ' AND state = ?' : ''}${inScope} AND confidential = 0 GROUP BY title)`,
    )
    .get(type, ...(milestone === null ? [] : [milestone]), title, ...(state ? [state] : []), ...scopeArgs) as { n: number };
  return visible.n > COUNT_LIMIT ? { counted: COUNT_LIMIT + 1 } : undefined;
}

/**
 * Whether the caller's own set (scope=assigned_to_me, reviews_for_me: the scope's set) holds fewer
 * records than `titleRows`, the rows of a title a walk would ask the set of, and fewer than that
 * walk reads for the page at the set's density (`titleRows / set` rows a record): then the set's
 * records read and sorted (idSetLists) read fewer (the administrator's assigned merge requests with
 * bug, none: every one of bug's rows asked, 250-1,600 ms). The set counted up to that bound.
 */
export function callerSetFewer(rc: RequestContext, scope: Scope, titleRows: number): boolean {
  const set = scope.idSets?.[0];
  if (!set) return false;
  const page = readPage(rc.params);
  const bound = Math.min(titleRows, Math.ceil(Math.sqrt((page.offset + page.perPage) * titleRows)));
  return countUpTo(rc.svc.db, set.rows, set.args, bound) < bound;
}

/**
 * The page of issues or merge requests filtered by one label (and perhaps a state) by created_at
 * or updated_at, read from the label's rows in that order (label rows carry their record's
 * created_at: core/030 merge requests', core/038 issues'; and updated_at: core/054) instead of
 * walking the list in order and probing each record's labels, which reads every record newer
 * than the label's newest.
 * A record carrying the title in two spellings (differing in case) has two rows: only its lowest
 * spelling is read. `extra`: what else the caller's view asks of the record (an issue's
 * confidentiality), checked on the record. The same rows in the same order as the list's SQL
 * (il.created_at is x.created_at, il.updated_at x.updated_at, il.issuable_id is x.id).
 */
export function labelRowsPage<T extends { id: number }>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  extra: { sql: string; args: unknown[] } = { sql: '1 = 1', args: [] },
): ((limit: number, offset: number) => T[]) | undefined {
  // Label rows carry both orders' columns (core/030/038 created_at, core/054 updated_at), each
  // with its indexes. An author's label list walks the author's records (a few hundred for a page).
  const col = filters.orderColumn;
  if (!filters.labelOnly || (col !== 'created_at' && col !== 'updated_at') || filters.labelOnly.authorId !== null) return undefined;
  // Issues over many projects only for the whole instance: a group's would read the title's rows
  // of every project (a common title: 100,000 at scale) to keep the few in the group.
  if (type === 'Issue' && scope.projectId === undefined && !scope.instance) return undefined;
  const { title, state, milestone } = filters.labelOnly;
  // The label's rows on a milestone have an index in created_at order only (core/042).
  if (milestone !== null && col !== 'created_at') return undefined;
  // With a milestone's title: a project whose records carry one milestone of that title (the
  // usual case) reads the label's rows on that milestone in order (core/042's index), instead of
  // walking the milestone's records and probing each one's labels (page 400: 50,000 records).
  let milestoneId: number | null = null;
  if (milestone !== null) {
    const carried = scope.projectId === undefined ? [] : carriedMilestones(rc, type, scope.projectId, milestone);
    if (carried.length !== 1) return undefined;
    milestoneId = carried[0];
  }
  const db = rc.svc.db;
  const sort = filters.sort === 'asc' ? 'ASC' : 'DESC';
  // A project reads its own label rows; a group or the instance reads the title's rows of every
  // project (issuable_labels_title_created) and keeps those in scope.
  const inProject = scope.projectId !== undefined;
  const byScope = !inProject && !scope.instance;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const view = labelRowsView(type, scope, extra);
  // The record is joined for a scope's condition on it, or the caller's view of it (confidentiality).
  const joined = byScope || view.joined;
  if (byScope && callerSetFewer(rc, scope, (db.prepare('SELECT coalesce(sum(n), 0) AS n FROM label_counts INDEXED BY label_counts_title WHERE issuable_type = ? AND title = ? COLLATE NOCASE').get(type, title) as { n: number }).n)) return undefined;
  // Only when the label counters know two spellings of the title (in the project; anywhere, for a
  // wider scope) can a record carry both: then each row is checked to be its record's lowest.
  const spellings = (
    db
      .prepare(`SELECT count(DISTINCT title) AS n FROM label_counts${inProject ? '' : ' INDEXED BY label_counts_title'}
        WHERE issuable_type = '${type}'${inProject ? ' AND project_id = ?' : ''} AND title = ? COLLATE NOCASE AND n > 0`)
      .get(...(inProject ? [scope.projectId, title] : [title])) as { n: number }
  ).n;
  // The page's ids from the label rows alone (a record's row is read only for a scope's or the
  // caller's condition on it), then its records: rows skipped by OFFSET no longer read their record.
  const byCreated = col === 'created_at';
  const labelIndex =
    milestoneId !== null
      ? 'issuable_labels_milestone_created'
      : inProject
      ? byCreated ? 'issuable_labels_created' : 'issuable_labels_updated'
      : byCreated ? 'issuable_labels_title_created' : 'issuable_labels_title_updated';
  const onMilestone = milestoneId !== null ? ' AND il.milestone IS NOT NULL AND il.milestone = ?' : '';
  const ids: SqlList<{ id: number; at: string }> = {
    select: `il.issuable_id AS id, il.${col} AS at`,
    from: `FROM issuable_labels il INDEXED BY ${labelIndex}
      ${joined ? `CROSS JOIN ${table} x ON x.id = il.issuable_id` : ''}
      WHERE il.issuable_type = '${type}'${inProject ? ' AND il.project_id = ?' : ''}${onMilestone} AND il.title = ? COLLATE NOCASE AND il.${col} IS NOT NULL${state ? ' AND il.state = ?' : ''}
        ${spellings > 1 ? lowestSpelling(type) : ''}${byScope ? ` AND ${scope.where}` : ''}${view.sql}`,
    args: [...(inProject ? [scope.projectId] : []), ...(milestoneId !== null ? [milestoneId] : []), title, ...(state ? [state] : []), ...(byScope ? scope.args : []), ...extra.args],
    order: `il.${col} ${sort}, il.issuable_id ${sort}`,
  };
  if (extra.args.length === 0) ids.anchors = labelRowAnchors(rc, type, scope, ids, col, filters.sort);
  return (limit, offset) => {
    const pageIds = listRows(db, ids, limit, offset).map((r) => r.id);
    return rowsByIds<T>(db, writesOf(table), pageIds);
  };
}

/**
 * The caller's view of the records (`extra`: confidentialSql's term on the record `x`, which every
 * issue not confidential meets) as a condition on their label rows `il` to append, and whether the
 * record is joined for it. A project's issue rows: a row whose issue is none of the project's
 * confidential ones (few: core/067's index, read once a statement; the project inlined, so the
 * arguments stay the view's) holds with no record read, the others are checked on their record.
 * Joining each row's issue read a Guest's label page 500 as 10,000 scattered issues (~190 ms first).
 */
export function labelRowsView(type: 'Issue' | 'MergeRequest', scope: Scope, extra: { sql: string; args: unknown[] }): { sql: string; joined: boolean } {
  if (extra.sql === '1 = 1') return { sql: '', joined: false };
  if (type !== 'Issue' || scope.projectId === undefined) return { sql: ` AND ${extra.sql}`, joined: true };
  const confidential = `SELECT c.id FROM issues c WHERE c.project_id = ${Number(scope.projectId)} AND c.confidential = 1`;
  return { sql: ` AND (il.issuable_id NOT IN (${confidential}) OR EXISTS (SELECT 1 FROM issues x WHERE x.id = il.issuable_id AND ${extra.sql}))`, joined: false };
}

/**
 * Anchors for deep pages read from label rows (labelRowsPage, labelTitlesList): a page starts from
 * a row an earlier page read while the scope's records are unwritten (every label row change is a
 * write to its record). A project's by its list version; a group's or the instance's by
 * recordsVersion (the sum of its projects' list versions, their ids in the key; the instance's
 * write log), when the rows' SQL reads only the label rows and the records (a group's merge
 * requests with label-1, page 500 of 100, walked 50,000 of the title's rows after every write:
 * 45 ms). Only for a caller whose view of them no membership decides (an administrator, an
 * anonymous caller: the list's extra condition has no arguments), so one key serves every such
 * caller.
 */
function labelRowAnchors(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  ids: SqlList<{ id: number; at: string }>,
  col: 'created_at' | 'updated_at',
  sort: SortDirection,
): PageAnchors<{ id: number; at: string }> | undefined {
  const anchors = { column: `il.${col}`, idColumn: 'il.issuable_id', sort, value: (row: { at: string }) => row.at, id: (row: { id: number }) => row.id };
  const projectId = scope.projectId;
  if (projectId !== undefined) return { key: JSON.stringify(['labelRows', type, ids.from, ids.args, ids.order]), version: () => listVersion(rc, type, projectId), ...anchors };
  const records = recordsVersion(rc, type, scope);
  if (!records?.reads(ids.from, 'issuable_labels')) return undefined;
  return { key: JSON.stringify(['labelRows', type, records.keyOf(ids.from), ids.from, ids.args, ids.order]), version: records.version, ...anchors };
}

/**
 * Issues or merge requests by several label titles (labels=a,b; labels=a&not[labels]=b), perhaps
 * in a state, by created_at or updated_at: the page and the count from the label rows alone
 * (core/014, their order's index: core/030, core/054), walking the rows of the title on the fewest
 * records (the label counters, core/016) and asking each row's record's other titles by its id,
 * instead of walking the records in list order and probing each one's labels (labels=bug,label-1:
 * a million records for 556). A project walks its own rows; a scope of projects (a group, the
 * instance) the title's rows of every project in order, each record checked against the scope (it
 * reads at most the rows a set of the title's records would, idSetLists's, and stops at its page;
 * a set read them all and sorted their records: 2,778 issues, 8 ms). `extra` as labelRowsPage's.
 */
export function labelTitlesList<T extends { id: number }>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  extra: { sql: string; args: unknown[] } = { sql: '1 = 1', args: [] },
): { count: { from: string; args: unknown[] }; rows: (limit: number, offset: number) => T[] } | undefined {
  const titles = filters.labelTitles;
  const col = filters.orderColumn;
  const projectId = scope.projectId;
  const inProject = projectId !== undefined;
  if (!titles || (!inProject && !scope.projects && !scope.instance) || (col !== 'created_at' && col !== 'updated_at')) return undefined;
  const db = rc.svc.db;
  // A project's counters, or every project's by the title's index (a scope of projects walks the title's rows of all).
  const counters = inProject ? `label_counts WHERE issuable_type = '${type}' AND project_id = ? AND` : `label_counts INDEXED BY label_counts_title WHERE issuable_type = '${type}' AND`;
  const inCounters = inProject ? [projectId] : [];
  const carried = (title: string): number => (db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM ${counters} title = ? COLLATE NOCASE`).get(...inCounters, title) as { n: number }).n;
  const byCount = titles.all.map((title) => ({ title, n: carried(title) })).sort((a, b) => a.n - b.n);
  const [driver, ...others] = byCount.map((t) => t.title);
  if (!inProject && callerSetFewer(rc, scope, byCount[0].n)) return undefined;
  // A record carrying the driver in two spellings has two rows: only its lowest is kept (labelRowsPage).
  const spellings = (db.prepare(`SELECT count(DISTINCT title) AS n FROM ${counters} title = ? COLLATE NOCASE AND n > 0`).get(...inCounters, driver) as { n: number }).n;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const view = labelRowsView(type, scope, extra);
  // The record is joined for the caller's view of it (confidentiality) or a scope's condition on it.
  const byScope = !inProject && !scope.instance;
  const joined = view.joined || byScope;
  const carries = (not: boolean): string =>
    ` AND ${not ? 'NOT ' : ''}EXISTS (SELECT 1 FROM issuable_labels d WHERE d.issuable_type = '${type}' AND d.issuable_id = il.issuable_id AND d.title = ? COLLATE NOCASE)`;
  const { state } = titles;
  const index = inProject ? (col === 'created_at' ? 'issuable_labels_created' : 'issuable_labels_updated') : col === 'created_at' ? 'issuable_labels_title_created' : 'issuable_labels_title_updated';
  const from = `FROM issuable_labels il INDEXED BY ${index}
      ${joined ? `CROSS JOIN ${table} x ON x.id = il.issuable_id` : ''}
      WHERE il.issuable_type = '${type}'${inProject ? ' AND il.project_id = ?' : ''} AND il.title = ? COLLATE NOCASE AND il.${col} IS NOT NULL${state ? ' AND il.state = ?' : ''}
        ${spellings > 1 ? `AND NOT EXISTS (SELECT 1 FROM issuable_labels s WHERE s.issuable_type = '${type}' AND s.issuable_id = il.issuable_id
          AND s.title = il.title COLLATE NOCASE AND s.title < il.title)` : ''}${others.map(() => carries(false)).join('')}${titles.without.map(() => carries(true)).join('')}${byScope ? ` AND ${scope.where}` : ''}${view.sql}`;
  const args = [...(inProject ? [projectId] : []), driver, ...(state ? [state] : []), ...others, ...titles.without, ...(byScope ? scope.args : []), ...extra.args];
  const sort = filters.sort === 'asc' ? 'ASC' : 'DESC';
  const ids: SqlList<{ id: number; at: string }> = { select: `il.issuable_id AS id, il.${col} AS at`, from, args, order: `il.${col} ${sort}, il.issuable_id ${sort}` };
  if (extra.args.length === 0) ids.anchors = labelRowAnchors(rc, type, scope, ids, col, filters.sort);
  return {
    count: { from, args },
    rows: (limit, offset) => rowsByIds<T>(db, writesOf(table), listRows(db, ids, limit, offset).map((r) => r.id)),
  };
}

/**
 * The count of issues or merge requests by two label titles (labels=a,b) or by one and not another
 * (labels=a&not[labels]=b), perhaps in a state, over a project, a scope of projects or the whole
 * instance: from the pair counters (core/092; for not[], a's label counters, core/016, less the
 * pair's) instead of walking the rarer title's rows and asking each record about the other (two
 * titles on a tenth of a million merge requests walked 50,000 rows to count 10,001). `seesAll`: the
 * caller sees every record counted (confidential issues included). Undefined (counted as before)
 * when a record could be counted twice (a title carried in two spellings in the scope, or the two
 * titles one but for case), or when the caller may not see some confidential records counted and
 * those nobody is denied do not already pass COUNT_LIMIT.
 */
export function labelPairCount(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  seesAll: boolean,
  /** Issues' confidential=true/false: only those (undefined: both). */
  confidential?: boolean,
): { counted: number; exact?: true } | undefined {
  const titles = filters.labelTitles;
  if (!titles) return undefined;
  const without = titles.without.length === 1 && titles.all.length === 1;
  if (!without && !(titles.all.length === 2 && titles.without.length === 0)) return undefined;
  const [x, y] = [...titles.all, ...titles.without];
  if (x.toLowerCase() === y.toLowerCase()) return undefined;
  const inScope = scope.projectId !== undefined ? ' AND project_id = ?' : scope.instance ? '' : scope.projects ? ` AND +project_id IN (${scope.projects})` : null;
  if (inScope === null) return undefined;
  const scopeArgs = scope.projectId !== undefined ? [scope.projectId] : scope.instance ? [] : scope.args;
  const db = rc.svc.db;
  // Over many projects by the title's counters, each checked against the scope (not every counter of the type).
  const counters = scope.projectId !== undefined ? 'label_counts' : 'label_counts INDEXED BY label_counts_title';
  const spellings = (title: string): number =>
    (db.prepare(`SELECT count(DISTINCT title) AS n FROM ${counters} WHERE issuable_type = ? AND title = ? COLLATE NOCASE AND n > 0${inScope}`).get(type, title, ...scopeArgs) as { n: number }).n;
  if (spellings(x) > 1 || spellings(y) > 1) return undefined;
  const inState = titles.state ? ' AND state = ?' : '';
  const stateArgs = titles.state ? [titles.state] : [];
  const split = 'coalesce(sum(n) FILTER (WHERE confidential = 0), 0) AS open, coalesce(sum(n) FILTER (WHERE confidential != 0), 0) AS hidden';
  const pairs = db
    // Either title first (whichever the records carry sorts lower); `IN` so the key is searched for each (an OR read every pair of the type).
    .prepare(`SELECT ${split} FROM label_pair_counts WHERE issuable_type = ? AND a IN (?, ?) AND b IN (?, ?) AND a != b${inState}${inScope}`)
    .get(type, x, y, x, y, ...stateArgs, ...scopeArgs) as { open: number; hidden: number };
  let { open, hidden } = pairs;
  if (without) {
    const carried = db.prepare(`SELECT ${split} FROM ${counters} WHERE issuable_type = ? AND title = ? COLLATE NOCASE${inState}${inScope}`).get(type, x, ...stateArgs, ...scopeArgs) as { open: number; hidden: number };
    open = carried.open - open;
    hidden = carried.hidden - hidden;
  }
  // Those not confidential everyone sees; the confidential ones only a caller who sees them all.
  if (confidential === false) return { counted: open };
  if (confidential === true) return seesAll || hidden === 0 ? { counted: hidden } : undefined;
  // Every record counted is one the caller sees: the list's length, even past COUNT_LIMIT (a page
  // past it is not read: /merge_requests opened&labels=bug,label-4 page 500 of 100 walked label-4's rows for none).
  if (seesAll || hidden === 0) return { counted: open + hidden, exact: true };
  return open > COUNT_LIMIT ? { counted: COUNT_LIMIT + 1 } : undefined;
}

/**
 * The count of a project's issues or merge requests from counters kept by triggers instead of
 * walking the list, when nothing else filters it: by state alone (core/017), or by author and
 * milestone too (issues: core/018, merge requests: core/028). `seesAll`: the caller sees every
 * record counted (confidential issues included) and gets the exact count; others get "more than
 * COUNT_LIMIT" when the records nobody is denied (not confidential) already number that many,
 * and a walk otherwise.
 */
export function countersCount(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters, seesAll: boolean): { counted: number; exact?: true } | undefined {
  if (!filters.counted) return undefined;
  const { state, authorId, milestone } = filters.counted;
  const db = rc.svc.db;
  const where: string[] = [];
  const args: unknown[] = [];
  const own = ownRecordsEverywhere(scope, authorId);
  if (own !== undefined) {
    if (own === null) return undefined;
    if (milestone !== null) addFilter(where, args, 'milestone IN (SELECT id FROM milestones WHERE title = ?)', milestone);
    return filterCountersCount(rc, type, { state, authorId: own }, where, args, seesAll);
  }
  if (scope.projectId === undefined) {
    if (!(scope.projects || scope.instance)) return undefined;
    if (authorId === null && milestone === null) {
      // Records of many projects (a group, the instance's scope=all), by state alone: the state
      // counters of the scope's projects, each counter row checked against them (not one lookup per
      // project). Issues have confidential ones a caller may not see: counted so only for a caller
      // who sees them all (an administrator), walked otherwise.
      if (type !== 'MergeRequest' && !seesAll) return undefined;
      return { counted: scopeStateCount(rc, type, scope, state), exact: true };
    }
    // By author or milestone title: the filter counters of the scope's projects (a group's
    // milestone=v1 walked a quarter of a million records to count 10,001).
    if (!scope.instance) addFilter(where, args, `project_id IN (${scope.projects})`, ...scope.args);
  } else if (seesAll && authorId === null && milestone === null) {
    const row = db
      .prepare(`SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ? AND project_id = ?${state ? ' AND state = ?' : ''}`)
      .get(type, scope.projectId, ...(state ? [state] : [])) as { n: number };
    return { counted: row.n, exact: true };
  } else {
    addFilter(where, args, 'project_id = ?', scope.projectId);
  }
  if (milestone !== null) addFilter(where, args, 'milestone IN (SELECT id FROM milestones WHERE title = ?)', milestone);
  return filterCountersCount(rc, type, { state, authorId }, where, args, seesAll);
}

/**
 * The count of a list filtered by milestone=None (`x.milestone_id IS NULL`: the filter counters'
 * milestone 0), perhaps a state and an author, nothing else, from the filter counters of its
 * project or projects, as countersCount counts a milestone's title (a project's merged merge
 * requests with no milestone, none of them, were counted by the milestone index: 265 ms).
 */
export function milestoneNoneCount(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters, seesAll: boolean): { counted: number; exact?: true } | undefined {
  const none = filters.milestoneNone;
  if (!none) return undefined;
  const where = ['milestone = 0'];
  const args: unknown[] = [];
  const own = ownRecordsEverywhere(scope, none.authorId);
  if (own !== undefined) return own === null ? undefined : filterCountersCount(rc, type, { state: none.state, authorId: own }, where, args, seesAll);
  if (scope.projectId !== undefined) addFilter(where, args, 'project_id = ?', scope.projectId);
  else if (scope.projects) addFilter(where, args, `project_id IN (${scope.projects})`, ...scope.args);
  else if (!scope.instance) return undefined;
  return filterCountersCount(rc, type, none, where, args, seesAll);
}

/**
 * An administrator's own records (created_by_me, the default of /issues and /merge_requests) in
 * every project: the author the filter counters count them by (null: author_id names another
 * author, no record is both; undefined: not such a scope). Their list's count walked the author's
 * records (closed merge requests: 50,000 read for 10,001, 20 ms on each first page after a write).
 */
function ownRecordsEverywhere(scope: Scope, authorId: number | null): number | null | undefined {
  if (!scope.everyProject || scope.authorId === undefined) return undefined;
  return authorId !== null && authorId !== scope.authorId ? null : scope.authorId;
}

/** The filter counters' rows that `where` (the scope, a milestone) and a state and an author pick, summed (see countersCount). */
function filterCountersCount(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  { state, authorId }: { state: string | null; authorId: number | null },
  where: string[],
  args: unknown[],
  seesAll: boolean,
): { counted: number; exact?: true } | undefined {
  if (authorId !== null) addFilter(where, args, 'author = ?', authorId);
  if (state) addFilter(where, args, 'state = ?', state);
  // Merge requests are never confidential: whoever lists them sees them all.
  if (!seesAll) where.push('confidential = 0');
  const table = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  const { n } = rc.svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM ${table} WHERE ${where.join(' AND ')}`).get(...args) as { n: number };
  if (seesAll) return { counted: n, exact: true };
  return n > COUNT_LIMIT ? { counted: COUNT_LIMIT + 1 } : undefined;
}

/**
 * "More than COUNT_LIMIT" for a project's list by labels=Any, labels=None or not[labels]=<title>
 * (perhaps in a state) from the counters, when they show it, instead of walking the list to count
 * 10,001 (labels=Any walked ~30,000 records where a third carry a label). Lower bounds: Any holds
 * at least the records one title's counters (core/016) count that nobody is denied (not
 * confidential); None and not[labels] hold at least the records the caller sees (all of the
 * state, core/017; else those not confidential, core/018) less every label row (of that title);
 * assignee_id=None and not[assignee_id] the same less every assignee row (of that user).
 * Undefined when the bound does not clear COUNT_LIMIT: the list is counted as before.
 */
/** Assignee (reviewer) rows counted at most for assignee_id=None / not[assignee_id] and the reviewer's (labelBoundCount): past them the list is counted by walking. */
const ASSIGNEE_ROWS_COUNTED = 100_000;

export function labelBoundCount(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters, seesAll: boolean): { counted: number } | undefined {
  if (!filters.labelBound) return filters.authorLabelBound ? authorLabelBoundCount(rc, type, scope, filters.authorLabelBound, seesAll) : undefined;
  const { kind, title, state } = filters.labelBound;
  const db = rc.svc.db;
  const inState = state ? ' AND state = ?' : '';
  const stateArgs = state ? [state] : [];
  // A group's or the instance's: no label (not one title) or no one in a role (not a user) counted
  // from its projects' counters and label counters or role rows.
  if (scope.projectId === undefined) return kind === 'noUser' || kind === 'notUser' || kind === 'none' || kind === 'not' ? manyProjectsBoundCount(rc, type, scope, filters, seesAll) : undefined;
  let atLeast: number;
  if (kind === 'anyNot') {
    // labels=Any less one title: at least the records one other title's counters count that nobody is
    // denied (not confidential), less every record counted with both (label_pair_counts, core/092: a
    // pair counted under either title's spelling, NOCASE; a record's rows share its project and state).
    // Only a title counted past COUNT_LIMIT can bound it past; each pair read by its key (one per order).
    const pairs = (first: string, second: string): string =>
      `(SELECT coalesce(sum(p.n), 0) FROM label_pair_counts p WHERE p.issuable_type = c.issuable_type AND p.a = ${first} AND p.b = ${second} AND p.project_id = c.project_id${state ? ' AND p.state = ?' : ''})`;
    atLeast = (
      db
        .prepare(
          `SELECT coalesce(max(c.n - ${pairs('c.title', '?')} - ${pairs('?', 'c.title')}), 0) AS n FROM (SELECT issuable_type, project_id, title, sum(n) AS n FROM label_counts
            WHERE issuable_type = ? AND project_id = ?${inState} AND confidential = 0 AND title != ? COLLATE NOCASE GROUP BY title HAVING sum(n) > ${COUNT_LIMIT}) c`,
        )
        .get(title, ...stateArgs, title, ...stateArgs, type, scope.projectId, ...stateArgs, title) as { n: number }
    ).n;
  } else if (kind === 'any') {
    atLeast = (
      db
        .prepare(`SELECT coalesce(max(n), 0) AS n FROM (SELECT sum(n) AS n FROM label_counts WHERE issuable_type = ? AND project_id = ?${inState} AND confidential = 0 GROUP BY title)`)
        .get(type, scope.projectId, ...stateArgs) as { n: number }
    ).n;
  } else {
    const seen =
      seesAll || type === 'MergeRequest'
        ? 'SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ? AND project_id = ?'
        : "SELECT coalesce(sum(n), 0) AS n FROM issue_filter_counts WHERE 'Issue' = ? AND project_id = ? AND confidential = 0";
    const total = (db.prepare(`${seen}${inState}`).get(type, scope.projectId, ...stateArgs) as { n: number }).n;
    if (kind === 'noUser' || kind === 'notUser') {
      // Less every assignee (reviewer) row (of that user) in any state (core/066; the project's
      // through core/069), counted only as far as the bound could still clear COUNT_LIMIT.
      const cap = Math.min(total - COUNT_LIMIT, ASSIGNEE_ROWS_COUNTED);
      if (cap <= 0) return undefined;
      const rows = `FROM issuable_users u WHERE u.issuable_type = ? AND u.role = ?${kind === 'notUser' ? ' AND u.user_id = ?' : ''} AND u.project_id = ?`;
      const assigned = countUpTo(db, rows, [type, filters.labelBound.role, ...(kind === 'notUser' ? [filters.labelBound.user] : []), scope.projectId], cap);
      return assigned < cap ? { counted: COUNT_LIMIT + 1 } : undefined;
    }
    const labelled = (
      db
        .prepare(`SELECT coalesce(sum(n), 0) AS n FROM label_counts WHERE issuable_type = ? AND project_id = ?${inState}${kind === 'not' ? ' AND title = ? COLLATE NOCASE' : ''}`)
        .get(type, scope.projectId, ...stateArgs, ...(kind === 'not' ? [title] : [])) as { n: number }
    ).n;
    atLeast = total - labelled;
  }
  return atLeast > COUNT_LIMIT ? { counted: COUNT_LIMIT + 1 } : undefined;
}

/**
 * labelBoundCount's None / not[labels] bound for one author's records (a non-administrator's
 * created_by_me over the projects they see, or author_id) in a project, a scope of projects or the
 * instance: the author's records there the caller sees (the filter counters by author, core/018 and
 * core/028; all of them for the author, else those not confidential) less every label row of the
 * author (of that title) in any project, counted only as far as the bound could still clear
 * COUNT_LIMIT (core/148's index). A Reporter's /issues?labels=None counted 10,001 of their 50,000
 * records one by one, probing each of the 10,000 projects they see (300-500 ms first).
 */
function authorLabelBoundCount(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, bound: NonNullable<WorkItemFilters['authorLabelBound']>, seesAll: boolean): { counted: number } | undefined {
  // A scope of nothing but projects (an administrator's created_by_me or assigned_to_me holds the caller's too).
  const projectsOnly = scope.projectId !== undefined || scope.instance || (scope.projects && !scope.idSets) || (scope.everyProject && !scope.idSets && scope.authorId === bound.authorId);
  if (!projectsOnly) return undefined;
  const [inScope, scopeArgs] = countersInScope(scope);
  const state = bound.state ? ' AND state = ?' : '';
  const stateArgs = bound.state ? [bound.state] : [];
  const hidden = type === 'Issue' && !seesAll && bound.authorId !== rc.user?.id ? ' AND confidential = 0' : '';
  const table = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  const total = (rc.svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM ${table} WHERE author = ?${state}${hidden}${inScope}`).get(bound.authorId, ...stateArgs, ...scopeArgs) as { n: number }).n;
  const cap = Math.min(total - COUNT_LIMIT, ASSIGNEE_ROWS_COUNTED);
  if (cap <= 0) return undefined;
  const title = bound.kind === 'not' ? ' AND il.title = ? COLLATE NOCASE' : '';
  const rows = `FROM issuable_labels il INDEXED BY issuable_labels_author WHERE il.issuable_type = ? AND il.author_id = ?${title}${bound.state ? ' AND il.state = ?' : ''}`;
  const labelled = countUpTo(rc.svc.db, rows, [type, bound.authorId, ...(bound.kind === 'not' ? [bound.title] : []), ...stateArgs], cap);
  return labelled < cap ? { counted: COUNT_LIMIT + 1 } : undefined;
}

/**
 * "More than COUNT_LIMIT" for a project's list by a condition most records meet (filters.complement:
 * issue_type=issue, due_date=0, wip=no), perhaps in a state, when the counters show it: at least the
 * records the caller sees (of the state: core/017, or those not confidential: core/018) less every
 * record of the few others (any state), read by their index up to the bound (labelBoundCount's
 * reasoning). The list counted 10,001 records otherwise, each read for its column.
 */
export function complementBoundCount(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters, seesAll: boolean): { counted: number } | undefined {
  if (!filters.complement || scope.projectId === undefined) return undefined;
  const { rows, state } = filters.complement;
  const seen =
    seesAll || type === 'MergeRequest'
      ? 'SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ? AND project_id = ?'
      : "SELECT coalesce(sum(n), 0) AS n FROM issue_filter_counts WHERE 'Issue' = ? AND project_id = ? AND confidential = 0";
  const total = (rc.svc.db.prepare(`${seen}${state ? ' AND state = ?' : ''}`).get(type, scope.projectId, ...(state ? [state] : [])) as { n: number }).n;
  const cap = Math.min(total - COUNT_LIMIT, ASSIGNEE_ROWS_COUNTED);
  if (cap <= 0) return undefined;
  return countUpTo(rc.svc.db, rows, [scope.projectId], cap) < cap ? { counted: COUNT_LIMIT + 1 } : undefined;
}

/**
 * The count of a project's issues or merge requests that carry one milestone (a milestone's own
 * lists) from the filter counters (core/018, core/028) instead of counting its records: exact for
 * a caller who sees every record (`seesAll`; merge requests are never confidential), "more than
 * COUNT_LIMIT" for others when the records nobody is denied already number that many, and
 * undefined (count them) otherwise.
 */
/**
 * labelBoundCount's bound for a scope of many projects (its projects alone, or the whole instance;
 * else undefined): the scope's records (the state counters; for a caller who may not see
 * confidential issues, the non-confidential ones) less, for None and not[labels], every label row
 * (of that title) its projects' label counters count in the state (core/016, a few hundred rows),
 * or for no one in a role, the role's rows (of that user) in its projects, counted only as far as
 * the bound could still clear COUNT_LIMIT. A group's issues not[labels]=bug counted 10,001 by
 * walking its million, the 112,000 with bug first (110-150 ms first).
 */
function manyProjectsBoundCount(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters, seesAll: boolean): { counted: number } | undefined {
  const bound = filters.labelBound!;
  if (!scope.instance && !scope.projects) return undefined;
  const [inScope, scopeArgs] = countersInScope(scope);
  const state = bound.state ? ' AND state = ?' : '';
  const stateArgs = bound.state ? [bound.state] : [];
  const total = seesAll || type === 'MergeRequest'
    ? scopeStateCount(rc, type, scope, bound.state)
    : (rc.svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM issue_filter_counts WHERE confidential = 0${state}${inScope}`).get(...stateArgs, ...scopeArgs) as { n: number }).n;
  if (bound.kind === 'none' || bound.kind === 'not') {
    const title = bound.kind === 'not' ? ' AND title = ? COLLATE NOCASE' : '';
    const labelled = countedInScope(rc, 'label_counts', `issuable_type = ?${title}${state}`, [type, ...(bound.kind === 'not' ? [bound.title] : []), ...stateArgs], scope);
    return total - labelled > COUNT_LIMIT ? { counted: COUNT_LIMIT + 1 } : undefined;
  }
  const cap = Math.min(total - COUNT_LIMIT, ASSIGNEE_ROWS_COUNTED);
  if (cap <= 0) return undefined;
  const user = bound.kind === 'notUser' ? ' AND u.user_id = ?' : '';
  const rows = `FROM issuable_users u WHERE u.issuable_type = ? AND u.role = ?${user}${scope.instance ? '' : ` AND u.project_id IN (${scope.projects})`}`;
  const assigned = countUpTo(rc.svc.db, rows, [type, bound.role, ...(bound.kind === 'notUser' ? [bound.user] : []), ...(scope.instance ? [] : scope.args)], cap);
  return assigned < cap ? { counted: COUNT_LIMIT + 1 } : undefined;
}

export function milestoneRecordsCount(rc: RequestContext, type: 'Issue' | 'MergeRequest', projectId: number, milestoneId: number, seesAll: boolean): { counted: number } | undefined {
  const table = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  const hidden = type === 'Issue' && !seesAll ? ' AND confidential = 0' : '';
  const { n } = rc.svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM ${table} WHERE project_id = ? AND milestone = ?${hidden}`).get(projectId, milestoneId) as { n: number };
  if (seesAll || type === 'MergeRequest') return { counted: n };
  return n > COUNT_LIMIT ? { counted: COUNT_LIMIT + 1 } : undefined;
}

/**
 * A milestone's issues or merge requests in GitLab's order for them (API::MilestoneResponses
 * finds them with `sort: 'label_priority'`): by the highest priority (lowest number) among the
 * record's labels that have one in its project, records without one last, then newest id first
 * (Issuable.order_labels_priority, nulls last, then with_order_id_desc). Undefined when no
 * record of the milestone carries a prioritized label: then that order is the list's id order.
 * The titles the milestone's records carry in each project are read by skipping through their
 * label rows (core/034's issuable_labels_milestone, one step per title), each looked up among the
 * project's labels (by its exact title, as the record carries it); the records carrying a
 * prioritized one come first, read by their label rows, sorted, and checked against `list` (the
 * list's own conditions on `x`); the rest follow in id order.
 */
export function labelPriorityRows<T extends { id: number }>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  projectIds: number[],
  milestoneId: number,
  list: { from: string; args: unknown[] },
): ((limit: number, offset: number) => T[]) | undefined {
  const db = rc.svc.db;
  const onMilestone = `il.issuable_type = '${type}' AND il.project_id = @project AND il.milestone IS NOT NULL AND il.milestone = @milestone`;
  const titles = db.prepare(
    `WITH RECURSIVE t(title) AS (
       SELECT (SELECT il.title FROM issuable_labels il INDEXED BY issuable_labels_milestone WHERE ${onMilestone} ORDER BY il.title COLLATE NOCASE LIMIT 1)
       UNION ALL
       SELECT (SELECT il.title FROM issuable_labels il INDEXED BY issuable_labels_milestone WHERE ${onMilestone} AND il.title > t.title COLLATE NOCASE ORDER BY il.title COLLATE NOCASE LIMIT 1)
       FROM t WHERE t.title IS NOT NULL)
     SELECT l.title, l.priority FROM t CROSS JOIN labels l ON l.project_id = @project AND l.title = t.title WHERE l.priority IS NOT NULL${
       // Group labels prioritized in the project (label_priorities: labels/004), when any is.
       anyGroupLabelPriority(db) ? ' UNION ALL SELECT l.title, lp.priority FROM t CROSS JOIN label_priorities lp ON lp.project_id = @project CROSS JOIN labels l ON l.id = lp.label_id AND l.title = t.title' : ''
     }`,
  );
  const carriers = db.prepare(
    `SELECT il.issuable_id AS id FROM issuable_labels il INDEXED BY issuable_labels_milestone WHERE ${onMilestone} AND il.title = @title COLLATE NOCASE AND il.title = @title`,
  );
  const priorityOf = new Map<number, number>();
  for (const projectId of projectIds) {
    for (const { title, priority } of titles.all({ project: projectId, milestone: milestoneId }) as { title: string; priority: number }[]) {
      for (const { id } of carriers.all({ project: projectId, milestone: milestoneId, title }) as { id: number }[]) {
        const known = priorityOf.get(id);
        if (known === undefined || priority < known) priorityOf.set(id, priority);
      }
    }
  }
  if (!priorityOf.size) return undefined;
  // NOT INDEXED: those records looked up by id, not the milestone's records walked to find them.
  const byId = list.from.replace(/^FROM (\w+) x WHERE /, 'FROM $1 x NOT INDEXED WHERE ');
  const listed = (db.prepare(`SELECT x.id ${byId} AND x.id IN (SELECT value FROM json_each(?))`).all(...list.args, JSON.stringify([...priorityOf.keys()])) as { id: number }[]).map((r) => r.id);
  const first = listed.sort((a, b) => priorityOf.get(a)! - priorityOf.get(b)! || b - a);
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const rest = db.prepare(`SELECT x.id ${list.from} AND x.id NOT IN (SELECT value FROM json_each(?)) ORDER BY x.id DESC LIMIT ? OFFSET ?`);
  return (limit, offset) => {
    const head = first.slice(offset, offset + limit);
    const more = limit - head.length;
    const tail = more > 0 ? (rest.all(...list.args, JSON.stringify(first), more, Math.max(0, offset - first.length)) as { id: number }[]).map((r) => r.id) : [];
    return rowsByIds<T>(db, writesOf(table), [...head, ...tail]);
  };
}

/**
 * Anchors for deep pages (PageAnchors) of a project's issues or merge requests in id order, newest
 * first (a milestone's lists): rows change only with writes to the project's records (listVersion).
 * `seesAll` is part of the key, as a role change shows or hides confidential rows without one.
 */
export function idOrderAnchors<T extends { id: number }>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  projectId: number,
  list: { from: string; args: unknown[] },
  seesAll: boolean,
): PageAnchors<T> {
  return {
    key: JSON.stringify([type, list.from, list.args, 'x.id DESC', seesAll]),
    version: () => listVersion(rc, type, projectId),
    column: 'x.id',
    idColumn: 'x.id',
    sort: 'desc',
    value: (row) => row.id,
    id: (row) => row.id,
  };
}

/**
 * idOrderAnchors for a scope of many projects (a group's, an administrator's instance) whose list
 * `walk` (FROM <table> x WHERE ...) reads only its records and what their writes keep
 * (recordsVersion: the sum of the projects' list versions, or the instance's write log; the
 * projects' ids in the key): a group's issues by label_priority with milestone=Any walked 50,000
 * records to page 500 after every write elsewhere (55 ms). Undefined otherwise.
 */
export function scopeIdOrderAnchors<T extends { id: number }>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  walk: string,
  list: { from: string; args: unknown[] },
  seesAll: boolean,
): PageAnchors<T> | undefined {
  const records = recordsVersion(rc, type, scope);
  if (!records?.reads(walk)) return undefined;
  return {
    key: JSON.stringify([type, records.keyOf(walk), list.from, list.args, 'x.id DESC', seesAll]),
    version: records.version,
    column: 'x.id',
    idColumn: 'x.id',
    sort: 'desc',
    value: (row) => row.id,
    id: (row) => row.id,
  };
}

/**
 * The records of a scope of many projects (Scope.projects: the SELECT of their ids; or the whole
 * instance), perhaps in one state, from the state counters (core/017): the type's counter rows,
 * each checked against the projects, rather than one lookup per project.
 */
/** A project's records of every state, from the state counters. */
function projectRecords(rc: RequestContext, type: 'Issue' | 'MergeRequest', projectId: number): number {
  return (rc.svc.db.prepare('SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ? AND project_id = ?').get(type, projectId) as { n: number }).n;
}

function scopeStateCount(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, state: string | null): number {
  const projects = scope.instance ? '' : ` AND +project_id IN (${scope.projects})`;
  const row = rc.svc.db
    .prepare(`SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ?${state ? ' AND state = ?' : ''}${projects}`)
    .get(type, ...(state ? [state] : []), ...(scope.instance ? [] : scope.args)) as { n: number };
  return row.n;
}

/** Order columns that are never NULL: a deep page can start after a row by its place in them. */
const ANCHORED_ORDERS = ['created_at', 'updated_at', 'title'] as const;

/**
 * The version of a project's issue or merge request list: moved on by every insert, update and
 * delete of its records (core/019, core/020 triggers), so what was read at one version holds
 * until it moves.
 */
export function listVersion(rc: RequestContext, type: 'Issue' | 'MergeRequest', projectId: number): number {
  return listVersionIn(rc.svc.db, type, projectId);
}

/** listVersion by the database alone: for a reader kept past its request (a kept page's, kept-answers.ts), which holds no request. */
export function listVersionIn(db: Db, type: 'Issue' | 'MergeRequest', projectId: number): number {
  const table = type === 'Issue' ? 'issue_list_versions' : 'merge_request_list_versions';
  return (db.prepare(`SELECT coalesce((SELECT version FROM ${table} WHERE project_id = ?), 0) AS v`).get(projectId) as { v: number }).v;
}

/**
 * The version of a project's issue lists by created_at or title: moved on only by writes that may
 * add, drop or move one of their rows (core/024): inserts, deletes, moves, and changes to id,
 * project_id, created_at, title, state, author_id, confidential or assignee_ids (the columns
 * those anchored lists filter and sort on, confidentialSql's assignees among them).
 */
export function issueOrderVersion(rc: RequestContext, projectId: number): number {
  return (rc.svc.db.prepare('SELECT coalesce((SELECT version FROM issue_order_versions WHERE project_id = ?), 0) AS v').get(projectId) as { v: number }).v;
}

/** Past this many versions apart, anchors are built again rather than moved (core/025 keeps the last 100 inserts). */
const MOVED_ANCHOR_VERSIONS = 100;

/**
 * The issues a project's writes moved between two of its issueOrderVersions (after `since`, up to
 * `now`): those inserted (core/025) and, when `asWas` (the list's conditions read only the issue's
 * own columns that core/295 logs), those deleted or changed, each as it was at `since` (the first
 * of its entries since, unless inserted since). Null when a version in between is not logged.
 */
function issuesMoved(rc: RequestContext, projectId: number, since: number, now: number, asWas: boolean): OrderMoves | null {
  if (now - since > MOVED_ANCHOR_VERSIONS) return null;
  const db = rc.svc.db;
  const inserted = (db.prepare('SELECT issue_id FROM issue_order_inserts WHERE project_id = ? AND version > ? AND version <= ?').all(projectId, since, now) as { issue_id: number }[]).map(
    (r) => r.issue_id,
  );
  const none = { sql: '', args: [] };
  if (inserted.length === now - since) return { inserted, left: [], was: none };
  if (!asWas) return null;
  const leaves = db.prepare('SELECT version, id FROM issue_order_leaves WHERE project_id = ? AND version > ? AND version <= ? ORDER BY version').all(projectId, since, now) as {
    version: number;
    id: number;
  }[];
  if (inserted.length + leaves.length !== now - since) return null;
  const added = new Set(inserted);
  const first = new Map<number, number>();
  for (const l of leaves) if (!added.has(l.id) && !first.has(l.id)) first.set(l.id, l.version);
  const versions = JSON.stringify([...first.values()]);
  // Their assignee rows as they were too (core/066's rows mirror assignee_ids, which core/295 logs):
  // a member's list asks them whether a confidential issue was theirs (confidentialSql).
  const was = {
    sql: `WITH issues AS (SELECT id, was_project_id AS project_id, created_at, title, state, author_id, confidential, assignee_ids FROM issue_order_leaves
      WHERE project_id = ? AND version IN (SELECT value FROM json_each(?))),
    issuable_users AS (SELECT 'Issue' AS issuable_type, 'assignee' AS role, j.value AS user_id, x.project_id, x.id AS issuable_id
      FROM issues x, json_each(CASE WHEN json_valid(x.assignee_ids) THEN x.assignee_ids ELSE '[]' END) j WHERE j.type IN ('integer', 'real'))`,
    args: [projectId, versions],
  };
  return { inserted, left: [...new Set(leaves.map((l) => l.id))], was };
}

/**
 * Anchors for deep pages (PageAnchors) of a project's issues or merge requests filtered by
 * nothing but the records' own columns (state, author, confidentiality, the milestone's id when
 * its title names the one the records carry) and perhaps one label (not search or a milestone's
 * title, which other tables hold): their rows change only when the project's records are written, which
 * listVersion counts; issues by created_at or title (no milestone: issueOrderVersion leaves it
 * out) only when a write touches what those lists read (issueOrderVersion): editing an issue's
 * description keeps them, and after nothing but new issues the anchors by created_at move along
 * by them (issuesInserted). `seesAll`
 * (the caller sees confidential issues) is part of the key, as a role change shows or hides rows
 * without an issue write.
 */
/**
 * The filters are labels=Any, labels=None or one not[labels] title, perhaps with a state (labelBound
 * on the records' labels, not their assignees or reviewers): what the list holds changes only with
 * writes to its records, as for one label's list (a record's label rows move with it).
 */
export function labelsAlone(filters: WorkItemFilters): boolean {
  return !!filters.labelBound && ['any', 'none', 'not'].includes(filters.labelBound.kind);
}

export function issuableListAnchors<T extends { id: number } & Record<(typeof ANCHORED_ORDERS)[number], string>>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  list: { from: string; args: unknown[] },
  seesAll: boolean,
): PageAnchors<T> | undefined {
  const col = ANCHORED_ORDERS.find((c) => c === filters.orderColumn);
  // One label by title too: a record's label rows change only with writes to it (a renamed label
  // rewrites its records), which listVersion counts. So do labels=Any, labels=None and one
  // not[labels] title (labelBound), perhaps in a state: a deep page walked from the list's start
  // after every unrelated write (merge requests labels=Any per_page=100 page 500: 48 ms).
  const labelled = labelsAlone(filters) ? { milestone: null } : null;
  const own = filters.counted ?? filters.labelOnly ?? labelled;
  if (scope.projectId === undefined) return col ? scopeListAnchors<T>(rc, type, scope, filters, col, list, seesAll) : undefined;
  if (!own || (own.milestone !== null && !filters.milestoneById) || !col) return undefined;
  const projectId = scope.projectId;
  const byOrderVersion = type === 'Issue' && col !== 'updated_at' && filters.counted !== null && filters.counted.milestone === null;
  return {
    key: JSON.stringify([type, list.from, list.args, filters.order, seesAll]),
    version: () => (byOrderVersion ? issueOrderVersion(rc, projectId) : listVersion(rc, type, projectId)),
    column: `x.${col}`,
    idColumn: 'x.id',
    sort: filters.sort,
    value: (row) => row[col],
    id: (row) => row.id,
    // created_at values are ASCII (ISO 8601): they compare in JavaScript as in SQLite. Rows that left
    // are checked as they were when the list reads the issues once, by that name (core/295 logs
    // their own columns, assignees among them: issuesMoved's `was` names their assignee rows as
    // they were too, for a member who sees only their own confidential issues, a Guest).
    moves: byOrderVersion && col === 'created_at' ? (since, now) => issuesMoved(rc, projectId, since, now, (list.from.match(/\bissues\b/g) ?? []).length === 1) : undefined,
  };
}

/**
 * issuableListAnchors for a scope of many projects (a group's, an administrator's instance) whose
 * list SQL reads only its records and what their writes keep (recordsVersion: the sum of the
 * projects' list versions, the projects' ids in the key; or the instance's write log): a group's
 * merge requests bug&not[labels]=label-3&assignee_id=None by updated_at walked 75,000 records to page
 * 500 after every write elsewhere (70 ms). Undefined otherwise.
 */
function scopeListAnchors<T extends { id: number } & Record<(typeof ANCHORED_ORDERS)[number], string>>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  col: (typeof ANCHORED_ORDERS)[number],
  list: { from: string; args: unknown[] },
  seesAll: boolean,
): PageAnchors<T> | undefined {
  // The order's own column (not label priority's, which names created_at as its column).
  if (filters.order !== `x.${col} ${filters.sort}, x.id ${filters.sort}`) return undefined;
  const records = recordsVersion(rc, type, scope);
  if (!records?.reads(list.from)) return undefined;
  return {
    key: JSON.stringify([type, records.keyOf(list.from), list.from, list.args, filters.order, seesAll]),
    version: records.version,
    column: `x.${col}`,
    idColumn: 'x.id',
    sort: filters.sort,
    value: (row) => row[col],
    id: (row) => row.id,
    // The version moves on every write to a record of the scope (or its projects' set, in the key),
    // whatever the column: a page's rows are kept while it holds (a group's merge requests
    // opened&labels=bug&milestone=None page 1 walked the instance's created_at index again after
    // every write elsewhere, 12 ms).
    rowsAtVersion: true,
  };
}

/**
 * A project's, a group's or an administrator's instance page (SqlList.keptRows) in any order, read
 * by whichever reader: its rows stay while the records' version holds (recordsVersion: a write to
 * any record of the scope, or its projects' set in the key) and so do the other tables its SQL and
 * order read (tablesBeyond: milestones' due dates, award emoji, label priorities, memberships),
 * their versions in the key. Scope anchors keep the pages of created_at, updated_at and title with
 * no filter besides the filters' own; a group's merge requests bug&milestone=Any by merged_at, page
 * 2, read the label's rows again after every write elsewhere (165 ms). A project's page read its
 * ids again (its anchors, a walk's remembered statements, label rows, date buckets) and its rows by
 * id (~15-50 us of a page of 20 after a write elsewhere), a common term's search its walk.
 * A scope of more than VERSIONED_PROJECTS projects by the instance's write log (wideScopeVersion).
 * Undefined for a table without a version.
 */
export function scopePageKept(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters, list: { from: string; args: unknown[] }, order: string, seesAll: boolean): SqlList<unknown>['keptRows'] {
  const records = recordsVersion(rc, type, scope) ?? wideScopeVersion(rc, type, scope);
  const sql = `${list.from} ORDER BY ${order}`;
  // A search's full-text index is kept by the records' own triggers, as their label rows are (searchWalkKept).
  const index = (filters.search?.project ?? filters.search?.many ?? filters.search?.instance)?.index;
  const others = records?.beyond(sql)?.filter((table) => table !== index);
  if (!records || !others) return undefined;
  const versions = tableVersionsOf(rc.svc.db, others);
  if (versions.includes(undefined)) return undefined;
  return { key: JSON.stringify(['page', type, records.keyOf(sql), others, versions, list.from, list.args, order, seesAll]), version: records.version, tables: others };
}

/** Order columns with an instance-wide index (core/014), which a scope of many projects can walk. */
const INSTANCE_ORDER_INDEXES = ['created_at', 'updated_at'];

/**
 * The scope's condition as a list query should use it. A scope of many projects (a group, the
 * instance) holding more than COUNT_LIMIT records reads its page by walking the order's
 * instance-wide index and checking each row's project (`+x.project_id` keeps the project index out
 * of SQLite's choice); a smaller one reads its projects' records by the project index and sorts
 * them. SQLite has no statistics to tell the two apart; the scope's records counted do (from the
 * state counters when the scope is projects alone, else a bounded count).
 */
export function scopeCondition(rc: RequestContext, table: 'issues' | 'merge_requests', scope: Scope, filters: WorkItemFilters): string {
  // A project's search that reads the project's matches looks each one up by id (the project
  // index kept out of SQLite's choice) rather than walking the project's records to find them.
  if (scope.projectId !== undefined) return filters.search?.project && !filters.search.project.walk ? `+${scope.where}` : scope.where;
  // An empty list (emptyFilters) reads nothing: no count to choose by.
  if (!scope.unindexed || filters.empty || !INSTANCE_ORDER_INDEXES.includes(filters.orderColumn)) return scope.where;
  // A scope of projects and nothing else reads its records' number from the state counters. A set
  // of the caller's (assigned_to_me for a non-administrator: the projects they see and the set's
  // probe) is counted from the set's rows, each record looked up by id (`+x.project_id`: not its
  // projects' records read whole, each asked the probe: a Reporter's /issues?scope=assigned_to_me
  // walked the million issues of the projects they see to count none, 56 ms).
  const set = scope.idSets?.[0];
  const records = scope.projects
    ? scopeStateCount(rc, table === 'issues' ? 'Issue' : 'MergeRequest', scope, null)
    : set
      ? countUpTo(rc.svc.db, `FROM ${table} x WHERE x.id IN (SELECT ${set.id} ${set.rows}) AND ${scope.unindexed}`, [...set.args, ...scope.args], COUNT_LIMIT + 1)
      : countUpTo(rc.svc.db, `FROM ${table} x WHERE ${scope.where}`, scope.args, COUNT_LIMIT + 1);
  return records > COUNT_LIMIT ? scope.unindexed : scope.where;
}

/**
 * The count of a list with labels whose every condition the rows of its rarest title answer
 * (label-row-mirrors.ts labelRowConditions: state, author, dates, milestone, the other titles by
 * the row's id, the scope's projects), read from those rows alone, through the index their
 * conditions seek by (labelRowsIndexed; DISTINCT: a record may carry the title in two spellings):
 * a group's date-lag list (dateLagList), whose count read the group's records by the project
 * index. A group's merge requests opened&labels=bug,label-4&updated_before by label_priority walked
 * the group's opened records to 11,150, each asked both titles (260 ms). Undefined for a list with
 * no label, or a condition the rows do not carry (a Guest's view of confidential issues).
 */
export function labelRowsWhereCount(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters, where: string[], args: unknown[]): { from: string; args: unknown[] } | undefined {
  if (filters.empty || !filters.requiredLabels.length || (!scope.projects && !scope.instance)) return undefined;
  const carried = filters.requiredLabels.map((title) => ({ title, n: countedInScope(rc, 'label_counts', 'issuable_type = ? AND title = ? COLLATE NOCASE', [type, title], scope) }));
  const { title, n } = carried.reduce((a, b) => (b.n < a.n ? b : a));
  // Its rows in every state (the index's range holds them all) against the scope's records in the
  // list's state (what the projects' (project, state, created_at) index reads at most): a group's
  // closed issues with bug by created_after counted 4x slower from bug's rows (58 -> 235 ms).
  if (n > scopeStateCount(rc, type, scope, filters.state)) return undefined;
  const set = { alias: 'il', title, project: false, labelProbe: labelProbe(type), byId: (id: string) => labelProbeById(type, id), projects: scope.projects ? [scope.where, scope.unindexed ?? scope.where] : [] };
  return labelRowsOnlyCount(where, args, `FROM issuable_labels il WHERE il.issuable_type = '${type}' AND il.title = ? COLLATE NOCASE`, [title], set);
}

/**
 * The capped count of a list whose page walks an instance-wide order index (scopeCondition's
 * unindexed scope, `scopeSql` among `where`): the count has no order to keep, so it reads the
 * scope's projects through the project indexes (10,001 index entries instead of a scan).
 */
export function indexedScopeCount(table: 'issues' | 'merge_requests', scope: Scope, where: string[], args: unknown[], scopeSql: string): { from: string; args: unknown[] } | undefined {
  if (scopeSql === scope.where || scopeSql !== scope.unindexed) return undefined;
  return { from: `FROM ${table} x WHERE ${where.map((w) => (w === scopeSql ? scope.where : w)).join(' AND ')}`, args };
}

/**
 * The FROM of a list's page and of its count when filters are sets of records other tables list
 * (filters.idSets and the scope's, in `where` as their probes; `where` the list's whole condition,
 * `args` its arguments). The page reads the smallest set's ids in the scope, looks their records
 * up by id (CROSS JOIN: SQLite may not walk an order index instead and ask every record, which
 * read a million to find none) and sorts them, unless walking the list's order finds its rows sooner:
 * the walk asks about `records / matches` records for each row it needs, reading asks about every
 * match, so the walk goes first when wanted * records <= matches * matches (matches counted up to
 * that bound). The count has no order to keep: it reads the smallest set through an index of the
 * records when the set has one (a milestone's: the scope's projects by their index, not walked),
 * else goes through the set's rows in the scope one by one, each record looked up and checked, so
 * it stops at its cap (`x.id IN (<set>)` would read the whole set first: a quarter of a million
 * ids for a milestone on that many records).
 */
/** Orders of a record's own column that no index of a scope of many projects holds (due dates have issues_due, walked for the few that carry one). */
const UNWALKED_ORDERS = ['title', 'merged_at'];

export function idSetLists(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  scope: Scope,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
): IdSetLists | undefined {
  const sets = [...filters.idSets, ...(scope.idSets ?? [])];
  // An empty list (`WHERE 0`: see emptyFilters) reads no set.
  if (!sets.length || where.includes('0')) return undefined;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const page = readPage(rc.params);
  const inStates = scope.instance || scope.projects ? scope : { where: '1 = 1', args: [], instance: true as const };
  const records = scope.projectId !== undefined
    ? (rc.svc.db.prepare('SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ? AND project_id = ?').get(type, scope.projectId) as { n: number }).n
    : scopeStateCount(rc, type, inStates, null);
  const bound = Math.ceil(Math.sqrt((page.offset + page.perPage + 1) * records));
  const denseMatches = (set: IdSet): number | undefined => {
    if (!set.others || records < bound) return undefined;
    // At most records - bound others: the set holds at least `bound`.
    const others = countUpTo(rc.svc.db, set.others.rows, set.others.args, records - bound + 1);
    return others <= records - bound ? bound : undefined;
  };
  const counted = sets.map((set) => {
    const dense = set.size ? undefined : denseMatches(set);
    return { set, dense: dense !== undefined, matches: set.size ? Math.min(bound, set.size()) : dense ?? countUpTo(rc.svc.db, ...setRowsInScope(set, scope), bound) };
  });
  // Sets past the bound alike (their matches capped there): the one the counters size smaller (the
  // instance's merge requests with label-2 and milestone=Any by title read the milestone's 250,000
  // records, each asked label-2, where label-2's 111,000 were fewer).
  const sized = (set: IdSet): number => set.size?.() ?? Infinity;
  const { set: smallest, matches, dense } = counted.reduce((a, b) => (b.matches < a.matches || (b.matches === a.matches && sized(b.set) < sized(a.set)) ? b : a));
  // The set's records in the scope, each looked up by id (CROSS JOIN: in that order) and checked;
  // DISTINCT of `+id`, an expression, so no index is chosen for the ids' order over the set's own.
  const [setRows, setArgs] = setRowsInScope(smallest, scope);
  const mirrored = smallest.mirrors ? mirroredConditions(where, args, smallest.mirrors, scope.projectId !== undefined) : { sql: '', args: [] };
  const [rows, rowsArgs] = smallest.mirrors
    ? [labelRowsIndexed(setRows, mirrored.sql, smallest.mirrors, scope.projectId !== undefined), [...setArgs, ...mirrored.args]]
    : [setRows, setArgs];
  // The other sets that can be asked by id alone (label titles) are asked on the set's rows, so only
  // their records are read (labels=a,b&order_by=title: 556 issues read, not the 2,778 of the rarer title).
  const byId = sets.filter((set) => set !== smallest && set.probeById);
  const probed = byId.map((set) => ` AND ${set.probeById!(smallest.id)}`).join('');
  // Probes the set's rows already answer are left out of the records' check: the set's own when its
  // rows are exactly its records (a search's matches, a label title's rows), and each title probed
  // on those rows by id (labels=bug,label-1&wip=no: each of the 22,000 records asked both titles again).
  const answered = [...(smallest.exact || smallest.probeById ? [smallest] : []), ...byId];
  const checked = answered.reduce((c, set) => dropProbe(c.where, c.args, set), { where, args });
  // A common term's matches not read for the set's few records: each checked (searchCheckedByRecord).
  const setRecords = matches < bound ? matches : smallest.size?.() ?? Infinity;
  const setFrom = (byRecord: { sql: string; args: unknown[] }): { from: string; args: unknown[] } => ({
    from: `FROM (SELECT DISTINCT +${smallest.id} AS id ${rows}${probed}) s CROSS JOIN ${table} x ON x.id = s.id WHERE ${byRecord.sql}`,
    args: [...rowsArgs, ...byId.flatMap((set) => set.args), ...byRecord.args],
  });
  const bySet = setFrom(searchCheckedByRecord(filters, checked.where.join(' AND '), checked.args, setRecords));
  // The count's, when it reads the set: the matches counted on as far as the set's records need
  // (only then: a page that reads no set counts none): the caller's own opened issues with `bug`
  // (56,000) and search=issue read the instance's million matches to count 10,001 (300 ms).
  let countedBySet: { from: string; args: unknown[] } | undefined;
  const bySetCounted = (): { from: string; args: unknown[] } =>
    (countedBySet ??= Number.isFinite(setRecords)
      ? setFrom(searchCheckedByRecord(filters, checked.where.join(' AND '), checked.args, setRecords, searchMatchesAtLeast(filters, rc.svc.db, RECORD_CHECK_PER_MATCH * setRecords)))
      : bySet);
  const bySetCount = {
    get from(): string {
      return bySetCounted().from;
    },
    get args(): unknown[] {
      return bySetCounted().args;
    },
  };
  // Past the bound, a set whose rows are probed for other titles (byId) is still read when few of its
  // records carry them (pairedRecords): the read asks each of its rows and looks up, checks and sorts
  // those records, the walk asks `records / paired` records a row it needs (idSetLists' rule, the
  // rows counted in, each PAIRED_READ_COST records walked).
  const paired = matches >= bound && byId.length ? pairedRecords(rc, type, scope, smallest, byId) : Infinity;
  const pairedRead = PAIRED_READ_COST * ((smallest.size?.() ?? matches) + paired) < ((page.offset + page.perPage + 1) * records) / paired;
  const { indexed } = smallest;
  // An order no index of a scope of many projects holds (title, merge date): the "walk" reads
  // every record of the scope in the state and sorts them, so a set the counters show smaller, read
  // and sorted, reads fewer (the instance's opened merge requests with label-1 by title: 920,000
  // records for 111,000). Not with an author or a date, whose indexes may narrow the walk's reads
  // further, nor a set not counted (group merged merge requests with milestone=Any by title: the
  // 50,000 merged read by the state index and sorted, 115 ms; the milestone's 250,000: 250 ms).
  const sortsScope =
    scope.projectId === undefined && !filters.priority && UNWALKED_ORDERS.includes(filters.orderColumn) && smallest.size !== undefined &&
    !Object.values(filters.dates).some(Boolean) && !authorFiltered(where) &&
    smallest.size() < scopeStateCount(rc, type, inStates, filters.state);
  // A label set's count from its rows alone when they answer every condition (label-row-mirrors.ts).
  const projectConditions = scope.projects ? [scope.where, scope.unindexed ?? scope.where] : [];
  const rowsOnly = smallest.mirrors && smallest.probeById
    ? labelRowsOnlyCount(where, args, setRows, setArgs, {
        alias: smallest.mirrors,
        title: smallest.args[0],
        project: scope.projectId !== undefined,
        labelProbe: smallest.probe,
        byId: smallest.probeById,
        projects: projectConditions,
        projectsHold: !!scope.projects && !!smallest.size && smallest.size() === countedInScope(rc, 'label_counts', 'issuable_type = ? AND title = ? COLLATE NOCASE', [type, smallest.args[0]], { where: '1 = 1', args: [], instance: true }),
      })
    : undefined;
  // With an author beside it, SQLite reads the author's (author_id, created_at) index for the
  // indexed condition's count: a set counted whole in the scope (under the bound) is counted through
  // its rows instead (the administrator's incidents, of none, created_after: 951,002 issues walked, 274 ms).
  // A set that holds nearly every record (denseMatches: no due date) is no narrower than the scope:
  // the count reads the list's own conditions by whichever index SQLite finds (author 3's issues
  // with labels=Any&due_date=0 counted through a million due-date-less ids, each looked up: 600-1,000 ms).
  // Either counts the records' own conditions, the scope's by its index (not the page's unindexed form).
  const countedOn = (condition: (w: string) => string) => ({ from: `FROM ${table} x WHERE ${where.map((w) => (w === scope.unindexed ? scope.where : condition(w))).join(' AND ')}`, args });
  const count = indexed && !(matches < bound && authorFiltered(where))
    ? countedOn((w) => w.split(smallest.probe).join(indexed))
    : dense
    ? countedOn((w) => w)
    : rowsOnly ?? bySetCount;
  if (matches < bound || pairedRead || sortsScope) {
    const covered = coveredSet(smallest, sets.length, scope, filters, where);
    // A label title's set: its rows are what the page reads (every one of them, then sorted).
    if (!covered) return { page: bySet, count, fewest: matches, readsTitle: smallest.mirrors && smallest.probeById ? String(smallest.args[0]) : undefined };
    // The set's ids in the list's order from its own index, read once for the count and the page
    // (each read every record: the count to check it, the page to sort it; 1,000-2,000 due dates
    // or drafts: 2-5 ms). Past COUNT_LIMIT the page reads itself.
    const db = rc.svc.db;
    let ids: number[] | undefined;
    const all = (): number[] => (ids ??= (db.prepare(`SELECT c.id AS id ${covered.from} ${limitSql(COUNT_LIMIT + 1)}`).all(...covered.args) as { id: number }[]).map((r) => r.id));
    const sorted = <T>(limit: number, offset: number): T[] => {
      if (all().length <= COUNT_LIMIT) return rowsByIds<T>(db, writesOf(table), all().slice(offset, offset + limit));
      const page = db.prepare(`SELECT c.id AS id ${covered.from} ${limitSql(limit)} OFFSET ?`).all(...covered.args, offset) as { id: number }[];
      return rowsByIds<T>(db, writesOf(table), page.map((r) => r.id));
    };
    return { page: bySet, count: { count: (cap: number) => Math.min(all().length, cap) }, rows: sorted, fewest: matches };
  }
  const walked = scope.projectId !== undefined ? walkedPastDates(rc.svc.db, table, scope.projectId, filters, where, bound) : where;
  const titlesIn = scope.projectId !== undefined ? titlesState(rc, type, scope.projectId, filters, sets) : undefined;
  const walk = titlesIn ? { from: `FROM ${table} x WHERE ${[...walked, 'x.state = ?'].join(' AND ')}`, args: [...args, titlesIn] } : { from: `FROM ${table} x WHERE ${walked.join(' AND ')}`, args };
  // A walk in creation order of a set that is a few (project, milestone) pairs: each pair's walk in
  // the (project, milestone, created_at) index, merged by SQLite (UNION ALL with ORDER BY: no sort),
  // instead of the order's walk asking every record of the scope (group merge requests
  // milestone=v1: the newest 20,000 carry none, 5.5 ms).
  const pairs = filters.orderColumn === 'created_at' ? sets.find((set) => set.arms)?.arms?.() : undefined;
  if (!pairs) return { page: walk, count, fewest: matches, walksTitle: smallest.mirrors && smallest.probeById ? String(smallest.args[0]) : undefined };
  if (!pairs.length) return { page: walk, count, rows: () => [], fewest: matches };
  const dir = filters.sort === 'asc' ? 'ASC' : 'DESC';
  const conditions = where.join(' AND ');
  const head = `SELECT x.id AS id, x.created_at AS created_at FROM ${table} x INDEXED BY ${table}_project_milestone_created WHERE `;
  const rests = pairs.map(([project, milestone]) => `x.project_id = ${Number(project)} AND x.milestone_id = ${Number(milestone)} AND ${conditions}`);
  // One arm orders by its alias; a compound by its result columns.
  const orderOf = (arms: string[]): string => (arms.length === 1 ? `${arms[0]} ORDER BY x.created_at ${dir}, x.id ${dir}` : `${arms.join(' UNION ALL ')} ORDER BY created_at ${dir}, id ${dir}`);
  const ordered = orderOf(rests.map((rest) => `${head}${rest}`));
  const armsArgs = pairs.flatMap(() => args);
  const db = rc.svc.db;
  const anchorOf = (rows: unknown[]): BucketAnchor[] => (rows as { id: number; created_at: string }[]).map((r) => ({ id: r.id, at: r.created_at }));
  const fromStart = (limit: number, offset: number): BucketAnchor[] => anchorOf(db.prepare(`${ordered} ${limitSql(limit)} OFFSET ?`).all(...armsArgs, offset));
  // From a row an earlier page read, each arm from it (the bound first: SQLite seeks by the first usable one, as db/date-lag.ts's).
  const past = `(x.created_at, x.id) ${dir === 'ASC' ? '>' : '<'} (?, ?) AND `;
  const fromAnchor = (an: BucketAnchor, limit: number, skip: number): BucketAnchor[] =>
    anchorOf(db.prepare(`${orderOf(rests.map((rest) => `${head}${past}${rest}`))} ${limitSql(limit)} OFFSET ?`).all(...pairs.flatMap(() => [an.at, an.id, ...args]), skip));
  // Deep pages from anchors while no record of the scope's projects is written and the
  // conditions read nothing else the key leaves out (count-versions.ts recordsVersion).
  const scopeVersion = recordsVersion(rc, type, scope);
  const versioned = scopeVersion?.reads(walk.from) ? scopeVersion : undefined;
  const key = versioned ? JSON.stringify(['milestone arms', ordered, armsArgs, versioned.keyOf(walk.from)]) : undefined;
  const merged = <T>(limit: number, offset: number): T[] =>
    rowsByIds<T>(db, writesOf(table), (key && offset >= ANCHORED_FROM ? bucketAnchoredWalk(db, key, versioned!.version, fromStart, fromAnchor, limit, offset) : fromStart(limit, offset)).map((r) => r.id));
  return { page: walk, count, rows: merged, fewest: matches };
}

/**
 * The one state a project's records with one of the list's label titles are in, when its label
 * counters (label_counts) show one and the list, by merge date, asks none: the walk then reads the
 * (project, state, merged_at) index (core/298) from that state's records. A state none merged sorts
 * at the NULL end, past every merged record: a project's merge requests with label-2 (all opened)
 * by merged_at walked the 50,000 merged ones, each asked the title, before the first row (mr17,
 * with created_after: 90-110 ms). The same rows: no record with the title is in another state.
 */
function titlesState(rc: RequestContext, type: 'Issue' | 'MergeRequest', projectId: number, filters: WorkItemFilters, sets: IdSet[]): string | undefined {
  if (filters.orderColumn !== 'merged_at' || filters.state || filters.priority) return undefined;
  const states = rc.svc.db.prepare('SELECT DISTINCT state FROM label_counts WHERE issuable_type = ? AND project_id = ? AND title = ? COLLATE NOCASE AND n > 0');
  for (const set of sets) {
    if (!set.mirrors || !set.probeById) continue;
    const held = states.all(type, projectId, set.args[0]) as { state: string }[];
    if (held.length === 1) return held[0].state;
  }
  return undefined;
}

/**
 * A set's row read and probed, or its record looked up, checked and sorted, against a record walked
 * and asked each title (mr17, a project's merge requests with bug and label-1: about 1.2 us against
 * 0.8; a target branch's walk to page 200 was 15% faster than the set read).
 */
const PAIRED_READ_COST = 2;

/**
 * The records of a label title's set (`set`) that carry every other title (`others`, asked by id on
 * its rows) at most: the fewest of its pairs with each in the scope's pair counters (core/092, any
 * state; a record with a title in two spellings may count twice: an upper bound), or Infinity for a
 * scope the counters do not name. Only a choice of reader rests on it: a project's merge requests
 * labels=bug,label-1&wip=no, page 500, walked the project's creation order, each record asked both
 * titles (464,000 asked for 10,000 rows), where label-1's 111,000 rows (past idSetLists' bound of
 * 101,000) hold 22,000 records with bug.
 */
function pairedRecords(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, set: IdSet, others: IdSet[]): number {
  const inScope = scope.projectId !== undefined ? ' AND project_id = ?' : scope.instance ? '' : scope.projects ? ` AND +project_id IN (${scope.projects})` : null;
  if (inScope === null || !set.mirrors) return Infinity;
  const scopeArgs = scope.projectId !== undefined ? [scope.projectId] : scope.instance ? [] : scope.args;
  const pair = rc.svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM label_pair_counts WHERE issuable_type = ? AND a IN (?, ?) AND b IN (?, ?) AND a != b${inScope}`);
  const [title] = set.args;
  return Math.min(...others.filter((other) => other.mirrors).map((other) => (pair.get(type, title, other.args[0], title, other.args[0], ...scopeArgs) as { n: number }).n));
}

/** Orders a project's (project_id, column, id) index walks, on no date column: a date filter can steer SQLite off them (walkedPastDates). */
const PROJECT_WALKED_ORDERS = ['title', 'merged_at'];

/** The date filters' conditions as workItemFilters writes them, in its order (their arguments in filters.dates). */
const DATE_CONDITIONS = [
  ['created_after', 'x.created_at >= ?'],
  ['created_before', 'x.created_at <= ?'],
  ['updated_after', 'x.updated_at >= ?'],
  ['updated_before', 'x.updated_at <= ?'],
] as const;

/**
 * The conditions of a project's list that idSetLists walks in its order, the date filters kept out
 * of SQLite's choice (`+x.created_at`) when their range holds at least `bound` of the project's
 * records (idSetLists' rule, the range read as a set would be: counted up to the bound). SQLite
 * reads a range by the project's date index and sorts it, however wide: a project's merge requests
 * labels=label-2&order_by=merged_at&created_after read 548,000 of a million (290 ms) where the walk
 * of the merge date's index reads 50,000 (80 ms; by title, 20). A narrower range is read and sorted.
 */
function walkedPastDates(db: Db, table: 'issues' | 'merge_requests', projectId: number, filters: WorkItemFilters, where: string[], bound: number): string[] {
  if (!PROJECT_WALKED_ORDERS.includes(filters.orderColumn)) return where;
  const dated = DATE_CONDITIONS.filter(([name, sql]) => filters.dates[name] && where.includes(sql));
  if (!dated.length) return where;
  const range = countUpTo(db, `FROM ${table} x WHERE x.project_id = ? AND ${dated.map(([, sql]) => sql).join(' AND ')}`, [projectId, ...dated.map(([name]) => filters.dates[name])], bound);
  if (range < bound) return where;
  const walkedSql = dated.map(([, sql]) => sql as string);
  return where.map((w) => (walkedSql.includes(w) ? `+${w}` : w));
}

/** idSetLists' answer: the page's and the count's FROM, perhaps the rows, and the smallest set's records in scope (counted up to its bound). */
export interface IdSetLists {
  page: { from: string; args: unknown[] };
  count: { from: string; args: unknown[] } | { count: (cap: number) => number };
  rows?: <T>(limit: number, offset: number) => T[];
  fewest: number;
  /** The label title whose every row in scope the page reads (its set, then sorted), if one. */
  readsTitle?: string;
  /** The label title whose set the page walks the list's order for (each record probed for it), if one. */
  walksTitle?: string;
}

/**
 * A search of a project or of many projects whose filter sets (idSetLists) hold fewer records than
 * the term has matches: the sets' records are read and each checked against the term (and the
 * rest), not every match joined to its record (a common term with assignee_id=Any, which no
 * record met: a million matches joined, 330 ms) nor the list walked against the index. A
 * non-ASCII term's check asks the index (50-250 us a record, against ~0.3 us a match joined):
 * the sets go first only when that many times fewer.
 */
/**
 * `where` filters the records by their author (author_id, author_username, not[author_*], the caller's
 * own records): each such term starts with `x.author_id`. A non-administrator's confidentiality term
 * (confidentialSql: `x.confidential = 0 OR x.author_id = ? OR ...`) names the author inside its OR
 * and filters nothing by it: taken for an author, it turned a Guest's label and milestone sets away
 * from their arms and sorts (a group's issues with milestone=v1 by due date: 750 ms against 1).
 */
export function authorFiltered(where: readonly string[]): boolean {
  return where.some((w) => w.startsWith('x.author_id'));
}

export function searchAfterSets(filters: WorkItemFilters, sets: IdSetLists | undefined): boolean {
  const plan = filters.search?.project ?? filters.search?.many;
  if (!plan || !sets) return false;
  return sets.fewest * (filters.search!.indexProbe ? INDEX_PROBE_COST : 1) < plan.matches;
}

/** An index probe's cost in matches joined (see searchAfterSets). */
const INDEX_PROBE_COST = 300;

/** A set's record read and checked against an ASCII term costs about half a match joined to its record and checked against the set (searchCountsFromSets). */
const SET_ROW_PER_MATCH = 2;

/**
 * A search counted from its filter sets (idSetLists' count: each set record checked against the
 * term) rather than from its matches joined to their records (searchRowsCount): as searchAfterSets
 * decides, or, for a common ASCII term whose matches were counted no further than COUNT_LIMIT and
 * one set whose counters give its size, when the matches, counted on up to half the set's records
 * (remembered as the plan's count is), are at least that many. Each way reads until 10,001 pass:
 * the set's records in proportion to the set, the matches in proportion to the matches (a label
 * on a ninth of a million issues with a term in a fifth: 90,000 matches joined, 95 ms).
 */
export function searchCountsFromSets(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters, sets: IdSetLists | undefined): boolean {
  if (searchAfterSets(filters, sets)) return true;
  const search = filters.search;
  const plan = search?.project ?? search?.many;
  if (!sets || !search || !plan || search.indexProbe || plan.ids || plan.matches <= COUNT_LIMIT) return false;
  // One set whose size its counters give (IdSetLists' fewest is counted no further than a page needs).
  const [set] = filters.idSets;
  if (filters.idSets.length !== 1 || scope.idSets?.length || !set.size) return false;
  const enough = Math.ceil(set.size() / SET_ROW_PER_MATCH);
  if (plan.matches >= enough) return true;
  const db = rc.svc.db;
  const { index, query } = plan;
  const from = search.project ? `FROM ${index} s WHERE ${projectMatches(index)}` : `FROM ${index} s WHERE ${search.many!.inScope}`;
  const matchArgs = search.project ? [query, search.project.projectId, search.project.projectId] : search.many!.args;
  const count = (): number => countUpTo(db, from, matchArgs, enough);
  const key = `${index}|${search.project?.projectId ?? search.many!.projects}|${query}|up to ${enough}`;
  const matches = search.project
    ? rememberedMatchCount(db, key, () => listVersion(rc, type, search.project!.projectId), count)
    : search.many!.projects !== null ? rememberedMatchCount(db, key, () => lastListWrite(db), count) : count();
  return matches >= enough;
}

/**
 * The list's ids in its order from the set's own index (IdSet.covering: no record read) when the
 * set is the list's one set and `where` holds nothing but its probe, a state, the scope (a
 * project's, or a scope of projects) and no view of the caller's ('1 = 1': they see every record),
 * in an order that index holds; else undefined.
 */
function coveredSet(set: IdSet, sets: number, scope: Scope, filters: WorkItemFilters, where: string[]): { from: string; args: unknown[] } | undefined {
  if (!set.covering || sets !== 1 || !['created_at', 'updated_at', 'title'].includes(filters.orderColumn)) return undefined;
  // The column's own order (not label priority's, which reports created_at as its column).
  if (filters.priority || filters.order !== `x.${filters.orderColumn} ${filters.sort}, x.id ${filters.sort}`) return undefined;
  // A project's, or a group's projects (not the instance's: its thousands of projects each sought in the index).
  if (scope.projectId === undefined && (!scope.projects || scope.byCaller)) return undefined;
  const plain = where.every((w) => w === set.probe || w === 'x.state = ?' || w === scope.where || w === scope.unindexed || w === '1 = 1');
  if (!plain || where.filter((w) => w === set.probe).length !== 1) return undefined;
  const inScope = scope.projectId !== undefined ? ' AND c.project_id = ?' : ` AND c.project_id IN (${scope.projects})`;
  const dir = filters.sort === 'asc' ? 'ASC' : 'DESC';
  return {
    from: `${set.covering}${inScope}${filters.state ? ' AND c.state = ?' : ''} ORDER BY c.${filters.orderColumn} ${dir}, c.id ${dir}`,
    args: [...set.args, ...(scope.projectId !== undefined ? [scope.projectId] : scope.args), ...(filters.state ? [filters.state] : [])],
  };
}

/**
 * `where` without the set's probe, and `args` without the probe's arguments: each condition's
 * arguments are in `args` in the order of `where`, as many as its placeholders.
 */
function dropProbe(where: string[], args: unknown[], set: IdSet): { where: string[]; args: unknown[] } {
  const marks = (sql: string): number => sql.split('?').length - 1;
  const startOf = (at: number): number => where.slice(0, at).reduce((n, w) => n + marks(w), 0);
  // A label title's probe is the same SQL for every title: the one with the set's title.
  const at = set.probeById
    ? where.findIndex((w, i) => w === set.probe && set.args.every((a, k) => args[startOf(i) + k] === a))
    : where.indexOf(set.probe);
  if (at < 0) return { where, args };
  const start = startOf(at);
  return { where: where.filter((_, i) => i !== at), args: [...args.slice(0, start), ...args.slice(start + marks(set.probe))] };
}

/** A set's rows in the scope (its project's, or the scope's projects', when the rows name them; else all), and their arguments. */
function setRowsInScope(set: IdSet, scope: Scope): [string, unknown[]] {
  if (set.projectColumn && scope.projectId !== undefined) return [`${set.rows} AND ${set.projectColumn} = ?`, [...set.args, scope.projectId]];
  if (set.projectColumn && scope.projects) return [`${set.rows} AND ${set.projectColumn} IN (${scope.projects})`, [...set.args, ...scope.args]];
  return [set.rows, set.args];
}

/**
 * A list ordered by one date column and filtered by the other (db/date-lag.ts): a project's, or
 * a scope of many projects that walks the instance's order (scopeCondition's unindexed scope, or
 * an administrator's whole instance). Undefined when no filter is on the other column, or when
 * the list reads another way (search, sets of records other tables list), or for a scope of few
 * records (read by its projects' indexes and sorted, as before).
 */
export function dateLagList<T>(
  rc: RequestContext,
  table: 'issues' | 'merge_requests',
  scope: Scope,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  scopeSql: string,
): (Omit<DateLagList<T>, 'count'> & { count: DateLagList<T>['count'] | { counted: number } }) | undefined {
  const order = filters.orderColumn;
  // An empty list (emptyFilters) reads nothing, not even the scope's records counted.
  if ((order !== 'created_at' && order !== 'updated_at') || filters.empty || filters.search || scope.idSets?.length) return undefined;
  // Nothing below is read for a list otherDateList does not serve (its label counts, ~10-20 us a page after a write).
  if (!boundsOtherDate(filters.dates, order)) return undefined;
  const inProject = scope.projectId !== undefined;
  // Sets of records other tables list (a milestone's title) at a wider scope: walked with the
  // buckets, each record asked the set's probe, when every set holds at least 1/DENSE_SET of the
  // scope's records (a group's milestone=v1 of 250,000 in a million, updated_before: its
  // (project, milestone, created_at) arms walked 250,000 newer records first, 250 ms).
  if (filters.idSets.length && (inProject || !denseSets(rc, table === 'issues' ? 'Issue' : 'MergeRequest', scope, filters.idSets))) return undefined;
  // An administrator's own records (`scope`'s author, no project condition) walk the instance's
  // buckets as scope=all does, when they are many (few are read by the author's index and sorted).
  const ownInstance = !inProject && !scope.instance && !scope.projects && !scope.unindexed && !scope.idSets?.length;
  if (ownInstance && !manyScopeRecords(rc, table === 'issues' ? 'Issue' : 'MergeRequest', scope)) return undefined;
  if (!inProject && !scope.instance && !ownInstance && !(scope.projects && scopeSql === scope.unindexed)) return undefined;
  // Other ways to count a project's list (see DateLagTable.counts): an author's records by the
  // author's index (by creation date: a created_* range seeks, else countDirection), counted by the
  // filter counters (core/018, core/028); a label's records by the label's rows in the range of a
  // date they carry (core/038, core/054: the record's own), counted by the label counters (core/016;
  // DISTINCT: a record may carry the title in two spellings).
  const { dates } = filters;
  const counts = (projectId: number): DateLagTable['counts'] => {
    const db = rc.svc.db;
    const type = table === 'issues' ? 'Issue' : 'MergeRequest';
    const ways: NonNullable<DateLagTable['counts']> = [];
    if (filters.authorId !== null) {
      const { n } = db
        .prepare(`SELECT coalesce(sum(n), 0) AS n FROM ${table === 'issues' ? 'issue_filter_counts' : 'merge_request_filter_counts'} WHERE project_id = ? AND author = ?`)
        .get(projectId, filters.authorId) as { n: number };
      const walk = dates.created_after || dates.created_before ? '' : ` ORDER BY x.created_at ${countDirection(dates)}`;
      ways.push({ from: (conditions) => `FROM ${table} x INDEXED BY ${table}_project_author_created WHERE ${conditions}${walk}`, args: [], candidates: n });
    }
    // The title the project's records carry least (labels=bug,label-1: label-1's 111,000 rows, not bug's 155,000).
    const carried = filters.requiredLabels.map((title) => ({
      title,
      n: (db.prepare('SELECT coalesce(sum(n), 0) AS n FROM label_counts WHERE issuable_type = ? AND project_id = ? AND title = ? COLLATE NOCASE').get(type, projectId, title) as { n: number }).n,
    }));
    if (carried.length) {
      const { title, n } = carried.reduce((a, b) => (b.n < a.n ? b : a));
      const column = dates.updated_after || dates.updated_before ? 'updated_at' : 'created_at';
      const [low, high] = column === 'updated_at' ? [dates.updated_after, dates.updated_before] : [dates.created_after, dates.created_before];
      const rows = `FROM issuable_labels il INDEXED BY issuable_labels_${column === 'updated_at' ? 'updated' : 'created'}`;
      const inRange = `il.issuable_type = '${type}' AND il.project_id = ? AND il.title = ? COLLATE NOCASE
          AND il.${column} IS NOT NULL${low ? ` AND il.${column} >= ?` : ''}${high ? ` AND il.${column} <= ?` : ''}`;
      const rowsArgs = [projectId, title, ...(low ? [low] : []), ...(high ? [high] : [])];
      // Every condition asked of the rows (label-row-mirrors.ts), when they carry them all: no record
      // read (labels=bug,label-1&milestone=None&updated_before: label-1's rows in the range, bug by id).
      const asked = labelRowConditions(where, args, { alias: 'il', title, project: true, labelProbe: labelProbe(type), byId: (id) => labelProbeById(type, id), projects: [] });
      ways.push(
        asked
          ? { from: () => `FROM (SELECT DISTINCT il.issuable_id ${rows} WHERE ${inRange}${asked.sql})`, args: [...rowsArgs, ...asked.args], candidates: n, alone: true }
          : { from: (conditions) => `FROM (SELECT DISTINCT il.issuable_id ${rows} CROSS JOIN ${table} x ON x.id = il.issuable_id WHERE ${inRange} AND ${conditions})`, args: rowsArgs, candidates: n },
      );
    }
    return ways;
  };
  // A scope of many projects (or an administrator's instance, or their own records in every project):
  // the rarest title's rows in the date's range, when they answer every condition (no record read).
  // /merge_requests?state=opened&labels=bug,label-4&updated_before counted the author's opened
  // records through the instance's lag index, each asked both titles (360 ms for 10,492).
  const scopeCounts = (): DateLagTable['counts'] => {
    const type = table === 'issues' ? 'Issue' : 'MergeRequest';
    if (!filters.requiredLabels.length) return undefined;
    const carried = filters.requiredLabels.map((title) => ({ title, n: countedInScope(rc, 'label_counts', 'issuable_type = ? AND title = ? COLLATE NOCASE', [type, title], scope) }));
    const { title, n } = carried.reduce((a, b) => (b.n < a.n ? b : a));
    const asked = labelRowConditions(where, args, {
      alias: 'il',
      title,
      project: false,
      labelProbe: labelProbe(type),
      byId: (id) => labelProbeById(type, id),
      projects: scope.projects ? [scope.where, scope.unindexed ?? scope.where] : [],
    });
    if (!asked) return undefined;
    const column = dates.updated_after || dates.updated_before ? 'updated_at' : 'created_at';
    const [low, high] = column === 'updated_at' ? [dates.updated_after, dates.updated_before] : [dates.created_after, dates.created_before];
    const inRange = `il.issuable_type = '${type}' AND il.title = ? COLLATE NOCASE AND il.${column} IS NOT NULL${low ? ` AND il.${column} >= ?` : ''}${high ? ` AND il.${column} <= ?` : ''}`;
    const rows = `FROM issuable_labels il INDEXED BY issuable_labels_title_${column === 'updated_at' ? 'updated' : 'created'} WHERE ${inRange}${asked.sql}`;
    return [{ from: () => `FROM (SELECT DISTINCT il.issuable_id ${rows})`, args: [title, ...(low ? [low] : []), ...(high ? [high] : []), ...asked.args], candidates: n, alone: true }];
  };
  // Conditions on the records alone: deep pages may start from an anchor while no record is written
  // (count-versions.ts recordsVersion: a group's projects by the sum of their versions).
  const records = recordsVersion(rc, table === 'issues' ? 'Issue' : 'MergeRequest', scope);
  const conditions = `FROM ${table} x WHERE ${where.join(' AND ')}`;
  const versioned = records?.reads(conditions) ? records : undefined;
  const lists: DateLagTable = inProject
    ? {
        table,
        alias: 'x',
        scope: 'x.project_id = ?',
        scopeArgs: [scope.projectId],
        lagIndex: { created_at: `${table}_project_lag_created`, updated_at: `${table}_project_lag_updated` },
        dateIndex: { created_at: `${table}_project_created`, updated_at: `${table}_project_updated` },
        counts: counts(scope.projectId!),
        log: writesOf(table),
        version: versioned?.version,
        versionKey: versioned?.keyOf(conditions),
      }
    : {
        table,
        alias: 'x',
        scope: '1 = 1',
        scopeArgs: [],
        lagIndex: { created_at: `${table}_lag_created`, updated_at: `${table}_lag_updated` },
        dateIndex: { created_at: `${table}_created`, updated_at: `${table}_updated` },
        counts: scopeCounts(),
        log: writesOf(table),
        version: versioned?.version,
        versionKey: versioned?.keyOf(conditions),
      };
  const list = otherDateList<T>(rc.svc.db, lists, filters.dates, order, filters.sort, where, args);
  if (!list) return undefined;
  const byState = inProject ? stateDateCount(rc, table, scope.projectId!, filters, where, args) : undefined;
  if (byState) return { ...list, count: byState };
  // A group's count reads its projects' indexes (SQLite's choice, as indexedScopeCount): the instance
  // lag index it walks holds no project, so each candidate's record would be read to check it.
  // Its label rows, when they answer every condition, are fewer still: those of the rarest title in
  // the date's range (labelRowsWhereCount).
  const byProjects = indexedScopeCount(table, scope, where, args, scopeSql);
  return byProjects ? { ...list, count: labelRowsWhereCount(rc, table === 'issues' ? 'Issue' : 'MergeRequest', scope, filters, where, args) ?? byProjects } : list;
}

/** A set filtering a list walked by date-lag buckets holds at least 1 in this many of the scope's records. */
const DENSE_SET = 8;

/** Every set is counted by counters and holds at least 1/DENSE_SET of the scope's records (a group's or the instance's). */
function denseSets(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, sets: IdSet[]): boolean {
  if (!scope.instance && !scope.projects) return false;
  if (!sets.every((set) => set.size)) return false;
  const records = scopeStateCount(rc, type, scope, null);
  return sets.every((set) => set.size!() * DENSE_SET >= records);
}

/** Records updated before they were created, from updated_after's day on, up to this many are taken off stateDateCount's bound; more, and it is not used. */
const EARLY_RECORDS = 1_000;

/**
 * The count of a project's list filtered by a state and dates on the other column than the order,
 * nothing else (`where` holding only those, the project and '1 = 1'), without reading its
 * records; undefined otherwise (the buckets count it, checking each record's state). Creation
 * dates bound the (project, state, created_at) index's range: exact, from the index alone. An
 * updated_after C holds every record of the state created from C on, except one updated before it
 * was created (text order: updated_at >= created_at >= C), which the (project, created_at) index
 * WHERE updated_at < created_at lists: past COUNT_LIMIT such records less those exceptions, the
 * list is past it too (else undefined).
 */
function stateDateCount(
  rc: RequestContext,
  table: 'issues' | 'merge_requests',
  projectId: number,
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
): { from: string; args: unknown[] } | { counted: number } | undefined {
  const other = filters.orderColumn === 'created_at' ? 'updated_at' : 'created_at';
  const known = ['x.project_id = ?', '1 = 1', 'x.state = ?', `x.${other} >= ?`, `x.${other} <= ?`];
  let state: unknown;
  let at = 0;
  for (const term of where) {
    if (!known.includes(term)) return undefined;
    if (term === 'x.state = ?') state = args[at];
    at += term.split('?').length - 1;
  }
  if (state === undefined) return undefined;
  const { dates } = filters;
  if (other === 'created_at') {
    const range = `${dates.created_after ? ' AND x.created_at >= ?' : ''}${dates.created_before ? ' AND x.created_at <= ?' : ''}`;
    const rangeArgs = [dates.created_after, dates.created_before].filter((d) => d);
    return { from: `FROM ${table} x INDEXED BY ${table}_project_state_created WHERE x.project_id = ? AND x.state = ?${range}`, args: [projectId, state, ...rangeArgs] };
  }
  if (!dates.updated_after || dates.updated_before) return undefined;
  const db = rc.svc.db;
  const early = countUpTo(db, `FROM ${table} x INDEXED BY ${table}_project_updated_early WHERE x.project_id = ? AND x.created_at >= ? AND x.updated_at < x.created_at`, [projectId, dates.updated_after], EARLY_RECORDS);
  if (early >= EARLY_RECORDS) return undefined;
  // At least this many (remembered across writes while they cannot bring it under: count-versions.ts).
  const created = projectRecordsAtLeast(rc, table === 'issues' ? 'Issue' : 'MergeRequest', projectId, `FROM ${table} x INDEXED BY ${table}_project_state_created WHERE x.project_id = ? AND x.state = ? AND x.created_at >= ?`, [projectId, state, dates.updated_after], COUNT_LIMIT + 1 + early);
  return created - early > COUNT_LIMIT ? { counted: COUNT_LIMIT + 1 } : undefined;
}

/** Fewer characters than a trigram: the full-text index cannot match them, so LIKE scans instead. */
const MIN_INDEXED_SEARCH = 3;

/**
 * A record's rowid in the full-text indexes (core/015): (project_id << 32) + id, so a project's
 * records are one rowid range.
 */
const SEARCH_KEY = '((x.project_id << 32) + x.id)';

/** How `search` reads the full-text index: the condition on `x`, and for a project its range. */
export interface SearchPlan {
  sql: string;
  args: unknown[];
  /** A project's search: the MATCH query, the project, and its matches counted up to COUNT_LIMIT + 1. */
  project?: { index: string; query: string; projectId: number; matches: number; walk: boolean; ids?: string };
  /**
   * A search of many projects (a group's list, the instance's): the MATCH query, the condition on
   * the full-text index `s` that keeps the scope's matches (`inScope`, its `args` the query's and
   * the scope's), and those matches counted up to COUNT_LIMIT + 1.
   */
  many?: { index: string; query: string; inScope: string; args: unknown[]; matches: number; walk: boolean; projects: string | null; ids?: string };
  /**
   * A common term in another scope (the caller's own records, `/issues`' default): the MATCH query
   * and the instance's matches (read for `x.id IN`), counted past COUNT_LIMIT. Never walked.
   */
  instance?: { index: string; query: string; matches: number; walk: false; ids?: undefined };
  /** No record of the scope holds the term (its matches counted exactly: none): the list is empty. */
  none?: true;
  /** `sql` asks the full-text index about each record (a non-ASCII term's probe, 50-250 us a record; see recordMatchSql). */
  indexProbe?: true;
  /** An ASCII term's check on one record (recordMatchSql) and its arguments, beside a condition that reads the matches: see checkedList. */
  check?: { sql: string; args: unknown[] };
  /**
   * The term's matches as a set of records (idSetLists), when they are few enough to read and check
   * against the other filters (a scope that is neither a project nor projects alone: the caller's
   * own records, `/issues`' default): see searchMatchSet.
   */
  set?: IdSet;
}

/**
 * `search` (with `in`) as a substring match on alias `x`, case-insensitive: through the trigram
 * full-text index (issues_search, merge_requests_search) from three characters, by LIKE below that.
 */
function searchCondition(rc: RequestContext, type: 'Issue' | 'MergeRequest', fields: string[], term: string, scope: Scope): SearchPlan {
  if (!fields.length) return { sql: '0', args: [] };
  if ([...term].length < MIN_INDEXED_SEARCH) {
    const like = `%${likeEscape(term)}%`;
    return { sql: `(${fields.map((f) => `x.${f} LIKE ? ESCAPE '\\'`).join(' OR ')})`, args: fields.map(() => like) };
  }
  const index = type === 'Issue' ? 'issues_search' : 'merge_requests_search';
  // One phrase (quotes doubled) within the chosen columns: the trigram tokenizer matches it as a substring.
  const query = `{${fields.join(' ')}} : "${term.replace(/"/g, '""')}"`;
  const ftsProbe = (key: string): string => `EXISTS (SELECT 1 FROM ${index} s WHERE s.${index} MATCH ? AND s.rowid = ${key})`;
  // A record asked on its own (the list walked, a set's records checked) reads its columns instead
  // of the index when the term is ASCII (recordMatchSql): ~0.5 us a record against 50-250 us.
  const ascii = ASCII_TERM.test(term);
  const probe = (key: string): string => (ascii ? recordMatchSql(fields, ftsProbe(key)) : ftsProbe(key));
  const probeArgs = (): unknown[] => (ascii ? [...fields.map(() => `%${likeEscape(term)}%`), query] : [query]);
  const byIndex = ascii ? {} : { indexProbe: true as const };
  const checked = (): { check?: { sql: string; args: unknown[] } } => (ascii ? { check: { sql: probe(SEARCH_KEY), args: probeArgs() } } : {});
  if (scope.projectId !== undefined) {
    // A project reads its own matches (its rowid range), and sorts them: a common term has
    // thousands, so its first pages instead walk the list order and check it against the index a
    // window at a time (searchWalkRows), stopping at the page's end. The walk reads about
    // `records / matches` index entries per row it needs, and the sort reads every match's
    // record: the walk goes first when it reads fewer than SEARCH_WALK_PER_MATCH entries per
    // match. Both are the same MATCH, so the rows are the same.
    const { projectId } = scope;
    const inProject = projectMatches(index);
    const { matches, keys } = projectSearchMatches(rc, type, index, query, projectId);
    if (matches === 0) return { sql: '0', args: [], none: true };
    // A few matches, read (and remembered): their records looked up by id, the index not read again.
    if (keys) {
      const ids = idsOfKeys(keys);
      return { sql: IDS_SQL, args: [ids], project: { index, query, projectId, matches, walk: false, ids } };
    }
    const records = (
      rc.svc.db.prepare('SELECT coalesce(sum(n), 0) AS n FROM issuable_state_counts WHERE issuable_type = ? AND project_id = ?').get(type, projectId) as { n: number }
    ).n;
    const walk = walksTheList(rc, matches, records);
    const project = { index, query, projectId, matches, walk };
    if (walk) return { sql: probe(SEARCH_KEY), args: probeArgs(), project, ...byIndex };
    return { sql: `x.id IN (SELECT s.rowid & 4294967295 FROM ${index} s WHERE ${inProject})`, args: [query, projectId, projectId], project, ...checked() };
  }
  // A group or the instance: a scope of few records asks the index about each of them; a bigger
  // one reads every match of the instance once and keeps those in scope.
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const records = scope.instance
    ? scopeStateCount(rc, type, scope, null)
    : countUpTo(rc.svc.db, `FROM ${table} x WHERE ${scope.where}`, scope.args, SEARCH_PER_RECORD_LIMIT + 1);
  if (records <= SEARCH_PER_RECORD_LIMIT) {
    return { sql: probe(SEARCH_KEY), args: probeArgs() };
  }
  if (scope.instance || scope.projects) {
    // The whole instance, or a scope of projects alone (a group's list, the visible projects):
    // its matches are the index's, those of its projects (the rowid's high half). As for a
    // project, a common term's first pages walk the list order and check it against the index a
    // window at a time (searchWalkRows); a rarer one reads the scope's matches and sorts them.
    // The read of every match of the instance, joined to its record to check the scope, cost
    // ~0.4 s for a term a fifth of a million records hold.
    const inScope = scope.instance ? `s.${index} MATCH ?` : `s.${index} MATCH ? AND (s.rowid >> 32) IN (${scope.projects})`;
    const inScopeArgs = scope.instance ? [query] : [query, ...scope.args];
    const projects = scopeProjects(rc, scope);
    const { matches, keys } = scopeMatches(rc, index, query, inScope, inScopeArgs, projects);
    if (matches === 0) return { sql: '0', args: [], none: true };
    if (keys) {
      const ids = idsOfKeys(keys);
      return { sql: IDS_SQL, args: [ids], many: { index, query, inScope, args: inScopeArgs, matches, walk: false, projects, ids } };
    }
    const scopeRecords = scope.instance ? records : scopeStateCount(rc, type, scope, null);
    const walk = walksTheList(rc, matches, scopeRecords);
    const many = { index, query, inScope, args: inScopeArgs, matches, walk, projects };
    if (walk) return { sql: probe(SEARCH_KEY), args: probeArgs(), many, ...byIndex };
    return { sql: `x.id IN (SELECT s.rowid & 4294967295 FROM ${index} s WHERE ${inScope})`, args: inScopeArgs, many, ...checked() };
  }
  // Another scope (the caller's own records, `/issues`' default; a group's with the caller's
  // records): the instance's matches counted (remembered as a scope's are). None: the list is
  // empty. A few: a set of records (idSetLists reads them when they are the fewest and checks each
  // against the rest; `x.id IN (<every match>)` walked the caller's records, 60-130 ms, for 20
  // matches or none).
  const { matches, keys } = scopeMatches(rc, index, query, `s.${index} MATCH ?`, [query], 'instance');
  if (matches === 0) return { sql: '0', args: [], none: true };
  if (keys) {
    const ids = idsOfKeys(keys);
    return { sql: IDS_SQL, args: [ids], set: { probe: IDS_SQL, id: 's.value', rows: 'FROM json_each(?) s WHERE 1 = 1', args: [ids], projectColumn: null, size: () => matches, exact: true } };
  }
  // A common term keeps the list of matches, built once per statement: a probe costs ~250 us
  // (the MATCH set up again), and a count asks about 10,001 records or more.
  // An ASCII term's page walks the list and checks its records first (checkedList): `x.id IN`
  // built the list of every match for a page of the caller's newest (/issues?labels=bug&search=
  // issue: 175 ms after every write).
  if (matches > COUNT_LIMIT) {
    return { sql: `x.id IN (SELECT s.rowid & 4294967295 FROM ${index} s WHERE s.${index} MATCH ?)`, args: [query], instance: { index, query, matches, walk: false }, ...checked() };
  }
  const sql = probe(SEARCH_KEY);
  return { sql, args: probeArgs(), set: searchMatchSet(sql, index, query, matches) };
}

/** A term of ASCII characters alone (recordMatchSql). */
const ASCII_TERM = /^[\x00-\x7f]*$/;

/**
 * An ASCII term's match on one record (alias `x`), with the same answer as the full-text probe
 * `fts`: the trigram index folds case by Unicode's rules, LIKE by ASCII's, so the two agree on a
 * record whose searched columns are ASCII (a substring, either case), and a column with another
 * character (length in characters below its length in bytes: the Kelvin sign folds to `k`) asks
 * the index. Its arguments: the LIKE pattern once per field, then the MATCH query.
 */
function recordMatchSql(fields: string[], fts: string): string {
  const like = fields.map((f) => `x.${f} LIKE ? ESCAPE '\\'`).join(' OR ');
  // Never NULL (a NULL column): `NULL AND <probe>` asks the index to tell NULL from false.
  const wide = fields.map((f) => `coalesce(length(x.${f}) < octet_length(x.${f}), 0)`).join(' OR ');
  return `(${like} OR ((${wide}) AND ${fts}))`;
}

/**
 * A search's matches as a set of records (IdSet): their ids from the full-text keys (the low half),
 * their projects from the high half, `matches` (counted) their size.
 */
function searchMatchSet(probe: string, index: string, query: string, matches: number): IdSet {
  return { probe, id: 's.rowid & 4294967295', rows: `FROM ${index} s WHERE s.${index} MATCH ?`, args: [query], projectColumn: '(s.rowid >> 32)', size: () => matches, exact: true };
}

/** A walk over a scope of up to this many projects may be remembered (its key names them). */
const REMEMBERED_SCOPE_PROJECTS = 1_000;

/**
 * The projects a scope of many holds, as a remembered walk's key names them ('instance': all of
 * them): a project that joins or leaves the scope (a transfer, a visibility or membership
 * change) writes no record, so the walk of another set of projects is another walk. Null: too
 * many to name; the walk is not remembered.
 */
function scopeProjects(rc: RequestContext, scope: Scope): string | null {
  if (scope.instance) return 'instance';
  const rows = rc.svc.db.prepare(`SELECT id FROM (${scope.projects}) ${limitSql(REMEMBERED_SCOPE_PROJECTS + 1)}`).all(...scope.args) as { id: number }[];
  return rows.length > REMEMBERED_SCOPE_PROJECTS ? null : JSON.stringify(rows.map((r) => r.id));
}

/**
 * A search walks the list order (searchWalkRows) rather than reading its matches and sorting
 * them: when the page lies within SEARCH_WALK_ROWS and the walk reads fewer than
 * SEARCH_WALK_PER_MATCH index entries per match (about `records / matches` per row it needs).
 */
function walksTheList(rc: RequestContext, matches: number, records: number): boolean {
  const page = readPage(rc.params);
  const wanted = page.offset + page.perPage + 1;
  return matches > 0 && page.offset + page.perPage <= SEARCH_WALK_ROWS && wanted * records <= SEARCH_WALK_PER_MATCH * matches * matches;
}

/**
 * A project's matches: the MATCH and the project's rowid range, bound as the project id twice.
 * The shift makes the bounds INTEGERs (better-sqlite3 binds every JavaScript number as a REAL,
 * and the full-text index then reads the whole doclist instead of seeking to the range).
 */
const projectMatches = (index: string): string => `s.${index} MATCH ? AND s.rowid BETWEEN (? << 32) AND (? << 32) + 4294967295`;

/** A search's few matches by id (`?`: their ids as a JSON array). */
const IDS_SQL = 'x.id IN (SELECT value FROM json_each(?))';

/** Full-text keys (SEARCH_KEY) as their records' ids, a JSON array. */
const idsOfKeys = (keys: number[]): string => JSON.stringify(keys.map((k) => k % KEY_PROJECT));

/**
 * Up to this many matches are read (their keys) rather than counted, and remembered with the
 * count: the list reads their records by id, not the index again (a one-title search of a million
 * merge requests merged a dozen trigrams' doclists for each page, ~1.5 ms).
 */
const FEW_MATCHES = 200;

/** Remembered match counts per database: `index|project|query` (or `index|projects|query` for a scope of many: scopeMatchCount) -> the count and the version it was read at. */
const matchCounts = new WeakMap<Db, Map<string, { version: number } & Matches>>();
/** Match counts remembered per database (beyond it, all are dropped and read again). */
const REMEMBERED_MATCH_COUNTS = MEMORY_BUDGET.matchCounts;
/** Matches counted past COUNT_LIMIT + 1, so that a common term stays "more than COUNT_LIMIT" through this many writes without a recount. */
export const MATCH_COUNT_SLACK = 1_000;

/**
 * A project's matches of a search, counted from its range of the full-text index (10,001
 * matches of a common term cost milliseconds), and remembered while the project's records of
 * that type stay unwritten (listVersion; the index changes only with them). Each write moves the
 * version by one and a project's matches by at most one (a record in or out of the project, or
 * retitled), so a count that exceeded COUNT_LIMIT by more than the writes since still does: it
 * is counted a little past COUNT_LIMIT (MATCH_COUNT_SLACK) and served as that lower bound until
 * the writes use up the margin. Not remembered inside a transaction, which may yet roll back to
 * the version before it.
 */
function projectSearchMatches(rc: RequestContext, type: 'Issue' | 'MergeRequest', index: string, query: string, projectId: number): Matches {
  const read = fewOrCounted(rc.svc.db, `FROM ${index} s WHERE ${projectMatches(index)}`, [query, projectId, projectId]);
  return rememberedMatches(rc.svc.db, `${index}|${projectId}|${query}`, () => listVersion(rc, type, projectId), read);
}

/** A search's matches counted (up to COUNT_LIMIT + 1 + MATCH_COUNT_SLACK), and their full-text keys when FEW_MATCHES or fewer. */
interface Matches {
  matches: number;
  keys?: number[];
}

/** The matches of `from` (on the full-text index `s`): their keys when few, else their count. */
function fewOrCounted(db: Db, from: string, args: unknown[]): () => Matches {
  return () => {
    const keys = (db.prepare(`SELECT s.rowid AS key ${from} ${limitSql(FEW_MATCHES + 1)}`).all(...args) as { key: number }[]).map((r) => r.key);
    if (keys.length <= FEW_MATCHES) return { matches: keys.length, keys };
    return { matches: countUpTo(db, from, args, COUNT_LIMIT + 1 + MATCH_COUNT_SLACK) };
  };
}

/**
 * The matches of a search in a scope of many projects (`inScope`, on the full-text index `s`),
 * remembered as a project's are (projectMatchCount) by the set of projects (scopeProjects; not
 * when too many to name), with the write log's last entry (core/041) as the version: each entry
 * is one record written in one project, which moves the scope's matches by at most one.
 */
function scopeMatches(rc: RequestContext, index: string, query: string, inScope: string, args: unknown[], projects: string | null): Matches {
  const read = fewOrCounted(rc.svc.db, `FROM ${index} s WHERE ${inScope}`, args);
  if (projects === null) return read();
  return rememberedMatches(rc.svc.db, `${index}|${projects}|${query}`, () => lastListWrite(rc.svc.db), read);
}

/** Issues and merge requests as core/041's log names their writes: list pages read their rows by id from memory while unwritten (SqlList.byId). */
export const ISSUE_WRITES = sequenceLog('issues', 'issuable_list_writes', 'issuable_id', "issuable_type = 'Issue'");
export const MERGE_REQUEST_WRITES = sequenceLog('merge_requests', 'issuable_list_writes', 'issuable_id', "issuable_type = 'MergeRequest'");

/** A table's rows by id, read from memory while core/041's log names them unwritten (rowsByIds). */
const writesOf = (table: 'issues' | 'merge_requests') => (table === 'issues' ? ISSUE_WRITES : MERGE_REQUEST_WRITES);

/** The write log's last entry (core/041): moved on by every write to an issue or merge request. */
export function lastListWrite(db: Db): number {
  return (db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM issuable_list_writes').get() as { seq: number }).seq;
}

/** A match count remembered under `key` at a version that each write moves by one (see projectMatchCount). */
export function rememberedMatchCount(db: Db, key: string, readVersion: () => number, count: () => number): number {
  return rememberedMatches(db, key, readVersion, () => ({ matches: count() })).matches;
}

/** rememberedMatchCount with the few matches' keys: those only at the version they were read at. */
function rememberedMatches(db: Db, key: string, readVersion: () => number, read: () => Matches): Matches {
  if (db.inTransaction) return read();
  let remembered = matchCounts.get(db);
  if (!remembered) matchCounts.set(db, (remembered = new Map()));
  const version = readVersion();
  const known = remembered.get(key);
  if (known && version >= known.version) {
    if (version === known.version) return known;
    const atLeast = known.matches - (version - known.version);
    if (atLeast > COUNT_LIMIT) return { matches: atLeast };
  }
  if (!known && remembered.size >= REMEMBERED_MATCH_COUNTS) remembered.clear();
  const matches = read();
  remembered.set(key, { version, ...matches });
  return matches;
}

/**
 * A walk's progress: the list's first `read` records hold the `matched` ones (their full-text
 * keys, SEARCH_KEY, in list order), the last of them `after` (its order value and id, to go on
 * after it); `done`: that is the whole list.
 */
interface SearchWalk {
  read: number;
  after: [string, number] | null;
  matched: number[];
  done: boolean;
}
/** A remembered walk: its progress, the list version it was read at, and the write log's last entry then (core/041). */
type RememberedWalk = SearchWalk & { version: number; seq: number };
/** Walks remembered per database: key -> the walk. */
const searchWalks = new WeakMap<Db, Map<string, RememberedWalk>>();
/** Walks remembered per database (beyond it, all are dropped and walked again). */
const REMEMBERED_WALKS = MEMORY_BUDGET.searchWalks;
/** A walk keeps at most this many matched ids (memory stays small; a walk serves pages within SEARCH_WALK_ROWS). */
const REMEMBERED_WALK_MATCHES = MEMORY_BUDGET.searchWalkMatches;
/** Up to this many writes since, a remembered walk is patched by the records written rather than walked again. */
const PATCHED_WALK_WRITES = 200;

/**
 * The page of a project's search that walks the list order (SearchPlan's `walk`: a common term,
 * an early page): the list's records without the search, in its order, a window at a time, each
 * window checked against the full-text index at once — the project's matches between the
 * window's lowest and highest id, one range read — instead of one probe per record. A window
 * whose ids lie far apart (records dated out of id order) is probed record by record. The same
 * MATCH either way, so the same rows as the search condition in SQL. `where` and `args`: the
 * list's conditions with the search first (as workItemFilters puts it).
 *
 * `remember`: the list's other conditions read only the records' own columns (the caller says),
 * so its rows change only when the scope's records of this type are written, which listVersion
 * counts for a project and the write log (core/041) for many (the full-text index changes only
 * with them too): the walk's progress is remembered, and the next page, or the same one asked
 * again, goes on from it instead of walking past the same records (a common term none of the
 * newest records hold: ~45,000 records); after writes it is patched by the records written.
 */
/**
 * A search's walk (searchWalkRows) may be remembered across writes: the search alone (perhaps with
 * a state), or other filters on the records' own columns and label rows (recordsVersion reads the
 * list's SQL with the full-text index, no milestone title): the walk's version moves with every
 * write to the records and a patch checks each record written against every condition. A project's
 * closed&labels=bug&created_after by title page 50 walked 4,000 records again after every write
 * elsewhere (14 ms).
 */
export function searchWalkKept(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope, filters: WorkItemFilters, where: string[]): boolean {
  if (filters.searchAlone) return true;
  const plan = filters.search?.project ?? filters.search?.many;
  if (!plan?.walk) return false;
  const records = recordsVersion(rc, type, scope);
  const sql = `FROM ${type === 'Issue' ? 'issues' : 'merge_requests'} x WHERE ${where.join(' AND ')}`;
  return !!records && records.reads(sql, plan.index) && records.keyOf(sql) === records.key;
}

export function searchWalkRows<T extends { id: number }>(
  rc: RequestContext,
  table: 'issues' | 'merge_requests',
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  remember: boolean,
): ((limit: number, offset: number) => T[]) | undefined {
  // A project's walk, or one of many projects' (a group's, the instance's). Records are known by
  // their key in the full-text index, (project_id << 32) + id, so a window of records of several
  // projects is checked the same way.
  const plan = filters.search?.project ?? filters.search?.many;
  if (!plan?.walk) return undefined;
  const db = rc.svc.db;
  const { index, query } = plan;
  const projectId = filters.search?.project?.projectId;
  // A walk of many projects is remembered by the set of projects it walks, and its version is the
  // write log's last entry (core/041): any write to an issue or merge request of the instance.
  const scopeProjects = filters.search?.many?.projects ?? null;
  const implied = impliedOrderBound(db, table, filters);
  const conditions = [...where.slice(1), ...(implied ? [implied.sql] : [])].join(' AND ');
  const rest = `FROM ${table} x WHERE ${conditions} ORDER BY ${filters.order}`;
  const restArgs = [...args.slice(filters.search!.args.length), ...(implied ? [implied.arg] : [])];
  const type = table === 'issues' ? 'Issue' : 'MergeRequest';
  // An order on a column never NULL goes on after the last record read (by its place in the
  // order) instead of stepping over every record read before again (OFFSET).
  const col = ANCHORED_ORDERS.find((c) => c === filters.orderColumn);
  const beyond = `FROM ${table} x WHERE ${conditions} AND (x.${col}, x.id) ${filters.sort === 'desc' ? '<' : '>'} (?, ?) ORDER BY ${filters.order}`;
  // A window's ids as one JSON array: SQLite hands over one value instead of a row per record
  // (the rows were most of a long walk's cost). The subquery's LIMIT keeps it from being
  // flattened into the aggregate, which reads its rows in the subquery's order.
  const windowIds = (walk: SearchWalk, size: number): number[] => {
    const read =
      col && walk.after
        ? { sql: `SELECT ${SEARCH_KEY} AS id ${beyond} ${limitSql(size)}`, args: [...restArgs, ...walk.after] }
        : { sql: `SELECT ${SEARCH_KEY} AS id ${rest} ${limitSql(size)} OFFSET ?`, args: [...restArgs, walk.read] };
    const { ids } = db.prepare(`SELECT json_group_array(id) AS ids FROM (${read.sql})`).get(...read.args) as { ids: string };
    return JSON.parse(ids) as number[];
  };
  const orderValue = col ? db.prepare(`SELECT x.${col} AS value FROM ${table} x WHERE x.id = ?`) : undefined;
  // Bound as INTEGERs (`| 0`): a REAL rowid does not seek.
  const rangeRead = db.prepare(`SELECT s.rowid AS key FROM ${index} s WHERE s.${index} MATCH ? AND s.rowid BETWEEN (? | 0) AND (? | 0)`);
  const probe = db.prepare(`SELECT 1 AS found FROM ${index} s WHERE s.${index} MATCH ? AND s.rowid = (? | 0)`);
  // An ASCII term's check on records read by id (the plan's condition is recordMatchSql): ~1 us a
  // record against a probe's 50-250 us, the same answer.
  const search = filters.search!;
  const recordCheck = search.indexProbe
    ? undefined
    : db.prepare(`SELECT ${SEARCH_KEY} AS key FROM json_each(?) j CROSS JOIN ${table} x ON x.id = j.value WHERE ${search.sql}`);
  // `ids`: the window's keys; the keys that match.
  const matching = (ids: number[]): Set<number> => {
    // The window's ids in runs, each id within SEARCH_WINDOW_SPREAD of the one before: a run is
    // read as one range; an id far from every other is probed alone (an ASCII term's lone ids
    // checked on their records, all in one statement). A window holding two dense stretches far
    // apart (records dated out of id order, say an old import and recent work) then costs two
    // range reads instead of one probe per record; a window in another order (title: ids
    // scattered, 4,000 lone ids after a write cost 250 ms of probes) one read of its records.
    // A typed array sorts numbers without a comparator call per pair.
    const sorted = Float64Array.from(ids).sort();
    const found = new Set<number>();
    const alone: number[] = [];
    let start = 0;
    for (let i = 1; i <= sorted.length; i++) {
      if (i < sorted.length && sorted[i] - sorted[i - 1] <= SEARCH_WINDOW_SPREAD) continue;
      if (i - start > 1) {
        for (const r of rangeRead.all(query, sorted[start], sorted[i - 1]) as { key: number }[]) found.add(r.key);
      } else if (recordCheck) {
        alone.push(sorted[start] % KEY_PROJECT);
      } else if (probe.get(query, sorted[start])) {
        found.add(sorted[start]);
      }
      start = i;
    }
    if (recordCheck && alone.length) for (const r of recordCheck.all(JSON.stringify(alone), ...search.args) as { key: number }[]) found.add(r.key);
    return found;
  };
  // A remembered walk after writes to the project's records of this type: when the write log
  // (core/041) still names every record written since (one row per version moved), the walked
  // stretch of the list (up to `after`) keeps its unwritten matches where they were, and each
  // record written is checked again (in the stretch, the list's conditions, the index): the
  // stretch's matches are those, in list order. A walk of tens of thousands of records (a term
  // none of the newest hold) is not repeated for one write.
  const patched = (known: RememberedWalk, version: number): SearchWalk | undefined => {
    if (!col || !known.after || version < known.version) return undefined;
    const written = writtenSince(known, version);
    if (!written) return undefined;
    const writtenIds = new Set(written);
    const kept = known.matched.filter((k) => !writtenIds.has(k % KEY_PROJECT));
    const within = `${conditions} AND (x.${col}, x.id) ${filters.sort === 'desc' ? '>=' : '<='} (?, ?)`;
    // The records written that are in the stretch and pass the list's conditions and the index.
    const back = (
      db
        .prepare(`SELECT ${SEARCH_KEY} AS key, x.id AS id, x.${col} AS value FROM json_each(?) j CROSS JOIN ${table} x ON x.id = j.value WHERE ${within}`)
        .all(JSON.stringify([...writtenIds]), ...restArgs, ...known.after) as { key: number; id: number; value: string }[]
    ).filter((r) => probe.get(query, r.key));
    const matched = placedByValue(kept, back) ?? inListOrder(kept, back, within, known.after);
    return { read: known.read, after: known.after, matched, done: false };
  };
  // The records of this type written since a remembered walk, when the log still holds them all
  // and they are few enough. A project's: one per version moved. Many projects': the log's
  // entries since, which run on unbroken from its oldest (it drops only its oldest).
  const writtenSince = (known: RememberedWalk, version: number): number[] | undefined => {
    if (projectId !== undefined) {
      if (version - known.version > PATCHED_WALK_WRITES) return undefined;
      const rows = db
        .prepare('SELECT issuable_id AS id FROM issuable_list_writes WHERE issuable_type = ? AND project_id = ? AND seq > ?')
        .all(type, projectId, known.seq) as { id: number }[];
      return rows.length === version - known.version ? rows.map((r) => r.id) : undefined;
    }
    const { oldest } = db.prepare('SELECT min(seq) AS oldest FROM issuable_list_writes').get() as { oldest: number | null };
    if (oldest === null || oldest > known.seq + 1) return undefined;
    const rows = db
      .prepare(`SELECT issuable_id AS id FROM issuable_list_writes WHERE seq > ? AND +issuable_type = ? ${limitSql(PATCHED_WALK_WRITES + 1)}`)
      .all(known.seq, type) as { id: number }[];
    return rows.length > PATCHED_WALK_WRITES ? undefined : rows.map((r) => r.id);
  };
  // Each record back in its place among the kept ones, found by halving (a few order values read
  // by id): when the values compare in JavaScript as in SQLite, ASCII (timestamps); else undefined.
  const placedByValue = (kept: number[], back: { key: number; id: number; value: string }[]): number[] | undefined => {
    const ascii = (v: string): boolean => /^[\x00-\x7f]*$/.test(v);
    if (!orderValue || back.some((r) => !ascii(r.value))) return undefined;
    const desc = filters.sort === 'desc';
    const before = (a: [string, number], b: [string, number]): boolean => (a[0] === b[0] ? (desc ? a[1] > b[1] : a[1] < b[1]) : desc ? a[0] > b[0] : a[0] < b[0]);
    const matched = [...kept];
    const values = new Map<number, string>(back.map((r) => [r.key, r.value]));
    for (const r of back) {
      let lo = 0;
      let hi = matched.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const key = matched[mid];
        let value = values.get(key);
        if (value === undefined) {
          value = (orderValue.get(key % KEY_PROJECT) as { value: string }).value;
          if (!ascii(value)) return undefined;
          values.set(key, value);
        }
        if (before([r.value, r.id], [value, key % KEY_PROJECT])) hi = mid;
        else lo = mid + 1;
      }
      matched.splice(lo, 0, r.key);
    }
    return matched;
  };
  // The same in SQL: the kept and the written back, read by id in the list's order.
  const inListOrder = (kept: number[], back: { key: number }[], within: string, after: [string, number]): number[] => {
    const ids = [...kept, ...back.map((r) => r.key)].map((k) => k % KEY_PROJECT);
    const rows = db
      .prepare(`SELECT ${SEARCH_KEY} AS key FROM json_each(?) j CROSS JOIN ${table} x ON x.id = j.value WHERE ${within} ORDER BY ${filters.order}`)
      .all(JSON.stringify(ids), ...restArgs, ...after) as { key: number }[];
    return rows.map((r) => r.key);
  };
  return (limit, offset) => {
    // Not inside a transaction, which may yet roll back to the version before it.
    const rememberable = remember && (projectId !== undefined || scopeProjects !== null) && !db.inTransaction;
    const store = rememberable ? searchWalks.get(db) ?? new Map<string, RememberedWalk>() : undefined;
    if (store) searchWalks.set(db, store);
    const key = JSON.stringify([index, query, rest, restArgs, scopeProjects]);
    const seq = store ? lastListWrite(db) : 0;
    const version = store ? (projectId !== undefined ? listVersion(rc, type, projectId) : seq) : 0;
    const known = store?.get(key);
    const walk: SearchWalk =
      known && known.version === version ? known : (known && patched(known, version)) ?? { read: 0, after: null, matched: [], done: false };
    const { matched } = walk;
    for (let window = Math.max(SEARCH_WINDOW, (offset + limit) * 4); !walk.done && matched.length < offset + limit; window *= 2) {
      const ids = windowIds(walk, window);
      // The window's records up to its last match the walk keeps (all of them, short of
      // REMEMBERED_WALK_MATCHES): the next window starts after the last one used.
      let used = ids.length;
      if (ids.length) {
        const found = matching(ids);
        for (let i = 0; i < ids.length; i++) {
          if (!found.has(ids[i])) continue;
          matched.push(ids[i]);
          if (matched.length >= REMEMBERED_WALK_MATCHES) {
            used = i + 1;
            break;
          }
        }
      }
      walk.read += used;
      if (used && orderValue) {
        const last = ids[used - 1] % KEY_PROJECT;
        walk.after = [(orderValue.get(last) as { value: string }).value, last];
      }
      if (used === ids.length && ids.length < window) walk.done = true;
    }
    if (store && walk !== known) {
      if (store.size >= REMEMBERED_WALKS) store.clear();
      store.set(key, { ...walk, version, seq });
    }
    const pageIds = matched.slice(offset, offset + limit).map((key) => key % KEY_PROJECT);
    return rowsByIds<T>(db, writesOf(table), pageIds);
  };
}

/**
 * The bound on a search walk's order column that the list's date filter on the other column
 * implies, when no record of the project (or, for many projects, of the instance) was updated
 * before it was created or is dated otherwise than canonically (db/date-lag.ts's buckets -1 and
 * NULL: core/071's lag indexes hold them first): then updated_at <= X holds only records created at
 * X or before, and created_at >= X only records updated at X or after. The walk of created_at
 * DESC (updated_at ASC) then starts at X instead of stepping over every record past it (merge
 * requests updated before 2024, newest created first: 660,000 records checked, 280 ms). The
 * condition (on `x`) is written after the list's own and its argument goes last. The same rows.
 */
function impliedOrderBound(db: Db, table: 'issues' | 'merge_requests', filters: WorkItemFilters): { sql: string; arg: string } | undefined {
  const { dates } = filters;
  const bound =
    filters.orderColumn === 'created_at' && filters.sort === 'desc' && dates.updated_before
      ? { sql: 'x.created_at <= ?', arg: dates.updated_before }
      : filters.orderColumn === 'updated_at' && filters.sort === 'asc' && dates.created_after
        ? { sql: 'x.updated_at >= ?', arg: dates.created_after }
        : undefined;
  if (!bound || filters.order !== `x.${filters.orderColumn} ${filters.sort}, x.id ${filters.sort}`) return undefined;
  const projectId = filters.search?.project?.projectId;
  const [index, inProject, scopeArgs] = projectId !== undefined ? [`${table}_project_lag_created`, 'x.project_id = ? AND ', [projectId]] : [`${table}_lag_created`, '', []];
  const lag = dateLag('x.');
  const stray = [`${lag} IS NULL`, `${lag} = -1`].some((bucket) => db.prepare(`SELECT 1 FROM ${table} x INDEXED BY ${index} WHERE ${inProject}${bucket} LIMIT 1`).get(...scopeArgs) !== undefined);
  return stray ? undefined : bound;
}

/** Records a budgeted check reads per row it wants: a term matching at least 1 in CHECK_BUDGET_PER_ROW records of the list finds them within it. */
const CHECK_BUDGET_PER_ROW = 10;
/** A budgeted check reads at least this many records. */
const CHECK_BUDGET_MIN = 1_000;
/**
 * Past its budget, a check goes on for up to this many records per match of the scope: reading
 * every match (the plan's own read, each match's record looked up and sorted) costs about three
 * records checked in the list's order (~1.4 us a match against ~0.4 us a record).
 */
const CHECK_RECORDS_PER_MATCH = 2;
/** The grown budget is at most this many times the first (the matches counted no further than that needs: ~0.15 us a match). */
const CHECK_BUDGET_GROWTH = 10;

/**
 * A common ASCII term's list read with its record check (SearchPlan.check) in place of the
 * condition that reads every match (`x.id IN (<matches>)`: a million for a term every record
 * holds, ~1 s for a deep page or a count): when the matches are past counting (more than
 * COUNT_LIMIT) and the plan reads them (not the walk: a page past SEARCH_WALK_ROWS, say). The
 * list's order (or, for a count, any index SQLite picks for the other conditions) is walked and
 * each record checked, up to CHECK_BUDGET_PER_ROW records per row wanted. A page whose records
 * lie beyond that (the newest records of the list lack the term: 20,000 merge requests made after
 * an import, say) goes on for CHECK_RECORDS_PER_MATCH records per match of the scope, which cost
 * less to walk than the matches do to read (those counted up to what CHECK_BUDGET_GROWTH times the
 * budget needs); past that, or for a count, it is read by its matches as before. Undefined for
 * another plan.
 */
function checkedList(db: Db, filters: WorkItemFilters, table: 'issues' | 'merge_requests', where: string[], args: unknown[]): CheckedList | undefined {
  const search = filters.search;
  const plan = search?.project ?? search?.many ?? search?.instance;
  const check = search?.check;
  if (!check || !plan || plan.walk || plan.ids || plan.matches <= COUNT_LIMIT) return undefined;
  // The project's and the state's indexes kept out for the matches read by id (scopeCondition,
  // workItemFilters' readsMatches) are the walk's: without them the walk sorted every record.
  const implied = impliedOrderBound(db, table, filters);
  const rest = [...where.slice(1).map((w) => (INDEXED_AGAIN.includes(w) ? w.slice(1) : w)), ...(implied ? [implied.sql] : [])].join(' AND ');
  const restArgs = [...args.slice(search.args.length), ...(implied ? [implied.arg] : [])];
  const budgetOf = (wanted: number): number => Math.max(CHECK_BUDGET_MIN, CHECK_BUDGET_PER_ROW * wanted);
  const matchesUpTo = (db: Db, cap: number): number => searchMatchesUpTo(db, search, cap);
  // The first `wanted` records that pass (their ids in the list's order, or their number) among
  // `budget` records of the list from the `skip`th on. The subquery's LIMIT keeps it from being
  // flattened (its rows come in its order) and the check from being pushed into it.
  const passing = (db: Db, wanted: number, what: string, ordered: boolean, budget: number, skip = 0): string | number => {
    const examined = `SELECT x.id AS id, (${check.sql}) AS m FROM ${table} x WHERE ${rest}${ordered ? ` ORDER BY ${filters.order}` : ''} ${limitSql(budget)} OFFSET ?`;
    const row = db.prepare(`SELECT ${what} AS value FROM (SELECT id FROM (${examined}) WHERE m ${limitSql(wanted)})`).get(...check.args, ...restArgs, skip) as { value: string | number };
    return row.value;
  };
  // Fewer than wanted: all there are when the list ended within the budget.
  const ended = (db: Db, budget: number): boolean => countUpTo(db, `FROM ${table} x WHERE ${rest}`, restArgs, budget) < budget;
  const idsOf = (value: string | number): number[] => JSON.parse(value as string) as number[];
  return {
    ids: (db, wanted) => {
      const budget = budgetOf(wanted);
      const found = idsOf(passing(db, wanted, 'json_group_array(id)', true, budget));
      if (found.length >= wanted || ended(db, budget)) return found;
      const grown = CHECK_RECORDS_PER_MATCH * matchesUpTo(db, Math.ceil((CHECK_BUDGET_GROWTH * budget) / CHECK_RECORDS_PER_MATCH));
      if (grown <= budget) return undefined;
      // On from where the budget ended (the records before it stepped over, not checked again).
      found.push(...idsOf(passing(db, wanted - found.length, 'json_group_array(id)', true, grown - budget, budget)));
      return found.length >= wanted || ended(db, grown) ? found : undefined;
    },
    count: (db, cap) => {
      const budget = budgetOf(cap);
      const value = passing(db, cap, 'count(*)', false, budget) as number;
      return value >= cap || ended(db, budget) ? value : undefined;
    },
  };
}

/**
 * A search plan's matches in its scope (another scope's: the instance's) counted up to `cap`,
 * remembered with the write log's last entry (core/041: each entry moves them by at most one) for
 * a project or a scope of projects it can name: the count is most of a grown walk's cost (~0.15 us
 * a match), and a client paging on asks it again.
 */
function searchMatchesUpTo(db: Db, search: SearchPlan, cap: number): number {
  const plan = (search.project ?? search.many ?? search.instance)!;
  const matches = search.project
    ? { from: `FROM ${plan.index} s WHERE ${projectMatches(plan.index)}`, args: [plan.query, search.project.projectId, search.project.projectId] }
    : search.many
      ? { from: `FROM ${plan.index} s WHERE ${search.many.inScope}`, args: search.many.args }
      : { from: `FROM ${plan.index} s WHERE s.${plan.index} MATCH ?`, args: [plan.query] };
  const scopeKey = search.project ? search.project.projectId : search.many ? search.many.projects : 'instance';
  const count = (): number => countUpTo(db, matches.from, matches.args, cap);
  return scopeKey === null ? count() : rememberedMatchCount(db, `${plan.index}|${scopeKey}|${plan.query}|up to ${cap}`, () => lastListWrite(db), count);
}

/** A record's check against an ASCII term (recordMatchSql) costs about this many matches read into `x.id IN (<matches>)` (~0.4 us against ~0.2 us). */
export const RECORD_CHECK_PER_MATCH = 2;

/**
 * A list condition (`sql` on `x`, the search's first, as workItemFilters puts it) for reading
 * about `records` records one by one (a set's records looked up by id, a walk in id order): a
 * common ASCII term's condition that reads every match of the scope (`x.id IN (<matches>)`, the
 * list of matches built once per statement: a million for a term every record holds, ~200 ms)
 * replaced by its check on each record read (SearchPlan.check, the same answer) when that costs
 * less: the records at most 1 / RECORD_CHECK_PER_MATCH of `matches` (the scope's matches, at
 * least; the plan's count unless the caller counted further: searchMatchesAtLeast). A group's
 * issues with two labels held by 555 of them read a million matches to count them. Else the
 * condition as it is.
 */
export function searchCheckedByRecord(filters: WorkItemFilters, sql: string, args: unknown[], records: number, matches = searchMatchesAtLeast(filters)): { sql: string; args: unknown[] } {
  if (RECORD_CHECK_PER_MATCH * records > matches) return { sql, args };
  return searchRecordChecked(filters, sql, args) ?? { sql, args };
}

/**
 * A list condition (`sql` on `x`, the search's first) with the search's read of every match
 * replaced by its check on each record (SearchPlan.check: the same answer), for a reader that
 * reads records one by one and stops early; undefined when the plan has no such check.
 */
export function searchRecordChecked(filters: WorkItemFilters, sql: string, args: unknown[]): { sql: string; args: unknown[] } | undefined {
  const search = filters.search;
  const check = search?.check;
  if (!search || !check) return undefined;
  if (sql !== search.sql && !sql.startsWith(`${search.sql} AND `)) return undefined;
  return { sql: `${check.sql}${sql.slice(search.sql.length)}`, args: [...check.args, ...args.slice(search.args.length)] };
}

/**
 * The scope's matches of a search whose plan reads them all (`x.id IN (<matches>)`, with a record
 * check beside it), at least: the plan's count, or with `db` counted on up to `wanted` (and
 * remembered: searchMatchesUpTo). 0 for another plan.
 */
export function searchMatchesAtLeast(filters: WorkItemFilters, db?: Db, wanted = 0): number {
  const search = filters.search;
  const plan = search?.project ?? search?.many ?? search?.instance;
  if (!search?.check || !plan || plan.walk || plan.ids) return 0;
  return plan.matches >= wanted || !db ? plan.matches : searchMatchesUpTo(db, search, wanted);
}

/** Conditions written `+x...` for a search that reads its matches by id (see checkedList). */
const INDEXED_AGAIN = ['+x.project_id = ?', '+x.state = ?'];

interface CheckedList {
  ids: (db: Db, wanted: number) => number[] | undefined;
  count: (db: Db, cap: number) => number | undefined;
}

/**
 * The page of a common ASCII term whose plan reads every match (see checkedList): the list's order
 * walked, each record checked, within the budget; past it, the page read as the list's SQL says.
 */
export function searchCheckedRows<T extends { id: number }>(
  rc: RequestContext,
  table: 'issues' | 'merge_requests',
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  scope: Scope,
): ((limit: number, offset: number) => T[]) | undefined {
  const db = rc.svc.db;
  const checked = checkedList(db, filters, table, where, args);
  if (!checked) return undefined;
  // The ids walked are kept at the records' version (recordsVersion: a project's list version, the
  // sum of a group's projects', the instance's write log) when the list reads only the records,
  // their label rows and their full-text index (kept by their triggers alone): a deep page of a
  // group's walked 100,000 records again after every write elsewhere (135 ms).
  const list = `FROM ${table} x WHERE ${where.join(' AND ')} ORDER BY ${filters.order}`;
  const records = recordsVersion(rc, table === 'issues' ? 'Issue' : 'MergeRequest', scope);
  const kept = records?.reads(list, `${table}_search`) ? { key: JSON.stringify([records.keyOf(list), list, args]), version: records.version } : undefined;
  const walked = (wanted: number): number[] | undefined => {
    const store = kept && !db.inTransaction ? checkedLists.get(db) ?? new Map<string, CheckedIds>() : undefined;
    if (!store || !kept) return checked.ids(db, wanted);
    checkedLists.set(db, store);
    const version = kept.version();
    const known = store.get(kept.key);
    if (known?.version === version && (known.complete || known.ids.length >= wanted)) return Array.from(known.ids.subarray(0, wanted));
    const ids = checked.ids(db, wanted);
    if (ids) {
      if (store.size >= MEMORY_BUDGET.checkedLists) store.clear();
      store.set(kept.key, { version, ids: Int32Array.from(ids), complete: ids.length < wanted });
    }
    return ids;
  };
  return (limit, offset) => {
    const ids =
      walked(offset + limit)?.slice(offset) ??
      (db.prepare(`SELECT x.id AS id FROM ${table} x WHERE ${where.join(' AND ')} ORDER BY ${filters.order} ${limitSql(limit)} OFFSET ?`).all(...args, offset) as { id: number }[]).map((r) => r.id);
    return rowsByIds<T>(db, writesOf(table), ids);
  };
}

/** A checked list's first ids at a version (the list's first `ids.length`, or all of it when `complete`). */
interface CheckedIds {
  version: number;
  ids: Int32Array;
  complete: boolean;
}
const checkedLists = new WeakMap<Db, Map<string, CheckedIds>>();

/** A full-text key's project part: key = project_id * KEY_PROJECT + id (SEARCH_KEY). */
const KEY_PROJECT = 2 ** 32;

/** The first window of a search's walk, in records (more when the page lies deeper). */
const SEARCH_WINDOW = 200;
/** Ids of a window further apart than this are read as separate ranges (or probed one by one when alone). */
const SEARCH_WINDOW_SPREAD = 20;

/** Up to this many records in scope, `search` probes the full-text index record by record. */
const SEARCH_PER_RECORD_LIMIT = 1_000;

/** A project's search walks the list order (when the term is common) for pages within this many rows. */
const SEARCH_WALK_ROWS = 1_000;
/** Index entries a search's walk may read per match before reading the matches and sorting them costs less. */
const SEARCH_WALK_PER_MATCH = 15;

/**
 * The capped count of a project's search from the full-text index: the project's matches (its
 * rowid range, already counted when nothing else filters them), each joined to its record when
 * another condition needs it, instead of walking the list order and probing record by record. `where` and `args` are the
 * list's conditions with the search first (as workItemFilters puts it); `onlySearch` says the
 * rest is the project scope alone, which the range already is.
 */
export function searchRowsCount(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  filters: WorkItemFilters,
  where: string[],
  args: unknown[],
  onlySearch: boolean,
  remember: boolean,
  countKnown?: CountKnown,
): { from: string; args: unknown[] } | { counted: number } | { count: (cap: number) => number } | undefined {
  const many = filters.search?.many;
  const db = rc.svc.db;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  // A common ASCII term: the records checked first, within a budget (checkedList), the count kept
  // across writes as the joined FROM's would be (countKnown: a group's title-ordered list's count
  // checked 10,000 records again after every write elsewhere, ~8 ms).
  const checked = checkedList(db, filters, table, where, args);
  const checkedFirst = (joined: { from: string; args: unknown[] }) => {
    if (!checked) return joined;
    const counter = (cap: number): number => checked.count(db, cap) ?? countUpTo(db, joined.from, joined.args, cap);
    return { count: (cap: number) => countKnown?.(joined.from, joined.args, cap, counter) ?? counter(cap) };
  };
  // Each match joined to its record is read in the index's key order, which is the records' id
  // order: records are mostly written in date order, so a list with a lower date bound alone
  // (created_after, updated_after) holds the newest, at the highest keys, read first (a term in
  // a fifth of a million issues, created_after the newest tenth: 57 -> 7 ms). The same count.
  const { dates } = filters;
  const keyOrder = (dates.created_after || dates.updated_after) && !dates.created_before && !dates.updated_before ? ' ORDER BY s.rowid DESC' : '';
  if (many) {
    // A group's or the instance's: its matches (counted), or each joined to its record.
    if (onlySearch) return { counted: many.matches };
    if (many.ids) return { from: `FROM json_each(?) j CROSS JOIN ${table} x ON x.id = j.value WHERE ${where.slice(1).join(' AND ')}`, args: [many.ids, ...args.slice(filters.search!.args.length)] };
    return checkedFirst({
      from: `FROM ${many.index} s CROSS JOIN ${table} x ON x.id = s.rowid & 4294967295 WHERE ${many.inScope} AND ${where.slice(1).join(' AND ')}${keyOrder}`,
      args: [...many.args, ...args.slice(filters.search!.args.length)],
    });
  }
  const project = filters.search?.project;
  if (!project) return undefined;
  if (onlySearch) return { counted: project.matches };
  const { index, query, projectId } = project;
  const matches = [query, projectId, projectId];
  const joined = project.ids
    ? { from: `FROM json_each(?) j CROSS JOIN ${table} x ON x.id = j.value WHERE ${where.slice(1).join(' AND ')}`, args: [project.ids, ...args.slice(filters.search!.args.length)] }
    : {
        from: `FROM ${index} s CROSS JOIN ${table} x ON x.id = s.rowid & 4294967295 WHERE ${projectMatches(index)} AND ${where.slice(1).join(' AND ')}${keyOrder}`,
        args: [...matches, ...args.slice(filters.search!.args.length)],
      };
  if (!remember) return checkedFirst(joined);
  // The other conditions read only the records' own columns (the caller says): the count moves
  // only with writes to the project's records of this type, each by at most one, and is
  // remembered as the project's matches are (a common term in one state joined up to 100,000
  // matches to their records to find 10,001).
  const key = `${index}|${projectId}|${query}|${JSON.stringify([joined.from, joined.args])}`;
  const cap = COUNT_LIMIT + 1 + MATCH_COUNT_SLACK;
  const count = (): number => checked?.count(db, cap) ?? countUpTo(db, joined.from, joined.args, cap);
  return { count: () => rememberedMatchCount(rc.svc.db, key, () => listVersion(rc, type, projectId), count) };
}

export interface OpenClosedState<S extends string> {
  state: S;
  closed_at: string | null;
  closed_by_id: number | null;
}

/** `state_event` close/reopen on an issue or merge request; other states are left alone. */
export function applyStateEvent<S extends string>(
  current: OpenClosedState<S>,
  event: 'close' | 'reopen' | null | undefined,
  now: string,
  userId: number,
): { state: S; closedAt: string | null; closedBy: number | null } {
  if (event === 'close' && current.state === 'opened') return { state: 'closed' as S, closedAt: now, closedBy: userId };
  if (event === 'reopen' && current.state === 'closed') return { state: 'opened' as S, closedAt: null, closedBy: null };
  return { state: current.state, closedAt: current.closed_at, closedBy: current.closed_by_id };
}

export interface Scope {
  where: string;
  args: unknown[];
  /** A project's own list: its id. */
  projectId?: number;
  /** A scope of many projects: `where` with its project condition kept out of index choice (see scopeCondition). */
  unindexed?: string;
  /** A scope of many projects and nothing else (`where` is `x.project_id IN (<projects>)`, `args` its arguments): the SELECT of their ids. */
  projects?: string;
  /** Every record of the instance (an administrator's scope=all): `where` is `1 = 1`. */
  instance?: true;
  /** Sets of records `where` holds as their probes (scope=assigned_to_me): see idSetLists. */
  idSets?: IdSet[];
  /** `scope` (created_by_me, assigned_to_me, ...) is already in `where` (the instance's lists: globalScope). */
  byCaller?: true;
  /** created_by_me's author (the caller), `x.author_id = ?` in `where`: see authorArms. */
  authorId?: number;
  /** `where` holds no project condition (an administrator's created_by_me: the author's records in every project). */
  everyProject?: true;
  /** The caller's own records of the projects they see (a non-administrator's created_by_me): the author filter the list adds (addCallerScope). */
  ownRecords?: number;
}

/** A project's own items (`/projects/:id/issues`, ...). */
export function projectScope(project: Project): Scope {
  return { where: 'x.project_id = ?', args: [project.id], projectId: project.id };
}

/** Items of the projects in a group and its subgroups that the caller can see (`/groups/:id/issues`, ...). */
export function groupScope(rc: RequestContext, nonArchived = false, type?: FeatureType): Scope {
  const ids = selfAndDescendantIds(rc.svc, loadGroup(rc).id);
  const vis = visibleProjectsSql(rc.svc, rc.user);
  // Projects whose issues or merge requests the caller may not see (feature-access.ts) left out.
  const hidden = type ? featureHiddenSql(featureHiddenProjectIds(rc.svc, rc.user, type)) : '';
  const inGroup = `SELECT p.id FROM projects p WHERE p.namespace_id IN (${ids.map(() => '?').join(',')}) AND ${vis.sql}${nonArchived ? NOT_ARCHIVED : ''}${hidden}`;
  const projects = `x.project_id IN (${inGroup})`;
  return { where: projects, unindexed: `+${projects}`, args: [...ids, ...vis.args], projects: inGroup };
}

/** A project not archived (`+`: projects_archived is no way into a list's projects). */
const NOT_ARCHIVED = ' AND +p.archived = 0';

/**
 * `non_archived` of a group's issues and merge requests and the instance's issues (Grape default
 * true): their archived projects' records left out (IssuableFinder#by_non_archived), unless false.
 */
export function leavesArchivedOut(rc: RequestContext): boolean {
  return declared(rc.params, { non_archived: t.boolean().default(true) }).non_archived;
}

/** Whether any project is archived (read by projects_archived, remembered until the next write). */
function anyArchived(rc: RequestContext): boolean {
  return rc.svc.db.prepare('SELECT 1 AS one FROM projects WHERE archived = 1 LIMIT 1').get() !== undefined;
}

/** `/issues`, `/merge_requests`: visible projects, narrowed by `scope` (the caller's own by default); `nonArchived`: see leavesArchivedOut. */
export function globalScope(rc: RequestContext, type: 'Issue' | 'MergeRequest', nonArchived = false): Scope {
  const q = declared(rc.params, { scope: t.string().values(CALLER_SCOPES[type]) });
  const scope = q.scope ?? (rc.user ? 'created_by_me' : 'all');
  // A non-administrator's own records: the projects they see, as scope=all's, and the caller as
  // author_id (a filter), so the list is kept and counted as author_id=<theirs>&scope=all is;
  // with the author in the scope's condition it had no projects' SELECT to key it by
  // (recordsVersion, wideScopeVersion): a Reporter's /issues counted and walked their 500,000
  // issues again after every write elsewhere (25 ms).
  if (rc.user && !rc.user.admin && scope.startsWith('created')) return { ...visibleScope(rc, nonArchived, type), ownRecords: rc.user.id };
  const where: string[] = [];
  const args: unknown[] = [];
  if (rc.user && scope.startsWith('created')) addFilter(where, args, 'x.author_id = ?', rc.user.id);
  // assigned_to_me, reviews_for_me (merge requests: the caller's review requests).
  const role = scope.startsWith('assigned') ? 'assignee' : scope === 'reviews_for_me' ? 'reviewer' : null;
  const assigned = rc.user && role ? userRowsSet(type, role, rc.user.id) : null;
  if (assigned) addFilter(where, args, assigned.sql, ...assigned.args);
  if (!where.length) return { ...visibleScope(rc, nonArchived, type), byCaller: true };
  // The caller's own records (created_by_me), or the set of those assigned to them.
  const byWhom = assigned ? { idSets: [assigned.set] } : rc.user ? { authorId: rc.user.id } : {};
  const archived = (nonArchived && anyArchived(rc) ? NOT_ARCHIVED : '') + featureHiddenSql(featureHiddenProjectIds(rc.svc, rc.user, type));
  if (rc.user?.admin && !archived) return { where: where.join(' AND '), args, ...byWhom, byCaller: true, everyProject: true };
  const vis = visibleProjectsSql(rc.svc, rc.user);
  const projects = `x.project_id IN (SELECT p.id FROM projects p WHERE ${vis.sql}${archived})`;
  return { where: [projects, ...where].join(' AND '), unindexed: [`+${projects}`, ...where].join(' AND '), args: [...vis.args, ...args], ...byWhom, byCaller: true };
}

/**
 * Every record of the projects the caller can see (`/issues?scope=all`, the Search API's instance
 * level), but archived projects' when `nonArchived` (see leavesArchivedOut).
 */
export function visibleScope(rc: RequestContext, nonArchived = false, type?: FeatureType): Scope {
  // An administrator sees every project, so every record (each record's project exists: a
  // foreign key): no project condition, which SQLite built as a list of every project id for
  // each statement (the count, the walk-or-read choice and the page: ~1 ms each at 10,000).
  // With archived projects to leave out, or projects whose feature (`type`) the caller may not
  // see (feature-access.ts), their projects are the scope.
  const archived = (nonArchived && anyArchived(rc) ? NOT_ARCHIVED : '') + (type ? featureHiddenSql(featureHiddenProjectIds(rc.svc, rc.user, type)) : '');
  if (rc.user?.admin && !archived) return { where: '1 = 1', args: [], instance: true };
  const vis = visibleProjectsSql(rc.svc, rc.user);
  const visible = `SELECT p.id FROM projects p WHERE ${vis.sql}${archived}`;
  const projects = `x.project_id IN (${visible})`;
  return { where: projects, unindexed: `+${projects}`, args: [...vis.args], projects: visible };
}

/** Issuable's limits (issues, merge requests): a title of 1 to 255 characters, a description of at most 1 MiB. */
export const ISSUABLE_TITLE_MAX = 255;
export const ISSUABLE_DESCRIPTION_MAX = 1_048_576;

export function validateIssuable(title: string, description: string | null | undefined, weight?: number | null): void {
  const errors: Record<string, string[]> = {};
  if (!title.trim()) errors.title = ["can't be blank"];
  else if (title.length > ISSUABLE_TITLE_MAX) errors.title = [`is too long (maximum is ${ISSUABLE_TITLE_MAX} characters)`];
  if (description && description.length > ISSUABLE_DESCRIPTION_MAX) errors.description = [`is too long (maximum is ${ISSUABLE_DESCRIPTION_MAX} characters)`];
  // EE::Issue: `validates :weight, allow_nil: true, numericality: { greater_than_or_equal_to: 0 }`.
  if (weight != null && weight < 0) errors.weight = ['must be greater than or equal to 0'];
  if (Object.keys(errors).length) throw validationError(errors);
}

/**
 * Sets (or clears) the milestone of an issue or merge request and records the resource milestone
 * event (ResourceEvents::ChangeMilestoneService: `add` the new one, or `remove` the old one).
 * Call inside a transaction; does nothing when the milestone does not change.
 */
export function setIssuableMilestone(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  row: { id: number; state: string; milestone_id: number | null },
  milestoneId: number | null,
  userId: number,
): void {
  if (row.milestone_id === milestoneId) return;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const now = isoTime(rc.svc.now());
  rc.svc.db.prepare(`UPDATE ${table} SET milestone_id = ?, updated_at = ? WHERE id = ?`).run(milestoneId, now, row.id);
  rc.svc.db
    .prepare('INSERT INTO resource_milestone_events (issuable_type, issuable_id, user_id, milestone_id, action, state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(type, row.id, userId, milestoneId ?? row.milestone_id, milestoneId === null ? 'remove' : 'add', row.state, now);
}

/**
 * The milestone an issue or merge request write asks for: undefined when neither `milestone_id`
 * nor `milestone` (a title) was given; null to clear it (0, null, or a milestone outside the
 * project and its groups, which Issuable::Callbacks::Milestone drops); else the milestone's id.
 */
export function resolveMilestone(rc: RequestContext, project: Project, p: { milestone_id?: number | null; milestone?: string | null }): number | null | undefined {
  if (p.milestone !== undefined && p.milestone !== null && p.milestone !== '') {
    // resolve_milestone_title!: an unknown title is ignored.
    return milestoneInScopeByTitle(rc.svc, project, p.milestone)?.id;
  }
  if (p.milestone_id === undefined) return undefined;
  if (!p.milestone_id) return null;
  return milestoneInScope(rc.svc, project, p.milestone_id)?.id ?? null;
}
