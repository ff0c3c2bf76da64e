import type { ServiceContext } from '../../context';
import { conflict, notFound, validationError } from '../../http/errors';
import type { User } from '../core/users';
import { type Namespace, findNamespaceById, selfAndAncestorIds, selfAndDescendantIds } from '../core/namespaces';
import type { Project } from '../core/projects';
import { Access, memberProjectsSql, visibleProjectsSql } from '../core/access';
import { likeEscape } from '../core/routes/users';
import { isoTime } from '../core/time';
import { normalizeColor } from './colors';
import { rareTermCandidates } from '../../db/trigram';
import { tableVersion } from '../../db/connection';
import { versionLog } from '../../db/written-rows';
import { type SqlList, limitSql } from '../../http/pagination';

export interface LabelRow {
  id: number;
  group_id: number | null;
  project_id: number | null;
  title: string;
  color: string;
  description: string | null;
  priority: number | null;
  created_at: string;
  updated_at: string;
}

/** Who owns the labels a route works on: a group, or a project (whose group labels it also sees). */
export type LabelParent = { kind: 'group'; group: Namespace } | { kind: 'project'; project: Project };

export interface LabelScope {
  includeAncestorGroups: boolean;
  includeDescendantGroups: boolean;
  onlyGroupLabels: boolean;
}

export const DEFAULT_SCOPE: LabelScope = { includeAncestorGroups: true, includeDescendantGroups: false, onlyGroupLabels: true };

const marks = (ids: unknown[]): string => (ids.length ? ids.map(() => '?').join(',') : 'NULL');

function projectGroup(svc: ServiceContext, project: Project): Namespace | null {
  const ns = findNamespaceById(svc, project.namespace_id);
  return ns?.kind === 'group' ? ns : null;
}

/** The groups whose labels a project offers besides its own: its group, and that group's ancestors unless excluded. */
function projectLabelGroupIds(svc: ServiceContext, project: Project, scope: LabelScope): number[] {
  const group = projectGroup(svc, project);
  return group ? (scope.includeAncestorGroups ? selfAndAncestorIds(svc, group) : [group.id]) : [];
}

/** A group's labels come from these groups; with only_group_labels=false, also from the projects in `below`. */
function groupLabelScope(svc: ServiceContext, group: Namespace, scope: LabelScope): { below: number[]; groupIds: number[] } {
  const below = scope.includeDescendantGroups ? selfAndDescendantIds(svc, group.id) : [group.id];
  const above = scope.includeAncestorGroups ? selfAndAncestorIds(svc, group).slice(1) : [];
  return { below, groupIds: [...below, ...above] };
}

/** SQL (on alias `l`) for the labels available to a parent under the include flags. */
export function availableLabelsSql(svc: ServiceContext, parent: LabelParent, scope: LabelScope): { sql: string; args: unknown[] } {
  if (parent.kind === 'project') {
    const groupIds = projectLabelGroupIds(svc, parent.project, scope);
    return { sql: `(l.project_id = ? OR l.group_id IN (${marks(groupIds)}))`, args: [parent.project.id, ...groupIds] };
  }
  const { below, groupIds } = groupLabelScope(svc, parent.group, scope);
  if (scope.onlyGroupLabels) return { sql: `l.group_id IN (${marks(groupIds)})`, args: groupIds };
  return {
    sql: `(l.group_id IN (${marks(groupIds)}) OR l.project_id IN (SELECT id FROM projects WHERE namespace_id IN (${marks(below)})))`,
    args: [...groupIds, ...below],
  };
}

/** Beyond this many projects below a group, its list with their labels (only_group_labels=false) is one sorted read. */
const MERGED_PROJECTS = 100;

/**
 * The owners whose labels make up a parent's list: a project and its groups, a group's groups,
 * and with only_group_labels=false the projects in its groups (up to MERGED_PROJECTS; null past).
 */
function labelOwners(svc: ServiceContext, parent: LabelParent, scope: LabelScope): { projects: number[]; groups: number[] } | null {
  if (parent.kind === 'project') return { projects: [parent.project.id], groups: projectLabelGroupIds(svc, parent.project, scope) };
  const { below, groupIds } = groupLabelScope(svc, parent.group, scope);
  if (scope.onlyGroupLabels) return { projects: [], groups: groupIds };
  const projects = (
    svc.db.prepare(`SELECT id FROM projects WHERE namespace_id IN (${marks(below)}) ORDER BY id ${limitSql(MERGED_PROJECTS + 1)}`).all(...below) as { id: number }[]
  ).map((p) => p.id);
  return projects.length > MERGED_PROJECTS ? null : { projects, groups: groupIds };
}

