import type { RequestContext, Router } from '../../http/route';
import type { Reply } from '../../http/server';
import { declared, t } from '../../http/params';
import { apiError, forbidden, grapeError, notFound, recordNotFound } from '../../http/errors';
import { paginate, paginateSql, limitSql } from '../../http/pagination';
import { Access, effectiveProjectAccess } from '../core/access';
import type { Project } from '../core/projects';
import { contentDisposition } from '../uploads/disposition';
import { snippet, snippetRevision, snippets, userAgentDetail } from './entities';
import { createParams, snippetIdParam, updateParams } from './params';
import {
  type RevisionRow,
  type SnippetFile,
  type SnippetRow,
  canAdminSnippet,
  createSnippet,
  currentFiles,
  currentPaths,
  deleteSnippet,
  fileAt,
  findSnippet,
  findUserAgentDetail,
  isValidFilePath,
  projectSnippetList,
  readableSnippetsSql,
  legacyUpdateAction,
  resolveRef,
  updateSnippet,
  validateActions,
} from './snippets';
import { registerSnippetNoteRoutes } from './notes';
import { loadPersonalSnippet, loadProjectSnippet, loadSnippetsProject } from './load';
import { checkUnmodifiedSince } from '../../http/conditional';
import { checkSpam, checkSpamOnUpdate } from '../spam/spam';

function requestUserAgent(rc: RequestContext): { userAgent: string; ipAddress: string } {
  const ua = rc.req.headers['user-agent'];
  return { userAgent: (Array.isArray(ua) ? ua[0] : ua) ?? '', ipAddress: rc.req.ip };
}

/** A file's bytes as GitLab's send_git_blob answers: text, inline, named. */
function sendFile(reply: Reply, file: SnippetFile): Reply {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  return reply
    .code(200)
    .header('content-type', 'text/plain; charset=utf-8')
    .header('content-disposition', contentDisposition('inline', name))
    .send(Buffer.from(file.content, 'utf8'));
}

function sendFirstFile(rc: RequestContext, s: SnippetRow): Reply {
  const [first] = currentFiles(rc.svc, s.id);
  return sendFile(rc.reply, first ?? { path: 'snippet', content: '' });
}

/** `GET .../files/:ref/:file_path/raw`: any revision's file by ref. */
function sendFileAtRef(rc: RequestContext, s: SnippetRow, filePath = rc.path.file_path): Reply {
  if (!isValidFilePath(filePath)) throw grapeError(400, 'file_path should be a valid file path');
  const rev = resolveRef(rc.svc, s.id, rc.path.ref);
  if (!rev) throw notFound('Reference');
  const file = fileAt(rc.svc, rev.id, filePath);
  if (!file) throw notFound('File');
  return sendFile(rc.reply, file);
}

/** A snippet's files as the spam check reads them: paths and contents. */
const snippetText = (files: SnippetFile[]): string[] => files.flatMap((f) => [f.path, f.content]);

function applyUpdate(rc: RequestContext, s: SnippetRow): SnippetRow {
  const user = rc.requireUser();
  const p = updateParams(rc.params);
  if ((p.content !== undefined || p.file_name !== undefined) && currentPaths(rc.svc, s.id).length > 1) {
    throw apiError(400, { error: 'To update Snippets with multiple files, you must use the `files` parameter' });
  }
  const actions = p.actions ?? legacyUpdateAction(rc.svc, s, p.file_name, p.content);
  if (p.actions) validateActions(p.actions);
  const filesText = actions.flatMap((a) => [a.file_path, a.content]).filter((x): x is string => !!x);
  checkSpamOnUpdate(rc, s.project_id === null ? 'PersonalSnippet' : 'ProjectSnippet', s, p, filesText);
  return updateSnippet(rc.svc, s, user.id, { title: p.title, description: p.description, visibility: p.visibility, actions });
}

