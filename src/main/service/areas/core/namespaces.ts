import type { ServiceContext } from '../../context';
import { cachedLookup, inTransaction } from '../../db/connection';
import { isoTime } from './time';

export interface Namespace {
  id: number;
  kind: 'group' | 'user';
  name: string;
  path: string;
  full_path: string;
  parent_id: number | null;
  owner_id: number | null;
  description: string;
  visibility: Visibility;
  request_access_enabled: number;
  settings: string;
  avatar: string | null;
  created_at: string;
  updated_at: string;
}

export type Visibility = 'private' | 'internal' | 'public';
export const VISIBILITIES: readonly Visibility[] = ['private', 'internal', 'public'];
const VISIBILITY_RANK: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };
export const visibilityLevel = (v: Visibility): number => VISIBILITY_RANK[v];

/** The more restrictive of a visibility and a ceiling (a parent group's), if any. */
export const capVisibility = (v: Visibility, ceiling: Visibility | null): Visibility =>
  ceiling && VISIBILITY_RANK[ceiling] < VISIBILITY_RANK[v] ? ceiling : v;

/** The table the namespace lookup reads (core/099): its rows outlive writes to other tables. */
const NAMESPACES_TABLE = ['namespaces'] as const;

export function findNamespaceById(svc: ServiceContext, id: number): Namespace | undefined {
  return cachedLookup(svc.db, 'namespace', id, loadNamespace, NAMESPACES_TABLE, svc);
}

const loadNamespace = (svc: ServiceContext, id: number): Namespace | undefined =>
  svc.db.prepare('SELECT * FROM namespaces WHERE id = ?').get(id) as Namespace | undefined;

export function findNamespaceByFullPath(svc: ServiceContext, fullPath: string): Namespace | undefined {
  return svc.db.prepare('SELECT * FROM namespaces WHERE lower(full_path) = lower(?)').get(fullPath) as Namespace | undefined;
}

/** A group by numeric id or full path (`:id` of /groups/:id). */
export function findGroupByRef(svc: ServiceContext, ref: string): Namespace | undefined {
  const ns = /^\d+$/.test(ref) ? findNamespaceById(svc, Number(ref)) : findNamespaceByFullPath(svc, ref);
  return ns?.kind === 'group' ? ns : undefined;
}

export function userNamespace(svc: ServiceContext, userId: number): Namespace | undefined {
  return svc.db.prepare("SELECT * FROM namespaces WHERE kind = 'user' AND owner_id = ?").get(userId) as Namespace | undefined;
}

/** Parent first, root last. */
export function ancestorsOf(svc: ServiceContext, ns: Namespace): Namespace[] {
  const out: Namespace[] = [];
  let cur = ns.parent_id ? findNamespaceById(svc, ns.parent_id) : undefined;
  while (cur) {
    out.push(cur);
    cur = cur.parent_id ? findNamespaceById(svc, cur.parent_id) : undefined;
  }
  return out;
}

export function rootOf(svc: ServiceContext, ns: Namespace): Namespace {
  const anc = ancestorsOf(svc, ns);
  return anc.length ? anc[anc.length - 1] : ns;
}

/** Ids of the group and all groups below it. */
export function selfAndDescendantIds(svc: ServiceContext, groupId: number): number[] {
  return (
    svc.db
      .prepare(
        `WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT n.id FROM namespaces n JOIN tree ON n.parent_id = tree.id)
         SELECT id FROM tree`,
      )
      .all(groupId) as { id: number }[]
  ).map((r) => r.id);
}

/** Ids of the group and all groups above it. */
export function selfAndAncestorIds(svc: ServiceContext, ns: Namespace): number[] {
  return [ns.id, ...ancestorsOf(svc, ns).map((a) => a.id)];
}

export function namespaceSettings(ns: { settings: string }): Record<string, unknown> {
  return JSON.parse(ns.settings) as Record<string, unknown>;
}

/** A namespace (group or personal) by numeric id or full path (`:id` of /namespaces/:id). */
export function findNamespaceByRef(svc: ServiceContext, ref: string): Namespace | undefined {
  return /^\d+$/.test(ref) ? findNamespaceById(svc, Number(ref)) : findNamespaceByFullPath(svc, ref);
}

export interface NewGroup {
  name: string;
  path: string;
  parent: Namespace | null;
  description?: string;
  visibility: Visibility;
  requestAccessEnabled?: boolean;
  settings?: Record<string, unknown>;
  /** Becomes the group's first Owner. */
  ownerId: number;
}

/** Inserts a group and its creator's Owner membership (POST /groups, migrations). */
export function insertGroup(svc: ServiceContext, g: NewGroup): Namespace {
  return inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    const fullPath = g.parent ? `${g.parent.full_path}/${g.path}` : g.path;
    const info = svc.db
      .prepare(
        `INSERT INTO namespaces (kind, name, path, full_path, parent_id, description, visibility, request_access_enabled, settings, created_at, updated_at)
         VALUES ('group', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(g.name, g.path, fullPath, g.parent?.id ?? null, g.description ?? '', g.visibility, g.requestAccessEnabled === false ? 0 : 1, JSON.stringify(g.settings ?? {}), now, now);
    const id = Number(info.lastInsertRowid);
    svc.db
      .prepare(
        `INSERT INTO members (source_type, source_id, user_id, access_level, created_by_id, created_at, updated_at)
         VALUES ('Namespace', ?, ?, 50, ?, ?, ?)`,
      )
      .run(id, g.ownerId, g.ownerId, now, now);
    return findNamespaceById(svc, id)!;
  });
}
