import type { RequestContext, Router } from '../../../http/route';
import { declared, requireMutuallyExclusive, t } from '../../../http/params';
import { ApiError, forbidden, grapeError, notFound, recordNotFound } from '../../../http/errors';
import { type SqlList, fewRowsByIds, limitSql, paginateSql } from '../../../http/pagination';
import { indexVersion, rareTermCandidates } from '../../../db/trigram';
import { addFilter } from '../../../db/filter';
import { inTransaction } from '../../../db/connection';
import { Access, MEMBER_ACCESS_LEVELS } from '../access';
import { member, members, userBasicById } from '../entities';
import {
  addMember,
  inheritedMember,
  inheritedPicks,
  listedThroughPicks,
  memberListSql,
  withShareLevels,
  checkGrant,
  directMember,
  directMembers,
  findMemberOr404,
  type MemberSource,
  loadSource,
  manageMembersLevel,
  removeMember,
  sourceAccess,
  updateMember,
} from '../members';
import { findUserByIdOrUsername, findUserByUsername } from '../users';
import type { MemberRow } from '../entities';
import { findNamespaceById } from '../namespaces';
import { likeEscape } from './users';
import { checkUnmodifiedSince } from '../../../http/conditional';

const AT_LEAST_USER = 'user_id, username are missing, at least one parameter must be provided';

/** /groups/:id/members and /projects/:id/members. */
export function registerMemberRoutes(r: Router): void {
  for (const kind of ['groups', 'projects'] as const) {
    const base = `/${kind}/:id/members`;

    // API::Members runs `before { authenticate! }`: even public sources need a signed-in caller.
    r.get(base, (rc) => listMembers(rc, kind, false));
    r.get(`${base}/all`, (rc) => listMembers(rc, kind, true));
    // API::Projects (no authenticate!): anonymous callers read a public project's users.
    if (kind === 'projects') r.get('/projects/:id/users', listProjectUsers, { auth: 'optional' });

    r.get(`${base}/all/:user_id`, (rc) => {
      const source = loadSource(rc, kind);
      const uid = Number(rc.path.user_id);
      const m = inheritedMember(rc.svc, source, uid);
      if (!m) throw recordNotFound(); // members.find_by!(user_id:)
      return member(rc, m);
    });

    r.get(`${base}/:user_id`, (rc) => {
      const source = loadSource(rc, kind);
      return member(rc, findMemberOr404(rc, source, Number(rc.path.user_id)));
    });

    r.post(base, (rc) => {
      const source = loadSource(rc, kind);
      // Grape: `requires :access_level; optional :user_id; optional :username; mutually_exclusive; at_least_one_of`.
      const neither = rc.params.user_id === undefined && rc.params.username === undefined;
      let p;
      try {
        p = declared(rc.params, {
          access_level: t.integer().required().values(kind === 'projects' ? MEMBER_ACCESS_LEVELS.filter((l) => l >= 10) : MEMBER_ACCESS_LEVELS),
          user_id: t.string(),
          username: t.string(),
          expires_at: t.date(),
          member_role_id: t.integer(),
        });
      } catch (e) {
        const error = e instanceof ApiError ? e.body?.error : undefined;
        if (neither && typeof error === 'string') throw grapeError(400, `${error}, ${AT_LEAST_USER}`);
        throw e;
      }
      requireMutuallyExclusive(rc.params, ['user_id', 'username']);
      if (neither) throw grapeError(400, AT_LEAST_USER);
      if (sourceAccess(rc, source) < manageMembersLevel(source)) throw forbidden();
      const refs = (p.user_id ?? p.username ?? '').split(',').map((s) => s.trim()).filter(Boolean);
      const users = refs.map((ref) => (p.username !== undefined ? findUserByUsername(rc.svc, ref) : findUserByIdOrUsername(rc.svc, ref)));
      if (users.length === 0 || users.some((u) => !u)) throw notFound('User');
      const change = { accessLevel: p.access_level, expiresAt: p.expires_at ?? null, memberRoleId: p.member_role_id ?? null };
      // Several ids or usernames go through Members::CreateService, which answers `{"status":"success"}`
      // and updates the access of those who are already members.
      if ((p.user_id ?? p.username ?? '').includes(',')) {
        inTransaction(rc.svc.db, () => {
          for (const u of users) {
            checkGrant(rc, source, u!.id, change);
            const existing = directMember(rc.svc, source, u!.id);
            if (existing) updateMember(rc, existing, change);
            else addMember(rc, source, u!.id, change);
          }
        });
        return { status: 'success' };
      }
      const row = inTransaction(rc.svc.db, () => {
        checkGrant(rc, source, users[0]!.id, change);
        return addMember(rc, source, users[0]!.id, change);
      });
      return member(rc, row);
    });

    r.put(`${base}/:user_id`, (rc) => {
      const source = loadSource(rc, kind);
      const p = declared(rc.params, {
        access_level: t.integer().required().values(MEMBER_ACCESS_LEVELS),
        expires_at: t.date(),
        member_role_id: t.integer(),
      });
      if (sourceAccess(rc, source) < manageMembersLevel(source)) throw forbidden();
      const m = findMemberOr404(rc, source, Number(rc.path.user_id));
      if (m.access_level === Access.OWNER && sourceAccess(rc, source) < Access.OWNER) throw forbidden();
      if (protectedMembership(rc, source, m)) throw forbidden();
      checkGrant(rc, source, m.user_id!, { accessLevel: p.access_level, expiresAt: p.expires_at });
      const updated = inTransaction(rc.svc.db, () =>
        updateMember(rc, m, { accessLevel: p.access_level, expiresAt: p.expires_at, memberRoleId: p.member_role_id }),
      );
      return member(rc, updated);
    });

    r.delete(`${base}/:user_id`, (rc) => {
      const source = loadSource(rc, kind);
      const me = rc.requireUser();
      const m = findMemberOr404(rc, source, Number(rc.path.user_id));
      checkUnmodifiedSince(rc, m.updated_at);
      if (protectedMembership(rc, source, m)) throw forbidden();
      // Members may leave on their own; removing others needs the manage level.
      if (m.user_id !== me.id && sourceAccess(rc, source) < manageMembersLevel(source)) throw forbidden();
      if (m.access_level === Access.OWNER && m.user_id !== me.id && sourceAccess(rc, source) < Access.OWNER) throw forbidden();
      inTransaction(rc.svc.db, () => removeMember(rc, source, m));
      return undefined;
    });
  }
}

