import type { ServiceContext } from '../../context';
import type { Actor, RequestContext } from '../../http/route';
import { inTransaction } from '../../db/connection';
import { apiError, grapeError, recordNotFound } from '../../http/errors';
import type { Project } from '../core/projects';
import { isoTime } from '../core/time';

// --- rows --------------------------------------------------------------------------------------

export interface FlagRow {
  id: number;
  project_id: number;
  iid: number;
  name: string;
  description: string | null;
  active: number;
  created_at: string;
  updated_at: string;
}

export interface StrategyRow {
  id: number;
  feature_flag_id: number;
  name: string;
  parameters: string;
  user_list_id: number | null;
}

export interface ScopeRow {
  id: number;
  strategy_id: number;
  environment_scope: string;
}

export interface UserListRow {
  id: number;
  project_id: number;
  iid: number;
  name: string;
  user_xids: string;
  created_at: string;
  updated_at: string;
}

// --- GitLab's rules (Operations::FeatureFlag, ::Strategy, ::UserList, FeatureFlagUserXidsValidator) ----

/** Plan limit `project_feature_flags` (GitLab's default). */
export const MAX_FLAGS_PER_PROJECT = 200;
const NAME_REGEX = /^[a-z]([-_a-z0-9]*[a-z0-9])?$/;
const NAME_REGEX_MESSAGE = "can contain only lowercase letters, digits, '_' and '-'. Must start with a letter, and cannot end with '-' or '_'";
const USER_LIST_STRATEGY = 'gitlabUserList';
/** Strategy name -> the exact parameter keys it takes. `platformUserList` is the reference's name for gitlabUserList. */
const STRATEGY_PARAMETERS: Record<string, string[]> = {
  default: [],
  gitlabUserList: [],
  platformUserList: [],
  gradualRolloutUserId: ['groupId', 'percentage'],
  flexibleRollout: ['groupId', 'rollout', 'stickiness'],
  userWithId: ['userIds'],
};
const STICKINESS = ['default', 'userId', 'sessionId', 'random'];
const XID_MAX = 256;

const isUserListStrategy = (name: string): boolean => name === USER_LIST_STRATEGY || name === 'platformUserList';
const inRange = (v: unknown): boolean => typeof v === 'string' && /^\d+$/.test(v) && Number(v) >= 0 && Number(v) <= 100;
const validGroupId = (v: unknown): boolean => typeof v === 'string' && /^[a-z]{1,32}$/.test(v);

/** FeatureFlagUserXidsValidator: unique, comma separated, each non-blank, unpadded, <= 256 chars. */
export function validUserXids(xids: unknown): boolean {
  if (typeof xids !== 'string') return false;
  if (xids === '') return true;
  const parts = xids.split(',');
  if (parts.some((x) => x === '' || x.trim() !== x || x.length > XID_MAX || /[\n\r\t]/.test(x))) return false;
  return new Set(parts).size === parts.length;
}
const xidsMessage = (attr: string): string =>
  `${attr} must be a string of unique comma separated values each ${XID_MAX} characters or less`;

export function flagNameErrors(name: string): string[] {
  const errors: string[] = [];
  if (!name.trim()) errors.push("Name can't be blank");
  if (name.length < 2) errors.push('Name is too short (minimum is 2 characters)');
  if (name.length > 63) errors.push('Name is too long (maximum is 63 characters)');
  if (!NAME_REGEX.test(name)) errors.push(`Name ${NAME_REGEX_MESSAGE}`);
  return errors;
}

/** A strategy as it will be saved, for validation. */
interface StrategyDraft {
  name: string;
  parameters: unknown;
  userListId: number | null;
  scopes: string[];
}

