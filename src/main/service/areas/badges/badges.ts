import type { ServiceContext } from '../../context';
import { cachedLookup, inTransaction } from '../../db/connection';
import { validationError } from '../../http/errors';
import { type Namespace, ancestorsOf, findNamespaceById } from '../core/namespaces';
import type { Project } from '../core/projects';
import { isoTime } from '../core/time';
import { addressableUrlErrors } from '../../http/validators';

export interface BadgeRow {
  id: number;
  kind: 'project' | 'group';
  project_id: number | null;
  group_id: number | null;
  name: string | null;
  link_url: string;
  image_url: string;
  created_at: string;
  updated_at: string;
}

/** Where a badge is shown: the server's host names fill the server placeholders. */
export interface RenderContext {
  project: Project | null;
  /** The host the client reached us at (`%{platform_server}` / `%{gitlab_server}`). */
  serverHost: string;
  /** From the project's repository: its default branch's head and its latest tag (null when none). */
  commitSha: string | null;
  latestTag: string | null;
}

type Placeholder = (p: Project, ctx: RenderContext, svc: ServiceContext) => string | number | null;

const namespaceOf = (svc: ServiceContext, p: Project): Namespace | undefined => findNamespaceById(svc, p.namespace_id);

/** Top-level group of the project's namespace, when it lives in a group. */
function topGroup(svc: ServiceContext, p: Project): Namespace | null {
  const ns = namespaceOf(svc, p);
  if (!ns || ns.kind !== 'group') return null;
  const anc = ancestorsOf(svc, ns);
  return anc.length ? anc[anc.length - 1] : ns;
}

/**
 * Badge placeholders (app/models/badge.rb), with the reference's neutral names beside GitLab's.
 * `%{commit_sha}` and `%{latest_tag}` come from the repository and render empty where it has no
 * commit or tag, as GitLab renders them for an empty repository.
 */
const PLACEHOLDERS: Record<string, Placeholder> = {
  project_path: (p, _c, svc) => `${namespaceOf(svc, p)?.full_path ?? ''}/${p.path}`,
  project_title: (p) => p.name,
  project_name: (p) => p.path,
  project_id: (p) => p.id,
  project_namespace: (p, _c, svc) => namespaceOf(svc, p)?.full_path ?? '',
  group_name: (p, _c, svc) => topGroup(svc, p)?.name ?? '',
  platform_server: (_p, c) => c.serverHost,
  gitlab_server: (_p, c) => c.serverHost,
  platform_pages_domain: (_p, c) => c.serverHost,
  gitlab_pages_domain: (_p, c) => c.serverHost,
  default_branch: (p) => p.default_branch,
  commit_sha: (_p, c) => c.commitSha,
  latest_tag: (_p, c) => c.latestTag,
};

const PLACEHOLDER_PATTERN = new RegExp(`%\\{(${Object.keys(PLACEHOLDERS).join('|')})\\}`, 'g');

/**
 * Replaces the known placeholders for the project; unknown ones stay verbatim. No project, no
 * rendering. Inserted values are URI-escaped (a title's spaces become `%20`), as GitLab escapes
 * the rendered URL.
 */
export function renderUrl(svc: ServiceContext, url: string, ctx: RenderContext): string {
  const project = ctx.project;
  if (!project) return url;
  return url.replace(PLACEHOLDER_PATTERN, (_m, key: string) => encodeURI(String(PLACEHOLDERS[key](project, ctx, svc) ?? '')));
}

/** `addressable_url: true` with the placeholders standing for any value. */
const urlErrors = (value: string): string[] => addressableUrlErrors(value.replace(/%\{[a-z_]+\}/g, 'x'));

export interface BadgeInput {
  link_url: string;
  image_url: string;
  name?: string | null;
}

/** Trims both URLs and answers 400 `{"message":{"link_url":[...],"image_url":[...]}}` when invalid. */
export function validateBadge(input: BadgeInput): BadgeInput {
  const out = { ...input, link_url: input.link_url.trim(), image_url: input.image_url.trim() };
  const errors: Record<string, string[]> = {};
  for (const field of ['link_url', 'image_url'] as const) {
    const e = urlErrors(out[field]);
    if (e.length) errors[field] = e;
  }
  if (Object.keys(errors).length) throw validationError(errors);
  return out;
}

export function findBadge(svc: ServiceContext, id: number): BadgeRow | undefined {
  return svc.db.prepare('SELECT * FROM badges WHERE id = ?').get(id) as BadgeRow | undefined;
}

/** Which badges a source shows, as SQL over `badges`, and the statement reading one of them by id. */
export interface BadgeScope {
  sql: string;
  args: readonly unknown[];
  /** `SELECT * FROM badges WHERE id = ? AND <sql>`: the id, then `args`. */
  byIdSql: string;
}

/**
 * A project's badges: its own and those of every group above it (Project#badges). Remembered until
 * the next write (a move or a new parent group is one): every badge request reads it, and SQL text
 * built per request was flattened and hashed again by the statement cache (~8% of a badge read).
 */
export function projectBadgesSql(svc: ServiceContext, p: Project): BadgeScope {
  return cachedLookup(svc.db, 'project-badge-scope', p.id, () => {
    const ns = findNamespaceById(svc, p.namespace_id);
    const groupIds = ns && ns.kind === 'group' ? [ns.id, ...ancestorsOf(svc, ns).map((a) => a.id)] : [];
    const groupSql = groupIds.length ? ` OR (kind = 'group' AND group_id IN (${groupIds.map(() => '?').join(',')}))` : '';
    return badgeScope(`((kind = 'project' AND project_id = ?)${groupSql})`, Object.freeze([p.id, ...groupIds]));
  })!;
}

/** A group's own badges. */
export const groupBadgesScope = (groupId: number): BadgeScope => badgeScope(GROUP_BADGES_SQL, [groupId]);

const GROUP_BADGES_SQL = "(kind = 'group' AND group_id = ?)";

const badgeScope = (sql: string, args: readonly unknown[]): BadgeScope => ({ sql, args, byIdSql: `SELECT * FROM badges WHERE id = ? AND ${sql}` });

export function createBadge(svc: ServiceContext, owner: { projectId: number } | { groupId: number }, input: BadgeInput): BadgeRow {
  const now = isoTime(svc.now());
  return inTransaction(svc.db, () => {
    const info = svc.db
      .prepare('INSERT INTO badges (kind, project_id, group_id, name, link_url, image_url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(
        'projectId' in owner ? 'project' : 'group',
        'projectId' in owner ? owner.projectId : null,
        'groupId' in owner ? owner.groupId : null,
        input.name ?? null,
        input.link_url,
        input.image_url,
        now,
        now,
      );
    return findBadge(svc, Number(info.lastInsertRowid))!;
  });
}

export function updateBadge(svc: ServiceContext, b: BadgeRow, input: BadgeInput): BadgeRow {
  svc.db
    .prepare('UPDATE badges SET name = ?, link_url = ?, image_url = ?, updated_at = ? WHERE id = ?')
    .run(input.name === undefined ? b.name : input.name, input.link_url, input.image_url, isoTime(svc.now()), b.id);
  return findBadge(svc, b.id)!;
}

export function deleteBadge(svc: ServiceContext, b: BadgeRow): void {
  svc.db.prepare('DELETE FROM badges WHERE id = ?').run(b.id);
}
