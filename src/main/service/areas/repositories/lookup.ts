import { notFound } from '../../http/errors';
import type { Commit } from '../../git/commits';
import type { RefInfo, Repository } from '../../git';
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
export function matchesSearch(name: string, search: string | null | undefined): boolean {
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

/** Every file's path in `commit`'s tree (blobs only; the paths CI `include:local` wildcards and `rules:exists` match). */
export async function filePathsAt(repo: Repository, commit: string): Promise<string[]> {
  return ((await repo.tree(commit, '', true)) ?? []).filter((e) => e.type === 'blob').map((e) => e.path);
}

/** A file's text at `commit`, or null when no file is at that path. */
export async function readTextAt(repo: Repository, commit: string, path: string): Promise<string | null> {
  const entry = await repo.entryAt(commit, path);
  if (!entry || entry.type !== 'blob') return null;
  return (await repo.blob(entry.id))?.toString('utf8') ?? null;
}

/** Names of the branches (`heads`) or tags that contain `sha`, as `for-each-ref --contains` lists them. */
export async function refsContaining(repo: Repository, sha: string, kind: 'heads' | 'tags'): Promise<string[]> {
  const out = await repo.run(['for-each-ref', '--format=%(refname:lstrip=2)', `--contains=${sha}`, `refs/${kind}/`]);
  return out.stdout.toString('utf8').split('\n').filter(Boolean);
}