function strategyErrors(svc: ServiceContext, project: Project, s: StrategyDraft): string[] {
  const errors: string[] = [];
  const expected = STRATEGY_PARAMETERS[s.name];
  if (!expected) errors.push('Strategies name strategy name is invalid');
  else {
    const p = s.parameters;
    const isHash = !!p && typeof p === 'object' && !Array.isArray(p);
    const keys = isHash ? Object.keys(p as object).sort() : [];
    if (!isHash || keys.join(',') !== [...expected].sort().join(',')) errors.push('Strategies parameters parameters are invalid');
    else {
      const params = p as Record<string, unknown>;
      if (s.name === 'gradualRolloutUserId') {
        if (!inRange(params.percentage)) errors.push('Strategies parameters percentage must be a string between 0 and 100 inclusive');
        if (!validGroupId(params.groupId)) errors.push('Strategies parameters groupId parameter is invalid');
      } else if (s.name === 'flexibleRollout') {
        if (!STICKINESS.includes(params.stickiness as string)) {
          errors.push('Strategies parameters stickiness parameter must be default, userId, sessionId, or random');
        }
        if (!validGroupId(params.groupId)) errors.push('Strategies parameters groupId parameter is invalid');
        if (!inRange(params.rollout)) errors.push('Strategies parameters rollout must be a string between 0 and 100 inclusive');
      } else if (s.name === 'userWithId' && !validUserXids(params.userIds)) {
        errors.push(`Strategies parameters ${xidsMessage('userIds')}`);
      }
    }
  }
  if (isUserListStrategy(s.name) && s.userListId == null) errors.push("Strategies user list can't be blank");
  if (!isUserListStrategy(s.name) && s.userListId != null) errors.push('Strategies user list must be blank');
  if (s.userListId != null) {
    const list = findUserListById(svc, s.userListId);
    if (list && list.project_id !== project.id) errors.push('Strategies user list must belong to the same project');
  }
  for (const scope of s.scopes) {
    if (!scope.trim()) errors.push("Strategies scopes environment scope can't be blank");
  }
  return errors;
}

// --- reads -------------------------------------------------------------------------------------

export function findFlagByName(svc: ServiceContext, project: Project, name: string): FlagRow {
  const row = svc.db.prepare('SELECT * FROM feature_flags WHERE project_id = ? AND name = ?').get(project.id, name) as FlagRow | undefined;
  if (!row) throw recordNotFound();
  return row;
}

export function listFlags(svc: ServiceContext, project: Project, scope: 'enabled' | 'disabled' | undefined): FlagRow[] {
  const filter = scope === 'enabled' ? ' AND active = 1' : scope === 'disabled' ? ' AND active = 0' : '';
  return svc.db.prepare(`SELECT * FROM feature_flags WHERE project_id = ?${filter} ORDER BY name`).all(project.id) as FlagRow[];
}

export function strategiesOf(svc: ServiceContext, flagId: number): StrategyRow[] {
  return svc.db.prepare('SELECT * FROM feature_flag_strategies WHERE feature_flag_id = ? ORDER BY id').all(flagId) as StrategyRow[];
}

export function scopesOf(svc: ServiceContext, strategyId: number): ScopeRow[] {
  return svc.db.prepare('SELECT * FROM feature_flag_scopes WHERE strategy_id = ? ORDER BY id').all(strategyId) as ScopeRow[];
}

export function findUserListById(svc: ServiceContext, id: number): UserListRow | undefined {
  return svc.db.prepare('SELECT * FROM feature_flag_user_lists WHERE id = ?').get(id) as UserListRow | undefined;
}

// --- input -------------------------------------------------------------------------------------

export interface StrategyInput {
  id?: number;
  name?: string;
  parameters?: unknown;
  user_list_id?: number | null;
  _destroy?: boolean;
  scopes?: { id?: number; environment_scope?: string; _destroy?: boolean }[];
}

const truthy = (v: unknown): boolean => v === true || v === 1 || (typeof v === 'string' && ['true', '1', 't', 'yes'].includes(v.toLowerCase()));

