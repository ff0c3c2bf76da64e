import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { notFound } from '../../http/errors';
import { renderMarkdown, type ReferenceResolver } from '../../markdown/markdown';
import { canReadProject } from '../core/access';
import { findNamespaceById } from '../core/namespaces';
import { findProjectByRef, type Project } from '../core/projects';
import { findUserByUsername } from '../core/users';
import { issueReadable } from '../core/routes/issues';
import { featureAvailable } from '../core/feature-access';
import type { IssueRow, MergeRequestRow } from '../core/entities';

const linkAttrs = (type: string, extra: Record<string, string>): Record<string, string> => ({
  'data-reference-type': type,
  ...extra,
  'data-container': 'body',
  'data-placement': 'top',
});

/** References as GitLab's filters link them: users everywhere, issues and merge requests within `project`. */
function referenceResolver(rc: RequestContext, project: Project | null): ReferenceResolver {
  const resolver: ReferenceResolver = {
    user(username) {
      const u = findUserByUsername(rc.svc, username);
      if (!u) return null;
      return { url: `${rc.baseUrl}/${u.username}`, title: u.name, attrs: linkAttrs('user', { 'data-user': String(u.id), class: 'gfm gfm-project_member js-user-link' }) };
    },
  };
  if (!project) return resolver;
  const ns = findNamespaceById(rc.svc, project.namespace_id)!;
  const web = `${rc.baseUrl}/${ns.full_path}/${project.path}`;
  resolver.issue = (iid) => {
    const i = rc.svc.db.prepare('SELECT * FROM issues WHERE project_id = ? AND iid = ?').get(project.id, iid) as IssueRow | undefined;
    if (!i || !issueReadable(rc, project, i)) return null;
    return {
      url: `${web}/-/issues/${i.iid}`,
      title: i.title,
      attrs: linkAttrs('issue', { 'data-project': String(project.id), 'data-issue': String(i.id), 'data-iid': String(i.iid), class: 'gfm gfm-issue' }),
    };
  };
  resolver.mergeRequest = (iid) => {
    const m = rc.svc.db.prepare('SELECT * FROM merge_requests WHERE project_id = ? AND iid = ?').get(project.id, iid) as MergeRequestRow | undefined;
    // ReferenceRedactor: read_merge_request, so not where the caller may not use the project's merge requests.
    if (!m || !featureAvailable(rc.svc, rc.user, project, 'MergeRequest')) return null;
    return {
      url: `${web}/-/merge_requests/${m.iid}`,
      title: m.title,
      attrs: linkAttrs('merge_request', { 'data-project': String(project.id), 'data-merge-request': String(m.id), 'data-iid': String(m.iid), class: 'gfm gfm-merge_request' }),
    };
  };
  return resolver;
}

/** POST /markdown: GitLab's Markdown API (lib/api/markdown.rb). A read, so `read_api` suffices. */
export function registerMarkdownRoutes(r: Router): void {
  r.post(
    '/markdown',
    (rc) => {
      rc.requireUser();
      const p = declared(rc.params, { text: t.string().required(), gfm: t.boolean(), project: t.string() });
      let project: Project | null = null;
      if (p.project) {
        const found = findProjectByRef(rc.svc, p.project);
        if (!found || !canReadProject(rc.svc, rc.user, found)) throw notFound('Project');
        project = found;
      }
      const gfm = p.gfm ?? false;
      rc.status = 201;
      return { html: renderMarkdown(p.text, { gfm, references: gfm ? referenceResolver(rc, project) : undefined }) };
    },
    { scopes: ['read_api'] },
  );
}