export function registerSnippetRoutes(r: Router): void {
  // --- project snippets (lib/api/project_snippets.rb) ---
  r.get('/projects/:id/snippets', (rc) => {
    const project = loadSnippetsProject(rc);
    const list = projectSnippetList(rc.svc, rc.user, project);
    return snippets(rc, paginateSql<SnippetRow>(rc, rc.svc.db, list));
  });

  r.get('/projects/:id/snippets/:snippet_id', (rc) => snippet(rc, loadProjectSnippet(rc, loadSnippetsProject(rc), recordNotFound)), {
    auth: 'optional',
  });

  r.post('/projects/:id/snippets', (rc) => {
    const user = rc.requireUser();
    const project = loadSnippetsProject(rc);
    const p = createParams(rc.params, true);
    // create_snippet: Reporter and up (admins too).
    if (!canCreateInProject(rc, project)) throw forbidden();
    checkSpam(rc, { type: 'ProjectSnippet', title: p.title, description: p.description, extra: snippetText(p.files) });
    const row = createSnippet(rc.svc, {
      ...p,
      projectId: project.id,
      authorId: user.id,
      userAgent: requestUserAgent(rc),
    });
    return snippet(rc, row);
  });

  r.put('/projects/:id/snippets/:snippet_id', (rc) => {
    const user = rc.requireUser();
    const project = loadSnippetsProject(rc);
    const s = loadProjectSnippet(rc, project);
    if (!canAdminSnippet(rc.svc, user, s, project)) throw forbidden();
    return snippet(rc, applyUpdate(rc, s));
  });

  r.delete('/projects/:id/snippets/:snippet_id', (rc) => {
    const user = rc.requireUser();
    const project = loadSnippetsProject(rc);
    const s = loadProjectSnippet(rc, project);
    if (!canAdminSnippet(rc.svc, user, s, project)) throw forbidden();
    checkUnmodifiedSince(rc, s.updated_at);
    deleteSnippet(rc.svc, s);
    return undefined;
  });

  r.get('/projects/:id/snippets/:snippet_id/raw', (rc) => sendFirstFile(rc, loadProjectSnippet(rc, loadSnippetsProject(rc))), {
    auth: 'optional',
  });

  r.get(
    '/projects/:id/snippets/:snippet_id/files/:ref/:file_path/raw',
    (rc) => sendFileAtRef(rc, loadProjectSnippet(rc, loadSnippetsProject(rc))),
    { auth: 'optional' },
  );

  r.get('/projects/:id/snippets/:snippet_id/user_agent_detail', (rc) => {
    rc.requireAdmin();
    const project = loadSnippetsProject(rc);
    const id = snippetIdParam(rc.path.snippet_id);
    const s = findSnippet(rc.svc, id);
    if (!s || s.project_id !== project.id) throw recordNotFound();
    const detail = findUserAgentDetail(rc.svc, s.id);
    if (!detail) throw notFound('UserAgentDetail');
    return userAgentDetail(detail);
  });

  // --- personal snippets (lib/api/snippets.rb) ---
  /** Personal snippets (no project) by `where`, newest first; `indexed` names the index they are read through. */
  const personalList = (rc: RequestContext, where: string, args: unknown[], indexed?: string): unknown[] => {
    const readable = readableSnippetsSql(rc.svc, rc.user, null);
    const from = `FROM snippets s${indexed ? ` INDEXED BY ${indexed}` : ''} WHERE s.project_id IS NULL AND ${where} AND ${readable.sql}`;
    return snippets(rc, paginateSql<SnippetRow>(rc, rc.svc.db, { select: 's.*', from, args: [...args, ...readable.args], order: 's.id DESC' }));
  };

  r.get('/snippets', (rc) => {
    const user = rc.requireUser();
    const q = declared(rc.params, { created_after: t.dateTime(), created_before: t.dateTime() });
    const where = ['author_id = ?'];
    const args: unknown[] = [user.id];
    if (q.created_after) where.push('created_at > ?') && args.push(q.created_after);
    if (q.created_before) where.push('created_at < ?') && args.push(q.created_before);
    // The author's personal snippets alone (core/169), not every snippet of theirs walked for the few outside projects.
    return personalList(rc, where.join(' AND '), args, 'snippets_personal_author');
  });

  r.get('/snippets/public', (rc) => {
    rc.requireUser();
    return personalList(rc, "visibility = 'public'", []);
  });

  r.get('/snippets/all', (rc) => {
    rc.requireUser();
    return personalList(rc, '1 = 1', []);
  });

  r.get('/snippets/:snippet_id', (rc) => snippet(rc, loadPersonalSnippet(rc)), { auth: 'optional' });

  r.post('/snippets', (rc) => {
    const user = rc.requireUser();
    const p = createParams(rc.params, false);
    checkSpam(rc, { type: 'PersonalSnippet', title: p.title, description: p.description, extra: snippetText(p.files) });
    const row = createSnippet(rc.svc, {
      ...p,
      projectId: null,
      authorId: user.id,
      userAgent: requestUserAgent(rc),
    });
    return snippet(rc, row);
  });

  r.put('/snippets/:snippet_id', (rc) => {
    const user = rc.requireUser();
    const s = loadPersonalSnippet(rc);
    if (!canAdminSnippet(rc.svc, user, s, null)) throw forbidden();
    return snippet(rc, applyUpdate(rc, s));
  });

  r.delete('/snippets/:snippet_id', (rc) => {
    const user = rc.requireUser();
    const s = loadPersonalSnippet(rc);
    if (!canAdminSnippet(rc.svc, user, s, null)) throw forbidden();
    checkUnmodifiedSince(rc, s.updated_at);
    deleteSnippet(rc.svc, s);
    return undefined;
  });

  r.get('/snippets/:snippet_id/raw', (rc) => sendFirstFile(rc, loadPersonalSnippet(rc)), { auth: 'optional' });

  r.get('/snippets/:snippet_id/files/:ref/:file_path/raw', (rc) => sendFileAtRef(rc, loadPersonalSnippet(rc)), { auth: 'optional' });

  r.get('/snippets/:snippet_id/user_agent_detail', (rc) => {
    rc.requireAdmin();
    const s = findSnippet(rc.svc, snippetIdParam(rc.path.snippet_id, 'id'));
    if (!s) throw recordNotFound();
    const detail = findUserAgentDetail(rc.svc, s.id);
    if (!detail) throw notFound('UserAgentDetail');
    return userAgentDetail(detail);
  });

  // Sandlab-only: every revision of a snippet, newest first, each id usable as a ref.
  const revisions = (rc: RequestContext, s: SnippetRow): unknown[] => {
    const sql = 'FROM snippet_revisions WHERE snippet_id = ?';
    return paginate(rc, {
      count: () => (rc.svc.db.prepare(`SELECT count(*) AS n ${sql}`).get(s.id) as { n: number }).n,
      rows: (limit, offset) => rc.svc.db.prepare(`SELECT * ${sql} ORDER BY id DESC ${limitSql(limit)} OFFSET ?`).all(s.id, offset) as RevisionRow[],
    }).map((rev) => snippetRevision(rc, s, rev));
  };
  r.get('/projects/:id/snippets/:snippet_id/revisions', (rc) => revisions(rc, loadProjectSnippet(rc, loadSnippetsProject(rc))), { auth: 'optional' });
  r.get('/snippets/:snippet_id/revisions', (rc) => revisions(rc, loadPersonalSnippet(rc)), { auth: 'optional' });

  registerWebRawRoutes(r);

  registerSnippetNoteRoutes(r);
}