/** Grape's `strategies` array of hashes, coerced; `parameters` may be a hash or a JSON string. */
export function readStrategies(raw: unknown, forUpdate: boolean): StrategyInput[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  const list = Array.isArray(raw) ? raw : typeof raw === 'object' ? Object.values(raw as object) : null;
  if (!list) throw grapeError(400, 'strategies is invalid');
  return list.map((item) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw grapeError(400, 'strategies is invalid');
    const s = item as Record<string, unknown>;
    const out: StrategyInput = {};
    if (s.id !== undefined && s.id !== null) {
      if (!/^\d+$/.test(String(s.id))) throw grapeError(400, 'strategies[id] is invalid');
      out.id = Number(s.id);
    }
    if (s.name !== undefined && s.name !== null) out.name = String(s.name);
    else if (!forUpdate) throw grapeError(400, 'strategies[name] is missing');
    if (s.parameters !== undefined) out.parameters = camelizeParameterKeys(readJson(s.parameters));
    if (s.user_list_id !== undefined && s.user_list_id !== null && s.user_list_id !== '') {
      if (!/^\d+$/.test(String(s.user_list_id))) throw grapeError(400, 'strategies[user_list_id] is invalid');
      out.user_list_id = Number(s.user_list_id);
    }
    if (s._destroy !== undefined) out._destroy = truthy(s._destroy);
    if (s.scopes !== undefined && s.scopes !== null) {
      const scopes = Array.isArray(s.scopes) ? s.scopes : typeof s.scopes === 'object' ? Object.values(s.scopes as object) : null;
      if (!scopes) throw grapeError(400, 'strategies[scopes] is invalid');
      out.scopes = scopes.map((sc) => {
        const o = (sc ?? {}) as Record<string, unknown>;
        if (!forUpdate && (o.environment_scope === undefined || o.environment_scope === null)) {
          throw grapeError(400, 'strategies[scopes][environment_scope] is missing');
        }
        return {
          id: o.id !== undefined && o.id !== null ? Number(o.id) : undefined,
          environment_scope: o.environment_scope !== undefined && o.environment_scope !== null ? String(o.environment_scope) : undefined,
          _destroy: o._destroy !== undefined ? truthy(o._destroy) : undefined,
        };
      });
    }
    return out;
  });
}

/**
 * gitbeaker deep-decamelizes request bodies, so its `{groupId, userIds}` arrive as
 * `{group_id, user_ids}`; read those as GitLab's camelCase parameter names.
 */
const DECAMELIZED_PARAMETERS: Record<string, string> = { group_id: 'groupId', user_ids: 'userIds' };

function camelizeParameterKeys(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(v as Record<string, unknown>)) {
    const camel = DECAMELIZED_PARAMETERS[k];
    out[camel && !(camel in (v as object)) ? camel : k] = value;
  }
  return out;
}

function readJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    throw grapeError(400, 'strategies[parameters] is invalid');
  }
}

// --- writes ------------------------------------------------------------------------------------

export interface FlagInput {
  name: string;
  description?: string | null;
  active?: boolean;
  strategies?: StrategyInput[];
}

function validateFlag(svc: ServiceContext, project: Project, name: string, description: string | null, exceptId: number | null): string[] {
  const errors = flagNameErrors(name);
  const taken = svc.db.prepare('SELECT id FROM feature_flags WHERE project_id = ? AND name = ?').get(project.id, name) as { id: number } | undefined;
  if (taken && taken.id !== exceptId) errors.push('Name has already been taken');
  if (description && description.length > 255) errors.push('Description is too long (maximum is 255 characters)');
  return errors;
}

/** Unknown user list ids answer 404 "Not found" (Strategy#user_list_id= finds the list). */
function checkUserListExists(svc: ServiceContext, id: number | null | undefined): void {
  if (id != null && !findUserListById(svc, id)) throw recordNotFound();
}

