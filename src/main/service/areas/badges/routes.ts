import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { grapeError, recordNotFound } from '../../http/errors';
import { paginateSql } from '../../http/pagination';
import { Access, loadGroup, loadProject, visibleProjectsSql } from '../core/access';
import type { Namespace } from '../core/namespaces';
import type { Project } from '../core/projects';
import {
  type BadgeRow,
  type BadgeScope,
  type RenderContext,
  createBadge,
  deleteBadge,
  groupBadgesScope,
  projectBadgesSql,
  updateBadge,
  validateBadge,
} from './badges';
import { badge, basicBadgeDetails, rememberedBadge } from './entities';
import { serverOf } from '../core/entities';
import { repositoryBadgeFacts } from '../repositories/tag_order';
import { checkUnmodifiedSince } from '../../http/conditional';

/** A badge source: a project, or a group (whose badges render for its first visible project). */
interface Source {
  kind: 'project' | 'group';
  id: number;
  /** The source's badges. */
  scope: BadgeScope;
  /** The project badges render for (null: verbatim). */
  project: Project | null;
}

const serverHost = (rc: RequestContext): string => serverOf(rc.baseUrl).hostname;

/** Placeholders whose values come from the repository (a git call each). */
const REPOSITORY_PLACEHOLDER = /%\{(commit_sha|latest_tag)\}/;

/**
 * How `badges` render for the source's project. The repository is read only when one of their
 * URLs names `%{commit_sha}` or `%{latest_tag}`: GitLab evaluates each placeholder lazily too,
 * and the git calls would otherwise cost every badge read milliseconds.
 */
function renderContext(rc: RequestContext, source: Source, badges: Pick<BadgeRow, 'link_url' | 'image_url'>[]): RenderContext | Promise<RenderContext> {
  const project = source.project;
  const needsRepository = project && badges.some((b) => REPOSITORY_PLACEHOLDER.test(b.link_url) || REPOSITORY_PLACEHOLDER.test(b.image_url));
  if (!needsRepository) return { project, serverHost: serverHost(rc), commitSha: null, latestTag: null };
  return repositoryBadgeFacts(rc.svc, project).then((facts) => ({ project, serverHost: serverHost(rc), ...facts }));
}

/**
 * A badge as shown on the source: remembered when the repository is not read (no pass through the
 * event loop between reading the row and rendering it), rendered afresh after the repository's answer.
 */
function renderBadge(rc: RequestContext, source: Source, b: BadgeRow): Record<string, unknown> | Promise<Record<string, unknown>> {
  const ctx = renderContext(rc, source, [b]);
  return ctx instanceof Promise ? ctx.then((c) => badge(rc.svc, b, c)) : rememberedBadge(rc.svc, b, ctx);
}

function projectSource(rc: RequestContext, p: Project): Source {
  return { kind: 'project', id: p.id, scope: projectBadgesSql(rc.svc, p), project: p };
}

/** GroupProjectsFinder(...).execute.first: the newest project of the group the caller can see. */
function groupSource(rc: RequestContext, g: Namespace): Source {
  const vis = visibleProjectsSql(rc.svc, rc.user);
  const first = rc.svc.db
    .prepare(`SELECT * FROM projects p WHERE p.namespace_id = ? AND ${vis.sql} ORDER BY p.id DESC LIMIT 1`)
    .get(g.id, ...vis.args) as Project | undefined;
  return { kind: 'group', id: g.id, scope: groupBadgesScope(g.id), project: first ?? null };
}

function loadSource(rc: RequestContext, kind: 'projects' | 'groups', minLevel: number = Access.NO_ACCESS): Source {
  return kind === 'projects' ? projectSource(rc, loadProject(rc, minLevel)) : groupSource(rc, loadGroup(rc, minLevel));
}

/** Writes and previews: signed in (401) and Maintainer of the source (403). */
function loadSourceForWrite(rc: RequestContext, kind: 'projects' | 'groups'): Source {
  rc.requireUser();
  return loadSource(rc, kind, Access.MAINTAINER);
}

