import type { ServiceContext } from '../../context';
import type { RequestContext } from '../../http/route';
import { validationError } from '../../http/errors';
import { addFilter } from '../../db/filter';
import { rareTermCandidates } from '../../db/trigram';
import { COUNT_LIMIT, type PageAnchors, type SortDirection, type SqlList, countUpTo, limitSql, listRows } from '../../http/pagination';
import type { Db } from '../../db/connection';
import type { User } from '../core/users';
import { findUserById, findUserByUsername } from '../core/users';
import { type Namespace, findNamespaceById, selfAndAncestorIds, selfAndDescendantIds } from '../core/namespaces';
import { Access, canReadGroup, effectiveGroupAccess } from '../core/access';
import { recordEvent } from '../core/events';
import { likeEscape } from '../core/routes/users';
import { isoTime } from '../core/time';
import { countDirection, otherDateList } from '../../db/date-lag';
import { readsOnly } from '../core/count-versions';
import { dateBoundsIn } from '../core/date-bounds';
import { rowsByIds, sequenceLog } from '../../db/written-rows';
import { findOrCreateGroupLabels, groupLabelsByTitle } from '../labels/labels';
import { DEFAULT_LABEL_COLOR, normalizeColor } from '../labels/colors';
import { MEMORY_BUDGET } from '../../memory';

export interface EpicRow {
  id: number;
  group_id: number;
  iid: number;
  parent_id: number | null;
  title: string;
  description: string | null;
  state: 'opened' | 'closed';
  confidential: number;
  author_id: number | null;
  labels: string;
  color: string;
  start_date_fixed: string | null;
  start_date_is_fixed: number;
  due_date_fixed: string | null;
  due_date_is_fixed: number;
  closed_at: string | null;
  closed_by_id: number | null;
  created_at: string;
  updated_at: string;
  /** 'none', or the source a migration brought it from ('gitlab'); column added by bulk_imports/001. */
  imported_from: string;
}

export const DESCRIPTION_LIMIT = 1_048_576;
/** admin_epic (create, update): Planner (and Reporter) and up; destroy_epic: Owner. */
export const ADMIN_EPIC = Access.PLANNER;
export const DESTROY_EPIC = Access.OWNER;

export function findEpicById(svc: ServiceContext, id: number): EpicRow | undefined {
  return svc.db.prepare('SELECT * FROM epics WHERE id = ?').get(id) as EpicRow | undefined;
}

export function findEpicByIid(svc: ServiceContext, group: Namespace, iid: number): EpicRow | undefined {
  return svc.db.prepare('SELECT * FROM epics WHERE group_id = ? AND iid = ?').get(group.id, iid) as EpicRow | undefined;
}

/** Confidential epics are for Planners and up (and their author). */
export function canReadEpic(svc: ServiceContext, user: User | null, epic: EpicRow): boolean {
  const group = findNamespaceById(svc, epic.group_id);
  if (!group || !canReadGroup(svc, user, group)) return false;
  if (!epic.confidential) return true;
  if (user && epic.author_id === user.id) return true;
  return effectiveGroupAccess(svc, user, group) >= Access.PLANNER;
}

export function canAdminEpic(svc: ServiceContext, user: User | null, epic: EpicRow): boolean {
  return canAdminGroupEpics(svc, user, epic.group_id);
}

/** Whether `user` administers the epics of a group (canAdminEpic reads the epic's group alone). */
export function canAdminGroupEpics(svc: ServiceContext, user: User | null, groupId: number): boolean {
  const group = findNamespaceById(svc, groupId);
  return !!group && effectiveGroupAccess(svc, user, group) >= ADMIN_EPIC;
}

// --- dates ---------------------------------------------------------------------------------------

export interface EpicDates {
  start_date: string | null;
  due_date: string | null;
  start_date_from_inherited_source: string | null;
  due_date_from_inherited_source: string | null;
}

/** Whether the epic's dates come from its children (a date not fixed), so its children are read. */
export const inheritsDates = (epic: EpicRow): boolean => !epic.start_date_is_fixed || !epic.due_date_is_fixed;

/** Fixed dates when flagged, else inherited from child epics (earliest start, latest due). */
export function epicDates(svc: ServiceContext, epic: EpicRow, depth = 0): EpicDates {
  const children = depth < 10 && inheritsDates(epic) ? (svc.db.prepare('SELECT * FROM epics WHERE parent_id = ?').all(epic.id) as EpicRow[]) : [];
  return epicDatesFrom(svc, epic, children, depth);
}

/** epicDates with the epic's children already read (none when its dates are fixed): a page of epics reads them at once. */
export function epicDatesFrom(svc: ServiceContext, epic: EpicRow, children: EpicRow[], depth = 0): EpicDates {
  let start: string | null = null;
  let due: string | null = null;
  for (const child of children) {
    const d = epicDates(svc, child, depth + 1);
    if (d.start_date && (!start || d.start_date < start)) start = d.start_date;
    if (d.due_date && (!due || d.due_date > due)) due = d.due_date;
  }
  return {
    start_date: epic.start_date_is_fixed ? epic.start_date_fixed : start,
    due_date: epic.due_date_is_fixed ? epic.due_date_fixed : due,
    start_date_from_inherited_source: start,
    due_date_from_inherited_source: due,
  };
}

// --- writes --------------------------------------------------------------------------------------

export interface EpicInput {
  title?: string;
  description?: string | null;
  labels?: string[] | null;
  add_labels?: string[];
  remove_labels?: string[];
  confidential?: boolean;
  color?: string;
  start_date_fixed?: string | null;
  start_date_is_fixed?: boolean;
  due_date_fixed?: string | null;
  due_date_is_fixed?: boolean;
  /** undefined: unchanged; null: no parent. */
  parent?: EpicRow | null;
  state_event?: 'close' | 'reopen';
  created_at?: string;
  updated_at?: string;
}

