import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { forbidden, notFound } from '../../../http/errors';
import { paginateArray } from '../../../http/pagination';
import { checkUnmodifiedSince } from '../../../http/conditional';
import type { RefInfo, Repository } from '../../../git';
import { Access, effectiveProjectAccess } from '../../core/access';
import type { Project } from '../../core/projects';
import { loadRepository, loadWritableRepository } from '../access';
import { tagEntity } from '../entities';
import { commitOr404, findRef, matchesSearch } from '../lookup';
import { sortTagsByUpdated } from '../tag_order';
import { createTag, deleteTag } from '../writes';

async function presentTag(rc: RequestContext, project: Project, repo: Repository, tag: RefInfo): Promise<Record<string, unknown>> {
  return tagEntity(rc, project, tag, await repo.commit(tag.commitId));
}

async function findTagOr404(repo: Repository, name: string): Promise<RefInfo> {
  const tag = await findRef(repo, 'tags', name);
  if (!tag) throw notFound('Tag');
  return tag;
}

/** Natural ordering of version-like names (`v1.10` after `v1.9`), as TagsFinder's `version` sort. */
const versionCompare = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/** `admin_tag`: Developers and up, in a project whose code they may push. */
async function loadTagWriter(rc: RequestContext) {
  const ctx = await loadWritableRepository(rc);
  if (effectiveProjectAccess(rc.svc, ctx.user, ctx.project) < Access.DEVELOPER) throw forbidden();
  return ctx;
}

export function registerTagRoutes(r: Router): void {
  r.get(
    '/projects/:id/repository/tags',
    async (rc) => {
      const q = declared(rc.params, {
        order_by: t.string().values(['name', 'updated', 'version']).default('updated'),
        sort: t.string().values(['asc', 'desc']).default('desc'),
        search: t.string(),
        page_token: t.string(),
      });
      const { project, repo } = await loadRepository(rc);
      let tags = (await repo.listRefs('tags')).filter((tag) => matchesSearch(tag.name, q.search));
      const dir = q.sort === 'asc' ? 1 : -1;
      if (q.order_by === 'name') tags.sort((a, b) => dir * (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      else if (q.order_by === 'version') tags.sort((a, b) => dir * versionCompare(a.name, b.name));
      else tags = await sortTagsByUpdated(repo, tags, q.sort as 'asc' | 'desc');
      const page = q.page_token ? tags.slice(Math.max(0, tags.findIndex((tag) => tag.name === q.page_token) + 1)) : tags;
      const out: Record<string, unknown>[] = [];
      for (const tag of paginateArray(rc, page)) out.push(await presentTag(rc, project, repo, tag));
      return out;
    },
    { auth: 'optional', jobToken: true },
  );

  r.get(
    '/projects/:id/repository/tags/:tag_name',
    async (rc) => {
      const { project, repo } = await loadRepository(rc);
      return presentTag(rc, project, repo, await findTagOr404(repo, rc.path.tag_name));
    },
    { auth: 'optional' },
  );

  r.post('/projects/:id/repository/tags', async (rc) => {
    const p = declared(rc.params, { tag_name: t.string().required(), ref: t.string().required(), message: t.string() });
    const { project, repo, user } = await loadTagWriter(rc);
    await createTag(rc.svc, project, repo, user, p.tag_name, p.ref, p.message ?? null);
    return presentTag(rc, project, repo, await findTagOr404(repo, p.tag_name));
  });

  r.delete('/projects/:id/repository/tags/:tag_name', async (rc) => {
    const { project, repo, user } = await loadTagWriter(rc);
    const tag = await findTagOr404(repo, rc.path.tag_name);
    const commit = await commitOr404(repo, tag.commitId);
    checkUnmodifiedSince(rc, commit.author.date);
    await deleteTag(rc.svc, project, repo, user, tag.name, tag.tagObjectId ?? tag.commitId);
    return undefined;
  });
}