function audit(svc: ServiceContext, project: Project, flagName: string, authorId: number | null, message: string): void {
  const now = isoTime(svc.now());
  svc.db
    .prepare('INSERT INTO feature_flag_audit_events (project_id, feature_flag_name, author_id, message, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(project.id, flagName, authorId, message, now);
  svc.db
    .prepare(
      `INSERT INTO feature_flags_clients (project_id, last_feature_flag_updated_at) VALUES (?, ?)
       ON CONFLICT (project_id) DO UPDATE SET last_feature_flag_updated_at = excluded.last_feature_flag_updated_at`,
    )
    .run(project.id, now);
}

const strategyMessage = (s: { name: string; scopes: string[] }): string =>
  `Created strategy "${s.name}" with scopes "${s.scopes.join(', ')}".`;

export function createFlag(rc: Actor, project: Project, input: FlagInput): FlagRow {
  const svc = rc.svc;
  const drafts: StrategyDraft[] = (input.strategies ?? []).map((s) => {
    checkUserListExists(svc, s.user_list_id);
    return {
      name: s.name ?? '',
      parameters: s.parameters === undefined ? {} : s.parameters,
      userListId: s.user_list_id ?? null,
      scopes: (s.scopes ?? []).map((sc) => (sc.environment_scope ?? '').trim()),
    };
  });
  const errors = validateFlag(svc, project, input.name, input.description ?? null, null);
  for (const d of drafts) errors.push(...strategyErrors(svc, project, d));
  const count = (svc.db.prepare('SELECT count(*) AS n FROM feature_flags WHERE project_id = ?').get(project.id) as { n: number }).n;
  if (count >= MAX_FLAGS_PER_PROJECT) errors.push(`Maximum number of project feature flags (${MAX_FLAGS_PER_PROJECT}) exceeded`);
  if (errors.length) throw apiError(400, [...new Set(errors)]);
  return inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    const iid = (svc.db.prepare('SELECT coalesce(max(iid), 0) + 1 AS n FROM feature_flags WHERE project_id = ?').get(project.id) as { n: number }).n;
    const info = svc.db
      .prepare('INSERT INTO feature_flags (project_id, iid, name, description, active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(project.id, iid, input.name, input.description ?? null, input.active === false ? 0 : 1, now, now);
    const flagId = Number(info.lastInsertRowid);
    for (const d of drafts) insertStrategy(svc, flagId, d);
    const messages = [`Created feature flag ${input.name} with description "${input.description ?? ''}".`, ...drafts.map(strategyMessage)];
    audit(svc, project, input.name, rc.user?.id ?? null, messages.join(' '));
    return svc.db.prepare('SELECT * FROM feature_flags WHERE id = ?').get(flagId) as FlagRow;
  });
}

