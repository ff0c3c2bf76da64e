import type { ServiceContext } from '../../context';
import type { RefInfo, Repository } from '../../git';
import type { Project } from '../core/projects';

/** TagsFinder's `updated` order: the tag's creation (tagger) date, else its commit's date; ties by name. */
export async function sortTagsByUpdated(repo: Repository, tags: RefInfo[], sort: 'asc' | 'desc'): Promise<RefInfo[]> {
  const dir = sort === 'asc' ? 1 : -1;
  const when = new Map<string, number>();
  for (const tag of tags) {
    when.set(tag.name, tag.tagger?.date ? Date.parse(tag.tagger.date) / 1000 : ((await repo.commit(tag.commitId))?.committer.time ?? 0));
  }
  return [...tags].sort((a, b) => dir * (when.get(a.name)! - when.get(b.name)!) || a.name.localeCompare(b.name));
}

/**
 * What badges' `%{commit_sha}` and `%{latest_tag}` show (Badge::PLACEHOLDERS): the default
 * branch's head and the most recently updated tag; null where the repository has none (or git is missing).
 */
export async function repositoryBadgeFacts(svc: ServiceContext, project: Project): Promise<{ commitSha: string | null; latestTag: string | null }> {
  if (!svc.git.available) return { commitSha: null, latestTag: null };
  const repo = await svc.git.ensure(project);
  const commitSha = await repo.refCommit(`refs/heads/${project.default_branch}`);
  const latestTag = (await sortTagsByUpdated(repo, await repo.listRefs('tags'), 'desc'))[0]?.name ?? null;
  return { commitSha, latestTag };
}