/**
 * The labels available to a parent as a list reads them (FROM, alias `l`): each owner's labels
 * (labelOwners) read in its title index's order and merged (UNION ALL: a label belongs to one
 * project or group), instead of every available label sorted — a page of a project with a
 * million labels then reads a page, not a million rows.
 */
function availableLabelsFrom(svc: ServiceContext, parent: LabelParent, scope: LabelScope, search: LabelSearch): { from: string; args: unknown[]; owners: { projects: number[]; groups: number[] } | null } {
  // A rare search term's candidates are read by id and sorted (`+` keeps the owners' indexes out of SQLite's choice).
  const by = search.candidates ? '+' : '';
  const owners = labelOwners(svc, parent, scope);
  if (!owners) {
    const avail = availableLabelsSql(svc, parent, scope);
    return { from: `labels l WHERE ${by}${avail.sql} AND ${search.sql}`, args: [...avail.args, ...search.args], owners };
  }
  if (!owners.projects.length) {
    return { from: `labels l WHERE ${by}l.group_id IN (${marks(owners.groups)}) AND ${search.sql}`, args: [...owners.groups, ...search.args], owners };
  }
  const legs = [...owners.projects.map(() => `SELECT * FROM labels WHERE ${by}project_id = ?`), `SELECT * FROM labels WHERE ${by}group_id IN (${marks(owners.groups)})`];
  return { from: `(${legs.join(' UNION ALL ')}) l WHERE ${search.sql}`, args: [...owners.projects, ...owners.groups, ...search.args], owners };
}

/**
 * A parent's labels list in title order (ties by id), `search` on title and description. Without
 * a search, a list of a fixed set of owners is counted from their counters; its deep pages start
 * from a row an earlier page read while none of their labels changed (labels/003).
 */
export function labelListSql(svc: ServiceContext, parent: LabelParent, scope: LabelScope, search: string | undefined): SqlList<LabelRow> {
  const { from, args, owners } = availableLabelsFrom(svc, parent, scope, searchSql(svc, search));
  // Directions spelled out: an anchored page that reads back from a later anchor flips them.
  // A page's ids from the owners' title indexes alone, its rows by id (a deep page walked every row before it: le25 page 20000, 85 ms).
  const list: SqlList<LabelRow> = { select: 'l.*', from: `FROM ${from}`, args, order: 'l.title asc, l.id asc', byId: { log: LABEL_WRITES, idColumn: 'l.id', columns: 'l.title' } };
  if (!owners) return list;
  const ofOwners = `FROM label_owner_counts WHERE (owner = 'project' AND owner_id IN (${marks(owners.projects)})) OR (owner = 'group' AND owner_id IN (${marks(owners.groups)}))`;
  const ownerArgs = [...owners.projects, ...owners.groups];
  // The owners' counters count their labels exactly (deep pages near the end read back from it).
  if (!search) list.countFrom = { ...(svc.db.prepare(`SELECT coalesce(sum(n), 0) AS counted ${ofOwners}`).get(...ownerArgs) as { counted: number }), exact: true };
  list.anchors = {
    key: JSON.stringify(['Label', list.from, args]),
    version: () => (svc.db.prepare(`SELECT coalesce(sum(version), 0) AS v ${ofOwners}`).get(...ownerArgs) as { v: number }).v,
    column: 'l.title',
    idColumn: 'l.id',
    sort: 'asc',
    value: (row) => row.title,
    id: (row) => row.id,
  };
  return list;
}

/** Label rows kept by id between label writes (SqlList.byId). */
const LABEL_WRITES = versionLog('labels');

export interface LabelSearch {
  sql: string;
  args: unknown[];
  /** The term is rare: `sql` reads its candidates from the full-text index. */
  candidates: boolean;
}

function searchSql(svc: ServiceContext, search: string | undefined): LabelSearch {
  if (!search) return { sql: '1 = 1', args: [], candidates: false };
  const like = `%${likeEscape(search)}%`;
  const sql = "(l.title LIKE ? ESCAPE '\\' OR ifnull(l.description, '') LIKE ? ESCAPE '\\')";
  // Kept while core/154's version of the indexed columns stays (no label created, deleted, retitled or described anew).
  const version = tableVersion(svc.db, 'labels_search') === undefined ? undefined : () => tableVersion(svc.db, 'labels_search')!;
  const few = rareTermCandidates(svc.db, 'labels_search', 'l.id', search, undefined, version);
  return few ? { sql: `${few.sql} AND ${sql}`, args: [...few.args, like, like], candidates: true } : { sql, args: [like, like], candidates: false };
}