/**
 * `source.badges.find(params[:badge_id])`: GET and DELETE declare `badge_id` an Integer (400 when
 * it is not); PUT declares nothing, so any unknown id is the record's 404.
 */
function loadBadge(rc: RequestContext, source: Source, declaredInteger = true): BadgeRow {
  const isInteger = /^\d+$/.test(rc.path.badge_id);
  if (!isInteger && declaredInteger) throw grapeError(400, 'badge_id is invalid');
  if (!isInteger) throw recordNotFound();
  const row = rc.svc.db.prepare(source.scope.byIdSql).get(Number(rc.path.badge_id), ...source.scope.args) as
    | BadgeRow
    | undefined;
  if (!row) throw recordNotFound();
  return row;
}

/**
 * Group badges shown on a project are deleted through their group only. (An update through the
 * project goes through: GitLab's PUT finds the badge among the project's and has no such check.)
 */
function requireOwnBadge(source: Source, b: BadgeRow): void {
  if (source.kind === 'project' && b.kind === 'group') throw grapeError(403, 'To delete a Group badge please use the Group endpoint');
}

export function registerBadgeRoutes(r: Router): void {
  for (const kind of ['projects', 'groups'] as const) {
    const base = `/${kind}/:id/badges`;

    r.get(
      base,
      async (rc) => {
        const source = loadSource(rc, kind);
        const q = declared(rc.params, { name: t.string() });
        const where = [source.scope.sql];
        const args = [...source.scope.args];
        if (q.name !== undefined && q.name !== null) {
          where.push('name = ?');
          args.push(q.name);
        }
        const sql = `FROM badges WHERE ${where.join(' AND ')}`;
        const page = paginateSql<BadgeRow>(rc, rc.svc.db, { select: '*', from: sql, args, order: 'id' });
        const render = await renderContext(rc, source, page);
        return page.map((b) => badge(rc.svc, b, render));
      },
      { auth: 'optional' },
    );

    r.get(`${base}/render`, async (rc) => {
      const source = loadSourceForWrite(rc, kind);
      const p = declared(rc.params, { link_url: t.string().required(), image_url: t.string().required() });
      const input = validateBadge({ link_url: p.link_url, image_url: p.image_url });
      return basicBadgeDetails(rc.svc, { name: null, ...input }, await renderContext(rc, source, [input]));
    });

    r.get(`${base}/:badge_id`, (rc) => {
      const source = loadSource(rc, kind);
      return renderBadge(rc, source, loadBadge(rc, source));
    }, { auth: 'optional' });

    r.post(base, async (rc) => {
      const source = loadSourceForWrite(rc, kind);
      const p = declared(rc.params, { link_url: t.string().required(), image_url: t.string().required(), name: t.string() });
      const input = validateBadge({ link_url: p.link_url, image_url: p.image_url, name: p.name });
      const owner = source.kind === 'project' ? { projectId: source.id } : { groupId: source.id };
      return renderBadge(rc, source, createBadge(rc.svc, owner, input));
    });

    r.put(`${base}/:badge_id`, async (rc) => {
      const source = loadSourceForWrite(rc, kind);
      const current = loadBadge(rc, source, false);
      const p = declared(rc.params, { link_url: t.string(), image_url: t.string(), name: t.string() });
      const input = validateBadge({
        link_url: p.link_url ?? current.link_url,
        image_url: p.image_url ?? current.image_url,
        name: p.name,
      });
      return renderBadge(rc, source, updateBadge(rc.svc, current, input));
    });

    r.delete(`${base}/:badge_id`, async (rc) => {
      const source = loadSourceForWrite(rc, kind);
      const current = loadBadge(rc, source);
      requireOwnBadge(source, current);
      checkUnmodifiedSince(rc, current.updated_at);
      deleteBadge(rc.svc, current);
      return undefined;
    });
  }
}
