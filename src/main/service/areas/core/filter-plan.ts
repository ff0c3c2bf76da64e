import type { Db } from '../../db/connection';
import { type DateBounds, dateLag } from '../../db/date-lag';

/**
 * Filters combined on the issue and merge request lists: a combination that no record can meet,
 * recognised before any row is read. Each filter alone is fast, but a list filtered by two that
 * exclude each other (labels=bug&not[labels]=bug, a label no merged record carries with
 * state=merged) walked its order to the end checking every record, up to a million, to answer
 * nothing (0.3-0.9 s). Only what the stored data guarantees counts: a contradiction in the
 * conditions' own text, or a counter kept by triggers (exact, as the lists' counts rely on them)
 * showing no record of the scope meets one filter. The list then reads `WHERE 0`: the same empty
 * page, X-Total 0 and Link as the plain SQL answer.
 */

/** The filters of a list as workItemFilters parsed them (null: not given). */
export interface CombinedFilters {
  type: 'Issue' | 'MergeRequest';
  /** The scope: a project's id, or the SELECT of a scope's project ids (its arguments), or neither (all). */
  projectId?: number;
  projects?: string;
  projectArgs: unknown[];
  state: string | null;
  /** `labels` as given (titles, None, Any). */
  labels: string[];
  /** `not[labels]` as given (titles only: the negated filter has no wildcard). */
  notLabels: string[];
  /** Every `x.author_id = ?` value (author_id, created_by_me). */
  authorIds: number[];
  /** `not[author_id]`. */
  notAuthorId: number | null;
  /** `milestone` (or `milestone_id`) by title, not a wildcard. */
  milestone: string | null;
  /** `milestone=None` (no milestone) or `Any` (some milestone), else null. */
  milestoneHeld: 'none' | 'some' | null;
  dates: DateBounds;
}

/** A label title as `COLLATE NOCASE` compares it: ASCII letters folded, nothing else. */
const nocase = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

const isWildcard = (label: string): boolean => ['none', 'any'].includes(label.toLowerCase());

/** The list's filters exclude each other, or one of them holds no record of the scope: it is empty. */
export function provablyEmpty(db: Db, f: CombinedFilters): boolean {
  return contradicts(f) || noRecordLeft(db, f);
}

/** Conditions that exclude each other whatever the records hold (text comparisons, a label and its negation). */
function contradicts(f: CombinedFilters): boolean {
  const wild = new Set(f.labels.filter(isWildcard).map((l) => l.toLowerCase()));
  const titles = f.labels.filter((l) => !isWildcard(l)).map(nocase);
  // labels=None is `x.labels = '[]'`: no label row (they are the JSON's, by trigger), so no Any, no title.
  if (wild.has('none') && (wild.has('any') || titles.length)) return true;
  const without = new Set(f.notLabels.map(nocase));
  if (titles.some((t) => without.has(t))) return true;
  if (f.notAuthorId !== null && f.authorIds.includes(f.notAuthorId)) return true;
  if (new Set(f.authorIds).size > 1) return true;
  // `x.c >= a AND x.c <= b` with a > b: no text lies between.
  const d = f.dates;
  if (d.created_after && d.created_before && d.created_after > d.created_before) return true;
  if (d.updated_after && d.updated_before && d.updated_after > d.updated_before) return true;
  return false;
}

/** A counter (or an index probe) shows that no record of the scope meets one of the filters. */
function noRecordLeft(db: Db, f: CombinedFilters): boolean {
  const table = f.type === 'Issue' ? 'issues' : 'merge_requests';
  for (const title of f.labels) {
    if (!isWildcard(title) && !labelCounted(db, f, title)) return true;
  }
  // Three titles or more, two of which no record of the scope carries together (a title's rows were
  // walked to the end, 0.3-7 s at a million). Two alone are counted from the same counters already.
  const titles = [...new Set(f.labels.filter((l) => !isWildcard(l)).map(nocase))];
  for (let i = 0; titles.length > 2 && i < titles.length; i++) {
    for (let j = i + 1; j < titles.length; j++) if (!pairCounted(db, f, titles[i], titles[j])) return true;
  }
  if ((f.authorIds.length || f.milestone !== null || f.milestoneHeld !== null) && !countersHold(db, f, f.authorIds[0] ?? null)) return true;
  for (const author of f.authorIds) {
    // The author's records carrying each title: label_author_counts (core/054).
    for (const title of f.labels) {
      if (!isWildcard(title) && !authorLabelCounted(db, f, author, title)) return true;
    }
  }
  const d = f.dates;
  // created_at >= a > b >= updated_at: a record updated before it was created, which only the
  // date-lag buckets -1 (canonical dates) and NULL (any other text) hold (core/071's indexes: a probe each).
  if (d.created_after && d.updated_before && d.created_after > d.updated_before && !lagCandidate(db, f, table, d.created_after, d.updated_before)) return true;
  return false;
}

