/**
 * What may reach git as a ref, a revision or a path. Everything a client sends passes one of
 * these before it becomes an argument; a value that fails is answered by the caller (GitLab's
 * "Branch name is invalid", "file_path should be a valid file path", ...), never handed to git.
 */

export const SHA_RE = /^[0-9a-f]{40}$/;
export const ZERO_SHA = '0'.repeat(40);

/** `git check-ref-format` rules for one ref name (without `refs/heads/`). */
export function isValidRefName(name: string): boolean {
  if (!name || name.length > 1024) return false;
  if (name === '@' || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  // Control characters, space and ~ ^ : ? * [ \ are never allowed in a ref.
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}

/**
 * A branch or tag name a user may create (Gitlab::GitRefValidator): a valid ref name that does not
 * start with `-`, is not `HEAD`, does not spell a full ref and is not a commit id.
 */
export function isValidNewRefName(name: string): boolean {
  if (!isValidRefName(name)) return false;
  if (name.startsWith('-') || name === 'HEAD') return false;
  if (name.startsWith('refs/heads/') || name.startsWith('refs/remotes/') || name.startsWith('refs/tags/')) return false;
  return !SHA_RE.test(name);
}

/**
 * A merge request's source or target branch (GitRefValidator.validate_merge_request_branch): any
 * name that is a valid ref under refs/heads/ (or spelled in full as refs/heads/... or
 * refs/remotes/...), not starting with `-`. It need not exist: GitLab checks the name, not the branch.
 */
export function isValidMergeRequestBranch(name: string): boolean {
  if (!name || name.startsWith('-')) return false;
  // "refs/heads/@" is a valid ref though "@" alone is not a ref name.
  return name === '@' || isValidRefName(name);
}

/**
 * A revision a client may name (`main`, a tag, a sha, `main~2`, `refs/heads/x`): never an option,
 * never a `rev:path` or whitespace. What it resolves to is git's business.
 */
export function isSafeRevision(rev: string): boolean {
  return rev.length > 0 && rev.length <= 1024 && !rev.startsWith('-') && !/[\x00-\x20\x7f:\\]/.test(rev);
}

/**
 * A path inside a repository tree: relative, no `.`/`..` segments, no NUL or newline (the object
 * reader is line-based). Leading and trailing slashes are trimmed by the caller.
 */
export function isSafeTreePath(path: string): boolean {
  if (!path || path.length > 4096 || /[\x00\n\r]/.test(path)) return false;
  if (path.startsWith('/')) return false;
  return path.split('/').every((part) => part.length > 0 && part !== '.' && part !== '..' && part !== '.git');
}
