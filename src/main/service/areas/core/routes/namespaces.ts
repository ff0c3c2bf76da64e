import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { notFound } from '../../../http/errors';
import { paginate, limitSql } from '../../../http/pagination';
import { addFilter } from '../../../db/filter';
import { ACTIVE_MEMBER_SQL, Access, effectiveGroupAccess } from '../access';
import { namespaceDetail } from '../entities';
import { type Namespace, findNamespaceByRef } from '../namespaces';
import { today } from '../time';
import { likeEscape } from './users';

/** GitLab's fuzzy_search: shorter queries than this match whole values only. */
const MIN_CHARS_FOR_PARTIAL_MATCHING = 3;

/** /namespaces (lib/api/namespaces.rb): every route needs a signed-in caller. */
export function registerNamespaceRoutes(r: Router): void {
  r.get('/namespaces', (rc) => {
    const user = rc.requireUser();
    const q = declared(rc.params, {
      search: t.string(),
      owned_only: t.boolean(),
      top_level_only: t.boolean().default(false),
      full_path_search: t.boolean().default(false),
    });
    const where: string[] = [];
    const args: unknown[] = [];
    if (!user.admin) {
      // User#namespaces: the personal namespace and the groups joined directly (Guest and up; owned_only: Owner).
      addFilter(
        where,
        args,
        `((n.kind = 'user' AND n.owner_id = ?) OR (n.kind = 'group' AND n.id IN (
           SELECT m.source_id FROM members m WHERE m.source_type = 'Namespace' AND m.user_id = ? AND m.access_level >= ? AND ${ACTIVE_MEMBER_SQL})))`,
        user.id,
        user.id,
        q.owned_only ? Access.OWNER : Access.GUEST,
        today(rc.svc),
      );
    }
    if (q.top_level_only) where.push('n.parent_id IS NULL');
    if (q.search) {
      const columns = q.full_path_search ? ['n.full_path', fullNameSql] : ['n.path', 'n.name'];
      const partial = q.search.length >= MIN_CHARS_FOR_PARTIAL_MATCHING;
      const value = partial ? `%${likeEscape(q.search)}%` : likeEscape(q.search);
      addFilter(where, args, `(${columns.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`, ...columns.map(() => value));
    }
    const sql = `FROM namespaces n ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
    return paginate(rc, {
      count: () => (rc.svc.db.prepare(`SELECT count(*) AS n ${sql}`).get(...args) as { n: number }).n,
      rows: (limit, offset) => rc.svc.db.prepare(`SELECT n.* ${sql} ORDER BY n.id ${limitSql(limit)} OFFSET ?`).all(...args, offset) as Namespace[],
    }).map((ns) => namespaceDetail(rc, ns));
  });

  r.get('/namespaces/:id', (rc) => namespaceDetail(rc, loadNamespace(rc)));

  r.get('/namespaces/:id/exists', (rc) => {
    rc.requireUser();
    const q = declared(rc.params, { parent_id: t.integer() });
    const path = rc.path.id;
    const siblings = q.parent_id == null ? 'parent_id IS NULL' : 'parent_id = ?';
    const siblingArgs = q.parent_id == null ? [] : [q.parent_id];
    const exists = !!rc.svc.db.prepare(`SELECT 1 FROM namespaces WHERE ${siblings} AND lower(path) = lower(?)`).get(...siblingArgs, path);
    // Namespace.clean_path: the slug, then slug1, slug2, ... until no sibling has it as path or name.
    const taken = (s: string) =>
      !!rc.svc.db.prepare(`SELECT 1 FROM namespaces WHERE ${siblings} AND (lower(path) = lower(?) OR lower(name) = lower(?))`).get(...siblingArgs, s, s);
    const suggests: string[] = [];
    if (exists) {
      const slug = pathSlug(path);
      let n = 0;
      let candidate = slug;
      while (taken(candidate)) candidate = `${slug}${++n}`;
      suggests.push(candidate);
    }
    return { exists, suggests };
  });
}

/** The full name of `n` (`Group / Subgroup`), for full_path_search. */
const fullNameSql = `(WITH RECURSIVE anc(id, parent_id, name, depth) AS (
    SELECT id, parent_id, name, 0 FROM namespaces WHERE id = n.id
    UNION ALL SELECT p.id, p.parent_id, p.name, anc.depth + 1 FROM namespaces p JOIN anc ON p.id = anc.parent_id)
  SELECT group_concat(name, ' / ') FROM (SELECT name FROM anc ORDER BY depth DESC))`;

/**
 * find_namespace! then check_namespace_access: a personal namespace is its owner's, a group
 * anyone's with a membership there or above (read_namespace_via_membership); admins see all.
 */
function loadNamespace(rc: RequestContext): Namespace {
  const user = rc.requireUser();
  const ns = findNamespaceByRef(rc.svc, rc.path.id);
  const visible =
    !!ns &&
    (user.admin || (ns.kind === 'user' ? ns.owner_id === user.id : effectiveGroupAccess(rc.svc, user, ns) > Access.NO_ACCESS));
  if (!visible) throw notFound('Namespace');
  return ns;
}

/** Gitlab::Slug::Path: characters a path may not hold become '-', and the ends are trimmed. */
function pathSlug(value: string): string {
  return value
    .replace(/[^a-zA-Z0-9_.-]+/g, '-')
    .replace(/^[-_.]+|[-_.]+$/g, '')
    .replace(/\.(git|atom)$/i, '');
}
