import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { notFound } from '../../../http/errors';
import { paginateArray } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { loadGroup, loadProject } from '../access';
import { isoTime } from '../time';
import { withFieldsAfter } from '../entities';
import { loadUser } from './users';

/** The three subjects of lib/api/custom_attributes_endpoints.rb, each with its own table. */
const SUBJECTS = {
  users: { table: 'user_custom_attributes', column: 'user_id', load: (rc: RequestContext) => loadUser(rc).id },
  groups: { table: 'group_custom_attributes', column: 'group_id', load: (rc: RequestContext) => loadGroup(rc).id },
  projects: { table: 'project_custom_attributes', column: 'project_id', load: (rc: RequestContext) => loadProject(rc).id },
} as const;

type Subject = keyof typeof SUBJECTS;

interface CustomAttributeRow {
  key: string;
  value: string;
}

const entity = (row: CustomAttributeRow) => ({ key: row.key, value: row.value });

/**
 * `custom_attributes[key]=value` on GET /users, /groups and /projects: only administrators filter
 * by them (others have the parameter ignored, as in GitLab's finders). Adds one condition per pair
 * on `alias.id`.
 */
export function customAttributesFilter(rc: RequestContext, subject: Subject, alias: string): { sql: string[]; args: unknown[] } {
  const wanted = rc.params.custom_attributes;
  if (!rc.user?.admin || !wanted || typeof wanted !== 'object' || Array.isArray(wanted)) return { sql: [], args: [] };
  const { table, column } = SUBJECTS[subject];
  const sql: string[] = [];
  const args: unknown[] = [];
  for (const [key, value] of Object.entries(wanted as Record<string, unknown>)) {
    sql.push(`EXISTS (SELECT 1 FROM ${table} ca WHERE ca.${column} = ${alias}.id AND ca.key = ? AND ca.value = ?)`);
    args.push(key, String(value));
  }
  return { sql, args };
}

/**
 * `with_custom_attributes=true` on GET /users, /groups, /projects and their single records
 * (Helpers::CustomAttributes: administrators only): each entity's attributes, placed where its Grape
 * entity exposes them (right after its field `after`).
 */
export function withCustomAttributes(rc: RequestContext, subject: Subject, entities: Record<string, unknown>[], after: string): Record<string, unknown>[] {
  if (!rc.user?.admin || !declared(rc.params, { with_custom_attributes: t.boolean() }).with_custom_attributes) return entities;
  const { table, column } = SUBJECTS[subject];
  const read = rc.svc.db.prepare(`SELECT key, value FROM ${table} WHERE ${column} = ? ORDER BY key`);
  return entities.map((e) => withFieldsAfter(e, after, { custom_attributes: (read.all(e.id) as CustomAttributeRow[]).map(entity) }));
}

export function registerCustomAttributeRoutes(r: Router): void {
  for (const [subject, { table, column, load }] of Object.entries(SUBJECTS)) {
    const base = `/${subject}/:id/custom_attributes`;
    const find = (rc: RequestContext, id: number) => {
      const row = rc.svc.db.prepare(`SELECT key, value FROM ${table} WHERE ${column} = ? AND key = ?`).get(id, rc.path.key) as CustomAttributeRow | undefined;
      if (!row) throw notFound('Custom Attribute');
      return row;
    };

    r.get(base, (rc) => {
      rc.requireAdmin();
      const id = load(rc);
      const rows = rc.svc.db.prepare(`SELECT key, value FROM ${table} WHERE ${column} = ? ORDER BY key`).all(id) as CustomAttributeRow[];
      return paginateArray(rc, rows).map(entity);
    });

    r.get(`${base}/:key`, (rc) => {
      rc.requireAdmin();
      return entity(find(rc, load(rc)));
    });

    r.put(`${base}/:key`, (rc) => {
      rc.requireAdmin();
      const id = load(rc);
      const p = declared(rc.params, { value: t.string().required() });
      const now = isoTime(rc.svc.now());
      inTransaction(rc.svc.db, () =>
        rc.svc.db
          .prepare(
            `INSERT INTO ${table} (${column}, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (${column}, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
          )
          .run(id, rc.path.key, p.value, now, now),
      );
      return entity(find(rc, id));
    });

    r.delete(`${base}/:key`, (rc) => {
      rc.requireAdmin();
      const id = load(rc);
      find(rc, id);
      inTransaction(rc.svc.db, () => rc.svc.db.prepare(`DELETE FROM ${table} WHERE ${column} = ? AND key = ?`).run(id, rc.path.key));
      return undefined;
    });
  }
}