export function findLabelById(svc: ServiceContext, id: number): LabelRow | undefined {
  return svc.db.prepare('SELECT * FROM labels WHERE id = ?').get(id) as LabelRow | undefined;
}

/** The label with this title available to the parent: its own first, then the nearest group's. */
export function findLabelByTitle(svc: ServiceContext, parent: LabelParent, title: string, scope: LabelScope = DEFAULT_SCOPE): LabelRow | undefined {
  const avail = availableLabelsSql(svc, parent, scope);
  const own = parent.kind === 'group' ? 'l.group_id = ?' : 'l.project_id = ?';
  const ownId = parent.kind === 'group' ? parent.group.id : parent.project.id;
  return svc.db
    .prepare(`SELECT l.* FROM labels l WHERE ${avail.sql} AND l.title = ? ORDER BY CASE WHEN ${own} THEN 0 ELSE 1 END, l.id DESC LIMIT 1`)
    .get(...avail.args, title, ownId) as LabelRow | undefined;
}

/** `:label_id`: an id, else a title, among the labels available to the parent. */
export function findLabel(svc: ServiceContext, parent: LabelParent, ref: string, scope: LabelScope = DEFAULT_SCOPE): LabelRow {
  const avail = availableLabelsSql(svc, parent, scope);
  const byId = /^\d+$/.test(ref)
    ? (svc.db.prepare(`SELECT l.* FROM labels l WHERE ${avail.sql} AND l.id = ?`).get(...avail.args, Number(ref)) as LabelRow | undefined)
    : undefined;
  const label = byId ?? findLabelByTitle(svc, parent, ref, scope);
  if (!label) throw notFound('Label');
  return label;
}

interface LabelFields {
  title?: string;
  color?: string;
  description?: string | null;
  priority?: number | null;
}

/** Model validations: `{"message":{"title":[...],"color":[...]}}`. Returns the normalized values. */
function validate(input: LabelFields): { title?: string; color?: string } {
  const errors: Record<string, string[]> = {};
  const out: { title?: string; color?: string } = {};
  if (input.title !== undefined) {
    const title = input.title.trim();
    const msgs: string[] = [];
    if (!title) msgs.push("can't be blank");
    if (title.includes(',') || !title) msgs.push('is invalid');
    if (title.length > 255) msgs.push('is too long (maximum is 255 characters)');
    if (msgs.length) errors.title = msgs;
    out.title = title;
  }
  if (input.color !== undefined) {
    const color = normalizeColor(input.color);
    if (!color) errors.color = ['must be a valid color code'];
    else out.color = color;
  }
  if (Object.keys(errors).length) throw validationError(errors);
  return out;
}

/** Creates a label; a title already available to the parent (or its ancestors) is a 409. */
export function createLabel(svc: ServiceContext, parent: LabelParent, input: Required<Pick<LabelFields, 'title' | 'color'>> & LabelFields): LabelRow {
  const avail = availableLabelsSql(svc, parent, DEFAULT_SCOPE);
  if (svc.db.prepare(`SELECT 1 FROM labels l WHERE ${avail.sql} AND l.title = ?`).get(...avail.args, input.title.trim())) {
    throw conflict('Label already exists');
  }
  const v = validate(input);
  const now = isoTime(svc.now());
  const info = svc.db
    .prepare('INSERT INTO labels (group_id, project_id, title, color, description, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(
      parent.kind === 'group' ? parent.group.id : null,
      parent.kind === 'project' ? parent.project.id : null,
      v.title,
      v.color,
      input.description ?? null,
      input.priority ?? null,
      now,
      now,
    );
  return findLabelById(svc, Number(info.lastInsertRowid))!;
}

export function updateLabel(svc: ServiceContext, label: LabelRow, input: LabelFields): LabelRow {
  const v = validate(input);
  if (v.title !== undefined && v.title !== label.title) {
    const clash = svc.db
      .prepare('SELECT 1 FROM labels WHERE title = ? AND id != ? AND ifnull(group_id, 0) = ifnull(?, 0) AND ifnull(project_id, 0) = ifnull(?, 0)')
      .get(v.title, label.id, label.group_id, label.project_id);
    if (clash) throw validationError({ title: ['has already been taken'] });
  }
  svc.db
    .prepare('UPDATE labels SET title = ?, color = ?, description = ?, priority = ?, updated_at = ? WHERE id = ?')
    .run(
      v.title ?? label.title,
      v.color ?? label.color,
      input.description === undefined ? label.description : input.description,
      input.priority === undefined ? label.priority : input.priority,
      isoTime(svc.now()),
      label.id,
    );
  if (v.title !== undefined && v.title !== label.title) relabel(svc, label, v.title);
  return findLabelById(svc, label.id)!;
}