/** A label counters table's conditions for the list's state and scope (a project, or a scope of projects). */
function stateAndScope(f: CombinedFilters, where: string[], args: unknown[]): void {
  if (f.state) {
    where.push('state = ?');
    args.push(f.state);
  }
  if (f.projectId !== undefined) {
    where.push('project_id = ?');
    args.push(f.projectId);
  } else if (f.projects) {
    where.push(`+project_id IN (${f.projects})`);
    args.push(...f.projectArgs);
  }
}

/** Some record of the scope (in the state) carries the title: label_counts (core/016), by label_counts_title. */
function labelCounted(db: Db, f: CombinedFilters, title: string): boolean {
  const where = ['issuable_type = ?', 'title = ? COLLATE NOCASE'];
  const args: unknown[] = [f.type, title];
  stateAndScope(f, where, args);
  return db.prepare(`SELECT 1 FROM label_counts WHERE ${where.join(' AND ')} AND n > 0 LIMIT 1`).get(...args) !== undefined;
}

/** Some record of the scope (in the state) carries both titles: label_pair_counts (core/092), either order, titles NOCASE. */
function pairCounted(db: Db, f: CombinedFilters, a: string, b: string): boolean {
  // Each order a seek of the primary key (an OR of the two read every pair of the type).
  return [[a, b], [b, a]].some(([first, second]) => {
    const where = ['issuable_type = ?', 'a = ?', 'b = ?'];
    const args: unknown[] = [f.type, first, second];
    stateAndScope(f, where, args);
    return db.prepare(`SELECT 1 FROM label_pair_counts WHERE ${where.join(' AND ')} AND n > 0 LIMIT 1`).get(...args) !== undefined;
  });
}

/**
 * Some record of the scope is the author's and carries a milestone of the title, or none (None) or
 * some (Any) milestone (any of them given): a project's (or a scope of projects') filter counters
 * (core/018, core/028; milestone 0 for none) in the state; else the author's over every project. A
 * project's merged merge requests with milestone=None walked its million records to find none (310 ms).
 */
function countersHold(db: Db, f: CombinedFilters, author: number | null): boolean {
  // A scope of the instance's projects (/issues' default, the caller's own records): the author's
  // counters over every project (core/223's index), none of theirs meaning none in any scope (the
  // caller's closed issues with milestone=Any, none of them: the milestones' records walked, 270 ms).
  // Without an author, not asked (the counters read whole).
  const instance = f.projectId === undefined && !f.projects;
  if (instance && author === null) return true;
  const counters = f.type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  const where = instance ? [] : [f.projectId !== undefined ? 'project_id = ?' : `project_id IN (${f.projects})`];
  const args: unknown[] = instance ? [] : [...(f.projectId !== undefined ? [f.projectId] : f.projectArgs)];
  if (author !== null) {
    where.push('author = ?');
    args.push(author);
  }
  // The list's milestones of the title are among these (its scope's, or the project's one carried).
  if (f.milestone !== null) {
    where.push('milestone IN (SELECT id FROM milestones WHERE title = ?)');
    args.push(f.milestone);
  }
  if (f.milestoneHeld !== null) where.push(f.milestoneHeld === 'none' ? 'milestone = 0' : 'milestone != 0');
  if (f.state) {
    where.push('state = ?');
    args.push(f.state);
  }
  return db.prepare(`SELECT 1 FROM ${counters} WHERE ${where.join(' AND ')} AND n > 0 LIMIT 1`).get(...args) !== undefined;
}

/** Some record of the scope (in the state) by the author carries the title (label_author_counts: by its primary key for a project, else by the author's index). */
function authorLabelCounted(db: Db, f: CombinedFilters, author: number, title: string): boolean {
  const where = ['issuable_type = ?', 'author_id = ?', 'title = ? COLLATE NOCASE'];
  const args: unknown[] = [f.type, author, title];
  stateAndScope(f, where, args);
  return db.prepare(`SELECT 1 FROM label_author_counts WHERE ${where.join(' AND ')} AND n > 0 LIMIT 1`).get(...args) !== undefined;
}

/** Some record (of the project, or of the instance for a wider scope) was updated before it was created within the bounds. */
function lagCandidate(db: Db, f: CombinedFilters, table: string, createdAfter: string, updatedBefore: string): boolean {
  const lag = dateLag('x.');
  const index = f.projectId !== undefined ? `${table}_project_lag_created` : `${table}_lag_created`;
  const inProject = f.projectId !== undefined ? 'x.project_id = ? AND ' : '';
  const scopeArgs = f.projectId !== undefined ? [f.projectId] : [];
  return [`${lag} IS NULL`, `${lag} = -1`].some(
    (bucket) =>
      db.prepare(`SELECT 1 FROM ${table} x INDEXED BY ${index} WHERE ${inProject}${bucket} AND x.created_at >= ? AND x.updated_at <= ? LIMIT 1`).get(...scopeArgs, createdAfter, updatedBefore) !==
      undefined,
  );
}
