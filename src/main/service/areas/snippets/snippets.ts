import { createHash, randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context';
import { cachedLookup, inTransaction, lookupKnown } from '../../db/connection';
import type { PageAnchors, SqlList } from '../../http/pagination';
import { apiError, forbidden } from '../../http/errors';
import { Access, effectiveProjectAccess } from '../core/access';
import type { Project } from '../core/projects';
import { projectSettings } from '../core/projects';
import type { User } from '../core/users';
import type { Visibility } from '../core/namespaces';
import { isoTime } from '../core/time';

export interface SnippetRow {
  id: number;
  project_id: number | null;
  author_id: number;
  title: string;
  description: string | null;
  visibility: Visibility;
  imported: number;
  imported_from: string;
  created_at: string;
  updated_at: string;
}

export interface RevisionRow {
  id: number;
  snippet_id: number;
  sha: string;
  parent_sha: string | null;
  message: string;
  author_id: number | null;
  created_at: string;
}

export interface SnippetFile {
  path: string;
  content: string;
}

/** One entry of `files[]` on update (SnippetInputAction). */
export interface FileAction {
  action: 'create' | 'update' | 'delete' | 'move';
  file_path?: string | null;
  previous_path?: string | null;
  content?: string | null;
}

export const FILE_ACTIONS = ['create', 'update', 'delete', 'move'] as const;

/** The snippet repository's only branch: `files[].raw_url` names it. */
export const DEFAULT_REF = 'main';

/** GitLab's default `snippet_size_limit` (50 MB), checked on create and on every change. */
export const SNIPPET_SIZE_LIMIT = 52_428_800;

/** Paths GitLab's `file_path: true` validator refuses: traversal, absolute, NUL. */
export function isValidFilePath(path: string): boolean {
  if (path.includes('\0')) return false;
  if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\')) return false;
  return !path.split(/[\\/]/).some((seg) => seg === '..') && !/%2e%2e/i.test(path);
}

// --- lookups -----------------------------------------------------------------------------------

export function findSnippet(svc: ServiceContext, id: number): SnippetRow | undefined {
  return svc.db.prepare('SELECT * FROM snippets WHERE id = ?').get(id) as SnippetRow | undefined;
}

export function latestRevision(svc: ServiceContext, snippetId: number): RevisionRow | undefined {
  return svc.db.prepare('SELECT * FROM snippet_revisions WHERE snippet_id = ? ORDER BY id DESC LIMIT 1').get(snippetId) as
    | RevisionRow
    | undefined;
}

/** A ref of the snippet repository: `main`/`HEAD` (the latest revision) or a commit sha (7+ hex digits). */
export function resolveRef(svc: ServiceContext, snippetId: number, ref: string): RevisionRow | undefined {
  if (ref === DEFAULT_REF || ref === 'HEAD' || ref === `refs/heads/${DEFAULT_REF}`) return latestRevision(svc, snippetId);
  if (!/^[0-9a-f]{7,40}$/i.test(ref)) return undefined;
  const rows = svc.db
    .prepare("SELECT * FROM snippet_revisions WHERE snippet_id = ? AND sha LIKE ? || '%' LIMIT 2")
    .all(snippetId, ref.toLowerCase()) as RevisionRow[];
  return rows.length === 1 ? rows[0] : undefined;
}

/** File paths of a revision, in the repository's (byte) order. */
export function revisionPaths(svc: ServiceContext, revisionId: number): string[] {
  return (svc.db.prepare('SELECT path FROM snippet_revision_files WHERE revision_id = ? ORDER BY path').all(revisionId) as { path: string }[]).map(
    (r) => r.path,
  );
}

export function revisionFiles(svc: ServiceContext, revisionId: number): SnippetFile[] {
  return svc.db
    .prepare(
      `SELECT f.path, b.content FROM snippet_revision_files f JOIN snippet_blobs b ON b.id = f.blob_id
       WHERE f.revision_id = ? ORDER BY f.path`,
    )
    .all(revisionId) as SnippetFile[];
}

export function fileAt(svc: ServiceContext, revisionId: number, path: string): SnippetFile | undefined {
  return svc.db
    .prepare(
      `SELECT f.path, b.content FROM snippet_revision_files f JOIN snippet_blobs b ON b.id = f.blob_id
       WHERE f.revision_id = ? AND f.path = ?`,
    )
    .get(revisionId, path) as SnippetFile | undefined;
}

/** The latest files (path order); the first one is what `/raw` serves. */
export function currentFiles(svc: ServiceContext, snippetId: number): SnippetFile[] {
  const rev = latestRevision(svc, snippetId);
  return rev ? revisionFiles(svc, rev.id) : [];
}

export function currentPaths(svc: ServiceContext, snippetId: number): string[] {
  const rev = latestRevision(svc, snippetId);
  return rev ? revisionPaths(svc, rev.id) : [];
}

/** The tables currentPathsOf reads, each with a version every write to it moves (core/145, in snippetMigrations). */
const SNIPPET_FILE_TABLES = ['snippet_revisions', 'snippet_revision_files'] as const;

/**
 * currentPaths of each snippet of a page (by id; none without a revision). Each snippet's paths are
 * kept (cachedLookup) across writes to other tables while the versions of the revisions' and files'
 * tables hold: a page of 100 snippets read both again after any write elsewhere (~0.1-0.2 ms). The
 * snippets not kept are read in two queries for the page: the latest revision of each (the highest
 * id, as latestRevision), then their files in path order. Each id in turn (CROSS JOIN): with
 * `IN (...)` SQLite may read the whole table instead. Kept per snippet, not per page: a page's
 * worth per entry would let the lookups' bound hold a hundred times the paths.
 */
export function currentPathsOf(svc: ServiceContext, snippetIds: number[]): Map<number, readonly string[]> {
  const db = svc.db;
  const missing = snippetIds.filter((id) => !lookupKnown(db, 'snippet-paths', id));
  const read = missing.length ? readPathsOf(svc, missing) : undefined;
  const out = new Map<number, readonly string[]>();
  for (const id of snippetIds) out.set(id, cachedLookup(db, 'snippet-paths', id, () => read?.get(id) ?? readPathsOf(svc, [id]).get(id) ?? NO_PATHS, SNIPPET_FILE_TABLES)!);
  return out;
}

const NO_PATHS: readonly string[] = Object.freeze([]);

function readPathsOf(svc: ServiceContext, snippetIds: number[]): Map<number, string[]> {
  const latest = svc.db
    .prepare('SELECT j.value AS snippet_id, (SELECT max(r.id) FROM snippet_revisions r WHERE r.snippet_id = j.value) AS id FROM json_each(?) j')
    .all(JSON.stringify(snippetIds)) as { snippet_id: number; id: number | null }[];
  const snippetOf = new Map<number, number>();
  for (const r of latest) if (r.id !== null) snippetOf.set(r.id, r.snippet_id);
  const paths = new Map<number, string[]>();
  const files = svc.db
    .prepare('SELECT f.revision_id, f.path FROM json_each(?) j CROSS JOIN snippet_revision_files f ON f.revision_id = j.value ORDER BY f.revision_id, f.path')
    .all(JSON.stringify([...snippetOf.keys()])) as { revision_id: number; path: string }[];
  for (const f of files) {
    const snippetId = snippetOf.get(f.revision_id)!;
    const list = paths.get(snippetId);
    if (list) list.push(f.path);
    else paths.set(snippetId, [f.path]);
  }
  return paths;
}

// --- permissions -------------------------------------------------------------------------------

/** The project's snippets feature (`snippets_access_level`): disabled -> 403, private -> members only. */
export function checkSnippetsFeature(svc: ServiceContext, user: User | null, project: Project): void {
  const level = (projectSettings(project).snippets_access_level as string | undefined) ?? 'enabled';
  if (level === 'disabled') throw forbidden();
  if (level === 'private' && effectiveProjectAccess(svc, user, project) < Access.GUEST) throw forbidden();
}

/** ProjectSnippetPolicy / PersonalSnippetPolicy `read_snippet` (the project itself already readable). */
export function canReadSnippet(svc: ServiceContext, user: User | null, snippet: SnippetRow, project: Project | null): boolean {
  if (user && (user.admin || user.id === snippet.author_id)) return true;
  if (snippet.visibility === 'public') return true;
  if (snippet.visibility === 'internal' && user && !user.external) return true;
  if (project && user) return effectiveProjectAccess(svc, user, project) >= Access.GUEST;
  return false;
}

/** canReadSnippet as a condition on snippets `s` of one project (or personal ones: null), for lists read a page at a time. */
export function readableSnippetsSql(
  svc: ServiceContext,
  user: User | null,
  project: Project | null,
  columns = { visibility: 's.visibility', author: 's.author_id' },
): { sql: string; args: unknown[] } {
  if (user && (user.admin || (project && effectiveProjectAccess(svc, user, project) >= Access.GUEST))) return { sql: '1 = 1', args: [] };
  const visible = user && !user.external ? `${columns.visibility} IN ('public', 'internal')` : `${columns.visibility} = 'public'`;
  return user ? { sql: `(${visible} OR ${columns.author} = ?)`, args: [user.id] } : { sql: visible, args: [] };
}

/**
 * A project's snippets the user may read, newest first, as a paginated list: counted from the
 * counters (snippets/003; canReadSnippet's visibility and authorship are their keys) instead of
 * walking the snippets, and deep pages started after a row an earlier page read while the
 * project's snippets stay as they were.
 */
export function projectSnippetList(svc: ServiceContext, user: User | null, project: Project): SqlList<SnippetRow> {
  const readable = readableSnippetsSql(svc, user, project);
  const from = `FROM snippets s WHERE s.project_id = ? AND ${readable.sql}`;
  const args = [project.id, ...readable.args];
  const onCounters = readableSnippetsSql(svc, user, project, { visibility: 'visibility', author: 'author' });
  const counted = svc.db
    .prepare(`SELECT coalesce(sum(n), 0) AS counted FROM project_snippet_counts WHERE project_id = ? AND ${onCounters.sql}`)
    .get(project.id, ...onCounters.args) as { counted: number };
  const order = 's.id DESC';
  const anchors: PageAnchors<SnippetRow> = {
    key: JSON.stringify(['ProjectSnippet', from, args]),
    version: () =>
      (svc.db.prepare('SELECT coalesce((SELECT version FROM project_snippet_list_versions WHERE project_id = ?), 0) AS v').get(project.id) as { v: number }).v,
    column: 's.id',
    idColumn: 's.id',
    sort: 'desc',
    value: (row) => row.id,
    id: (row) => row.id,
    // snippets/003's version moves on every write to the project's snippets; the caller's view is in the key.
    rowsAtVersion: true,
  };
  // The counters' keys are the reader's view: the list's exact length (deep pages near the end read back from it).
  return { select: 's.*', from, args, order, countFrom: { ...counted, exact: true }, anchors };
}

/** `update_snippet` / `admin_snippet`: the author, a project Maintainer, or an admin. */
export function canAdminSnippet(svc: ServiceContext, user: User, snippet: SnippetRow, project: Project | null): boolean {
  if (user.admin || user.id === snippet.author_id) return true;
  return !!project && effectiveProjectAccess(svc, user, project) >= Access.MAINTAINER;
}

// --- writes ------------------------------------------------------------------------------------

const gitBlobSha = (content: string): string => {
  const bytes = Buffer.from(content, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
};

/** `number_to_human_size` with three significant digits, as GitLab's size messages use. */
function humanSize(bytes: number): string {
  const units = ['Bytes', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toPrecision(3))} ${units[unit]}`;
}

function checkSize(files: SnippetFile[]): void {
  const total = files.reduce((n, f) => n + Buffer.byteLength(f.content, 'utf8'), 0);
  if (total > SNIPPET_SIZE_LIMIT) {
    throw apiError(400, { error: `Content is too long (${humanSize(total)}). The maximum size is ${humanSize(SNIPPET_SIZE_LIMIT)}.` });
  }
}

/** GitLab names files created without a path `snippetfile<N>.txt`. */
function defaultName(taken: Map<string, string>): string {
  for (let n = 1; ; n++) {
    const name = `snippetfile${n}.txt`;
    if (!taken.has(name)) return name;
  }
}

const blank = (s: string | null | undefined): boolean => s === undefined || s === null || s.trim() === '';

/** SnippetInputAction's validations: any failure is "Snippet files have invalid data" (422). */
export function validateActions(actions: FileAction[]): void {
  const invalid = actions.some((a) => {
    if (!FILE_ACTIONS.includes(a.action)) return true;
    if (a.action === 'move' && blank(a.previous_path)) return true;
    if ((a.action === 'update' || a.action === 'delete') && blank(a.file_path)) return true;
    if ((a.action === 'create' || a.action === 'update') && (a.content === undefined || a.content === null || a.content === '')) return true;
    if (a.action === 'update' && !blank(a.previous_path) && a.previous_path !== a.file_path) return true;
    if (a.action === 'move' && a.previous_path === a.file_path) return true;
    return false;
  });
  if (invalid) throw apiError(422, { error: 'Snippet files have invalid data' });
}

/** Applies file actions to a tree, as a commit would; a failing action fails the whole commit. */
function applyActions(tree: Map<string, string>, actions: FileAction[], failure: string): Map<string, string> {
  const next = new Map(tree);
  const fail = (why: string): never => {
    throw apiError(400, { error: `${failure} - ${why}` });
  };
  for (const a of actions) {
    const path = blank(a.file_path) ? null : a.file_path!;
    if (path !== null && !isValidFilePath(path)) fail('Invalid file path');
    switch (a.action) {
      case 'create': {
        const name = path ?? defaultName(next);
        if (next.has(name)) fail('A file with this name already exists');
        next.set(name, a.content ?? '');
        break;
      }
      case 'update':
        if (!next.has(path!)) fail("A file with this name doesn't exist");
        next.set(path!, a.content ?? '');
        break;
      case 'delete':
        if (!next.has(path!)) fail("A file with this name doesn't exist");
        next.delete(path!);
        break;
      case 'move': {
        const from = a.previous_path!;
        if (!next.has(from)) fail("A file with this name doesn't exist");
        const to = path ?? defaultName(next);
        if (next.has(to)) fail('A file with this name already exists');
        const content = a.content === undefined || a.content === null ? next.get(from)! : a.content;
        next.delete(from);
        next.set(to, content);
        break;
      }
    }
  }
  if (next.size === 0) fail('A snippet must have at least one file');
  return next;
}

/** Writes a revision holding `tree` on top of the latest one. Call inside a transaction. */
function commitTree(svc: ServiceContext, snippetId: number, authorId: number, tree: Map<string, string>, message: string): RevisionRow {
  const parent = latestRevision(svc, snippetId);
  const now = isoTime(svc.now());
  const entries = [...tree.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const treeKey = entries.map(([p, c]) => `${p}\0${gitBlobSha(c)}`).join('\n');
  const sha = createHash('sha1')
    .update(`snippet ${snippetId}\nparent ${parent?.sha ?? ''}\ntree ${treeKey}\nat ${now}\n${randomBytes(8).toString('hex')}`)
    .digest('hex');
  const info = svc.db
    .prepare('INSERT INTO snippet_revisions (snippet_id, sha, parent_sha, message, author_id, created_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(snippetId, sha, parent?.sha ?? null, message, authorId, now);
  const revisionId = Number(info.lastInsertRowid);
  const insertBlob = svc.db.prepare('INSERT INTO snippet_blobs (snippet_id, sha, content) VALUES (?, ?, ?) ON CONFLICT (snippet_id, sha) DO NOTHING');
  const blobId = svc.db.prepare('SELECT id FROM snippet_blobs WHERE snippet_id = ? AND sha = ?');
  const insertFile = svc.db.prepare('INSERT INTO snippet_revision_files (revision_id, path, blob_id) VALUES (?, ?, ?)');
  for (const [path, content] of entries) {
    const blobSha = gitBlobSha(content);
    insertBlob.run(snippetId, blobSha, content);
    insertFile.run(revisionId, path, (blobId.get(snippetId, blobSha) as { id: number }).id);
  }
  return svc.db.prepare('SELECT * FROM snippet_revisions WHERE id = ?').get(revisionId) as RevisionRow;
}

export interface NewSnippet {
  projectId: number | null;
  authorId: number;
  title: string;
  description?: string | null;
  visibility: Visibility;
  files: SnippetFile[];
  imported?: boolean;
  importedFrom?: string;
  /** An imported snippet keeps its upstream times. */
  createdAt?: string;
  updatedAt?: string;
  /** The creating request's User-Agent and IP (user_agent_detail). */
  userAgent?: { userAgent: string; ipAddress: string } | null;
}

/**
 * Creates a snippet and its first revision in one transaction. Also used by repository imports
 * (gists become personal snippets).
 */
export function createSnippet(svc: ServiceContext, s: NewSnippet): SnippetRow {
  const failure = 'Repository Error creating the snippet';
  const tree = applyActions(
    new Map(),
    s.files.map((f) => ({ action: 'create', file_path: f.path, content: f.content })),
    failure,
  );
  checkSize([...tree].map(([path, content]) => ({ path, content })));
  return inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    const info = svc.db
      .prepare(
        `INSERT INTO snippets (project_id, author_id, title, description, visibility, imported, imported_from, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(s.projectId, s.authorId, s.title, s.description ?? null, s.visibility, s.imported ? 1 : 0, s.importedFrom ?? 'none', s.createdAt ?? now, s.updatedAt ?? now);
    const id = Number(info.lastInsertRowid);
    commitTree(svc, id, s.authorId, tree, 'Initial commit');
    if (s.userAgent) {
      svc.db
        .prepare('INSERT INTO snippet_user_agent_details (snippet_id, user_agent, ip_address, created_at) VALUES (?, ?, ?, ?)')
        .run(id, s.userAgent.userAgent, s.userAgent.ipAddress, now);
    }
    return findSnippet(svc, id)!;
  });
}

