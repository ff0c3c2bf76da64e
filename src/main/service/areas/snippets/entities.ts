import { sameTableVersions, tableVersionsOf, unchangedEntity, unchangedPage } from '../../db/connection';
import type { EntityContext } from '../core/entities';
import { projectFullPath, serverOf, userBasic, withFields } from '../core/entities';
import { findUserById } from '../core/users';
import { DEFAULT_REF, type RevisionRow, type SnippetRow, type UserAgentDetailRow, currentPathsOf, revisionPaths } from './snippets';
import { userBasicById } from '../core/entities';

/**
 * The snippet's author: UserBasic plus `created_at`, and `email` as the reference lists it. The same
 * frozen entity while the user's row reads the same (findUserById hands out the same row until the
 * users table is written): the snippets that embed it compare it by identity.
 */
function author(ec: EntityContext, id: number): Record<string, unknown> | null {
  const u = findUserById(ec.svc, id);
  if (!u) return null;
  const seesEmail = !!ec.user && (ec.user.admin || ec.user.id === u.id);
  return unchangedEntity(ec.svc.db, 'snippet-author', `${id}:${seesEmail}:${ec.baseUrl}`, u as unknown as Record<string, unknown>, null, () =>
    withFields(userBasic(ec, u), { email: seesEmail ? u.email : u.public_email, created_at: u.created_at }),
  );
}

/** Web and repository URLs: `<project>/-/snippets/:id` for project snippets (`projectPath`, projectFullPath's), `/-/snippets/:id` for personal ones. */
function snippetUrls(ec: EntityContext, s: SnippetRow, projectPath: string | null): { web: string; repoPath: string } {
  if (projectPath !== null) return { web: `${ec.baseUrl}/${projectPath}/-/snippets/${s.id}`, repoPath: `${projectPath}/snippets/${s.id}.git` };
  return { web: `${ec.baseUrl}/-/snippets/${s.id}`, repoPath: `snippets/${s.id}.git` };
}

/** Entities::ProjectSnippet / PersonalSnippet. */
export function snippet(ec: EntityContext, s: SnippetRow): Record<string, unknown> {
  return snippets(ec, [s])[0];
}

const NO_PATHS: readonly string[] = [];

/** The tables a page of snippets reads its authors (the user's row alone) and files from (core/099's versions). */
const SNIPPET_PAGE_TABLES = ['users', 'snippet_revisions', 'snippet_revision_files'] as const;

/** What a page of snippets read besides its rows and the viewer: SNIPPET_PAGE_TABLES' versions, read first, and each project's full path. */
interface SnippetPageInputs {
  versions: (number | undefined)[];
  projects: [number, string | null][];
}

/**
 * The entity of each snippet of a page: their files read for the page at once, each author built
 * once. A page whose rows (the same frozen objects) and inputs read as when it was built is handed
 * out again (unchangedPage), checked once per page after a write; otherwise a snippet whose row,
 * author, files and URLs read as at its last build keeps that entity and its JSON text
 * (unchangedEntity): a page of 100 was built and serialized anew after any write.
 */
export function snippets(ec: EntityContext, rows: SnippetRow[]): Record<string, unknown>[] {
  const db = ec.svc.db;
  // The author's email shows to an administrator and to the author (`by`, an input): the viewer in
  // the key keeps each viewer's entity apart instead of one rebuilt as viewers take turns.
  const viewer = `${ec.user?.id ?? 0}:${!!ec.user?.admin}:${ec.baseUrl}`;
  const current = (inputs: SnippetPageInputs): boolean =>
    sameTableVersions(db, SNIPPET_PAGE_TABLES, inputs.versions) && inputs.projects.every(([id, path]) => projectFullPath(ec, id) === path);
  return unchangedPage(db, 'snippet-page', viewer, rows, current, () => {
    const versions = tableVersionsOf(db, SNIPPET_PAGE_TABLES);
    const paths = rows.length ? currentPathsOf(ec.svc, rows.map((s) => s.id)) : new Map<number, readonly string[]>();
    const authors = new Map<number, Record<string, unknown> | null>();
    // A page's snippets mostly share one project: its path read once for them.
    const projects = new Map<number, string | null>();
    const entities = rows.map((s) => {
      let by = authors.get(s.author_id);
      if (by === undefined) authors.set(s.author_id, (by = author(ec, s.author_id)));
      let projectPath: string | null | undefined = s.project_id === null ? null : projects.get(s.project_id);
      if (projectPath === undefined) projects.set(s.project_id!, (projectPath = projectFullPath(ec, s.project_id!)));
      const files = paths.get(s.id) ?? NO_PATHS;
      // The URLs are made of the project's path, the base URL (in the key) and the id (in the row).
      return unchangedEntity(db, 'snippet', `${s.id}:${viewer}`, s as unknown as Record<string, unknown>, [by, files, projectPath], () =>
        snippetWith(ec, s, by, files, snippetUrls(ec, s, projectPath)),
      );
    });
    return { entities, inputs: { versions, projects: [...projects] } };
  });
}

function snippetWith(ec: EntityContext, s: SnippetRow, by: Record<string, unknown> | null, paths: readonly string[], { web, repoPath }: { web: string; repoPath: string }): Record<string, unknown> {
  return {
    id: s.id,
    title: s.title,
    description: s.description,
    visibility: s.visibility,
    author: by,
    updated_at: s.updated_at,
    created_at: s.created_at,
    project_id: s.project_id,
    web_url: web,
    raw_url: `${web}/raw`,
    ssh_url_to_repo: `git@${serverOf(ec.baseUrl).hostname}:${repoPath}`,
    http_url_to_repo: `${ec.baseUrl}/${repoPath}`,
    file_name: paths[0] ?? null,
    files: paths.map((path) => ({ path, raw_url: `${web}/raw/${DEFAULT_REF}/${path}` })),
    imported: !!s.imported,
    imported_from: s.imported_from,
  };
}

/** Entities::UserAgentDetail (a snippet's or an issue's); `spam_check_submitted` is the reference's name for `akismet_submitted`. */
export function userAgentDetail(d: Pick<UserAgentDetailRow, 'user_agent' | 'ip_address' | 'submitted'>): Record<string, unknown> {
  return { user_agent: d.user_agent, ip_address: d.ip_address, akismet_submitted: !!d.submitted, spam_check_submitted: !!d.submitted };
}

/**
 * One revision of a snippet's files (Sandlab-only: GitLab keeps them in the snippet's Git
 * repository, which has no REST form). `id` is the ref `.../files/:ref/:file_path/raw` accepts.
 */
export function snippetRevision(ec: EntityContext, s: SnippetRow, r: RevisionRow): Record<string, unknown> {
  const api = s.project_id === null ? `${ec.baseUrl}/api/v4/snippets/${s.id}` : `${ec.baseUrl}/api/v4/projects/${s.project_id}/snippets/${s.id}`;
  return {
    id: r.sha,
    short_id: r.sha.slice(0, 8),
    parent_ids: r.parent_sha ? [r.parent_sha] : [],
    message: r.message,
    author: userBasicById(ec, r.author_id),
    created_at: r.created_at,
    files: revisionPaths(ec.svc, r.id).map((path) => ({ path, raw_url: `${api}/files/${r.sha}/${encodeURIComponent(path)}/raw` })),
  };
}
