import type { Db as Database } from '../../db/connection';

/**
 * Group labels' priorities per project (labels/004's label_priorities, GitLab's table of that name;
 * a project label's priority stays on its row). Most instances have none: the lists and orders
 * then read no more than before.
 */
export function anyGroupLabelPriority(db: Database): boolean {
  return db.prepare('SELECT 1 AS one FROM label_priorities LIMIT 1').get() !== undefined;
}

/** The priorities in `projectId` of those of `labelIds` that are group labels prioritized there. */
export function groupLabelPriorities(db: Database, projectId: number, labelIds: number[]): Map<number, number> {
  if (!labelIds.length || !anyGroupLabelPriority(db)) return new Map();
  const rows = db
    .prepare('SELECT label_id, priority FROM label_priorities WHERE project_id = ? AND label_id IN (SELECT value FROM json_each(?))')
    .all(projectId, JSON.stringify(labelIds)) as { label_id: number; priority: number }[];
  return new Map(rows.map((r) => [r.label_id, r.priority]));
}