function validate(input: EpicInput): void {
  const errors: Record<string, string[]> = {};
  if (input.title !== undefined) {
    if (!input.title.trim()) errors.title = ["can't be blank"];
    else if (input.title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  }
  if (input.color !== undefined && !normalizeColor(input.color)) errors.color = ['must be a valid color code'];
  if (Object.keys(errors).length) throw validationError(errors);
}

/** A parent must sit in the epic's group or above it, and must not be the epic or below it. */
function checkParent(svc: ServiceContext, group: Namespace, epic: EpicRow | null, parent: EpicRow): void {
  const reason = 'This epic cannot be added. An epic must belong to the same group or subgroup as its parent epic.';
  if (!selfAndAncestorIds(svc, group).includes(parent.group_id)) throw validationError({ parent: [reason] });
  if (!epic) return;
  for (let cur: EpicRow | undefined = parent, i = 0; cur && i < 100; cur = cur.parent_id ? findEpicById(svc, cur.parent_id) : undefined, i++) {
    if (cur.id === epic.id) throw validationError({ parent: ['This epic cannot be added. It is already an ancestor of the parent epic.'] });
  }
}

/** Label titles from the request, as the group's labels (missing ones are created, as GitLab does). */
function labelTitles(svc: ServiceContext, group: Namespace, names: string[]): string[] {
  const unique = [...new Set(names.map((n) => n.trim()).filter(Boolean))];
  return findOrCreateGroupLabels(svc, group, unique, DEFAULT_LABEL_COLOR).map((l) => l.title);
}

// --- resource label events ----------------------------------------------------------------------

export interface LabelEventRow {
  id: number;
  epic_id: number;
  user_id: number | null;
  label_id: number | null;
  action: 'add' | 'remove';
  created_at: string;
}

/** Records an `add` event per label gained and a `remove` event per label lost (adds first). */
function recordLabelEvents(svc: ServiceContext, group: Namespace, epicId: number, userId: number, before: string[], after: string[], at: string): void {
  const added = after.filter((t) => !before.includes(t));
  const removed = before.filter((t) => !after.includes(t));
  if (!added.length && !removed.length) return;
  const rows = groupLabelsByTitle(svc, group, [...added, ...removed]);
  const insert = svc.db.prepare('INSERT INTO epic_label_events (epic_id, user_id, label_id, action, created_at) VALUES (?, ?, ?, ?, ?)');
  for (const t of added) insert.run(epicId, userId, rows.get(t)?.id ?? null, 'add', at);
  for (const t of removed) insert.run(epicId, userId, rows.get(t)?.id ?? null, 'remove', at);
}

/**
 * The next epic iid of a group and the next epic id: past every one handed out. A migration asks
 * for the source's iid (`wantedIid`) and gets it while no epic of the group ever held it. Call
 * inside a transaction.
 */
export function nextEpicIds(svc: ServiceContext, groupId: number, wantedIid?: number): { id: number; iid: number } {
  const maxIid = (svc.db.prepare('SELECT coalesce(max(iid), 0) AS n FROM epics WHERE group_id = ?').get(groupId) as { n: number }).n;
  const lastIid = (svc.db.prepare('SELECT last_iid FROM epic_iid_counters WHERE group_id = ?').get(groupId) as { last_iid: number } | undefined)?.last_iid ?? 0;
  const free = wantedIid !== undefined && !svc.db.prepare('SELECT 1 FROM epics WHERE group_id = ? AND iid = ?').get(groupId, wantedIid);
  const iid = free && wantedIid! > lastIid ? wantedIid! : Math.max(maxIid, lastIid) + 1;
  svc.db.prepare('INSERT INTO epic_iid_counters (group_id, last_iid) VALUES (?, ?) ON CONFLICT (group_id) DO UPDATE SET last_iid = excluded.last_iid').run(groupId, iid);
  const maxId = (svc.db.prepare('SELECT coalesce(max(id), 0) AS n FROM epics').get() as { n: number }).n;
  const lastId = (svc.db.prepare('SELECT last_id FROM epic_id_counter WHERE id = 1').get() as { last_id: number } | undefined)?.last_id ?? 0;
  const id = Math.max(maxId, lastId) + 1;
  svc.db.prepare('INSERT INTO epic_id_counter (id, last_id) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET last_id = excluded.last_id').run(id);
  return { id, iid };
}

export function createEpic(rc: RequestContext, group: Namespace, author: User, input: EpicInput & { title: string }): EpicRow {
  validate(input);
  if (input.parent) checkParent(rc.svc, group, null, input.parent);
  const now = isoTime(rc.svc.now());
  const { id, iid } = nextEpicIds(rc.svc, group.id);
  const labels = labelTitles(rc.svc, group, input.labels ?? []);
  const createdAt = input.created_at ?? now;
  const info = rc.svc.db
    .prepare(
      `INSERT INTO epics (id, group_id, iid, parent_id, title, description, confidential, author_id, labels, color,
         start_date_fixed, start_date_is_fixed, due_date_fixed, due_date_is_fixed, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      group.id,
      iid,
      input.parent?.id ?? null,
      input.title.trim(),
      input.description ?? null,
      input.confidential ? 1 : 0,
      author.id,
      JSON.stringify(labels),
      input.color ? normalizeColor(input.color) : '#1068bf',
      input.start_date_fixed ?? null,
      input.start_date_is_fixed ? 1 : 0,
      input.due_date_fixed ?? null,
      input.due_date_is_fixed ? 1 : 0,
      createdAt,
      createdAt,
    );
  const epic = findEpicById(rc.svc, Number(info.lastInsertRowid))!;
  recordLabelEvents(rc.svc, group, epic.id, author.id, [], labels, createdAt);
  recordEvent(rc.svc, { action: 'created', authorId: author.id, groupId: group.id, targetType: 'Epic', targetId: epic.id, targetIid: epic.iid, targetTitle: epic.title });
  return epic;
}

export function updateEpic(rc: RequestContext, group: Namespace, epic: EpicRow, user: User, input: EpicInput): EpicRow {
  validate(input);
  if (input.parent) checkParent(rc.svc, group, epic, input.parent);
  const set: Record<string, unknown> = {};
  if (input.title !== undefined) set.title = input.title.trim();
  if (input.description !== undefined) set.description = input.description;
  if (input.confidential !== undefined) set.confidential = Number(input.confidential);
  if (input.color !== undefined) set.color = normalizeColor(input.color);
  if (input.start_date_fixed !== undefined) set.start_date_fixed = input.start_date_fixed;
  if (input.start_date_is_fixed !== undefined) set.start_date_is_fixed = Number(input.start_date_is_fixed);
  if (input.due_date_fixed !== undefined) set.due_date_fixed = input.due_date_fixed;
  if (input.due_date_is_fixed !== undefined) set.due_date_is_fixed = Number(input.due_date_is_fixed);
  if (input.parent !== undefined) set.parent_id = input.parent?.id ?? null;
  if (input.labels !== undefined || input.add_labels || input.remove_labels) {
    let labels = input.labels === undefined ? (JSON.parse(epic.labels) as string[]) : labelTitles(rc.svc, group, input.labels ?? []);
    if (input.add_labels) labels = [...labels, ...labelTitles(rc.svc, group, input.add_labels)];
    if (input.remove_labels) labels = labels.filter((l) => !input.remove_labels!.map((r) => r.trim()).includes(l));
    set.labels = JSON.stringify([...new Set(labels)]);
  }
  const now = isoTime(rc.svc.now());
  let event: 'closed' | 'reopened' | null = null;
  if (input.state_event === 'close' && epic.state === 'opened') {
    Object.assign(set, { state: 'closed', closed_at: now, closed_by_id: user.id });
    event = 'closed';
  } else if (input.state_event === 'reopen' && epic.state === 'closed') {
    Object.assign(set, { state: 'opened', closed_at: null, closed_by_id: null });
    event = 'reopened';
  }
  set.updated_at = input.updated_at ?? now;
  const entries = Object.entries(set);
  rc.svc.db.prepare(`UPDATE epics SET ${entries.map(([k]) => `${k} = ?`).join(', ')} WHERE id = ?`).run(...entries.map(([, v]) => v), epic.id);
  const updated = findEpicById(rc.svc, epic.id)!;
  recordLabelEvents(rc.svc, group, epic.id, user.id, JSON.parse(epic.labels) as string[], JSON.parse(updated.labels) as string[], now);
  if (event) {
    recordEvent(rc.svc, { action: event, authorId: user.id, groupId: group.id, targetType: 'Epic', targetId: epic.id, targetIid: epic.iid, targetTitle: updated.title });
  }
  return updated;
}

/** Deletes the epic; its children stay and lose their parent (GitLab 16.11+). */
export function deleteEpic(rc: RequestContext, epic: EpicRow, user: User): void {
  rc.svc.db.prepare('UPDATE epics SET parent_id = NULL WHERE parent_id = ?').run(epic.id);
  rc.svc.db.prepare("DELETE FROM notes WHERE noteable_type = 'Epic' AND noteable_id = ?").run(epic.id);
  rc.svc.db.prepare('DELETE FROM epics WHERE id = ?').run(epic.id);
  recordEvent(rc.svc, { action: 'destroyed', authorId: user.id, groupId: epic.group_id, targetType: 'Epic', targetId: epic.id, targetIid: epic.iid, targetTitle: epic.title });
}

// --- to-dos and award emoji ----------------------------------------------------------------------

export interface TodoRow {
  id: number;
  epic_id: number;
  user_id: number;
  author_id: number | null;
  action: string;
  state: string;
  created_at: string;
  updated_at: string;
}

/** Marks the epic as a to-do for the user; null when a pending one already exists. */
export function markTodo(svc: ServiceContext, epic: EpicRow, user: User): TodoRow | null {
  if (svc.db.prepare("SELECT 1 FROM epic_todos WHERE epic_id = ? AND user_id = ? AND state = 'pending'").get(epic.id, user.id)) return null;
  const now = isoTime(svc.now());
  const info = svc.db
    .prepare("INSERT INTO epic_todos (epic_id, user_id, author_id, action, state, created_at, updated_at) VALUES (?, ?, ?, 'marked', 'pending', ?, ?)")
    .run(epic.id, user.id, user.id, now, now);
  return svc.db.prepare('SELECT * FROM epic_todos WHERE id = ?').get(Number(info.lastInsertRowid)) as TodoRow;
}

export interface AwardRow {
  id: number;
  epic_id: number;
  user_id: number;
  name: string;
  created_at: string;
  updated_at: string;
}

export interface AwardCounts {
  upvotes: number;
  downvotes: number;
}

/** Thumbs up and down of each epic (by id; an epic without any is absent), one query for them all. */
export function awardCountsOf(svc: ServiceContext, epicIds: number[]): Map<number, AwardCounts> {
  const rows = svc.db
    .prepare(
      `SELECT epic_id, sum(name = 'thumbsup') AS up, sum(name = 'thumbsdown') AS down FROM epic_award_emoji
        WHERE epic_id IN (SELECT value FROM json_each(?)) GROUP BY epic_id`,
    )
    .all(JSON.stringify(epicIds)) as { epic_id: number; up: number; down: number }[];
  return new Map(rows.map((r) => [r.epic_id, { upvotes: r.up, downvotes: r.down }]));
}

// --- list ----------------------------------------------------------------------------------------

export interface EpicListFilters {
  author_id?: number;
  author_username?: string;
  labels?: string[];
  order_by: string;
  sort: string;
  search?: string;
  state: string;
  created_after?: string;
  created_before?: string;
  updated_after?: string;
  updated_before?: string;
  include_ancestor_groups: boolean;
  include_descendant_groups: boolean;
  my_reaction_emoji?: string;
  confidential?: boolean;
  iids?: number[];
  not?: Record<string, unknown>;
}

const NONE = 'none';
const ANY = 'any';

/** The `labels` filter: every label given (or None / Any). */
function labelsFilter(where: string[], args: unknown[], labels: string[], negate: boolean): void {
  if (labels.length === 1 && labels[0].toLowerCase() === NONE) {
    where.push(negate ? "e.labels != '[]'" : "e.labels = '[]'");
    return;
  }
  if (labels.length === 1 && labels[0].toLowerCase() === ANY) {
    where.push(negate ? "e.labels = '[]'" : "e.labels != '[]'");
    return;
  }
  const has = labels.map(() => "EXISTS (SELECT 1 FROM issuable_labels il WHERE il.issuable_type = 'Epic' AND il.issuable_id = e.id AND il.title = ?)");
  // not[labels]: none of them.
  where.push(negate ? `NOT (${has.join(' OR ')})` : has.join(' AND '));
  args.push(...labels);
}

/** The `not[labels]` titles, as labelsFilter is given them. */
function notLabelsOf(not: Record<string, unknown>): string[] {
  const notLabels = Array.isArray(not.labels) ? not.labels.map(String) : typeof not.labels === 'string' ? not.labels.split(',') : [];
  return notLabels.map((l) => l.trim()).filter(Boolean);
}

/** labelsFilter's conditions for `labels` and `not[labels]` exclude each other: a title in both, or the same None or Any alone in both. */
function labelsContradict(labels: string[], notLabels: string[]): boolean {
  if (!labels.length || !notLabels.length) return false;
  const wildcard = (l: string[]): string | null => (l.length === 1 && [NONE, ANY].includes(l[0].toLowerCase()) ? l[0].toLowerCase() : null);
  const [w, nw] = [wildcard(labels), wildcard(notLabels)];
  if (w !== null || nw !== null) return w === nw;
  return labels.some((l) => notLabels.includes(l));
}

/** Writes epics/011's log keeps (the instance's last). */
const EPIC_WRITES_LOGGED = 1_000;

/** A filter by one label (not None or Any): its title. */
function singleLabel(labels: string[] | undefined): string | null {
  return labels?.length === 1 && ![NONE, ANY].includes(labels[0].toLowerCase()) ? labels[0] : null;
}

/** Epics of the instance whose label rows a title finds case-insensitively, as the label filter first reads them (epics/009). */
function labelCarriers(svc: ServiceContext, title: string): number {
  return (svc.db.prepare('SELECT coalesce(sum(n), 0) AS n FROM epic_label_counts WHERE title = ? COLLATE NOCASE').get(title) as { n: number }).n;
}

/** A count taken past COUNT_LIMIT + 1 by this much: "more than COUNT_LIMIT" holds through this many writes without a recount. */
const COUNT_SLACK = 1_000;
/** Remembered counts per database: the list's key -> its count and the list version it was read at. */
const rememberedCounts = new WeakMap<Db, Map<string, { version: number; n: number }>>();
/** Counts remembered per database (beyond it, all are dropped and counted again). */
const REMEMBERED_COUNTS = MEMORY_BUDGET.epicCounts;

/**
 * A list's count while its groups' epics stay unwritten (the version), and afterwards as a lower
 * bound: each write moves the version by at least one and the list by at most one epic, so a
 * count that passed COUNT_LIMIT by more than the writes since still does. `count` (when given)
 * counts it again otherwise; without it, undefined unless remembered. Not remembered inside a
 * transaction, which may yet roll back to the version before it.
 */
function rememberedCount(db: Db, key: string, version: () => number, count?: () => number): number | undefined {
  let remembered = rememberedCounts.get(db);
  if (!remembered) rememberedCounts.set(db, (remembered = new Map()));
  const now = version();
  const known = remembered.get(key);
  if (known && now >= known.version) {
    const atLeast = known.n - (now - known.version);
    if (now === known.version || atLeast > COUNT_LIMIT) return atLeast;
  }
  if (!count) return undefined;
  const n = count();
  if (db.inTransaction) return n;
  if (!known && remembered.size >= REMEMBERED_COUNTS) remembered.clear();
  remembered.set(key, { version: now, n });
  return n;
}

/** A list filtered by its creation dates, and at most a state, besides what every list reads (groups, confidentiality). */
function createdOnly(f: EpicListFilters): boolean {
  return (
    (!!f.created_after || !!f.created_before) && f.author_id === undefined && f.author_username === undefined && !f.labels?.length && !f.search &&
    !f.updated_after && !f.updated_before && f.confidential === undefined && !f.iids?.length && !f.my_reaction_emoji && !Object.keys(f.not ?? {}).length
  );
}

/**
 * How many epics of the groups the list holds at least, from the months wholly inside its creation
 * range (epics/010): a created_at whose month sorts after the month of `created_after` sorts after
 * it too (and before `created_before` likewise), whatever the rest of the text. Only the
 * non-confidential epics count, which every reader of the groups sees.
 */
function createdAtLeast(svc: ServiceContext, groupIds: number[], f: EpicListFilters): number {
  const where = [`group_id IN (${groupIds.map(() => '?').join(',') || 'NULL'})`, 'confidential = 0'];
  const args: unknown[] = [...groupIds];
  if (f.state !== 'all') addFilter(where, args, 'state = ?', f.state);
  if (f.created_after) addFilter(where, args, 'month > substr(?, 1, 7)', f.created_after);
  if (f.created_before) addFilter(where, args, 'month < substr(?, 1, 7)', f.created_before);
  return (svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM epic_created_counts WHERE ${where.join(' AND ')}`).get(...args) as { n: number }).n;
}

