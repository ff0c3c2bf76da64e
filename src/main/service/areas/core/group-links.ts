import type { ServiceContext } from '../../context';
import { cachedLookup } from '../../db/connection';
import { type Namespace, ancestorsOf, findNamespaceById, namespaceSettings } from './namespaces';
import { isoTime, today } from './time';

/** The link tables, versioned in table_versions (core/099) so lookups of them outlive other writes. */
const LINK_TABLES = ['project_group_links', 'group_group_links'] as const;

/**
 * Sharing projects and groups with groups (GitLab's ProjectGroupLink and GroupGroupLink): the
 * members of the invited group reach the shared project or group (and a group's subgroups and
 * projects) at the lower of their own level and the link's. Read by access.ts for every check and
 * list, by the entities' shared_with_groups and by the members lists.
 */
export const groupLinksMigration = {
  name: 'core/172_group_links',
  sql: `
CREATE TABLE project_group_links (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
  group_access INTEGER NOT NULL,
  expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (project_id, group_id)
);
CREATE INDEX project_group_links_group ON project_group_links (group_id);
CREATE TABLE group_group_links (
  id INTEGER PRIMARY KEY,
  shared_group_id INTEGER NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
  shared_with_group_id INTEGER NOT NULL REFERENCES namespaces(id) ON DELETE CASCADE,
  group_access INTEGER NOT NULL,
  expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (shared_group_id, shared_with_group_id)
);
CREATE INDEX group_group_links_with ON group_group_links (shared_with_group_id);
${LINK_TABLES.map((t) => `INSERT INTO table_versions (name, version) VALUES ('${t}', 0);
CREATE TRIGGER ${t}_table_version_insert AFTER INSERT ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_update AFTER UPDATE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;
CREATE TRIGGER ${t}_table_version_delete AFTER DELETE ON ${t} BEGIN UPDATE table_versions SET version = version + 1 WHERE name = '${t}'; END;`).join('\n')}
`,
};

