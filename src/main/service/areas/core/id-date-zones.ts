import type { Migration } from '../../db/migrations';
import type { Db } from '../../db/connection';
import type { DateBounds } from '../../db/date-lag';
import type { Scope } from './workitems';

/**
 * Lists read in id order (the walks of popularity, relative_position, milestone_due, label_priority
 * and due_date: order-walk.ts, order-label-priority.ts) with a date bound. Ids are not in date
 * order (an import writes old dates with new ids; an update moves updated_at), so no index walks
 * ids within a date range: a walk newest id first with updated_before, that leaves out the newest
 * records, crossed every one of them before its first match (half a million issues: 80-300 ms a
 * page). core/160 keeps, per type, project and block of 1,024 ids, the lowest and highest
 * created_at and updated_at its records ever had (a zone map: widened on every insert and update,
 * never narrowed: a record deleted or moved leaves its dates in; a block's span holds every
 * current record's dates). Blocks whose span misses a bound hold no match: the walk starts at the
 * highest (lowest) block that may hold one, by the ids alone.
 */

/** Ids per block: 2^ZONE_SHIFT. */
export const ZONE_SHIFT = 10;

const zoneTriggers = (table: string, type: string): string => {
  const upsert = `INSERT INTO issuable_id_zones (issuable_type, project_id, block, min_created, max_created, min_updated, max_updated)
    VALUES ('${type}', NEW.project_id, NEW.id >> ${ZONE_SHIFT}, NEW.created_at, NEW.created_at, NEW.updated_at, NEW.updated_at)
    ON CONFLICT (issuable_type, project_id, block) DO UPDATE SET
      min_created = min(min_created, excluded.min_created), max_created = max(max_created, excluded.max_created),
      min_updated = min(min_updated, excluded.min_updated), max_updated = max(max_updated, excluded.max_updated);`;
  return `CREATE TRIGGER ${table}_id_zones_insert AFTER INSERT ON ${table} BEGIN
  ${upsert}
END;
CREATE TRIGGER ${table}_id_zones_update AFTER UPDATE OF id, project_id, created_at, updated_at ON ${table} BEGIN
  ${upsert}
END;`;
};

const zoneRows = (table: string, type: string): string => `INSERT INTO issuable_id_zones (issuable_type, project_id, block, min_created, max_created, min_updated, max_updated)
  SELECT '${type}', project_id, id >> ${ZONE_SHIFT}, min(created_at), max(created_at), min(updated_at), max(updated_at) FROM ${table} GROUP BY project_id, id >> ${ZONE_SHIFT};`;

export const idDateZonesMigration: Migration = {
  name: 'core/160_issuable_id_zones',
  sql: `
CREATE TABLE issuable_id_zones (
  issuable_type TEXT NOT NULL,
  project_id INTEGER NOT NULL,
  block INTEGER NOT NULL,
  min_created TEXT NOT NULL,
  max_created TEXT NOT NULL,
  min_updated TEXT NOT NULL,
  max_updated TEXT NOT NULL,
  PRIMARY KEY (issuable_type, project_id, block)
) WITHOUT ROWID;
${zoneRows('issues', 'Issue')}
${zoneRows('merge_requests', 'MergeRequest')}
${zoneTriggers('issues', 'Issue')}
${zoneTriggers('merge_requests', 'MergeRequest')}
`,
};

/**
 * The ids a list of `scope` with date `bounds` may hold, as a condition on `x.id` (a range of
 * whole blocks: from the lowest block whose span meets every bound to the highest), or undefined
 * when there is no bound.
 */
/** `used: false` reads every list as before (tests compare the two). */
export const ID_DATE_ZONES = { used: true };

export function idRangeOfDates(db: Db, type: 'Issue' | 'MergeRequest', scope: Scope, bounds: DateBounds): { sql: string; args: number[] } | undefined {
  const terms: string[] = [];
  const args: unknown[] = [];
  if (bounds.created_after) terms.push('max_created >= ?') && args.push(bounds.created_after);
  if (bounds.created_before) terms.push('min_created <= ?') && args.push(bounds.created_before);
  if (bounds.updated_after) terms.push('max_updated >= ?') && args.push(bounds.updated_after);
  if (bounds.updated_before) terms.push('min_updated <= ?') && args.push(bounds.updated_before);
  if (!terms.length || !ID_DATE_ZONES.used) return undefined;
  // A scope of other records (the instance's, a caller's own): every project's blocks, a wider range than its own.
  const [inScope, scopeArgs] =
    scope.projectId !== undefined ? [' AND project_id = ?', [scope.projectId]] : scope.projects ? [` AND project_id IN (${scope.projects})`, scope.args] : ['', []];
  const { low, high } = db
    .prepare(`SELECT min(block) AS low, max(block) AS high FROM issuable_id_zones WHERE issuable_type = ?${inScope} AND ${terms.join(' AND ')}`)
    .get(type, ...scopeArgs, ...args) as { low: number | null; high: number | null };
  // No block may hold one: no id (the list is empty; date-bounds.ts mostly found that already).
  if (low === null || high === null) return { sql: 'x.id BETWEEN ? AND ?', args: [1, 0] };
  return { sql: 'x.id BETWEEN ? AND ?', args: [low * 2 ** ZONE_SHIFT, (high + 1) * 2 ** ZONE_SHIFT - 1] };
}
