import { type FeatureType, featureAvailable, featureHiddenSql, issuablesHiddenProjectIds } from '../feature-access';
import { RequestContext, type Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { COUNT_LIMIT, type SqlList, countUpTo, fewRowsByIds, paginateArray, paginateSql } from '../../../http/pagination';
import { addFilter } from '../../../db/filter';
import { selfAndDescendantIds } from '../namespaces';
import type { Project } from '../projects';
import { Access, effectiveProjectAccess, loadGroup, loadProject, memberProjectsSql, visibleProjectsSql } from '../access';
import { type EntityContext, type NoteRow, milestone, note, userBasic } from '../entities';
import type { MilestoneRow } from '../milestones';
import type { User } from '../users';
import { isMemberSql, loadSource } from '../members';
import { likeEscape } from './users';
import { listIssues } from './issues';
import { listMergeRequests } from './merge_requests';
import { listProjects } from './projects';
import { MATCH_COUNT_SLACK, type Scope, groupScope, projectScope, rememberedMatchCount, visibleScope } from '../workitems';
import type { SnippetRow } from '../../snippets/snippets';
import { snippets } from '../../snippets/entities';
import { loadRepository } from '../../repositories/access';
import { commitDetail } from '../../repositories/entities';
import { commitsById } from '../../repositories/lookup';

/**
 * The search API (GitLab's basic search, lib/api/search.rb): one term over the records of a scope,
 * instance-wide, in a group, or in a project, each answered with the entity its own list uses.
 * Signed-in callers only (`authenticate!`), as GitLab.
 */
type Level = 'global' | 'group' | 'project';

const SCOPES: Record<Level, readonly string[]> = {
  global: ['projects', 'issues', 'merge_requests', 'milestones', 'snippet_titles', 'users'],
  group: ['projects', 'issues', 'merge_requests', 'milestones', 'users'],
  project: ['issues', 'merge_requests', 'milestones', 'notes', 'wiki_blobs', 'commits', 'blobs', 'users'],
};

/** Where the search looks: the projects (and groups) of the level the caller can see. */
interface Where {
  level: Level;
  /** SQL over `p` (projects) for the projects searched. */
  projects: { sql: string; args: unknown[] };
  /**
   * The same projects' issues and merge requests as their own lists scope them (the project's,
   * the group's, every visible project's), so a search reads them as those lists do: by the
   * project's range of the full-text index, or walking the list order against it.
   */
  records: (type: FeatureType) => Scope;
  groupIds: number[];
  project: Project | null;
}

/** A context whose parameters are only the search's own, as the scope's list reads them. */
function subRequest(rc: RequestContext, params: Record<string, unknown>): RequestContext {
  const keep = Object.fromEntries(['page', 'per_page'].filter((k) => rc.params[k] !== undefined).map((k) => [k, rc.params[k]]));
  return new RequestContext(rc.svc, rc.req, rc.reply, { ...keep, ...params } as RequestContext['params'], rc.path, rc.queryPairs, rc.auth);
}

const like = (term: string): string => `%${likeEscape(term.toLowerCase())}%`;

export function registerSearchRoutes(r: Router): void {
  r.get('/search', (rc) => search(rc, { level: 'global', projects: visibleProjectsSql(rc.svc, rc.user), records: (type) => visibleScope(rc, false, type), groupIds: [], project: null }));

  r.get(
    '/groups/:id/search',
    (rc) => {
      const ids = selfAndDescendantIds(rc.svc, loadGroup(rc).id);
      const vis = visibleProjectsSql(rc.svc, rc.user);
      return search(rc, {
        level: 'group',
        projects: { sql: `p.namespace_id IN (${ids.map(() => '?').join(',')}) AND ${vis.sql}`, args: [...ids, ...vis.args] },
        records: (type) => groupScope(rc, false, type),
        groupIds: ids,
        project: null,
      });
    },
  );

  r.get(
    '/projects/:id/search',
    (rc) => {
      const project = loadProject(rc);
      return search(rc, { level: 'project', projects: { sql: 'p.id = ?', args: [project.id] }, records: () => projectScope(project), groupIds: [], project });
    },
  );
}

async function search(rc: RequestContext, where: Where): Promise<unknown[]> {
  const q = declared(rc.params, {
    scope: t.string().required().values([...SCOPES[where.level]]),
    search: t.string().required(),
    state: t.string().values(['all', 'opened', 'closed', 'merged']),
    confidential: t.boolean(),
    include_archived: t.boolean().default(false),
    ref: t.string(),
  });
  rc.reply.header('x-search-type', 'basic');
  const term = q.search;
  const listed = { search: term, state: q.state ?? undefined };
  switch (q.scope) {
    case 'projects':
      return listProjects(subRequest(rc, { search: term, ...(q.include_archived ? {} : { archived: false }) }), (w) => w.add(where.projects.sql, ...where.projects.args));
    // The finders' projects: those whose issues or merge requests the caller may use (feature-access.ts).
    case 'issues':
      if (where.project && !featureAvailable(rc.svc, rc.user, where.project, 'Issue')) return paginateArray(rc, []);
      return listIssues(subRequest(rc, { ...listed, confidential: q.confidential ?? undefined }), where.records('Issue'));
    case 'merge_requests':
      if (where.project && !featureAvailable(rc.svc, rc.user, where.project, 'MergeRequest')) return paginateArray(rc, []);
      return listMergeRequests(subRequest(rc, listed), where.records('MergeRequest'));
    case 'milestones':
      return searchMilestones(rc, where, term);
    case 'snippet_titles':
      return searchSnippets(rc, term);
    case 'users':
      return searchUsers(rc, where, term);
    case 'notes':
      return searchNotes(rc, where.project!, term);
    case 'commits':
      return searchCommits(rc, term, q.ref ?? null);
    case 'blobs':
      return searchBlobs(rc, term, q.ref ?? null);
    default:
      // wiki_blobs: Sandlab projects and groups have no wikis, so nothing matches.
      return paginateArray(rc, []);
  }
}

/** Milestones of the projects searched (and of the group tree, at group level) by title or description. */
function searchMilestones(rc: RequestContext, where: Where, term: string): Record<string, unknown>[] {
  // Not of projects whose issues and merge requests both are hidden from the caller (read_milestone:
  // SearchResults#filter_milestones_by_project keeps ids_with_issuables_available_for).
  const hidden = featureHiddenSql(issuablesHiddenProjectIds(rc.svc, rc.user));
  const owners = [`m.project_id IN (SELECT p.id FROM projects p WHERE ${where.projects.sql}${hidden})`];
  const args: unknown[] = [...where.projects.args];
  if (where.groupIds.length) {
    owners.push(`m.group_id IN (${where.groupIds.map(() => '?').join(',')})`);
    args.push(...where.groupIds);
  }
  const conditions = [`(${owners.join(' OR ')})`];
  addFilter(conditions, args, "(lower(m.title) LIKE ? ESCAPE '\\' OR lower(coalesce(m.description, '')) LIKE ? ESCAPE '\\')", like(term), like(term));
  return paginateSql<MilestoneRow>(rc, rc.svc.db, { select: 'm.*', from: `FROM milestones m WHERE ${conditions.join(' AND ')}`, args, order: 'm.id DESC' }).map((m) =>
    milestone(rc, m),
  );
}

/** Candidates of snippets_search up to this many are read by id; more, and every snippet is asked. */
const SNIPPETS_READ_MATCHES = 1_000;

/**
 * snippet_titles: snippets the caller can read (canReadSnippet, as SQL) whose title, description or
 * a file name holds the term, as JavaScript's toLowerCase folds them (js_lower), newest update
 * first: GitLab's SnippetSearchResults (`reorder(updated_at: :desc)`; ties by id) over
 * Snippet.search (title, description, file name). Read a page at a time, instead of every
 * snippet of the instance loaded and checked (each with its project and files: 56 ms at 5,000).
 */
function searchSnippets(rc: RequestContext, term: string): Record<string, unknown>[] {
  const needle = term.toLowerCase();
  const conditions = ['(s.project_id IS NULL OR EXISTS (SELECT 1 FROM projects p WHERE p.id = s.project_id))'];
  const args: unknown[] = [];
  const user = rc.user;
  if (user && !user.admin) {
    const member = memberProjectsSql(rc.svc, user, 'p', Access.GUEST);
    addFilter(
      conditions,
      args,
      `(s.author_id = ? OR s.visibility = 'public'${user.external ? '' : " OR s.visibility = 'internal'"}
        OR (s.project_id IS NOT NULL AND s.project_id IN (SELECT p.id FROM projects p WHERE ${member.sql})))`,
      user.id,
      ...member.args,
    );
  } else if (!user) {
    conditions.push("s.visibility = 'public'");
  }
  // The latest revision's files (the highest id, as latestRevision), asked only when the title and description do not match.
  addFilter(
    conditions,
    args,
    `(instr(js_lower(s.title), ?) > 0 OR instr(js_lower(coalesce(s.description, '')), ?) > 0
      OR EXISTS (SELECT 1 FROM snippet_revision_files f WHERE f.revision_id = (SELECT max(r.id) FROM snippet_revisions r WHERE r.snippet_id = s.id) AND instr(js_lower(f.path), ?) > 0))`,
    needle,
    needle,
    needle,
  );
  // Printable ASCII from three characters: snippets/004's trigram index names the candidates
  // (one phrase, quotes doubled: matched as a substring, case-folded as JavaScript folds ASCII),
  // a few read by id; the conditions above still decide. Other terms, and a term many snippets
  // hold, ask every snippet in the list's order (core/166; reading thousands of candidates by id
  // and sorting them costs more than the walk); the count of such a term reads its candidates,
  // each checked (the same count: the candidates hold every match), instead of walking snippets
  // that mostly lack it (10,001 of a quarter of a million counted from 40,000 checked: 80-140 ms).
  const query = `"${term.replace(/"/g, '""')}"`;
  const candidates = 'FROM snippets_search q WHERE q.snippets_search MATCH ?';
  let countFrom: { from: string; args: unknown[] } | undefined;
  if (/^[\x20-\x7e]{3,}$/.test(term)) {
    if (countUpTo(rc.svc.db, candidates, [query], SNIPPETS_READ_MATCHES) < SNIPPETS_READ_MATCHES) {
      conditions.unshift(`s.id IN (SELECT q.rowid ${candidates})`);
      args.unshift(query);
    } else {
      countFrom = { from: `FROM snippets_search q CROSS JOIN snippets s ON s.id = q.rowid WHERE q.snippets_search MATCH ? AND ${conditions.join(' AND ')}`, args: [query, ...args] };
    }
  }
  const rows = paginateSql<SnippetRow>(rc, rc.svc.db, { select: 's.*', from: `FROM snippets s WHERE ${conditions.join(' AND ')}`, args, order: 's.updated_at DESC, s.id DESC', countFrom });
  return snippets(rc, rows);
}

/** Candidates of users_search up to this many are read by id; more, and the users are walked in id order, each asked. */
const USERS_READ_MATCHES = 1_000;

/**
 * Users by name or username: anyone active instance-wide, the members (with inherited ones) of a
 * group or project. From three characters users_search (the trigram index /users?search reads)
 * names the candidates, a few looked up by id; LIKE still decides (the same matches as before).
 */
function searchUsers(rc: RequestContext, where: Where, term: string): Record<string, unknown>[] {
  // `+state`: users_state (core/050) counts /users?active=; here nearly every user is active.
  const conditions = ["+u.state = 'active'", "(lower(u.username) LIKE ? ESCAPE '\\' OR lower(u.name) LIKE ? ESCAPE '\\')"];
  const args: unknown[] = [like(term), like(term)];
  let table = 'users u';
  let few = false;
  // One phrase (quotes doubled): the trigram tokenizer matches it as a substring.
  const query = `"${term.replace(/"/g, '""')}"`;
  if ([...term].length >= MIN_INDEXED_SEARCH && countUpTo(rc.svc.db, 'FROM users_search s WHERE s.users_search MATCH ?', [query], USERS_READ_MATCHES) < USERS_READ_MATCHES) {
    // NOT INDEXED: the few candidates looked up by id, not every user walked and asked.
    conditions.unshift('u.id IN (SELECT s.rowid FROM users_search s WHERE s.users_search MATCH ?)');
    args.unshift(query);
    table = 'users u NOT INDEXED';
    few = true;
  }
  if (where.level !== 'global') {
    const member = isMemberSql(rc.svc, rc.user, loadSource(rc, where.level === 'project' ? 'projects' : 'groups'), 'u.id');
    conditions.push(member.sql);
    args.push(...member.args);
  }
  const list: SqlList<User> = { select: 'u.*', from: `FROM ${table} WHERE ${conditions.join(' AND ')}`, args, order: 'u.id' };
  // Few candidates: the matches' ids read once, counted and paged from there (not the search run to count, then to page).
  return paginateSql<User>(rc, rc.svc.db, few ? fewRowsByIds(rc.svc.db, list, 'users u', 'u.id') : list).map((u) => userBasic(rc, u));
}

/** A term of fewer characters than a trigram: the full-text index cannot match it, so LIKE walks the project's notes. */
const MIN_INDEXED_SEARCH = 3;
/** Matches up to this many are read by id and sorted; more, and the project's notes are walked in order, each checked against the index. */
const NOTES_READ_MATCHES = 2_000;

/**
 * Notes of the project's issues, merge requests and snippets whose text holds the term
 * (case-insensitively), hidden as the caller's own reads hide them, newest update first
 * (ProjectSearchResults#notes_finder: `order('updated_at DESC')`; ties by id). A note matches as
 * LIKE says; from three characters, core/076's full-text index (case-folding no less than LIKE:
 * every LIKE match is among its matches) names the candidates: a few are read by id and
 * sorted, and many are found by walking the project's notes in order (notes_project_updated),
 * counted from the candidates up to COUNT_LIMIT and, past it, "more than COUNT_LIMIT" for a
 * caller who sees every note (a bound only a note spelling the term with letters that fold to
 * ASCII, such as the Kelvin sign, could break).
 */
function searchNotes(rc: RequestContext, project: Project, term: string): Record<string, unknown>[] {
  const db = rc.svc.db;
  const conditions = ['n.project_id = ?', 'n.system = 0'];
  const args: unknown[] = [project.id];
  const level = effectiveProjectAccess(rc.svc, rc.user, project);
  // NotesFinder reads each noteable type through its finder: none of a feature the caller may not use (feature-access.ts).
  const hiddenTypes = (['Issue', 'MergeRequest'] as const).filter((type) => !featureAvailable(rc.svc, rc.user, project, type));
  // `+`: a condition checked on each note, never an index's choice.
  for (const type of hiddenTypes) addFilter(conditions, args, '+n.noteable_type != ?', type);
  const seesAll = level >= Access.PLANNER && hiddenTypes.length === 0;
  if (level < Access.PLANNER) {
    conditions.push('n.internal = 0');
    // Notes on confidential issues only for their author and assignees below Planner.
    const uid = rc.user?.id ?? -1;
    addFilter(
      conditions,
      args,
      "NOT (n.noteable_type = 'Issue' AND EXISTS (SELECT 1 FROM issues i WHERE i.id = n.noteable_id AND i.confidential = 1 AND i.author_id != ? AND NOT EXISTS (SELECT 1 FROM json_each(i.assignee_ids) WHERE value = ?)))",
      uid,
      uid,
    );
  }
  addFilter(conditions, args, "lower(n.body) LIKE ? ESCAPE '\\'", like(term));
  let from = `FROM notes n WHERE ${conditions.join(' AND ')}`;
  let countFrom: { from: string; args: unknown[] } | { counted: number } | undefined;
  let listArgs = args;
  if ([...term].length >= MIN_INDEXED_SEARCH) {
    // One phrase (quotes doubled): the trigram tokenizer matches it as a substring. The shifts
    // make the range's bounds INTEGERs (a REAL bound reads the whole doclist instead of seeking).
    const query = `"${term.replace(/"/g, '""')}"`;
    const inProject = 's.notes_search MATCH ? AND s.rowid BETWEEN (? << 32) AND (? << 32) + 4294967295';
    // Remembered while the project's notes stay unwritten (core/095), past COUNT_LIMIT through as many writes as the slack counted.
    const matches = rememberedMatchCount(
      db,
      `notes:${project.id}:${query}`,
      () => (db.prepare('SELECT version FROM notes_search_versions WHERE project_id = ?').get(project.id) as { version: number } | undefined)?.version ?? 0,
      () => countUpTo(db, `FROM notes_search s WHERE ${inProject}`, [query, project.id, project.id], COUNT_LIMIT + 1 + MATCH_COUNT_SLACK),
    );
    // NOT INDEXED: the candidates' notes looked up by id, not the project's notes walked to find them.
    const candidates = {
      from: `FROM notes n NOT INDEXED WHERE n.id IN (SELECT s.rowid & 4294967295 FROM notes_search s WHERE ${inProject}) AND ${conditions.join(' AND ')}`,
      args: [query, project.id, project.id, ...args],
    };
    if (matches <= NOTES_READ_MATCHES) {
      from = candidates.from;
      listArgs = candidates.args;
    } else {
      from = `FROM notes n INDEXED BY notes_project_updated WHERE ${conditions.join(' AND ')}`;
      countFrom = matches <= COUNT_LIMIT ? candidates : seesAll ? { counted: COUNT_LIMIT + 1 } : undefined;
    }
  }
  const iidOf = (n: NoteRow): number | null => {
    const table = n.noteable_type === 'Issue' ? 'issues' : n.noteable_type === 'MergeRequest' ? 'merge_requests' : null;
    return table ? ((db.prepare(`SELECT iid FROM ${table} WHERE id = ?`).get(n.noteable_id) as { iid: number } | undefined)?.iid ?? null) : null;
  };
  return paginateSql<NoteRow>(rc, db, { select: 'n.*', from, args: listArgs, order: 'n.updated_at DESC, n.id DESC', countFrom }).map((n) => note(rc as EntityContext, n, iidOf(n)));
}

/** Commits on `ref` (the default branch) whose message matches, newest first. */
async function searchCommits(rc: RequestContext, term: string, ref: string | null): Promise<Record<string, unknown>[]> {
  const { project, repo } = await loadRepository(rc);
  const head = await repo.resolveCommit(ref || project.default_branch);
  if (!head) return paginateArray(rc, []);
  const out = await repo.run(['log', '--format=%H', '-i', '--fixed-strings', `--grep=${term}`, head, '--']);
  const ids = out.stdout.toString('utf8').split('\n').filter(Boolean);
  return paginateArray(rc, await commitsById(repo, ids)).map((c) => commitDetail(rc, project, c, null));
}

/**
 * Blobs at `ref` (the default branch) whose text or path matches: Gitlab::Search::FoundBlob, one per
 * matching line with the lines around it (GitLab's basic search keeps two on each side).
 */
async function searchBlobs(rc: RequestContext, term: string, ref: string | null): Promise<Record<string, unknown>[]> {
  const { project, repo } = await loadRepository(rc);
  const refName = ref || project.default_branch;
  const head = await repo.resolveCommit(refName);
  if (!head) return paginateArray(rc, []);
  const grep = await repo.run(['grep', '-I', '-i', '-n', '--fixed-strings', '-C', '2', '--full-name', '-e', term, head, '--'], { okCodes: [1] });
  const found: Record<string, unknown>[] = [];
  // `<sha>:<path>:<line>:<text>` for matches, `-` instead of `:` for context, `--` between groups.
  let current: { path: string; start: number; lines: string[] } | null = null;
  const flush = () => {
    if (!current) return;
    const filename = current.path;
    found.push({
      basename: filename.replace(/\.[^/.]*$/, ''),
      data: `${current.lines.join('\n')}\n`,
      path: filename,
      filename,
      id: null,
      ref: refName,
      startline: current.start,
      project_id: project.id,
    });
    current = null;
  };
  const prefix = `${head}:`;
  for (const line of grep.stdout.toString('utf8').split('\n')) {
    if (line === '--') {
      flush();
      continue;
    }
    if (!line.startsWith(prefix)) continue;
    const m = /^(.*?)[:-](\d+)[:-](.*)$/.exec(line.slice(prefix.length));
    if (!m) continue;
    if (current && (current as { path: string }).path !== m[1]) flush();
    current ??= { path: m[1], start: Number(m[2]), lines: [] };
    current.lines.push(m[3]);
  }
  flush();
  return paginateArray(rc, found);
}
