import type { ServiceContext } from '../../context';
import { nextEpicIds } from '../epics/epics';
import { newDiscussionId } from '../core/notes';
import { fakeSha } from '../core/workitems';

/**
 * How a migration materializes the records it copies. Unlike the API's create paths these keep
 * what the source says: iids (when free), authors, states, `created_at`/`updated_at`, and mark the
 * record `imported_from: 'gitlab'`; they write no activity events (GitLab's importers skip those
 * callbacks too). Each runs inside the caller's transaction, next to its `bulk_import_records` row.
 */
export const IMPORTED_FROM = 'gitlab';

/** The source's iid when no record of the project holds it, else the next free one. */
function freeIid(svc: ServiceContext, table: 'issues' | 'merge_requests', projectId: number, wanted: number | undefined): number {
  if (wanted && wanted > 0 && !svc.db.prepare(`SELECT 1 FROM ${table} WHERE project_id = ? AND iid = ?`).get(projectId, wanted)) return wanted;
  return (svc.db.prepare(`SELECT coalesce(max(iid), 0) + 1 AS n FROM ${table} WHERE project_id = ?`).get(projectId) as { n: number }).n;
}

interface Dated {
  createdAt: string;
  updatedAt: string;
}

export interface ImportedIssue extends Dated {
  projectId: number;
  iid?: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed';
  authorId: number;
  assigneeIds: number[];
  labels: string[];
  confidential: boolean;
  discussionLocked: boolean | null;
  dueDate: string | null;
  weight: number | null;
  issueType: string;
  closedAt: string | null;
  closedById: number | null;
}

