import type { RequestContext } from '../../http/route';
import { notFound } from '../../http/errors';
import { loadProject } from '../core/access';
import type { Project } from '../core/projects';
import { snippetIdParam } from './params';
import { type SnippetRow, canReadSnippet, checkSnippetsFeature, findSnippet } from './snippets';

/** The project of `/projects/:id/snippets...` with its snippets feature open to the caller. */
export function loadSnippetsProject(rc: RequestContext, ref = rc.path.id): Project {
  const project = loadProject(rc, undefined, ref);
  checkSnippetsFeature(rc.svc, rc.user, project);
  return project;
}

/** A snippet of the project the caller may read, or the 404 `missing` builds. */
export function loadProjectSnippet(rc: RequestContext, project: Project, missing = () => notFound('Snippet')): SnippetRow {
  const id = snippetIdParam(rc.path.snippet_id);
  const s = findSnippet(rc.svc, id);
  if (!s || s.project_id !== project.id || !canReadSnippet(rc.svc, rc.user, s, project)) throw missing();
  return s;
}

export function loadPersonalSnippet(rc: RequestContext): SnippetRow {
  const id = snippetIdParam(rc.path.snippet_id, 'id');
  const s = findSnippet(rc.svc, id);
  if (!s || s.project_id !== null || !canReadSnippet(rc.svc, rc.user, s, null)) throw notFound('Snippet');
  return s;
}

