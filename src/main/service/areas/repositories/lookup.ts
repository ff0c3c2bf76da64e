import { notFound } from '../../http/errors';
import type { Commit } from '../../git/commits';
import type { RefInfo, Repository } from '../../git';
import type { ServiceContext } from '../../context';
import type { Project } from '../core/projects';
import { isSafeRevision } from '../../git/names';

/** The commit a ref names, or GitLab's 404 `{"message":"404 <what> Not Found"}`. */
export async function commitOr404(repo: Repository, ref: string, what = 'Commit'): Promise<Commit> {
  const commit = isSafeRevision(ref) ? await repo.findCommit(ref) : null;
  if (!commit) throw notFound(what);
  return commit;
}

/** Commits by id, read through the object reader (missing ones dropped). */
export async function commitsById(repo: Repository, ids: string[]): Promise<Commit[]> {
  const out: Commit[] = [];
  for (const id of ids) {
    const c = await repo.commit(id);
    if (c) out.push(c);
  }
  return out;
}

/** BranchesFinder/TagsFinder `search`: `^x` starts with, `x$` ends with, else contains; case-insensitive. */
export function matchesSearch(name: string, search: string | undefined): boolean {
  if (!search) return true;
  const n = name.toLowerCase();
  let s = search.toLowerCase();
  const start = s.startsWith('^');
  const end = s.endsWith('$');
  if (start) s = s.slice(1);
  if (end) s = s.slice(0, -1);
  if (start && end) return n === s;
  if (start) return n.startsWith(s);
  if (end) return n.endsWith(s);
  return n.includes(s);
}

/** A branch or tag by its exact name. */
export async function findRef(repo: Repository, kind: 'heads' | 'tags', name: string): Promise<RefInfo | undefined> {
  return (await repo.listRefs(kind, name))[0];
}

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