function insertStrategy(svc: ServiceContext, flagId: number, d: StrategyDraft): void {
  const info = svc.db
    .prepare('INSERT INTO feature_flag_strategies (feature_flag_id, name, parameters, user_list_id, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(flagId, d.name, JSON.stringify(d.parameters), d.userListId, isoTime(svc.now()));
  const strategyId = Number(info.lastInsertRowid);
  for (const scope of d.scopes) svc.db.prepare('INSERT INTO feature_flag_scopes (strategy_id, environment_scope) VALUES (?, ?)').run(strategyId, scope);
}

export interface FlagUpdate {
  name?: string;
  description?: string | null;
  active?: boolean;
  strategies?: StrategyInput[];
}

/** PUT: strategies without `id` are added, with `id` updated, with `_destroy` removed; same for scopes. */
export function updateFlag(rc: RequestContext, project: Project, flag: FlagRow, input: FlagUpdate): FlagRow {
  const svc = rc.svc;
  const existing = strategiesOf(svc, flag.id);
  type Plan = { row: StrategyRow | null; destroy: boolean; draft: StrategyDraft; scopes: { id?: number; value: string; destroy: boolean }[] };
  const plans: Plan[] = [];
  for (const s of input.strategies ?? []) {
    const row = s.id != null ? existing.find((e) => e.id === s.id) : null;
    if (s.id != null && !row) throw recordNotFound();
    if (s.user_list_id != null) {
      const list = findUserListById(svc, s.user_list_id);
      if (!list || list.project_id !== project.id) throw apiError(404, 'Not Found');
    }
    const currentScopes = row ? scopesOf(svc, row.id) : [];
    const scopes = (s.scopes ?? []).map((sc) => {
      if (sc.id != null && !currentScopes.some((c) => c.id === sc.id)) throw recordNotFound();
      const current = currentScopes.find((c) => c.id === sc.id);
      return { id: sc.id, value: (sc.environment_scope ?? current?.environment_scope ?? '').trim(), destroy: !!sc._destroy };
    });
    const name = s.name ?? row?.name ?? '';
    // Moving away from the user-list strategy drops its list (FeatureFlags::UpdateService).
    const userListId = s.user_list_id !== undefined ? s.user_list_id : isUserListStrategy(name) ? (row?.user_list_id ?? null) : null;
    const keptScopes = [
      ...currentScopes.filter((c) => !scopes.some((sc) => sc.id === c.id)).map((c) => c.environment_scope),
      ...scopes.filter((sc) => !sc.destroy).map((sc) => sc.value),
    ];
    plans.push({
      row: row ?? null,
      destroy: !!s._destroy,
      draft: { name, parameters: s.parameters !== undefined ? s.parameters : row ? (JSON.parse(row.parameters) as unknown) : {}, userListId, scopes: keptScopes },
      scopes,
    });
  }
  const newName = input.name ?? flag.name;
  const description = input.description !== undefined ? input.description : flag.description;
  const errors = validateFlag(svc, project, newName, description, flag.id);
  for (const p of plans) if (!p.destroy) errors.push(...strategyErrors(svc, project, p.draft));
  if (errors.length) throw apiError(400, [...new Set(errors)]);
  return inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    svc.db
      .prepare('UPDATE feature_flags SET name = ?, description = ?, active = ?, updated_at = ? WHERE id = ?')
      .run(newName, description, input.active === undefined ? flag.active : input.active ? 1 : 0, now, flag.id);
    const messages: string[] = [];
    if (newName !== flag.name) messages.push(`Updated feature flag name from "${flag.name}" to "${newName}".`);
    if (description !== flag.description) messages.push(`Updated feature flag description from "${flag.description ?? ''}" to "${description ?? ''}".`);
    if (input.active !== undefined && input.active !== !!flag.active) messages.push(`Updated active from "${!!flag.active}" to "${input.active}".`);
    for (const p of plans) {
      if (p.row && p.destroy) {
        svc.db.prepare('DELETE FROM feature_flag_strategies WHERE id = ?').run(p.row.id);
        messages.push(`Deleted strategy "${p.row.name}".`);
      } else if (p.row) {
        svc.db
          .prepare('UPDATE feature_flag_strategies SET name = ?, parameters = ?, user_list_id = ? WHERE id = ?')
          .run(p.draft.name, JSON.stringify(p.draft.parameters), p.draft.userListId, p.row.id);
        for (const sc of p.scopes) {
          if (sc.id != null && sc.destroy) svc.db.prepare('DELETE FROM feature_flag_scopes WHERE id = ?').run(sc.id);
          else if (sc.id != null) svc.db.prepare('UPDATE feature_flag_scopes SET environment_scope = ? WHERE id = ?').run(sc.value, sc.id);
          else if (!sc.destroy) svc.db.prepare('INSERT INTO feature_flag_scopes (strategy_id, environment_scope) VALUES (?, ?)').run(p.row.id, sc.value);
        }
        messages.push(`Updated strategy "${p.draft.name}".`);
      } else if (!p.destroy) {
        insertStrategy(svc, flag.id, p.draft);
        messages.push(strategyMessage(p.draft));
      }
    }
    audit(svc, project, newName, rc.user?.id ?? null, messages.length ? messages.join(' ') : `Updated feature flag ${newName}.`);
    return svc.db.prepare('SELECT * FROM feature_flags WHERE id = ?').get(flag.id) as FlagRow;
  });
}