export function insertImportedIssue(svc: ServiceContext, i: ImportedIssue): number {
  const info = svc.db
    .prepare(
      `INSERT INTO issues (project_id, iid, title, description, state, author_id, assignee_ids, labels, confidential, discussion_locked, due_date, weight,
         issue_type, closed_at, closed_by_id, imported_from, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      i.projectId,
      freeIid(svc, 'issues', i.projectId, i.iid),
      i.title,
      i.description,
      i.state,
      i.authorId,
      JSON.stringify(i.assigneeIds),
      JSON.stringify(i.labels),
      i.confidential ? 1 : 0,
      i.discussionLocked === null ? null : i.discussionLocked ? 1 : 0,
      i.dueDate,
      i.weight,
      i.issueType,
      i.closedAt,
      i.closedById,
      IMPORTED_FROM,
      i.createdAt,
      i.updatedAt,
    );
  return Number(info.lastInsertRowid);
}

export interface ImportedMergeRequest extends Dated {
  projectId: number;
  iid?: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed' | 'merged' | 'locked';
  authorId: number;
  assigneeIds: number[];
  reviewerIds: number[];
  labels: string[];
  sourceBranch: string;
  targetBranch: string;
  squash: boolean;
  removeSourceBranch: boolean | null;
  discussionLocked: boolean | null;
  diffRefs: { base_sha?: string | null; start_sha?: string | null; head_sha?: string | null } | null;
  mergedById: number | null;
  mergedAt: string | null;
  closedById: number | null;
  closedAt: string | null;
}

export function insertImportedMergeRequest(svc: ServiceContext, m: ImportedMergeRequest): number {
  const iid = freeIid(svc, 'merge_requests', m.projectId, m.iid);
  // Until the repository comes along, the source's SHAs (or stand-ins) keep diff_refs filled.
  const sha = (v: string | null | undefined, which: string): string => v || fakeSha(m.projectId, iid, which, m.sourceBranch, m.targetBranch);
  const info = svc.db
    .prepare(
      `INSERT INTO merge_requests (project_id, iid, title, description, state, author_id, assignee_ids, reviewer_ids, labels, source_branch, target_branch,
         source_project_id, target_project_id, squash, remove_source_branch, discussion_locked, base_sha, start_sha, head_sha,
         merged_by_id, merged_at, closed_by_id, closed_at, imported_from, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      m.projectId,
      iid,
      m.title,
      m.description,
      m.state,
      m.authorId,
      JSON.stringify(m.assigneeIds),
      JSON.stringify(m.reviewerIds),
      JSON.stringify(m.labels),
      m.sourceBranch,
      m.targetBranch,
      m.projectId,
      m.projectId,
      m.squash ? 1 : 0,
      m.removeSourceBranch === null ? null : m.removeSourceBranch ? 1 : 0,
      m.discussionLocked === null ? null : m.discussionLocked ? 1 : 0,
      sha(m.diffRefs?.base_sha, 'base'),
      sha(m.diffRefs?.start_sha, 'start'),
      sha(m.diffRefs?.head_sha, 'head'),
      m.mergedById,
      m.mergedAt,
      m.closedById,
      m.closedAt,
      IMPORTED_FROM,
      m.createdAt,
      m.updatedAt,
    );
  return Number(info.lastInsertRowid);
}

export interface ImportedNote extends Dated {
  projectId: number | null;
  noteableType: string;
  noteableId: number;
  /** The source thread's id when it has GitLab's form, so replies stay together; a new one otherwise. */
  discussionId: string | null;
  type: string | null;
  authorId: number;
  body: string;
  system: boolean;
  internal: boolean;
  resolvable: boolean;
  resolvedAt: string | null;
  resolvedById: number | null;
  position: unknown;
}

export function insertImportedNote(svc: ServiceContext, n: ImportedNote): number {
  const info = svc.db
    .prepare(
      `INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, type, author_id, body, system, internal, resolvable, resolved_at,
         resolved_by_id, position, imported_from, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      n.projectId,
      n.noteableType,
      n.noteableId,
      n.discussionId && /^[0-9a-f]{40}$/.test(n.discussionId) ? n.discussionId : newDiscussionId(),
      n.type,
      n.authorId,
      n.body,
      n.system ? 1 : 0,
      n.internal ? 1 : 0,
      n.resolvable ? 1 : 0,
      n.resolvedAt,
      n.resolvedById,
      n.position ? JSON.stringify(n.position) : null,
      IMPORTED_FROM,
      n.createdAt,
      n.updatedAt,
    );
  return Number(info.lastInsertRowid);
}

export interface ImportedEpic extends Dated {
  groupId: number;
  iid: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed';
  confidential: boolean;
  authorId: number;
  labels: string[];
  color: string | null;
  startDateFixed: string | null;
  startDateIsFixed: boolean;
  dueDateFixed: string | null;
  dueDateIsFixed: boolean;
  closedAt: string | null;
}

export function insertImportedEpic(svc: ServiceContext, e: ImportedEpic): number {
  const { id, iid } = nextEpicIds(svc, e.groupId, e.iid);
  svc.db
    .prepare(
      `INSERT INTO epics (id, group_id, iid, title, description, state, confidential, author_id, labels, color, start_date_fixed, start_date_is_fixed,
         due_date_fixed, due_date_is_fixed, closed_at, imported_from, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      e.groupId,
      iid,
      e.title,
      e.description,
      e.state,
      e.confidential ? 1 : 0,
      e.authorId,
      JSON.stringify(e.labels),
      e.color && /^#[0-9a-fA-F]{3,6}$/.test(e.color) ? e.color : '#1068bf',
      e.startDateFixed,
      e.startDateIsFixed ? 1 : 0,
      e.dueDateFixed,
      e.dueDateIsFixed ? 1 : 0,
      e.closedAt,
      IMPORTED_FROM,
      e.createdAt,
      e.updatedAt,
    );
  return id;
}

/**
 * A migrated membership (no "joined" event: the member did not join, the group moved). An existing
 * direct membership is kept as it is; answers its id either way.
 */
export function insertImportedMember(
  svc: ServiceContext,
  m: { sourceType: 'Namespace' | 'Project'; sourceId: number; userId: number; accessLevel: number; expiresAt: string | null; createdById: number; createdAt: string },
): number {
  const existing = svc.db
    .prepare('SELECT id FROM members WHERE source_type = ? AND source_id = ? AND user_id = ? AND requested_at IS NULL')
    .get(m.sourceType, m.sourceId, m.userId) as { id: number } | undefined;
  if (existing) return existing.id;
  const info = svc.db
    .prepare(
      `INSERT INTO members (source_type, source_id, user_id, access_level, expires_at, created_by_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(m.sourceType, m.sourceId, m.userId, m.accessLevel, m.expiresAt, m.createdById, m.createdAt, m.createdAt);
  return Number(info.lastInsertRowid);
}