function canCreateInProject(rc: RequestContext, project: Project): boolean {
  return effectiveProjectAccess(rc.svc, rc.user, project) >= Access.REPORTER;
}

/**
 * The web URLs the entity names (`raw_url`, `files[].raw_url`) answer like the API's raw
 * endpoints, for whoever may read the snippet: `/-/snippets/:id/raw[/:ref/:path]` and
 * `/<namespace>/<project>/-/snippets/:id/raw[/:ref/:path]` for namespaces up to four levels deep.
 */
function registerWebRawRoutes(r: Router): void {
  const opts = { auth: 'optional' } as const;
  r.rootRoute('GET', '/-/snippets/:snippet_id/raw', (rc) => sendFirstFile(rc, loadPersonalSnippet(rc)), opts);
  r.rootRoute('GET', '/-/snippets/:snippet_id/raw/:ref/*', (rc) => sendFileAtRef(rc, loadPersonalSnippet(rc), rc.path['*']), opts);
  for (let depth = 2; depth <= 5; depth++) {
    const names = Array.from({ length: depth }, (_, i) => `p${i}`);
    const prefix = names.map((n) => `/:${n}`).join('');
    const projectPath = (rc: RequestContext): string => names.map((n) => rc.path[n]).join('/');
    const snippetOf = (rc: RequestContext): SnippetRow => loadProjectSnippet(rc, loadSnippetsProject(rc, projectPath(rc)));
    r.rootRoute('GET', `${prefix}/-/snippets/:snippet_id/raw`, (rc) => sendFirstFile(rc, snippetOf(rc)), opts);
    r.rootRoute('GET', `${prefix}/-/snippets/:snippet_id/raw/:ref/*`, (rc) => sendFileAtRef(rc, snippetOf(rc), rc.path['*']), opts);
  }
}