/**
 * Memberships nobody may update or remove: the last Owner of a top-level group (GroupMemberPolicy
 * `last_owner`) and the personal-namespace holder on their own project (ProjectMemberPolicy
 * `target_is_holder_of_the_personal_namespace`).
 */
function protectedMembership(rc: RequestContext, source: MemberSource, m: MemberRow): boolean {
  if (source.type === 'Project') {
    const ns = findNamespaceById(rc.svc, source.project!.namespace_id);
    return ns?.kind === 'user' && ns.owner_id === m.user_id;
  }
  if (m.access_level !== Access.OWNER || source.group?.parent_id) return false;
  const owners = directMembers(rc.svc, source).filter((x) => x.access_level === Access.OWNER && x.user_id !== null);
  return owners.length <= 1;
}

/** Past this many candidates a query's members are found walking the list (a probe per candidate costs more). */
const MEMBER_QUERY_CANDIDATES = 1000;

/**
 * The users a members `query` can match, as a condition on m.user_id, when few: those whose
 * username or name the trigram index (core/033) finds the needle in (it folds ASCII case as
 * js_lower does; every user it may fold otherwise has other characters), those whose e-mail is
 * the needle, and every user with a text not printable ASCII (core/060). The list's own filter
 * still decides each of them, so the answer is the walk's; the list reads these users' members
 * instead of every member (a group of 2,000 walked them all to count a query's 111).
 */
function memberQueryCandidates(rc: RequestContext, needle: string): { sql: string; args: unknown[] } | null {
  const db = rc.svc.db;
  const indexed = rareTermCandidates(db, 'users_search', 'id', needle, ['username', 'name'], indexVersion(db, 'users_search'));
  if (!indexed) return null;
  const found = db
    .prepare(
      `SELECT count(*) AS n, json_group_array(id) AS ids FROM (
        SELECT id FROM users WHERE ${indexed.sql}
        UNION SELECT id FROM users WHERE lower(email) = ?
        UNION SELECT id FROM users WHERE (coalesce(username, '') || coalesce(name, '') || coalesce(email, '')) GLOB '*[^ -~]*'
        ${limitSql(MEMBER_QUERY_CANDIDATES + 1)})`,
    )
    .get(...indexed.args, needle) as { n: number; ids: string };
  if (found.n > MEMBER_QUERY_CANDIDATES) return null;
  return { sql: 'm.user_id IN (SELECT value FROM json_each(?))', args: [found.ids] };
}

function listMembers(rc: RequestContext, kind: 'groups' | 'projects', inherited: boolean) {
  const source = loadSource(rc, kind);
  const q = declared(rc.params, { query: t.string(), user_ids: t.array(t.integer()), skip_users: t.array(t.integer()), state: t.string() });
  const { page, throughPicks } = memberPage(rc, source, inherited, q);
  // Members reached through a share show the level it gives them (core/172).
  return members(rc, throughPicks ? withShareLevels(inheritedPicks(rc.svc, source), page) : page);
}

/**
 * GET /projects/:id/users (API::Projects): the project's team as UserBasic, each user once by
 * user id, with `search` (a user's username or name holding it, or their e-mail being it) and
 * `skip_users`. The team is members/all's list: direct members, members of the groups above, and
 * those reached through shares; its filters and pages are the same code.
 */