export interface SnippetChanges {
  title?: string;
  description?: string | null;
  visibility?: Visibility;
  /** `files[]` actions, or the legacy single-file form turned into one action. */
  actions?: FileAction[];
}

/** Updates attributes and, when files change, commits a new revision — all or nothing. */
export function updateSnippet(svc: ServiceContext, snippet: SnippetRow, authorId: number, c: SnippetChanges): SnippetRow {
  return inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    if (c.actions && c.actions.length) {
      const current = new Map(currentFiles(svc, snippet.id).map((f) => [f.path, f.content]));
      const tree = applyActions(current, c.actions, 'Repository Error updating the snippet');
      checkSize([...tree].map(([path, content]) => ({ path, content })));
      commitTree(svc, snippet.id, authorId, tree, 'Update snippet');
    }
    svc.db
      .prepare('UPDATE snippets SET title = ?, description = ?, visibility = ?, updated_at = ? WHERE id = ?')
      .run(
        c.title ?? snippet.title,
        c.description === undefined ? snippet.description : c.description,
        c.visibility ?? snippet.visibility,
        now,
        snippet.id,
      );
    return findSnippet(svc, snippet.id)!;
  });
}

/** The legacy `content`/`file_name` update on a single-file snippet, as one commit action. */
export function legacyUpdateAction(svc: ServiceContext, snippet: SnippetRow, fileName?: string, content?: string): FileAction[] {
  if (fileName === undefined && content === undefined) return [];
  const [current] = currentFiles(svc, snippet.id);
  if (!current) return [{ action: 'create', file_path: fileName ?? null, content: content ?? '' }];
  const target = fileName === undefined || fileName === '' ? current.path : fileName;
  if (target === current.path) return [{ action: 'update', file_path: target, content: content ?? current.content }];
  return [{ action: 'move', previous_path: current.path, file_path: target, content: content ?? current.content }];
}

/** Removes the snippet, its revisions and the notes on it. */
export function deleteSnippet(svc: ServiceContext, snippet: SnippetRow): void {
  inTransaction(svc.db, () => {
    svc.db.prepare("DELETE FROM notes WHERE noteable_type = 'Snippet' AND noteable_id = ?").run(snippet.id);
    svc.db.prepare('DELETE FROM snippets WHERE id = ?').run(snippet.id);
  });
}

export interface UserAgentDetailRow {
  snippet_id: number;
  user_agent: string;
  ip_address: string;
  submitted: number;
}

export function findUserAgentDetail(svc: ServiceContext, snippetId: number): UserAgentDetailRow | undefined {
  return svc.db.prepare('SELECT * FROM snippet_user_agent_details WHERE snippet_id = ?').get(snippetId) as UserAgentDetailRow | undefined;
}