export function deleteLabel(svc: ServiceContext, label: LabelRow): void {
  relabel(svc, label, null);
  svc.db.prepare('DELETE FROM labels WHERE id = ?').run(label.id);
}

/**
 * Labels::PromoteService: the group's label of that title (found, or made from the project label's
 * title, color and description: a new label), into which every project label of that exact title
 * in the group's own projects merges, the promoted one included: their label events, priorities
 * (each project's now the group label's there, label_priorities) and subscriptions (one per user)
 * move to it, then they are deleted. Issues and merge requests carry label titles, so theirs
 * now name the group label. Call inside a transaction.
 */
export function promoteLabel(svc: ServiceContext, label: LabelRow, groupId: number): LabelRow {
  const db = svc.db;
  let group = db.prepare('SELECT * FROM labels WHERE group_id = ? AND title = ?').get(groupId, label.title) as LabelRow | undefined;
  if (!group) {
    const now = isoTime(svc.now());
    const info = db
      .prepare('INSERT INTO labels (group_id, project_id, title, color, description, priority, created_at, updated_at) VALUES (?, NULL, ?, ?, ?, NULL, ?, ?)')
      .run(groupId, label.title, label.color, label.description, now, now);
    group = findLabelById(svc, Number(info.lastInsertRowid))!;
  }
  // LabelsFinder(title:, group_id:): the group's direct projects (Group#projects), the exact title.
  const merged = db
    .prepare('SELECT id, project_id, priority FROM labels WHERE project_id IN (SELECT id FROM projects WHERE namespace_id = ?) AND title = ?')
    .all(groupId, label.title) as { id: number; project_id: number; priority: number | null }[];
  if (!merged.length) return group;
  const ids = JSON.stringify(merged.map((l) => l.id));
  db.prepare('UPDATE resource_label_events SET label_id = ? WHERE label_id IN (SELECT value FROM json_each(?))').run(group.id, ids);
  // A priority the group label already has in a project stays (GitLab's unique index would refuse the move).
  const prioritize = db.prepare('INSERT INTO label_priorities (project_id, label_id, priority) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
  for (const l of merged) if (l.priority !== null) prioritize.run(l.project_id, group.id, l.priority);
  db.prepare(
    `INSERT INTO label_subscriptions (label_id, user_id, created_at)
       SELECT ?, user_id, max(created_at) FROM label_subscriptions WHERE label_id IN (SELECT value FROM json_each(?)) GROUP BY user_id
       ON CONFLICT DO NOTHING`,
  ).run(group.id, ids);
  db.prepare('DELETE FROM labels WHERE id IN (SELECT value FROM json_each(?))').run(ids);
  return group;
}

/** Projects whose issues and merge requests can carry the label. */
function labelProjectsSql(label: LabelRow): { sql: string; args: unknown[] } {
  if (label.project_id !== null) return { sql: '?', args: [label.project_id] };
  return {
    sql: `SELECT id FROM projects WHERE namespace_id IN (
      WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT n.id FROM namespaces n JOIN tree ON n.parent_id = tree.id) SELECT id FROM tree)`,
    args: [label.group_id],
  };
}

/** The issuable_labels type of each table whose records carry labels. */
const ISSUABLE_TYPE: Record<string, string> = { issues: 'Issue', merge_requests: 'MergeRequest', epics: 'Epic' };

const hasTable = (svc: ServiceContext, name: string): boolean =>
  !!svc.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name);