export function listProjectUsers(rc: RequestContext) {
  const source = loadSource(rc, 'projects');
  const q = declared(rc.params, { search: t.string(), skip_users: t.commaIntegers() });
  const { page } = memberPage(rc, source, true, { query: q.search, skip_users: q.skip_users });
  return page.map((m) => userBasicById(rc, m.user_id));
}

/** One page of a source's members (members/all when `inherited`), filtered as the members lists filter. */
function memberPage(rc: RequestContext, source: MemberSource, inherited: boolean, q: { query?: string | null; user_ids?: number[] | null; skip_users?: number[] | null }) {
  const { from, args, order } = memberListSql(rc.svc, source, inherited);
  const where: string[] = [];
  let sorted = order;
  let fewRows = false;
  if (q.user_ids?.length) addFilter(where, args, `m.user_id IN (${q.user_ids.map(() => '?').join(',')})`, ...q.user_ids);
  if (q.skip_users?.length) addFilter(where, args, `m.user_id NOT IN (${q.skip_users.map(() => '?').join(',')})`, ...q.skip_users);
  if (q.query) {
    // JavaScript's toLowerCase (js_lower, not SQLite's ASCII-only lower), so matches stay what they were.
    const needle = likeEscape(q.query).replace(/\\/g, '').toLowerCase();
    const few = memberQueryCandidates(rc, needle);
    if (few) {
      addFilter(where, args, few.sql, ...few.args);
      fewRows = true;
      // `+`: each candidate's membership read by (source, user) and the few sorted, not the whole list walked in order.
      sorted = `+${order}`;
    }
    // A call into JavaScript per member and column cost ~2 us each (4 ms over 2,000 members): a
    // member whose texts are all printable ASCII is first tried with SQLite's LIKE, which folds
    // ASCII case as js_lower does there, so it passes every such member js_lower would match;
    // js_lower still decides each one that passes, and every member with any other character.
    addFilter(
      where,
      args,
      `EXISTS (SELECT 1 FROM users u WHERE u.id = m.user_id
        AND (u.username LIKE ? ESCAPE '\\' OR u.name LIKE ? ESCAPE '\\' OR u.email LIKE ? ESCAPE '\\'
          OR (coalesce(u.username, '') || coalesce(u.name, '') || coalesce(u.email, '')) GLOB '*[^ -~]*')
        AND (instr(js_lower(u.username), ?) > 0 OR instr(js_lower(u.name), ?) > 0 OR js_lower(u.email) = ?))`,
      `%${likeEscape(needle)}%`,
      `%${likeEscape(needle)}%`,
      likeEscape(needle),
      needle,
      needle,
      needle,
    );
  }
  const filtered = where.length ? `${from} AND ${where.join(' AND ')}` : from;
  const list: SqlList<MemberRow> = { select: 'm.*', from: filtered, args, order: sorted };
  const throughPicks = inherited && listedThroughPicks(rc.svc, source);
  if (throughPicks && !where.length) {
    // The remembered picks in order: a page reads its own rows by id, the total is their number.
    const picks = inheritedPicks(rc.svc, source);
    list.countFrom = { total: () => picks.ids.length };
    list.rows = (limit, offset) => {
      const ids = picks.ids.slice(offset, offset + limit);
      const byId = new Map(
        (rc.svc.db.prepare('SELECT * FROM members WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as MemberRow[]).map((m) => [m.id, m]),
      );
      return ids.map((id) => byId.get(id)!);
    };
  }
  // The source's own members (a direct list, or members/all of a top-level group): core/061
  // counts them and moves a version on each write to them.
  if (!throughPicks) {
    const db = rc.svc.db;
    const counts = () =>
      db.prepare('SELECT n, version FROM member_list_counts WHERE source_type = ? AND source_id = ?').get(source.type, source.id) as
        | { n: number; version: number }
        | undefined;
    if (!where.length) list.countFrom = { total: () => counts()?.n ?? 0 };
    // Rows of members alone (a query reads users' texts too): deep pages start after a row read before.
    if (!q.query) {
      const column = inherited ? 'm.user_id' : 'm.id';
      list.anchors = {
        key: JSON.stringify(['members', filtered, args, sorted]),
        version: () => counts()?.version ?? 0,
        column,
        idColumn: column,
        sort: 'asc',
        value: (m) => (inherited ? m.user_id! : m.id),
        id: (m) => (inherited ? m.user_id! : m.id),
      };
    }
  }
  // Few candidates: their matches' ids read once in order, counted and paged from there (not read twice, to count and to page).
  const page = paginateSql<MemberRow>(rc, rc.svc.db, fewRows ? fewRowsByIds(rc.svc.db, list, 'members m', 'm.id') : list);
  return { page, throughPicks };
}
