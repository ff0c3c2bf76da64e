import type { ServiceContext } from '../../context';
import { cachedLookup } from '../../db/connection';
import { findNamespaceByFullPath, type Visibility } from './namespaces';

export interface Project {
  id: number;
  namespace_id: number;
  creator_id: number | null;
  name: string;
  path: string;
  description: string | null;
  visibility: Visibility;
  default_branch: string;
  archived: number;
  request_access_enabled: number;
  topics: string;
  settings: string;
  avatar: string | null;
  import_url: string | null;
  import_type: string | null;
  import_status: string;
  import_error: string | null;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
}

export function findProjectById(svc: ServiceContext, id: number): Project | undefined {
  return cachedLookup(svc.db, `project:${id}`, () => svc.db.prepare('SELECT * FROM projects WHERE id = ?').get(id) as Project | undefined);
}

/** A project by numeric id or full path (`group/sub/project`), case-insensitively. */
export function findProjectByRef(svc: ServiceContext, ref: string): Project | undefined {
  if (/^\d+$/.test(ref)) return findProjectById(svc, Number(ref));
  const slash = ref.lastIndexOf('/');
  if (slash <= 0) return undefined;
  const ns = findNamespaceByFullPath(svc, ref.slice(0, slash));
  if (!ns) return undefined;
  return svc.db.prepare('SELECT * FROM projects WHERE namespace_id = ? AND lower(path) = lower(?)').get(ns.id, ref.slice(slash + 1)) as
    | Project
    | undefined;
}

export function projectSettings(p: Project): Record<string, unknown> {
  return JSON.parse(p.settings) as Record<string, unknown>;
}