/** Renames (or, with null, removes) the label in the label lists of the records in its scope. */
function relabel(svc: ServiceContext, label: LabelRow, newTitle: string | null): void {
  const targets: { table: string; scope: { sql: string; args: unknown[] } }[] = [];
  const projects = labelProjectsSql(label);
  targets.push({ table: 'issues', scope: { sql: `project_id IN (${projects.sql})`, args: projects.args } });
  targets.push({ table: 'merge_requests', scope: { sql: `project_id IN (${projects.sql})`, args: projects.args } });
  if (label.group_id !== null && hasTable(svc, 'epics')) {
    targets.push({
      table: 'epics',
      scope: {
        sql: `group_id IN (WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT n.id FROM namespaces n JOIN tree ON n.parent_id = tree.id) SELECT id FROM tree)`,
        args: [label.group_id],
      },
    });
  }
  for (const { table, scope } of targets) {
    // The label's rows first (by project where they have one): `project_id IN (?)` alone led SQLite
    // through every issue of the project (~1 s a delete on a million-issue project).
    const byProject = table !== 'epics';
    const rows = svc.db
      .prepare(
        `SELECT id, labels FROM ${table} WHERE ${byProject ? '+' : ''}${scope.sql}
           AND id IN (SELECT issuable_id FROM issuable_labels WHERE issuable_type = ?${byProject ? ` AND ${scope.sql}` : ''} AND title = ? COLLATE NOCASE AND title = ?)`,
      )
      .all(...scope.args, ISSUABLE_TYPE[table], ...(byProject ? scope.args : []), label.title, label.title) as { id: number; labels: string }[];
    const update = svc.db.prepare(`UPDATE ${table} SET labels = ? WHERE id = ?`);
    for (const row of rows) {
      const names = (JSON.parse(row.labels) as string[]).flatMap((n) => (n === label.title ? (newTitle === null ? [] : [newTitle]) : [n]));
      update.run(JSON.stringify([...new Set(names)]), row.id);
    }
  }
}

// --- subscriptions -------------------------------------------------------------------------------

export function isSubscribed(svc: ServiceContext, label: LabelRow, user: User | null): boolean {
  if (!user) return false;
  return !!svc.db.prepare('SELECT 1 FROM label_subscriptions WHERE label_id = ? AND user_id = ?').get(label.id, user.id);
}

/** The labels of a page the user is subscribed to, one query for the page (by label and user, each in turn). */
export function subscribedLabelIds(svc: ServiceContext, labels: LabelRow[], user: User | null): Set<number> {
  if (!user || !labels.length) return new Set();
  const rows = svc.db
    .prepare('SELECT s.label_id FROM json_each(?) j CROSS JOIN label_subscriptions s ON s.label_id = j.value AND s.user_id = ?')
    .all(JSON.stringify(labels.map((l) => l.id)), user.id) as { label_id: number }[];
  return new Set(rows.map((r) => r.label_id));
}

/** Returns false when nothing changed (the route answers 304). */
export function setSubscription(svc: ServiceContext, label: LabelRow, user: User, subscribed: boolean): boolean {
  if (isSubscribed(svc, label, user) === subscribed) return false;
  if (subscribed) {
    svc.db.prepare('INSERT INTO label_subscriptions (label_id, user_id, created_at) VALUES (?, ?, ?)').run(label.id, user.id, isoTime(svc.now()));
  } else {
    svc.db.prepare('DELETE FROM label_subscriptions WHERE label_id = ? AND user_id = ?').run(label.id, user.id);
  }
  return true;
}

// --- counts --------------------------------------------------------------------------------------

export interface LabelCounts {
  open_issues_count: number;
  closed_issues_count: number;
  open_merge_requests_count: number;
}

/** Issues and merge requests carrying the label that the user can see. */
export function labelCounts(svc: ServiceContext, label: LabelRow, user: User | null): LabelCounts {
  return labelCountsMany(svc, [label], user).get(label.id)!;
}

/**
 * Counts for many labels at once, from the label counters (core/016): per title and state, summed
 * over the label's projects the user can see, one grouped query per table and label scope.
 * Confidential issues count as the issue lists show them (confidentialSql): all of them for an
 * administrator and in projects where the user is Planner or above; elsewhere only those the
 * user authored or is assigned to, read from the confidential label rows' own index.
 */
