import type { RequestContext } from '../../http/route';
import { type Db, tableVersionsBesides, writeGeneration } from '../../db/connection';
import { keptListPage, pageHeadersSent } from '../../http/pagination';
import { MEMORY_BUDGET, deleteOldest } from '../../memory';
import type { Project } from './projects';
import { today } from './time';
import type { Scope } from './workitems';

/**
 * Tables whose writes leave a project's issue, merge request or label page as it was, once its own
 * records' list version (core/019, core/020) holds: the issues and merge requests and what their
 * triggers keep from them (label rows, counters, id zones, write logs, order versions), the labels'
 * owner counters (kept by the labels' triggers: the labels' own version moves with them), the events
 * written beside them (no list reads them), the projects' rows (the list's project is in the key, by
 * its row; other projects' rows decide nothing of it) and the tokens' last use. Every other table
 * with a version (labels, milestones, members, namespaces, users, label priorities, award emoji,
 * epics' links, notes, ...) is the answer's to hold.
 */
const RECORDS_AND_UNREAD = new Set([
  'issues',
  'merge_requests',
  'issuable_labels',
  'issuable_users',
  'issuable_id_zones',
  'issuable_list_writes',
  'issuable_state_counts',
  'issue_list_versions',
  'merge_request_list_versions',
  'issue_filter_counts',
  'merge_request_filter_counts',
  'merge_request_branch_counts',
  'issue_order_inserts',
  'issue_order_versions',
  'project_issue_counts',
  'label_counts',
  'label_pair_counts',
  'label_author_counts',
  'label_milestone_counts',
  'label_owner_counts',
  'events',
  'event_author_counts',
  'event_counts',
  'event_list_versions',
  'event_target_counts',
  'event_time_order',
  'event_time_runs',
  'event_time_exceptions',
  'resource_label_events',
  'resource_state_events',
  'resource_milestone_events',
  'projects',
  'projects_search',
  'project_list_writes',
  'personal_access_tokens',
]);

/** A project row's fields that decide nothing of its lists (a description written, its last activity moved). */
const UNREAD_PROJECT_FIELDS = new Set(['description', 'updated_at', 'last_activity_at']);

/** The rest of a project's row, by number: the same frozen row gives the same number without building the text again. */
const projectShapes = new WeakMap<Project, number>();
const shapeNumbers = new Map<string, number>();
let nextShape = 0;

function projectShape(project: Project): number {
  let n = projectShapes.get(project);
  if (n !== undefined) return n;
  const text = JSON.stringify(project, (key, value: unknown) => (UNREAD_PROJECT_FIELDS.has(key) ? undefined : value));
  n = shapeNumbers.get(text);
  if (n === undefined) {
    if (shapeNumbers.size >= MEMORY_BUDGET.lookups) shapeNumbers.clear();
    shapeNumbers.set(text, (n = nextShape++));
  }
  projectShapes.set(project, n);
  return n;
}

interface KeptAnswer {
  records: number;
  /** Reads the records' version again (a project's list version, a scope's: recordsVersion), holding no request. */
  version: () => number;
  tables: { sum: number; tables: number };
  rows: readonly unknown[];
  headers: Readonly<Record<string, string>>;
}
const keptAnswers = new WeakMap<Db, Map<string, KeptAnswer>>();

/** A page kept whole: what its list said besides its rows (the headers sent) and its records' version reader. */
type KeptPage = { headers: Readonly<Record<string, string>>; version: () => number } | undefined;

/**
 * A project's issue or merge request page (its rows and pagination headers) found by the request
 * itself, before the list is planned (keptPage), while the project's records' list version holds
 * too, for a list whose SQL reads only tables with versions (its rows were kept: SqlList.keptRows).
 * A kept page after a write elsewhere planned the list again (filters, sets' sizes, label counts,
 * date buckets, the count chain) only to find the page its plan names (~50-400 us).
 */
export function keptProjectPage<T>(rc: RequestContext, type: 'Issue' | 'MergeRequest', project: Project, read: () => T[]): T[] {
  return keptPage(rc, projectKey(rc, type, project), read, () => keptListPage(rc));
}

