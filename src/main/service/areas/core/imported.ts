import type { ServiceContext } from '../../context';
import type { IssueRow, MergeRequestRow, NoteRow } from './entities';
import { newDiscussionId } from './notes';

/**
 * Writers for records an importer brings in from elsewhere (a provider import, a migration). As
 * GitLab's importers do, they keep the upstream iids, timestamps and states, say where the record
 * came from (`imported_from`), and write no activity events. Label names are kept in title
 * order, as GitLab lists them. Call them inside a transaction.
 */

export interface ImportedIssue {
  iid: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed';
  authorId: number;
  assigneeIds?: number[];
  labels?: string[];
  confidential?: boolean;
  closedAt?: string | null;
  closedById?: number | null;
  dueDate?: string | null;
  weight?: number | null;
  issueType?: string;
  discussionLocked?: boolean | null;
  milestoneId?: number | null;
  createdAt: string;
  updatedAt: string;
  importedFrom: string;
}

const flag = (v: boolean | null | undefined): number | null => (v === null || v === undefined ? null : v ? 1 : 0);

export function insertImportedIssue(svc: ServiceContext, projectId: number, i: ImportedIssue): IssueRow {
  const row = svc.db
    .prepare(
      `INSERT INTO issues (project_id, iid, title, description, state, author_id, assignee_ids, labels, confidential, closed_at, closed_by_id,
         due_date, weight, issue_type, discussion_locked, milestone_id, created_at, updated_at, imported_from)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(
      projectId,
      i.iid,
      i.title,
      i.description,
      i.state,
      i.authorId,
      JSON.stringify(i.assigneeIds ?? []),
      JSON.stringify([...(i.labels ?? [])].sort()),
      i.confidential ? 1 : 0,
      i.closedAt ?? null,
      i.closedById ?? null,
      i.dueDate ?? null,
      i.weight ?? null,
      i.issueType ?? 'issue',
      flag(i.discussionLocked),
      i.milestoneId ?? null,
      i.createdAt,
      i.updatedAt,
      i.importedFrom,
    );
  return row as IssueRow;
}

export interface ImportedMergeRequest {
  iid: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed' | 'merged' | 'locked';
  authorId: number;
  assigneeIds?: number[];
  reviewerIds?: number[];
  labels?: string[];
  sourceBranch: string;
  targetBranch: string;
  /** The commits the branches pointed at upstream (base = target side, head = source side). */
  baseSha: string;
  headSha: string;
  /** The target's commit when the diff was made; the base otherwise. */
  startSha?: string;
  mergedAt?: string | null;
  mergedById?: number | null;
  closedAt?: string | null;
  closedById?: number | null;
  squash?: boolean;
  removeSourceBranch?: boolean | null;
  discussionLocked?: boolean | null;
  milestoneId?: number | null;
  createdAt: string;
  updatedAt: string;
  importedFrom: string;
}

export function insertImportedMergeRequest(svc: ServiceContext, projectId: number, m: ImportedMergeRequest): MergeRequestRow {
  const row = svc.db
    .prepare(
      `INSERT INTO merge_requests (project_id, iid, title, description, state, author_id, assignee_ids, reviewer_ids, labels, source_branch, target_branch,
         source_project_id, target_project_id, base_sha, start_sha, head_sha, merged_by_id, merged_at, closed_at, closed_by_id, squash, remove_source_branch,
         discussion_locked, milestone_id, created_at, updated_at, imported_from)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(
      projectId,
      m.iid,
      m.title,
      m.description,
      m.state,
      m.authorId,
      JSON.stringify(m.assigneeIds ?? []),
      JSON.stringify(m.reviewerIds ?? []),
      JSON.stringify([...(m.labels ?? [])].sort()),
      m.sourceBranch,
      m.targetBranch,
      projectId,
      projectId,
      m.baseSha,
      m.startSha ?? m.baseSha,
      m.headSha,
      m.mergedById ?? null,
      m.mergedAt ?? null,
      m.closedAt ?? null,
      m.closedById ?? null,
      m.squash ? 1 : 0,
      flag(m.removeSourceBranch),
      flag(m.discussionLocked),
      m.milestoneId ?? null,
      m.createdAt,
      m.updatedAt,
      m.importedFrom,
    );
  return row as MergeRequestRow;
}

export interface ImportedNote {
  /** 'Issue', 'MergeRequest', and the noteables of other areas ('Epic', 'Snippet'). */
  noteableType: string;
  noteableId: number;
  authorId: number;
  body: string;
  /** Joins a thread; a new discussion otherwise. */
  discussionId?: string | null;
  /** 'DiffNote' with a position for a comment on a line of the diff; 'DiscussionNote' in a thread. */
  type?: 'DiffNote' | 'DiscussionNote' | null;
  position?: Record<string, unknown> | null;
  system?: boolean;
  internal?: boolean;
  /** Default: a DiffNote is resolvable. */
  resolvable?: boolean;
  resolvedAt?: string | null;
  resolvedById?: number | null;
  createdAt: string;
  updatedAt: string;
  importedFrom: string;
}

/** `projectId` null for a group's records (epics). */
export function insertImportedNote(svc: ServiceContext, projectId: number | null, n: ImportedNote): NoteRow {
  const row = svc.db
    .prepare(
      `INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, type, author_id, body, system, internal, resolvable, resolved_at, resolved_by_id,
         position, created_at, updated_at, imported_from)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    )
    .get(
      projectId,
      n.noteableType,
      n.noteableId,
      n.discussionId ?? newDiscussionId(),
      n.type ?? null,
      n.authorId,
      n.body,
      n.system ? 1 : 0,
      n.internal ? 1 : 0,
      (n.resolvable ?? n.type === 'DiffNote') ? 1 : 0,
      n.resolvedAt ?? null,
      n.resolvedById ?? null,
      n.position ? JSON.stringify(n.position) : null,
      n.createdAt,
      n.updatedAt,
      n.importedFrom,
    );
  return row as NoteRow;
}