/** Epics as epics/011's log names their writes: list pages read their rows by id from memory while unwritten (SqlList.byId). */
export const EPIC_WRITES = sequenceLog('epics', 'epic_list_writes', 'epic_id');

/** An author's epics of the groups, from the counters (epics/007). */
function authoredEpics(svc: ServiceContext, groupIds: number[], authorId: number): number {
  const sql = `SELECT coalesce(sum(n), 0) AS n FROM epic_counts WHERE group_id IN (${groupIds.map(() => '?').join(',') || 'NULL'}) AND author = ?`;
  return (svc.db.prepare(sql).get(...groupIds, authorId) as { n: number }).n;
}

/** How many epics the user awarded (that emoji, or any), up to `cap`, from epics/012's index. */
function awardedUpTo(svc: ServiceContext, userId: number, name: string | null, cap: number): number {
  const sql = `SELECT count(*) AS n FROM (SELECT 1 FROM epic_award_emoji WHERE user_id = ?${name === null ? '' : ' AND name = ?'} ${limitSql(cap)})`;
  return (svc.db.prepare(sql).get(...(name === null ? [userId] : [userId, name])) as { n: number }).n;
}

/**
 * Epics by label titles (and any filter on the epics' own columns but a search, a date range or
 * my_reaction_emoji), by created_at or updated_at: the page read from the label rows of the title
 * the fewest epics of the instance carry, in the order's date (epics/014 gives epic label rows
 * their epic's dates, in core's indexes of label rows by title and date, as issues' and merge
 * requests' labelRowsPage reads them), each epic checked against the list's conditions, instead of
 * reading every epic of the title and sorting them (5,000 of 10,000: 5 ms) or walking the groups'
 * epics in order probing each one's labels (two titles no epic carries together: the million epics,
 * 500 ms). The count (when the counters do not give it) from the same rows. Undefined when the
 * groups hold too few of the title's epics for a walk through them to pay (then the groups' epics
 * of the title are read by id and sorted, or the groups' epics walked, as before).
 */