export function deleteFlag(rc: RequestContext, project: Project, flag: FlagRow): void {
  inTransaction(rc.svc.db, () => {
    rc.svc.db.prepare('DELETE FROM feature_flags WHERE id = ?').run(flag.id);
    audit(rc.svc, project, flag.name, rc.user?.id ?? null, `Deleted feature flag ${flag.name}.`);
  });
}

// --- user lists ----------------------------------------------------------------------------------

export function listUserLists(svc: ServiceContext, project: Project, search: string | undefined): UserListRow[] {
  if (search) {
    const like = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return svc.db
      .prepare(`SELECT * FROM feature_flag_user_lists WHERE project_id = ? AND name LIKE ? ESCAPE '\\' ORDER BY id`)
      .all(project.id, like) as UserListRow[];
  }
  return svc.db.prepare('SELECT * FROM feature_flag_user_lists WHERE project_id = ? ORDER BY id').all(project.id) as UserListRow[];
}

export function findUserListByIid(svc: ServiceContext, project: Project, iid: string): UserListRow {
  const row = /^\d+$/.test(iid)
    ? (svc.db.prepare('SELECT * FROM feature_flag_user_lists WHERE project_id = ? AND iid = ?').get(project.id, Number(iid)) as UserListRow | undefined)
    : undefined;
  if (!row) throw recordNotFound();
  return row;
}

function userListErrors(svc: ServiceContext, project: Project, name: string, xids: string, exceptId: number | null): string[] {
  const errors: string[] = [];
  if (!name.trim()) errors.push("Name can't be blank");
  if (name.length > 255) errors.push('Name is too long (maximum is 255 characters)');
  const taken = svc.db.prepare('SELECT id FROM feature_flag_user_lists WHERE project_id = ? AND name = ?').get(project.id, name) as
    | { id: number }
    | undefined;
  if (taken && taken.id !== exceptId) errors.push('Name has already been taken');
  if (!validUserXids(xids)) errors.push(`User xids ${xidsMessage('user_xids')}`);
  return errors;
}

export function createUserList(svc: ServiceContext, project: Project, name: string, xids: string): UserListRow {
  const errors = userListErrors(svc, project, name, xids, null);
  if (errors.length) throw apiError(400, errors);
  return inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    const iid = (svc.db.prepare('SELECT coalesce(max(iid), 0) + 1 AS n FROM feature_flag_user_lists WHERE project_id = ?').get(project.id) as { n: number }).n;
    const info = svc.db
      .prepare('INSERT INTO feature_flag_user_lists (project_id, iid, name, user_xids, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(project.id, iid, name, xids, now, now);
    return findUserListById(svc, Number(info.lastInsertRowid))!;
  });
}

export function updateUserList(svc: ServiceContext, project: Project, list: UserListRow, name: string | undefined, xids: string | undefined): UserListRow {
  const newName = name ?? list.name;
  const newXids = xids ?? list.user_xids;
  const errors = userListErrors(svc, project, newName, newXids, list.id);
  if (errors.length) throw apiError(400, errors);
  return inTransaction(svc.db, () => {
    svc.db
      .prepare('UPDATE feature_flag_user_lists SET name = ?, user_xids = ?, updated_at = ? WHERE id = ?')
      .run(newName, newXids, isoTime(svc.now()), list.id);
    return findUserListById(svc, list.id)!;
  });
}

export function deleteUserList(svc: ServiceContext, list: UserListRow): void {
  inTransaction(svc.db, () => {
    const used = svc.db.prepare('SELECT 1 FROM feature_flag_strategies WHERE user_list_id = ? LIMIT 1').get(list.id);
    if (used) throw apiError(409, ['User list is associated with a strategy']);
    svc.db.prepare('DELETE FROM feature_flag_user_lists WHERE id = ?').run(list.id);
  });
}