/**
 * A project's labels page (labelListSql: its own and its groups' labels, a search on them) found by
 * its request (keptPage): its SQL reads labels (a table with a version, and its full-text index,
 * labels_search's), the project's groups (namespaces) and its row. A page after a write elsewhere
 * found its owners, counters and anchors again.
 */
export function keptProjectLabelsPage<T>(rc: RequestContext, project: Project, read: () => T[]): T[] {
  return keptPage(rc, projectKey(rc, 'Label', project), read, () => {
    const headers = pageHeadersSent(rc);
    return headers && { headers, version: () => 0 };
  });
}

/**
 * A group's or the instance's issue or merge request page found by its request (keptPage), before
 * its scope is read: `scope` is read only for a page not kept. Its scope (which projects, read by
 * groupScope, visibleScope, globalScope from namespaces, memberships, group links, users and the
 * projects' listed columns and feature levels: core/130, core/274) holds while those tables'
 * versions hold, and so its projects' ids, whose list versions are the records' (recordsVersion,
 * as SqlList.keptRows read them). Kept only where the list's SQL reads no other column of projects
 * (projects' own version, moved by every write to any project, is not among those held). A group's
 * page after a write elsewhere read its scope and planned its list again (~200-500 us).
 */
export function keptScopePage<T>(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: () => Scope, read: (scope: Scope) => T[]): T[] {
  return keptPage(rc, requestKey(rc, type, 'scope'), () => read(scope()), () => {
    const page = keptListPage(rc);
    return page && !page.tables.includes('projects') ? page : undefined;
  });
}

/** A project's page's key: the project by its row (but UNREAD_PROJECT_FIELDS) and the request. */
function projectKey(rc: RequestContext, kind: string, project: Project): string {
  return requestKey(rc, kind, project.id, projectShape(project));
}

/** A kept page's key (keptPage): what the list is (`what`), then who asks, today, and the request as sent. */
function requestKey(rc: RequestContext, ...what: unknown[]): string {
  return JSON.stringify([...what, rc.user?.id ?? 0, today(rc.svc), rc.baseUrl, rc.req.url, rc.params]);
}

/**
 * A page of a list (its rows and pagination headers) found by the request itself (`key`: who asks,
 * the URL and parameters as sent, the base URL, today for access expiries and due-date filters, and
 * for a project's list its row). It holds while its records' version and every table's version
 * but RECORDS_AND_UNREAD's hold; kept only when `kept` gives the headers the page sent and its
 * records' version (undefined where what decides the list is not all in versions). Not inside a
 * transaction, not for keyset pages.
 */
function keptPage<T>(rc: RequestContext, key: string, read: () => T[], kept: () => KeptPage): T[] {
  const db = rc.svc.db;
  if (db.inTransaction || rc.params.pagination === 'keyset') return read();
  let answers = keptAnswers.get(db);
  if (!answers) keptAnswers.set(db, (answers = new Map()));
  const generation = writeGeneration(db);
  const known = answers.get(key);
  // The records' version read for a kept page whose tables held: the same records' (the same scope) for a page read now.
  let records: number | undefined;
  if (known) {
    const tables = tableVersionsBesides(db, RECORDS_AND_UNREAD);
    if (known.tables.sum === tables.sum && known.tables.tables === tables.tables) {
      records = known.version();
      if (known.records === records) {
        // The most recently asked last: the least recently asked goes first.
        answers.delete(key);
        answers.set(key, known);
        rc.reply.headers(known.headers);
        return known.rows.slice() as T[];
      }
    }
    answers.delete(key);
  }
  const rows = read();
  const page = kept();
  // Kept at the versions the read saw: it wrote nothing, so they are those before it or after it.
  if (!page || db.inTransaction || writeGeneration(db) !== generation) return rows;
  const tables = tableVersionsBesides(db, RECORDS_AND_UNREAD);
  records ??= page.version();
  for (const row of rows) Object.freeze(row);
  if (answers.size >= MEMORY_BUDGET.keptAnswers) deleteOldest(answers);
  answers.set(key, { records, version: page.version, tables, rows: rows.slice(), headers: page.headers });
  return rows;
}
