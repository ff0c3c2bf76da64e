import type { ServiceContext } from '../../context';
import { conflict, notFound, validationError } from '../../http/errors';
import { isoTime } from '../core/time';

export type VariableOwner = { type: 'Project'; id: number } | { type: 'Namespace'; id: number } | { type: 'Instance' };

export interface VariableRow {
  id: number;
  owner_type: VariableOwner['type'];
  project_id: number | null;
  group_id: number | null;
  key: string;
  value: string;
  variable_type: 'env_var' | 'file';
  protected: number;
  masked: number;
  hidden: number;
  raw: number;
  environment_scope: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface VariableFields {
  key?: string;
  value?: string;
  variable_type?: 'env_var' | 'file';
  protected?: boolean;
  masked?: boolean;
  hidden?: boolean;
  raw?: boolean;
  environment_scope?: string;
  description?: string | null;
}

/** Instance variables have no environment scope and cannot be hidden. */
export const scoped = (owner: VariableOwner): boolean => owner.type !== 'Instance';

function ownerSql(owner: VariableOwner): { sql: string; args: unknown[] } {
  if (owner.type === 'Project') return { sql: 'project_id = ?', args: [owner.id] };
  if (owner.type === 'Namespace') return { sql: 'group_id = ?', args: [owner.id] };
  return { sql: "owner_type = 'Instance'", args: [] };
}

export function listVariablesSql(owner: VariableOwner): { sql: string; args: unknown[] } {
  const o = ownerSql(owner);
  return { sql: `FROM ci_variables WHERE ${o.sql}`, args: o.args };
}

/**
 * Ci::VariablesFinder + find_variable: by key (and `filter[environment_scope]`); none is 404
 * "Variable Not Found", several with that key (in different scopes) a 409 asking for the filter.
 */
export function findVariable(svc: ServiceContext, owner: VariableOwner, key: string, environmentScope?: string): VariableRow {
  const o = ownerSql(owner);
  const rows = svc.db
    .prepare(`SELECT * FROM ci_variables WHERE ${o.sql} AND key = ? ${environmentScope !== undefined ? 'AND environment_scope = ?' : ''} ORDER BY id`)
    .all(...o.args, key, ...(environmentScope !== undefined ? [environmentScope] : [])) as VariableRow[];
  if (!rows.length) throw notFound('Variable');
  if (rows.length > 1) throw conflict("There are multiple variables with provided parameters. Please use 'filter[environment_scope]'");
  return rows[0];
}

const KEY_RE = /^[a-zA-Z0-9_]+$/;
/** Ci::Maskable: what a masked value may look like (raw values: any 8+ non-space characters). */
const MASKABLE = /^[a-zA-Z0-9_+=/@:.~-]{8,}$/;
const MASKABLE_RAW = /^\S{8,}$/;
const ENVIRONMENT_SCOPE_RE = /^[a-zA-Z0-9_\-/${}. *]+$/;

/** The model's validations, as `render_validation_error!` reports them. */
function validate(svc: ServiceContext, owner: VariableOwner, v: Required<Omit<VariableFields, 'description'>> & { description: string | null }, selfId: number | null): void {
  const errors: Record<string, string[]> = {};
  const key: string[] = [];
  if (!v.key) key.push("can't be blank");
  if (v.key.length > 255) key.push('is too long (maximum is 255 characters)');
  if (v.key && !KEY_RE.test(v.key)) key.push("can contain only letters, digits and '_'.");
  if (!key.length) {
    const o = ownerSql(owner);
    const taken = svc.db
      .prepare(`SELECT 1 FROM ci_variables WHERE ${o.sql} AND key = ? ${scoped(owner) ? 'AND environment_scope = ?' : ''} AND id IS NOT ?`)
      .get(...o.args, v.key, ...(scoped(owner) ? [v.environment_scope] : []), selfId);
    if (taken) key.push(`(${v.key}) has already been taken`);
  }
  if (key.length) errors.key = key;
  const value: string[] = [];
  if (v.value.length > 10_000) value.push('is too long (maximum is 10000 characters)');
  if (v.masked && !(v.raw ? MASKABLE_RAW : MASKABLE).test(v.value)) value.push('is invalid');
  if (value.length) errors.value = value;
  if (scoped(owner) && !ENVIRONMENT_SCOPE_RE.test(v.environment_scope)) {
    errors.environment_scope = ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"];
  }
  if (v.description && v.description.length > 255) errors.description = ['is too long (maximum is 255 characters)'];
  if (Object.keys(errors).length) throw validationError(errors);
}

export function createVariable(svc: ServiceContext, owner: VariableOwner, input: VariableFields & { key: string; value: string }): VariableRow {
  const v = {
    key: input.key,
    value: input.value,
    variable_type: input.variable_type ?? 'env_var',
    protected: input.protected ?? false,
    masked: input.masked ?? false,
    hidden: scoped(owner) ? (input.hidden ?? false) : false,
    raw: input.raw ?? false,
    environment_scope: scoped(owner) ? (input.environment_scope ?? '*') : '*',
    description: input.description ?? null,
  };
  validate(svc, owner, v, null);
  const now = isoTime(svc.now());
  const info = svc.db
    .prepare(
      `INSERT INTO ci_variables (owner_type, project_id, group_id, key, value, variable_type, protected, masked, hidden, raw, environment_scope, description, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      owner.type,
      owner.type === 'Project' ? owner.id : null,
      owner.type === 'Namespace' ? owner.id : null,
      v.key,
      v.value,
      v.variable_type,
      Number(v.protected),
      Number(v.masked),
      Number(v.hidden),
      Number(v.raw),
      v.environment_scope,
      v.description,
      now,
      now,
    );
  return svc.db.prepare('SELECT * FROM ci_variables WHERE id = ?').get(Number(info.lastInsertRowid)) as VariableRow;
}

/** Ci::ChangeVariableService :update. A hidden variable stays hidden (and masked). */
export function updateVariable(svc: ServiceContext, owner: VariableOwner, current: VariableRow, input: VariableFields): VariableRow {
  const v = {
    key: input.key ?? current.key,
    value: input.value ?? current.value,
    variable_type: input.variable_type ?? current.variable_type,
    protected: input.protected ?? !!current.protected,
    masked: current.hidden ? true : (input.masked ?? !!current.masked),
    hidden: !!current.hidden,
    raw: input.raw ?? !!current.raw,
    environment_scope: scoped(owner) ? (input.environment_scope ?? current.environment_scope) : '*',
    description: input.description === undefined ? current.description : input.description,
  };
  validate(svc, owner, v, current.id);
  svc.db
    .prepare(
      `UPDATE ci_variables SET key = ?, value = ?, variable_type = ?, protected = ?, masked = ?, raw = ?, environment_scope = ?, description = ?, updated_at = ?
       WHERE id = ?`,
    )
    .run(v.key, v.value, v.variable_type, Number(v.protected), Number(v.masked), Number(v.raw), v.environment_scope, v.description, isoTime(svc.now()), current.id);
  return svc.db.prepare('SELECT * FROM ci_variables WHERE id = ?').get(current.id) as VariableRow;
}
