import type { ServiceContext } from '../../context';
import { nextEpicIds } from '../epics/epics';

/**
 * What a migration writes beside core's imported-record writers (core/imported.ts: issues, merge
 * requests, notes): epics and memberships, keeping what the source says (iid when free, author,
 * state, times), marked `imported_from: 'gitlab'`, without activity events. Call inside the
 * transaction that also writes the record's `bulk_import_records` row.
 */
export const IMPORTED_FROM = 'gitlab';

interface Dated {
  createdAt: string;
  updatedAt: string;
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

export interface ImportedMilestone extends Dated {
  parent: { column: 'project_id' | 'group_id'; id: number };
  iid: number;
  title: string;
  description: string | null;
  state: 'active' | 'closed';
  startDate: string | null;
  dueDate: string | null;
}

/** A migrated milestone: the source's iid when it is free here, else the next one. */
export function insertImportedMilestone(svc: ServiceContext, m: ImportedMilestone): number {
  const { column, id } = m.parent;
  const taken = svc.db.prepare(`SELECT 1 FROM milestones WHERE ${column} = ? AND iid = ?`).get(id, m.iid);
  const iid = taken ? (svc.db.prepare(`SELECT coalesce(max(iid), 0) + 1 AS n FROM milestones WHERE ${column} = ?`).get(id) as { n: number }).n : m.iid;
  const info = svc.db
    .prepare(`INSERT INTO milestones (iid, ${column}, title, description, state, start_date, due_date, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(iid, id, m.title, m.description, m.state, m.startDate, m.dueDate, m.createdAt, m.updatedAt);
  return Number(info.lastInsertRowid);
}