export function labelCountsMany(svc: ServiceContext, labels: LabelRow[], user: User | null): Map<number, LabelCounts> {
  const out = new Map<number, LabelCounts>();
  const byScope = new Map<string, LabelRow[]>();
  for (const l of labels) {
    const key = l.project_id !== null ? `p${l.project_id}` : `g${l.group_id}`;
    byScope.set(key, [...(byScope.get(key) ?? []), l]);
  }
  const vis = visibleProjectsSql(svc, user);
  const planner = user && !user.admin ? memberProjectsSql(svc, user, 'pp', Access.PLANNER) : null;
  const plannerProjects = planner ? `(SELECT pp.id FROM projects pp WHERE ${planner.sql})` : '';
  for (const group of byScope.values()) {
    const projects = labelProjectsSql(group[0]);
    // An administrator's counts of one project's labels: the project is the labels' own (they go
    // with it), so no project row is read per counter, and the counters' answers stay across a
    // write to any project (their statement names no `projects`).
    const counters = projects.sql === '?' && vis.sql === '1 = 1' ? 'label_counts c' : 'label_counts c JOIN projects p ON p.id = c.project_id';
    const titles = group.map((l) => l.title);
    const marks = titles.map(() => '?').join(', ');
    const tally = (table: 'issues' | 'merge_requests'): Map<string, number> => {
      const counts = new Map<string, number>();
      const add = (rows: { title: string; state: string; n: number }[]): void => {
        for (const r of rows) counts.set(`${r.state}\0${r.title}`, (counts.get(`${r.state}\0${r.title}`) ?? 0) + r.n);
      };
      const type = ISSUABLE_TYPE[table];
      const confidential =
        table !== 'issues' || user?.admin ? '' : user ? ` AND (c.confidential = 0 OR c.project_id IN ${plannerProjects})` : ' AND c.confidential = 0';
      add(
        svc.db
          .prepare(
            `SELECT c.title AS title, c.state AS state, sum(c.n) AS n FROM ${counters}
              WHERE c.issuable_type = '${type}' AND c.project_id IN (${projects.sql}) AND c.title IN (${marks}) AND ${vis.sql}${confidential}
              GROUP BY c.title, c.state`,
          )
          .all(...projects.args, ...titles, ...vis.args, ...(confidential && planner ? planner.args : [])) as { title: string; state: string; n: number }[],
      );
      if (table === 'issues' && planner && user) {
        add(
          svc.db
            .prepare(
              `SELECT il.title AS title, il.state AS state, count(*) AS n
                FROM issuable_labels il INDEXED BY issuable_labels_confidential JOIN projects p ON p.id = il.project_id JOIN issues x ON x.id = il.issuable_id
                WHERE il.issuable_type = 'Issue' AND il.confidential = 1 AND il.project_id IN (${projects.sql}) AND il.title IN (${marks}) AND ${vis.sql}
                  AND il.project_id NOT IN ${plannerProjects}
                  AND (x.author_id = ? OR EXISTS (SELECT 1 FROM json_each(x.assignee_ids) WHERE value = ?))
                GROUP BY il.title, il.state`,
            )
            .all(...projects.args, ...titles, ...vis.args, ...planner.args, user.id, user.id) as { title: string; state: string; n: number }[],
        );
      }
      return counts;
    };
    const issues = tally('issues');
    const mrs = tally('merge_requests');
    for (const l of group) {
      out.set(l.id, {
        open_issues_count: issues.get(`opened\0${l.title}`) ?? 0,
        closed_issues_count: issues.get(`closed\0${l.title}`) ?? 0,
        open_merge_requests_count: mrs.get(`opened\0${l.title}`) ?? 0,
      });
    }
  }
  return out;
}

// --- for other areas (epics) ---------------------------------------------------------------------

/** The labels with these titles available to a group (nearest first); missing ones are created. */
export function findOrCreateGroupLabels(svc: ServiceContext, group: Namespace, titles: string[], defaultColor: string): LabelRow[] {
  return findOrCreateLabels(svc, { kind: 'group', group }, titles.map((title) => ({ title, color: defaultColor })));
}

/** Labels available to a group or project by title; missing ones are created with the given color (migrations). */
export function findOrCreateLabels(svc: ServiceContext, parent: LabelParent, wanted: { title: string; color: string; description?: string | null }[]): LabelRow[] {
  return wanted.map((w) => findLabelByTitle(svc, parent, w.title.trim()) ?? createLabel(svc, parent, w));
}

/** Labels available to a group by title, for `with_labels_details`. */
export function groupLabelsByTitle(svc: ServiceContext, group: Namespace, titles: string[]): Map<string, LabelRow> {
  const out = new Map<string, LabelRow>();
  if (!titles.length) return out;
  const avail = availableLabelsSql(svc, { kind: 'group', group }, DEFAULT_SCOPE);
  const rows = svc.db
    .prepare(`SELECT l.* FROM labels l WHERE ${avail.sql} AND l.title IN (${marks(titles)}) ORDER BY l.id`)
    .all(...avail.args, ...titles) as LabelRow[];
  for (const r of rows) if (!out.has(r.title)) out.set(r.title, r);
  return out;
}