export interface ProjectGroupLink {
  id: number;
  project_id: number;
  group_id: number;
  group_access: number;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface GroupGroupLink {
  id: number;
  shared_group_id: number;
  shared_with_group_id: number;
  group_access: number;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

/** SQL condition on a link `l` that still grants access today (ProjectGroupLink/GroupGroupLink.non_expired). */
export const ACTIVE_LINK_SQL = '(l.expires_at IS NULL OR l.expires_at > ?)';

/**
 * Whether any project or group is shared at all, kept until a link is written (core/172's table
 * versions): without a share, access checks and lists read exactly what they read before sharing existed.
 */
export function sharesExist(svc: ServiceContext): { projects: boolean; groups: boolean } {
  return cachedLookup(
    svc.db,
    'group-links-exist',
    0,
    () => ({
      projects: !!svc.db.prepare('SELECT 1 FROM project_group_links LIMIT 1').get(),
      groups: !!svc.db.prepare('SELECT 1 FROM group_group_links LIMIT 1').get(),
    }),
    LINK_TABLES,
  )!;
}

/** A project's links, oldest first (expired ones too: GitLab lists them until its worker removes them). */
export function projectGroupLinks(svc: ServiceContext, projectId: number): ProjectGroupLink[] {
  if (!sharesExist(svc).projects) return [];
  return svc.db.prepare('SELECT * FROM project_group_links WHERE project_id = ? ORDER BY id').all(projectId) as ProjectGroupLink[];
}

/** Whether any project is shared with the group (GroupProjectsFinder's shared projects). */
export function projectsSharedWith(svc: ServiceContext, groupId: number): boolean {
  return sharesExist(svc).projects && !!svc.db.prepare('SELECT 1 FROM project_group_links WHERE group_id = ? LIMIT 1').get(groupId);
}

/** The groups a group is shared with (its shared_with_group_links), oldest first. */
export function groupGroupLinks(svc: ServiceContext, groupId: number): GroupGroupLink[] {
  if (!sharesExist(svc).groups) return [];
  return svc.db.prepare('SELECT * FROM group_group_links WHERE shared_group_id = ? ORDER BY id').all(groupId) as GroupGroupLink[];
}

/**
 * Project#allowed_to_share_with_group?: not when the project's group (or a group above it, from
 * which GitLab copies the lock down) has share_with_group_lock.
 */
export function shareWithGroupLocked(svc: ServiceContext, ns: Namespace): boolean {
  if (ns.kind !== 'group') return false;
  return [ns, ...ancestorsOf(svc, ns)].some((g) => namespaceSettings(g).share_with_group_lock === true);
}

/**
 * The user's level in a group through groups it (or a group above it) is shared with: their own
 * active membership of the invited group (direct, not Minimal Access), at most the link's level
 * (Group#members_from_self_and_ancestor_group_shares).
 */
export function groupShareLevel(svc: ServiceContext, userId: number, groupId: number): number {
  if (!sharesExist(svc).groups) return 0;
  const day = today(svc);
  const row = svc.db
    .prepare(
      `WITH RECURSIVE anc(id, parent_id) AS (
         SELECT id, parent_id FROM namespaces WHERE id = ?
         UNION ALL SELECT n.id, n.parent_id FROM namespaces n JOIN anc ON n.id = anc.parent_id)
       SELECT max(min(l.group_access, m.access_level)) AS level
       FROM anc CROSS JOIN group_group_links l ON l.shared_group_id = anc.id
         CROSS JOIN members m ON m.source_type = 'Namespace' AND m.source_id = l.shared_with_group_id AND m.user_id = ?
       WHERE ${ACTIVE_LINK_SQL} AND m.access_level > 5 AND m.requested_at IS NULL AND (m.expires_at IS NULL OR m.expires_at > ?)`,
    )
    .get(groupId, userId, day, day) as { level: number | null };
  return row.level ?? 0;
}

/**
 * The groups shared with a group the user belongs to directly (not Minimal Access), where both the
 * membership and the link reach `minLevel`: the roots of what the user reaches through group shares
 * (their subgroups and projects inherit it). Empty without shares.
 */
export function sharedGroupRoots(svc: ServiceContext, userId: number, minLevel: number): number[] {
  if (!sharesExist(svc).groups) return [];
  return cachedLookup(svc.db, 'shared-group-roots', [userId, minLevel], () => {
    const day = today(svc);
    return (
      svc.db
        .prepare(
          `SELECT DISTINCT l.shared_group_id AS id FROM members m JOIN group_group_links l ON l.shared_with_group_id = m.source_id
           WHERE m.source_type = 'Namespace' AND m.user_id = ? AND m.access_level > 5 AND m.access_level >= ? AND m.requested_at IS NULL
             AND (m.expires_at IS NULL OR m.expires_at > ?) AND l.group_access >= ? AND ${ACTIVE_LINK_SQL} ORDER BY 1`,
        )
        .all(userId, minLevel, day, minLevel, day) as { id: number }[]
    ).map((r) => r.id);
  })!;
}

/**
 * The projects shared with a group where the user's level (groupLevel: direct, inherited or through
 * a group share) and the link's both reach `minLevel` (and Guest), in a group without
 * share_with_group_lock: what Gitlab::ProjectAuthorizations adds for project shares. Empty without shares.
 */
export function sharedProjectIds(svc: ServiceContext, userId: number, minLevel: number, groupLevel: (groupId: number) => number): number[] {
  if (!sharesExist(svc).projects) return [];
  return cachedLookup(svc.db, 'shared-project-ids', [userId, minLevel], () => {
    const links = svc.db
      .prepare(
        `SELECT l.project_id, l.group_id, p.namespace_id FROM project_group_links l JOIN projects p ON p.id = l.project_id
         WHERE l.group_access >= ? AND ${ACTIVE_LINK_SQL} ORDER BY l.project_id`,
      )
      .all(minLevel, today(svc)) as { project_id: number; group_id: number; namespace_id: number }[];
    const ids = new Set<number>();
    for (const l of links) {
      if (ids.has(l.project_id)) continue;
      const level = groupLevel(l.group_id);
      if (level < Math.max(minLevel, 10)) continue;
      if (shareWithGroupLocked(svc, findNamespaceById(svc, l.namespace_id)!)) continue;
      ids.add(l.project_id);
    }
    return [...ids];
  })!;
}

/**
 * The user's level in a project through its shares: for each unexpired link, the lower of the
 * link's level and the user's level in the invited group (at least Guest), the highest of them.
 */
export function projectShareLevel(svc: ServiceContext, projectId: number, ns: Namespace, groupLevel: (groupId: number) => number): number {
  if (!sharesExist(svc).projects) return 0;
  const links = svc.db
    .prepare(`SELECT l.group_id, l.group_access FROM project_group_links l WHERE l.project_id = ? AND ${ACTIVE_LINK_SQL}`)
    .all(projectId, today(svc)) as { group_id: number; group_access: number }[];
  if (!links.length || shareWithGroupLocked(svc, ns)) return 0;
  let best = 0;
  for (const l of links) {
    const level = groupLevel(l.group_id);
    if (level >= 10) best = Math.max(best, Math.min(level, l.group_access));
  }
  return best;
}

export function insertProjectGroupLink(svc: ServiceContext, projectId: number, groupId: number, access: number, expiresAt: string | null): ProjectGroupLink {
  const now = isoTime(svc.now());
  const info = svc.db
    .prepare('INSERT INTO project_group_links (project_id, group_id, group_access, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(projectId, groupId, access, expiresAt, now, now);
  return svc.db.prepare('SELECT * FROM project_group_links WHERE id = ?').get(Number(info.lastInsertRowid)) as ProjectGroupLink;
}

export function insertGroupGroupLink(svc: ServiceContext, sharedGroupId: number, withGroupId: number, access: number, expiresAt: string | null): GroupGroupLink {
  const now = isoTime(svc.now());
  const info = svc.db
    .prepare('INSERT INTO group_group_links (shared_group_id, shared_with_group_id, group_access, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(sharedGroupId, withGroupId, access, expiresAt, now, now);
  return svc.db.prepare('SELECT * FROM group_group_links WHERE id = ?').get(Number(info.lastInsertRowid)) as GroupGroupLink;
}
