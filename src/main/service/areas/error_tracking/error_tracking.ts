import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context';
import { inTransaction } from '../../db/connection';
import type { Project } from '../core/projects';
import { isoTime } from '../core/time';
import { limitSql } from '../../http/pagination';

export interface ErrorTrackingSetting {
  project_id: number;
  active: number;
  integrated: number;
  api_url: string | null;
  project_name: string | null;
  created_at: string;
  updated_at: string;
}

export interface ClientKey {
  id: number;
  project_id: number;
  active: number;
  public_key: string;
  created_at: string;
  updated_at: string;
}

export function findSetting(svc: ServiceContext, project: Project): ErrorTrackingSetting | undefined {
  return svc.db.prepare('SELECT * FROM error_tracking_settings WHERE project_id = ?').get(project.id) as ErrorTrackingSetting | undefined;
}

/** PUT: creates the setting when absent, else sets both flags. */
export function upsertSetting(svc: ServiceContext, project: Project, active: boolean, integrated: boolean): ErrorTrackingSetting {
  const now = isoTime(svc.now());
  inTransaction(svc.db, () =>
    svc.db
      .prepare(
        `INSERT INTO error_tracking_settings (project_id, active, integrated, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (project_id) DO UPDATE SET active = excluded.active, integrated = excluded.integrated, updated_at = excluded.updated_at`,
      )
      .run(project.id, active ? 1 : 0, integrated ? 1 : 0, now, now),
  );
  return findSetting(svc, project)!;
}

/** PATCH: `active`, and `integrated` when given, on an existing setting. */
export function updateSetting(svc: ServiceContext, setting: ErrorTrackingSetting, active: boolean, integrated?: boolean): ErrorTrackingSetting {
  inTransaction(svc.db, () =>
    svc.db
      .prepare('UPDATE error_tracking_settings SET active = ?, integrated = ?, updated_at = ? WHERE project_id = ?')
      .run(active ? 1 : 0, integrated === undefined ? setting.integrated : integrated ? 1 : 0, isoTime(svc.now()), setting.project_id),
  );
  return svc.db.prepare('SELECT * FROM error_tracking_settings WHERE project_id = ?').get(setting.project_id) as ErrorTrackingSetting;
}

export function countClientKeys(svc: ServiceContext, project: Project): number {
  return (svc.db.prepare('SELECT count(*) AS n FROM error_tracking_client_keys WHERE project_id = ?').get(project.id) as { n: number }).n;
}

export function listClientKeys(svc: ServiceContext, project: Project, limit: number, offset: number): ClientKey[] {
  return svc.db
    .prepare(`SELECT * FROM error_tracking_client_keys WHERE project_id = ? ORDER BY id ${limitSql(limit)} OFFSET ?`)
    .all(project.id, offset) as ClientKey[];
}

export function findClientKey(svc: ServiceContext, project: Project, id: number): ClientKey | undefined {
  return svc.db.prepare('SELECT * FROM error_tracking_client_keys WHERE project_id = ? AND id = ?').get(project.id, id) as ClientKey | undefined;
}

/** A new key: `glet_` and 32 hex characters, as GitLab generates them. */
export function createClientKey(svc: ServiceContext, project: Project): ClientKey {
  const now = isoTime(svc.now());
  const id = inTransaction(svc.db, () =>
    Number(
      svc.db
        .prepare('INSERT INTO error_tracking_client_keys (project_id, active, public_key, created_at, updated_at) VALUES (?, 1, ?, ?, ?)')
        .run(project.id, `glet_${randomBytes(16).toString('hex')}`, now, now).lastInsertRowid,
    ),
  );
  return findClientKey(svc, project, id)!;
}

export function deleteClientKey(svc: ServiceContext, key: ClientKey): void {
  inTransaction(svc.db, () => svc.db.prepare('DELETE FROM error_tracking_client_keys WHERE id = ?').run(key.id));
}