function labelRowsWalk(
  svc: ServiceContext,
  f: EpicListFilters,
  groupIds: number[],
  column: 'created_at' | 'updated_at' | 'title',
  sort: SortDirection,
  where: string[],
  args: unknown[],
  version: () => number,
): { rows: (limit: number, offset: number) => EpicRow[]; count: { from: string; args: unknown[] } } | undefined {
  const titles = f.labels ?? [];
  if (column === 'title' || !titles.length || titles.some((title) => [NONE, ANY].includes(title.toLowerCase()))) return undefined;
  if (f.search || f.created_after || f.created_before || f.updated_after || f.updated_before || f.my_reaction_emoji) return undefined;
  const db = svc.db;
  const inGroups = ` AND group_id IN (${groupIds.map(() => '?').join(',') || 'NULL'})`;
  // Epic label filters match a title exactly (labelsFilter), as the counters count them (epics/009).
  const carriers = (title: string, scoped: boolean): number =>
    (db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM epic_label_counts WHERE title = ?${scoped ? inGroups : ''}`).get(title, ...(scoped ? groupIds : [])) as { n: number }).n;
  const [driver] = titles.map((title) => ({ title, all: carriers(title, false) })).sort((a, b) => a.all - b.all);
  const inScope = carriers(driver.title, true);
  // A page reads about its rows * all / inScope label rows: at most twice its rows when the groups
  // hold half the title's epics, and for a page of up to 100 no more than inScope when 100 * all <= inScope².
  if (driver.all > 2 * inScope && driver.all * 100 > inScope * inScope) return undefined;
  const dated = column === 'created_at' ? 'issuable_labels_title_created' : 'issuable_labels_title_updated';
  // The title's index matches case-insensitively; the exact title keeps one row per epic.
  const from = `FROM issuable_labels il INDEXED BY ${dated} CROSS JOIN epics e ON e.id = il.issuable_id
    WHERE il.issuable_type = 'Epic' AND il.title = ? COLLATE NOCASE AND il.title = ? AND il.${column} IS NOT NULL AND ${where.join(' AND ')}`;
  const walkArgs = [driver.title, driver.title, ...args];
  const order = `il.${column} ${sort}, il.issuable_id ${sort}`;
  const ids: SqlList<{ id: number; at: string }> = {
    select: `il.issuable_id AS id, il.${column} AS at`,
    from,
    args: walkArgs,
    order,
    // Label rows change only with their epics, which the groups' versions count.
    anchors: { key: JSON.stringify(['EpicLabelRows', from, walkArgs, order]), version, column: `il.${column}`, idColumn: 'il.issuable_id', sort, value: (row) => row.at, id: (row) => row.id },
  };
  return {
    rows: (limit, offset) => rowsByIds<EpicRow>(db, EPIC_WRITES, listRows(db, ids, limit, offset).map((r) => r.id)),
    count: { from, args: walkArgs },
  };
}

/**
 * An author of fewer of one group's epics than carry the rarest of the label titles filtering
 * them, in created_at order (no search, dates or awards): the list's own SQL walks the author's
 * (group, author, created_at) index in order, each epic's label rows probed, which reads fewer
 * than the titles' label rows (labelRowsWalk) or carriers by id (le13: author 3's 50,000 epics
 * against 338,000 'bug' rows, 16,667 both: 3 epics a row instead of 20).
 */
function authorWalksFewer(svc: ServiceContext, f: EpicListFilters, groupIds: number[], column: string, authorId: number | null): boolean {
  const titles = f.labels ?? [];
  if (authorId === null || groupIds.length !== 1 || column !== 'created_at' || !titles.length || titles.some((title) => [NONE, ANY].includes(title.toLowerCase()))) return false;
  if (f.search || f.created_after || f.created_before || f.updated_after || f.updated_before || f.my_reaction_emoji) return false;
  const carriers = Math.min(
    ...titles.map((title) => (svc.db.prepare('SELECT coalesce(sum(n), 0) AS n FROM epic_label_counts WHERE title = ? AND group_id = ?').get(title, groupIds[0]) as { n: number }).n),
  );
  return authoredEpics(svc, groupIds, authorId) < carriers;
}

/**
 * A list by title with a date range: whether more than COUNT_LIMIT epics meet it (the months wholly
 * inside a creation range, else its count up to the limit), so that a page walks the groups'
 * titles in order (epics_group_title), checking each epic's dates, rather than reads every epic of
 * the range from the date's index and sorts them by title (le17: created_after=2024-06-01 by title,
 * page 50 of 20, sorted 537,853 epics for it, where the walk reads about 1,900). A range of at most
 * COUNT_LIMIT epics is still read and sorted (sortsFewer: a walk reads about `reach` * all / matches).
 */
function titleWalkPays(svc: ServiceContext, groupIds: number[], f: EpicListFilters, narrow: string, args: unknown[]): boolean {
  if (createdOnly(f) && createdAtLeast(svc, groupIds, f) > COUNT_LIMIT) return true;
  return countUpTo(svc.db, narrow, args, COUNT_LIMIT + 1) > COUNT_LIMIT;
}

export interface EpicList {
  sql: string;
  args: unknown[];
  order: string;
  /**
   * The list's count from the counters (epics/007, epics/009) when nothing but a state, an author,
   * confidentiality and one label filters it; a common search term's remembered count.
   */
  countFrom?: { counted: number; exact?: true } | { count: (cap: number) => number } | { from: string; args: unknown[] };
  anchors?: PageAnchors<EpicRow>;
  /** At least the list's length, from the label counters (SqlList.atMost). */
  atMost?: () => number;
  /** The page's rows when the list reads them another way than its SQL in order (a date on the other column: db/date-lag.ts). */
  rows?: (limit: number, offset: number) => EpicRow[];
}

/** Whether the groups (those the user may not read confidential epics of) hold a confidential epic the user did not write (epics/007). */
function confidentialHidden(svc: ServiceContext, groupIds: number[], user: User | null): boolean {
  if (!groupIds.length) return false;
  const sql = `SELECT EXISTS (SELECT 1 FROM epic_counts WHERE group_id IN (${groupIds.map(() => '?').join(',')}) AND confidential = 1 AND author != ? AND n > 0) AS hidden`;
  return (svc.db.prepare(sql).get(...groupIds, user?.id ?? -1) as { hidden: number }).hidden === 1;
}

/** A list no epic can meet, answered without reading one. */
const noEpics = (): EpicList => ({ sql: 'FROM epics e WHERE 0', args: [], order: 'e.id DESC', countFrom: { counted: 0 } });

/** SQL (alias `e`) for the epics of the reference's list filters that the user may read. */
export function epicListSql(svc: ServiceContext, user: User | null, group: Namespace, filters: EpicListFilters): EpicList {
  const ids = new Set<number>([group.id]);
  if (filters.include_descendant_groups) for (const id of selfAndDescendantIds(svc, group.id)) ids.add(id);
  if (filters.include_ancestor_groups) for (const id of selfAndAncestorIds(svc, group)) ids.add(id);
  const readable = [...ids].filter((id) => {
    const g = findNamespaceById(svc, id);
    return !!g && canReadGroup(svc, user, g);
  });
  const marks = (ids: number[]): string => ids.map(() => '?').join(',') || 'NULL';
  // A date bound every epic of the groups meets is left out, and the list read as without it (its
  // counters, the author's index); one none meets empties it (core/date-bounds.ts). The same epics.
  const bounds = dateBoundsIn(
    svc.db,
    { table: 'epics', scope: `group_id IN (${readable.map(() => '?').join(',') || 'NULL'})`, args: readable, index: { created_at: 'epics_group_created', updated_at: 'epics_group_updated' } },
    { created_after: filters.created_after, created_before: filters.created_before, updated_after: filters.updated_after, updated_before: filters.updated_before },
  );
  if (bounds.empty) return noEpics();
  const kept = bounds.kept;
  const f: EpicListFilters = {
    ...filters,
    created_after: kept.created_after ?? undefined,
    created_before: kept.created_before ?? undefined,
    updated_after: kept.updated_after ?? undefined,
    updated_before: kept.updated_before ?? undefined,
  };
  const confidentialOk = readable.filter((id) => effectiveGroupAccess(svc, user, findNamespaceById(svc, id)!) >= Access.PLANNER);
  const authorId = f.author_id ?? (f.author_username !== undefined ? (findUserByUsername(svc, f.author_username)?.id ?? -1) : null);
  /** epics/007's counters' conditions for the groups, the reader's confidential view, the author, state and confidentiality. */
  const counterConditions = (): { cw: string[]; cargs: unknown[] } => {
    const cw = [`group_id IN (${readable.map(() => '?').join(',') || 'NULL'})`, `(confidential = 0 OR group_id IN (${confidentialOk.map(() => '?').join(',') || 'NULL'}) OR author = ?)`];
    const cargs: unknown[] = [...readable, ...confidentialOk, user?.id ?? -1];
    if (authorId !== null) addFilter(cw, cargs, 'author = ?', authorId);
    if (f.state !== 'all') addFilter(cw, cargs, 'state = ?', f.state);
    // The counters keep confidentiality: an author's confidential epics (often none) are not walked for in date order to find them.
    if (f.confidential !== undefined) addFilter(cw, cargs, 'confidential = ?', f.confidential ? 1 : 0);
    return { cw, cargs };
  };
  // Every other filter only narrows what the counters count: an author (with a state or
  // confidentiality) of none of the groups' epics has an empty list, whatever else filters it (le17:
  // author_id=4&search=performance by updated_at p2500 walked a million epics matching the term to find none).
  if (authorId !== null || f.confidential !== undefined) {
    const { cw, cargs } = counterConditions();
    if ((svc.db.prepare(`SELECT EXISTS (SELECT 1 FROM epic_counts WHERE ${cw.join(' AND ')} AND n > 0) AS any`).get(...cargs) as { any: number }).any === 0) {
      return noEpics();
    }
  }
  // A label both asked for and excluded (the same text: the same rows), or the same None/Any both ways:
  // no epic meets both, and the list is empty (le17: labels=bug&not[labels]=bug by title p50 walked a million epics, 443 ms).
  if (labelsContradict(f.labels ?? [], notLabelsOf(f.not ?? {}))) return noEpics();
  // The label counters bound the list (epics/009: an epic once per title it carries, as the reader
  // sees the groups' epics, in the state, by the author). A title no epic carries (any case, so at
  // least the exact title's): no epic has every title and the list is empty (le17: labels=bug,label-1
  // by title, page 2500, walked a million epics for none, 380 ms). labels=Any: each epic carries a
  // title beyond not[labels]' (matched exactly, as the counters keep them); none and the list is
  // empty (le25: labels=Any&not[labels]=bug walked a million epics for none, 370 ms). Otherwise a
  // deep page past the bound reads nothing (atMost; le25: labels=Any&state=closed page 3000, 95 ms).
  let atMost: number | undefined;
  const titles = (f.labels ?? []).filter((l) => ![NONE, ANY].includes(l.toLowerCase()));
  const notTitles = notLabelsOf(f.not ?? {});
  if (titles.length) {
    const { cw, cargs } = counterConditions();
    const carried = svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM epic_label_counts WHERE title = ? COLLATE NOCASE AND ${cw.join(' AND ')}`);
    atMost = Math.min(...titles.map((title) => (carried.get(title, ...cargs) as { n: number }).n));
  } else if (f.labels?.length === 1 && f.labels[0].toLowerCase() === ANY && !(notTitles.length === 1 && [NONE, ANY].includes(notTitles[0].toLowerCase()))) {
    const { cw, cargs } = counterConditions();
    if (notTitles.length) addFilter(cw, cargs, `title NOT IN (${notTitles.map(() => '?').join(',')})`, ...notTitles);
    atMost = (svc.db.prepare(`SELECT coalesce(sum(n), 0) AS n FROM epic_label_counts WHERE ${cw.join(' AND ')}`).get(...cargs) as { n: number }).n;
  }
  if (atMost === 0) return noEpics();
  const where: string[] = [`e.group_id IN (${readable.map(() => '?').join(',') || 'NULL'})`];
  const args: unknown[] = [...readable];
  // A Planner of every group sees every epic, and so does anyone while the counters (epics/007) hold
  // no confidential epic of the other groups but their own: no condition, so a count or a date range
  // reads the group's index alone (le25: a Guest's author_id=3 page 2500 read 50,000 epics' rows, 90 ms).
  if (confidentialHidden(svc, readable.filter((id) => !confidentialOk.includes(id)), user)) {
    where.push(`(e.confidential = 0 OR e.group_id IN (${confidentialOk.map(() => '?').join(',') || 'NULL'}) OR e.author_id = ?)`);
    args.push(...confidentialOk, user?.id ?? -1);
  }
  if (f.author_id !== undefined) addFilter(where, args, 'e.author_id = ?', f.author_id);
  if (f.author_username !== undefined) addFilter(where, args, 'e.author_id = ?', findUserByUsername(svc, f.author_username)?.id ?? -1);
  if (f.labels?.length) labelsFilter(where, args, f.labels, false);
  if (f.search) {
    const like = `%${likeEscape(f.search)}%`;
    addFilter(where, args, "(e.title LIKE ? ESCAPE '\\' OR ifnull(e.description, '') LIKE ? ESCAPE '\\')", like, like);
  }
  if (f.state !== 'all') addFilter(where, args, 'e.state = ?', f.state);
  const column = f.order_by === 'title' ? 'title' : f.order_by === 'updated_at' ? 'updated_at' : 'created_at';
  // The date conditions' places in `where` (titleWalk may write them `+column`).
  const dated: number[] = [];
  const addDate = (condition: string, value: string | undefined): void => {
    if (!value) return;
    dated.push(where.length);
    addFilter(where, args, condition, value);
  };
  addDate('e.created_at >= ?', f.created_after);
  addDate('e.created_at <= ?', f.created_before);
  addDate('e.updated_at >= ?', f.updated_after);
  addDate('e.updated_at <= ?', f.updated_before);
  // A literal, so that epics/012's index of confidential epics serves `true`.
  if (f.confidential !== undefined) where.push(f.confidential ? 'e.confidential = 1' : 'e.confidential = 0');
  let byId = false;
  if (f.iids?.length) {
    // The iids' epics by (group_id, iid), read by id and sorted: with two or more, SQLite would walk
    // the groups' epics in the order's index checking each (le25: iids[]=5&iids[]=999999, 290 ms).
    addFilter(where, args, `e.id IN (SELECT id FROM epics WHERE group_id IN (${marks(readable)}) AND iid IN (${marks(f.iids)}))`, ...readable, ...f.iids);
    byId = true;
  }
  if (f.my_reaction_emoji) {
    const mine = 'SELECT 1 FROM epic_award_emoji a WHERE a.epic_id = e.id AND a.user_id = ?';
    const me = user?.id ?? -1;
    const name = f.my_reaction_emoji.toLowerCase() === ANY ? null : f.my_reaction_emoji;
    if (f.my_reaction_emoji.toLowerCase() === NONE) addFilter(where, args, `NOT EXISTS (${mine})`, me);
    else if (awardedUpTo(svc, me, name, COUNT_LIMIT + 1) <= COUNT_LIMIT) {
      // The user's awards (epics/012's index), read by id and sorted, instead of every epic's awards looked up in list order.
      const awarded = `SELECT epic_id FROM epic_award_emoji WHERE user_id = ?${name === null ? '' : ' AND name = ?'}`;
      addFilter(where, args, `e.id IN (${awarded})`, ...(name === null ? [me] : [me, name]));
      byId = true;
    } else if (name === null) addFilter(where, args, `EXISTS (${mine})`, me);
    else addFilter(where, args, `EXISTS (${mine} AND a.name = ?)`, me, name);
  }
  const not = f.not ?? {};
  if (not.author_id !== undefined && /^\d+$/.test(String(not.author_id))) addFilter(where, args, 'ifnull(e.author_id, -1) != ?', Number(not.author_id));
  if (typeof not.author_username === 'string') {
    addFilter(where, args, 'ifnull(e.author_id, -1) != ?', findUserByUsername(svc, not.author_username)?.id ?? -1);
  }
  const cleaned = notLabelsOf(not);
  if (cleaned.length) labelsFilter(where, args, cleaned, true);
  const sort: SortDirection = f.sort === 'asc' ? 'asc' : 'desc';
  const version = (): number =>
    (svc.db.prepare(`SELECT coalesce(sum(version), 0) AS v FROM epic_list_versions WHERE group_id IN (${marks(readable)})`).get(...readable) as { v: number }).v;
  // The list's SQL without the full-text candidates below: what a search's remembered count is of.
  const listKey = JSON.stringify(['Epic', where, args]);
  // Rows read by id and sorted, not the group's epics walked in order checking each (`+` keeps the group index out of SQLite's choice).
  const label = singleLabel(f.labels);
  const byAuthor = authorWalksFewer(svc, f, readable, column, authorId);
  const walk = byAuthor ? undefined : labelRowsWalk(svc, f, readable, column, sort, where, args, version);
  if (!walk && !byAuthor && label !== null && labelCarriers(svc, label) <= COUNT_LIMIT) {
    addFilter(where, args, "e.id IN (SELECT issuable_id FROM issuable_labels WHERE issuable_type = 'Epic' AND title = ? COLLATE NOCASE)", label);
    byId = true;
  }
  const commonSearch = f.search ? rememberedCount(svc.db, listKey, version) : undefined;
  if (f.search && !(commonSearch !== undefined && commonSearch > COUNT_LIMIT)) {
    // Remembered until an epic is next written (the index changes only with them: epics/011's log).
    const few = rareTermCandidates(svc.db, 'epics_search', 'e.id', f.search, undefined, () => EPIC_WRITES.last(svc.db));
    if (few) {
      addFilter(where, args, few.sql, ...few.args);
      byId = true;
    }
  }
  if (byId) where[0] = `+${where[0]}`;
  // The conditions' own indexes: what the list is counted from.
  const narrowSql = `FROM epics e WHERE ${where.join(' AND ')}`;
  if (column === 'title' && !byId && dated.length && !f.search && !f.labels?.length && titleWalkPays(svc, readable, f, narrowSql, args)) for (const i of dated) where[i] = `+${where[i]}`;
  const sql = `FROM epics e WHERE ${where.join(' AND ')}`;
  // A date filter on the other column than the order's (db/date-lag.ts), unless the list reads epics by id.
  const byDates =
    byId || column === 'title'
      ? undefined
      : otherDateList<EpicRow>(
          svc.db,
          {
            table: 'epics',
            alias: 'e',
            scope: `e.group_id IN (${marks(readable)})`,
            scopeArgs: readable,
            lagIndex: { created_at: 'epics_group_lag_created', updated_at: 'epics_group_lag_updated' },
            dateIndex: { created_at: 'epics_group_created', updated_at: 'epics_group_updated' },
            counts: authorId !== null ? [{ from: (conditions) => `FROM epics e INDEXED BY epics_group_author_created WHERE ${conditions}${f.created_after || f.created_before ? '' : ` ORDER BY e.created_at ${countDirection(f)}`}`, args: [], candidates: authoredEpics(svc, readable, authorId) }] : undefined,
            log: EPIC_WRITES,
            // Conditions on the epics alone: deep pages may start from an anchor while the groups' epics are unwritten.
            version: readsOnly(sql, 'epics') ? version : undefined,
          },
          f,
          column,
          sort,
          where,
          args,
        );
  const countSql = byDates?.count.from ?? narrowSql;
  const countArgs = byDates?.count.args ?? args;
  const order = `e.${column} ${sort}, e.id ${sort}`;
  // Every filter but these reads more than the counters keep; authors are ids from 1 (the counters keep no author as 0).
  const countable =
    (!f.labels?.length || label !== null) && !f.search && !f.created_after && !f.created_before && !f.updated_after && !f.updated_before &&
    !f.iids?.length && !f.my_reaction_emoji && !Object.keys(f.not ?? {}).length && (authorId === null || authorId > 0);
  let countFrom: EpicList['countFrom'];
  if (countable) {
    const { cw, cargs } = counterConditions();
    if (label !== null) addFilter(cw, cargs, 'title = ?', label);
    const counters = label !== null ? 'epic_label_counts' : 'epic_counts';
    const { counted } = svc.db.prepare(`SELECT coalesce(sum(n), 0) AS counted FROM ${counters} WHERE ${cw.join(' AND ')}`).get(...cargs) as { counted: number };
    // epic_counts counts exactly the epics the list reads (the groups, the reader's view, the author
    // and state): its length past COUNT_LIMIT too, so a page past the end reads nothing (le17:
    // state=closed by title, page 2500 of 100, walked a million titles for none of 100,000).
    // epic_label_counts likewise: its triggers follow every write of an epic's labels, group, author,
    // state and confidentiality (label renames and deletes rewrite the epics' lists; cascades and
    // SET NULL fire them too), one count per distinct title as the exact filter matches (le25:
    // state=closed&labels=bug by updated_at past the end walked bug's 336,667 label rows for none).
    countFrom = { counted, exact: true };
  } else if (createdOnly(f)) {
    // Past 10,000 by the months wholly in the range, else counted (epics/010).
    countFrom = { count: (cap) => (createdAtLeast(svc, readable, f) >= cap ? cap : countUpTo(svc.db, countSql, countArgs, cap)) };
  } else if (f.search && !byId) {
    // A common term: counted once a little past COUNT_LIMIT, then remembered (rememberedCount).
    countFrom = { count: (cap) => Math.min(cap, rememberedCount(svc.db, listKey, version, () => countUpTo(svc.db, countSql, countArgs, COUNT_LIMIT + 1 + COUNT_SLACK))!) };
  } else if (byDates) {
    // Read from the epics alone: counted at the groups' version (exact while it holds, a lower bound past COUNT_LIMIT after), as a common term.
    const { from, args: fromArgs } = byDates.count;
    countFrom = readsOnly(from, 'epics')
      ? { count: (cap) => Math.min(cap, rememberedCount(svc.db, JSON.stringify(['Epic dates', from, fromArgs]), version, () => countUpTo(svc.db, from, fromArgs, COUNT_LIMIT + 1 + COUNT_SLACK))!) }
      : byDates.count;
  } else if (walk) {
    countFrom = walk.count;
  }
  // Every filter but my_reaction_emoji reads the epics' own columns (labels through their rows,
  // which follow the epics' labels): the rows change only with the groups' epics, which their versions count.
  const anchors: PageAnchors<EpicRow> = {
    key: JSON.stringify(['Epic', sql, args, order]),
    version,
    column: `e.${column}`,
    idColumn: 'e.id',
    sort,
    value: (row) => row[column],
    id: (row) => row.id,
    // A common term may first appear thousands of epics into the order (LIKE checks each on the way).
    startBound: !!f.search && !byId,
    // The last `now - since` writes of the groups (epics/011): each write moved one group's version by one and logged one row.
    written: (since, now) => {
      if (now - since > EPIC_WRITES_LOGGED) return null;
      const rows = svc.db
        .prepare(`SELECT epic_id FROM epic_list_writes WHERE group_id IN (${marks(readable)}) ORDER BY seq DESC ${limitSql(now - since)}`)
        .all(...readable) as { epic_id: number }[];
      return rows.length === now - since ? rows.map((r) => r.epic_id) : null;
    },
  };
  // my_reaction_emoji reads award emoji, which no list version follows: such a list is never anchored.
  return { sql, args, order, countFrom, atMost: atMost === undefined ? undefined : () => atMost, anchors: f.my_reaction_emoji ? undefined : anchors, rows: walk?.rows ?? byDates?.rows };
}

export { findUserById };
