import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { type Commit, isoWithOffset, parseCommit } from './commits';
import { type DiffFile, parseRawPatch } from './diff';
import { isSafeRevision, isSafeTreePath, isValidRefName, SHA_RE, ZERO_SHA } from './names';
import { ObjectReader, type GitObject } from './object_reader';
import { type GitProgram, GitCommandError, runGit, spawnGit, type RunOptions, type RunResult } from './runtime';

export interface RefInfo {
  /** `main`, `v1.0` */
  name: string;
  /** `refs/heads/main` */
  ref: string;
  /** The commit the ref points at (peeled through annotated tags). */
  commitId: string;
  /** For an annotated tag: the tag object and its message; null otherwise. */
  tagObjectId: string | null;
  tagMessage: string | null;
  tagger: { name: string; email: string; date: string } | null;
}

export interface TreeEntry {
  id: string;
  name: string;
  type: 'blob' | 'tree' | 'commit';
  path: string;
  mode: string;
}

export interface Person {
  name: string;
  email: string;
  /** ISO time; now when absent. */
  date?: string;
}

export type FileAction =
  | { action: 'create' | 'update'; path: string; content: Buffer; executable?: boolean; lastCommitId?: string }
  | { action: 'delete'; path: string; lastCommitId?: string }
  | { action: 'move'; path: string; previousPath: string; content?: Buffer; lastCommitId?: string }
  | { action: 'chmod'; path: string; executable: boolean };

/** A commit could not be made as asked; `message` is GitLab's wording for the client. */
export class CommitRefusedError extends Error {}

/** A ref moved between reading it and updating it (someone else pushed). */
export class RefRaceError extends Error {}

export interface MergeResult {
  tree: string | null;
  conflicts: string[];
}

/**
 * One project's bare repository. Every method validates what reaches git (see names.ts) and
 * takes arguments as arrays; reads go through one long-lived object reader.
 */
export class Repository {
  private readonly reader: ObjectReader;
  /**
   * isEmpty's answer until git next runs on this repository (any command may move a ref), as
   * GitLab caches `empty?` until a push expires it: every project entity asks.
   */
  private emptyMemo: boolean | null = null;

  constructor(
    private readonly program: GitProgram,
    readonly path: string,
    private readonly tmpDir: string,
  ) {
    this.reader = new ObjectReader(program, path);
  }

  // --- lifecycle ----------------------------------------------------------------------------

  exists(): boolean {
    return existsSync(join(this.path, 'HEAD'));
  }

  /** `git init --bare` with HEAD on `defaultBranch` (no sample hooks: nothing runs on push). */
  async create(defaultBranch: string): Promise<void> {
    this.emptyMemo = null;
    if (this.exists()) return;
    await mkdir(dirname(this.path), { recursive: true });
    // Initialised beside and renamed into place: a half-created repository is never seen.
    const staging = `${this.path}.init-${randomBytes(4).toString('hex')}`;
    await runGit(this.program, ['init', '--bare', '--quiet', '--template=', staging]);
    await runGit(this.program, ['symbolic-ref', 'HEAD', `refs/heads/${defaultBranch}`], { gitDir: staging });
    try {
      await rename(staging, this.path);
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      if (!this.exists()) throw err;
    }
  }

  /** Moves the repository out of the way, then deletes it. */
  async remove(): Promise<void> {
    this.emptyMemo = null;
    this.close();
    if (!existsSync(this.path)) return;
    const doomed = `${this.path}.deleted-${randomBytes(4).toString('hex')}`;
    try {
      await rename(this.path, doomed);
    } catch (err) {
      // The periodic sweep and the deleting request can both reach here: whoever renamed first removes it.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    await rm(doomed, { recursive: true, force: true });
  }

  close(): void {
    this.reader.close();
  }

  /** Runs git on this repository (the only ways in besides create and remove: see emptyMemo). */
  async run(args: string[], opts: RunOptions = {}): Promise<RunResult> {
    this.emptyMemo = null;
    try {
      return await runGit(this.program, args, { ...opts, gitDir: this.path });
    } finally {
      this.emptyMemo = null;
    }
  }

  spawn(args: string[], opts: Omit<RunOptions, 'input' | 'okCodes' | 'timeoutMs'> = {}): ChildProcess {
    this.emptyMemo = null;
    const child = spawnGit(this.program, args, { ...opts, gitDir: this.path });
    // A push (receive-pack) moves refs while it runs: forget again once it is done.
    child.once('exit', () => (this.emptyMemo = null));
    return child;
  }

  // --- refs ---------------------------------------------------------------------------------

  /** The branch HEAD names (the project's default branch), read from the file. */
  headBranch(): string | null {
    try {
      const m = /^ref: refs\/heads\/(.+)$/m.exec(readFileSync(join(this.path, 'HEAD'), 'utf8'));
      return m ? m[1].trim() : null;
    } catch {
      return null;
    }
  }

  async setHead(branch: string): Promise<void> {
    await this.run(['symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
  }

  /** True when no branch exists yet (GitLab's `empty_repo`). Filesystem only: cheap enough for every project entity. */
  isEmpty(): boolean {
    return (this.emptyMemo ??= this.readIsEmpty());
  }

  private readIsEmpty(): boolean {
    if (!this.exists()) return true;
    const heads = join(this.path, 'refs', 'heads');
    const hasLoose = (dir: string): boolean => {
      try {
        return readdirSync(dir).some((name) => {
          const p = join(dir, name);
          return statSync(p).isDirectory() ? hasLoose(p) : true;
        });
      } catch {
        return false;
      }
    };
    if (hasLoose(heads)) return false;
    try {
      return !/ refs\/heads\//.test(readFileSync(join(this.path, 'packed-refs'), 'utf8'));
    } catch {
      return true;
    }
  }

  /** The commit a revision names, or null (unknown, not a commit, or not a safe revision). */
  async resolveCommit(rev: string): Promise<string | null> {
    if (!isSafeRevision(rev)) return null;
    const r = await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { okCodes: [1, 128] });
    const sha = r.stdout.toString().trim();
    return r.code === 0 && SHA_RE.test(sha) ? sha : null;
  }

  async branchExists(name: string): Promise<boolean> {
    return (await this.refCommit(`refs/heads/${name}`)) !== null;
  }

  /** The commit a full ref points at now, or null. */
  async refCommit(ref: string): Promise<string | null> {
    if (!isSafeRevision(ref)) return null;
    const r = await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { okCodes: [1, 128] });
    return r.code === 0 ? r.stdout.toString().trim() : null;
  }

  /** Branches (`refs/heads`) or tags (`refs/tags`), sorted by name; with `name`, only that one. */
  async listRefs(kind: 'heads' | 'tags', name?: string): Promise<RefInfo[]> {
    if (name !== undefined && !isValidRefName(name)) return [];
    const fmt = ['%(refname)', '%(objectname)', '%(objecttype)', '%(*objectname)', '%(taggername)', '%(taggeremail)', '%(taggerdate:raw)', '%(contents)'].join('%00');
    const r = await this.run(['for-each-ref', `--format=${fmt}%00%01`, name === undefined ? `refs/${kind}/` : `refs/${kind}/${name}`]);
    const out: RefInfo[] = [];
    for (const rec of r.stdout.toString('utf8').split('\0\x01\n')) {
      if (!rec) continue;
      const [ref, oid, type, peeled, taggerName, taggerEmail, taggerDate, contents] = rec.split('\0');
      const annotated = type === 'tag';
      out.push({
        name: ref.slice(`refs/${kind}/`.length),
        ref,
        commitId: annotated ? peeled : oid,
        tagObjectId: annotated ? oid : null,
        tagMessage: annotated ? (contents ?? '').replace(/\n-----BEGIN PGP SIGNATURE-----[\s\S]*$/, '').replace(/\n$/, '') : null,
        tagger: annotated ? { name: taggerName, email: taggerEmail.replace(/^<|>$/g, ''), date: rawDateToIso(taggerDate) } : null,
      });
    }
    return name === undefined ? out : out.filter((r) => r.name === name);
  }

  /**
   * Moves `ref` from `oldSha` (ZERO_SHA: must not exist) to `newSha` (ZERO_SHA: delete), atomically.
   * Throws RefRaceError when the ref was not at `oldSha`.
   */
  async updateRef(ref: string, newSha: string, oldSha: string): Promise<void> {
    if (!isSafeRevision(ref) || !ref.startsWith('refs/')) throw new Error(`not a full ref: ${ref}`);
    try {
      if (newSha === ZERO_SHA) await this.run(['update-ref', '-d', ref, oldSha]);
      else await this.run(['update-ref', ref, newSha, oldSha]);
    } catch (err) {
      if (err instanceof GitCommandError && /cannot lock ref|is at .* but expected|reference already exists|unable to resolve/.test(err.stderr)) {
        throw new RefRaceError(err.stderr.trim());
      }
      throw err;
    }
  }

  /** An annotated tag object pointing at `target`; returns the tag object's id. */
  async createTagObject(name: string, target: string, message: string, tagger: Person): Promise<string> {
    const body = `object ${target}\ntype commit\ntag ${name}\ntagger ${signature(tagger)}\n\n${message.endsWith('\n') ? message : `${message}\n`}`;
    return (await this.run(['hash-object', '-t', 'tag', '-w', '--stdin'], { input: body })).stdout.toString().trim();
  }

  // --- objects ------------------------------------------------------------------------------

  readObject(spec: string): Promise<GitObject | null> {
    return this.reader.read(spec);
  }

  async commit(sha: string): Promise<Commit | null> {
    if (!SHA_RE.test(sha)) return null;
    const obj = await this.reader.read(sha);
    return obj?.type === 'commit' ? parseCommit(obj.oid, obj.content) : null;
  }

  /** A revision's commit, or null. */
  async findCommit(rev: string): Promise<Commit | null> {
    const sha = await this.resolveCommit(rev);
    return sha ? this.commit(sha) : null;
  }

  /** The entry at `path` in `commit`'s tree, or null. `path` '' is the root tree. */
  async entryAt(commit: string, path: string): Promise<{ id: string; type: GitObject['type']; mode: string; size: number } | null> {
    if (!SHA_RE.test(commit)) return null;
    if (path === '') {
      const c = await this.commit(commit);
      return c ? { id: c.tree, type: 'tree', mode: '040000', size: 0 } : null;
    }
    if (!isSafeTreePath(path)) return null;
    const r = await this.run(['ls-tree', '-z', '-l', '--full-tree', commit, '--', path], { okCodes: [128] });
    const rec = r.stdout.toString('utf8').split('\0')[0];
    if (r.code !== 0 || !rec) return null;
    const m = /^(\d+) (\w+) ([0-9a-f]+)\s+(-|\d+)\t(.*)$/s.exec(rec);
    if (!m || m[5] !== path) return null;
    return { id: m[3], type: m[2] as GitObject['type'], mode: m[1], size: m[4] === '-' ? 0 : Number(m[4]) };
  }

  /** Tree entries under `path` (or the root) of `commit`; `recursive` lists every blob and tree below. */
  async tree(commit: string, path: string, recursive: boolean): Promise<TreeEntry[] | null> {
    const entry = await this.entryAt(commit, path);
    if (!entry || entry.type !== 'tree') return null;
    const args = ['ls-tree', '-z', '--full-tree'];
    if (recursive) args.push('-r', '-t');
    args.push(commit, '--');
    if (path) args.push(`${path}/`);
    const r = await this.run(args);
    return r.stdout
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((rec) => {
        const tab = rec.indexOf('\t');
        const [mode, type, id] = rec.slice(0, tab).split(' ');
        const full = rec.slice(tab + 1);
        return { id, type: type as TreeEntry['type'], mode, path: full, name: full.slice(full.lastIndexOf('/') + 1) };
      });
  }

  /** A blob's bytes through the object reader (for JSON answers; streams use `catBlob`). */
  async blob(id: string): Promise<Buffer | null> {
    if (!SHA_RE.test(id)) return null;
    const obj = await this.reader.read(id);
    return obj?.type === 'blob' ? obj.content : null;
  }

  /** `git cat-file blob <id>`: the caller streams stdout. */
  catBlob(id: string): ChildProcess {
    if (!SHA_RE.test(id)) throw new Error('not an object id');
    return this.spawn(['cat-file', 'blob', id]);
  }

  // --- history ------------------------------------------------------------------------------

  /**
   * Commit ids reachable from `rev` newest first (`git rev-list`), optionally limited to a path,
   * a time window, first parents, or excluding what `exclude` reaches.
   */
  async revList(opts: {
    revs: string[];
    exclude?: string[];
    path?: string;
    since?: string;
    until?: string;
    firstParent?: boolean;
    noMerges?: boolean;
    author?: string;
    skip?: number;
    max?: number;
    order?: 'default' | 'topo';
    reverse?: boolean;
    follow?: boolean;
  }): Promise<string[]> {
    const args = ['rev-list'];
    if (opts.firstParent) args.push('--first-parent');
    if (opts.noMerges) args.push('--no-merges');
    if (opts.order === 'topo') args.push('--topo-order');
    // Epoch seconds: git's date parser gives up on far dates (and then ignores the limit).
    if (opts.since) args.push(`--max-age=${epochSeconds(opts.since)}`);
    if (opts.until) args.push(`--min-age=${epochSeconds(opts.until)}`);
    if (opts.author) args.push(`--author=${opts.author}`, '--regexp-ignore-case', '--fixed-strings');
    if (opts.skip) args.push(`--skip=${opts.skip}`);
    if (opts.max !== undefined) args.push(`--max-count=${opts.max}`);
    if (opts.reverse) args.push('--reverse');
    for (const rev of [...opts.revs, ...(opts.exclude ?? [])]) if (!SHA_RE.test(rev)) throw new Error('revList takes commit ids');
    args.push(...opts.revs, ...(opts.exclude ?? []).map((e) => `^${e}`));
    if (opts.path) {
      if (opts.follow) args.splice(1, 0, '--follow');
      args.push('--', opts.path);
    }
    const r = await this.run(args);
    return r.stdout.toString().split('\n').filter(Boolean);
  }

  async countCommits(revs: string[], exclude: string[] = []): Promise<number> {
    const r = await this.run(['rev-list', '--count', ...revs, ...exclude.map((e) => `^${e}`)]);
    return Number(r.stdout.toString().trim());
  }

  async mergeBase(...commits: string[]): Promise<string | null> {
    if (commits.length < 2 || !commits.every((c) => SHA_RE.test(c))) return null;
    const r = await this.run(['merge-base', ...(commits.length > 2 ? ['--octopus'] : []), ...commits], { okCodes: [1] });
    const sha = r.stdout.toString().trim();
    return r.code === 0 && sha ? sha : null;
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const r = await this.run(['merge-base', '--is-ancestor', ancestor, descendant], { okCodes: [1] });
    return r.code === 0;
  }

  /** Every changed file between two commits (`from` null: against the empty tree), renames detected. */
  async diff(from: string | null, to: string, opts: { paths?: string[] } = {}): Promise<DiffFile[]> {
    const base = from ?? EMPTY_TREE;
    const args = ['diff-tree', '-r', '-z', '--raw', '-p', '--no-abbrev', '--full-index', '-M', '--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/', base, to];
    if (opts.paths?.length) args.push('--', ...opts.paths);
    return parseRawPatch((await this.run(args, { timeoutMs: 120_000 })).stdout);
  }

  /** The plain patch between two commits, as `git diff` writes it (merge request raw_diffs). */
  async rawDiff(from: string, to: string): Promise<Buffer> {
    if (!SHA_RE.test(from) || !SHA_RE.test(to)) throw new Error('rawDiff takes commit ids');
    return (await this.run(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '--full-index', '-M', from, to], { timeoutMs: 120_000 })).stdout;
  }

  /** `git patch-id --verbatim` of that patch (Gitaly's GetPatchID); null when nothing changed. */
  async patchId(from: string, to: string): Promise<string | null> {
    const patch = await this.rawDiff(from, to);
    if (!patch.length) return null;
    const out = (await this.run(['patch-id', '--verbatim'], { input: patch })).stdout.toString().trim();
    return out.split(' ')[0] || null;
  }

  /** `git blame --porcelain` of a file at a commit. */
  async blame(commit: string, path: string): Promise<{ commit: string; lines: string[] }[]> {
    const r = await this.run(['blame', '--porcelain', commit, '--', path], { timeoutMs: 120_000 });
    const ranges: { commit: string; lines: string[] }[] = [];
    let current: string | null = null;
    for (const line of r.stdout.toString('utf8').split('\n')) {
      const head = /^([0-9a-f]{40}) \d+ \d+/.exec(line);
      if (head) {
        current = head[1];
        continue;
      }
      if (line.startsWith('\t') && current) {
        const last = ranges[ranges.length - 1];
        if (last && last.commit === current) last.lines.push(line.slice(1));
        else ranges.push({ commit: current, lines: [line.slice(1)] });
      }
    }
    return ranges;
  }

  // --- writing ------------------------------------------------------------------------------

  /**
   * One commit of file actions on top of `parent` (null: a root commit), written through a
   * temporary index, never a worktree. Returns the new commit's id; refs are the caller's move.
   * Refuses actions GitLab refuses, with its messages.
   */
  async commitFiles(opts: { parent: string | null; message: string; author: Person; committer: Person; actions: FileAction[] }): Promise<string> {
    await mkdir(this.tmpDir, { recursive: true });
    const index = join(this.tmpDir, `index-${randomBytes(8).toString('hex')}`);
    const env = { GIT_INDEX_FILE: index };
    try {
      if (opts.parent) await this.run(['read-tree', opts.parent], { env });
      else await this.run(['read-tree', '--empty'], { env });
      const current = new Map<string, { mode: string; id: string }>();
      const ls = await this.run(['ls-files', '-s', '-z'], { env });
      for (const rec of ls.stdout.toString('utf8').split('\0').filter(Boolean)) {
        const tab = rec.indexOf('\t');
        const [mode, id] = rec.slice(0, tab).split(' ');
        current.set(rec.slice(tab + 1), { mode, id });
      }
      const isDir = (path: string): boolean => [...current.keys()].some((p) => p.startsWith(`${path}/`));
      const lines: string[] = [];
      const put = (path: string, mode: string, id: string): void => {
        current.set(path, { mode, id });
        lines.push(`${mode} ${id}\t${path}`);
      };
      const drop = (path: string): void => {
        current.delete(path);
        lines.push(`0 ${ZERO_SHA}\t${path}`);
      };
      for (const a of opts.actions) {
        if (!isSafeTreePath(a.path)) throw new CommitRefusedError(`Invalid path: ${a.path}`);
        const existing = current.get(a.path);
        switch (a.action) {
          case 'create':
            if (existing) throw new CommitRefusedError('A file with this name already exists');
            if (isDir(a.path)) throw new CommitRefusedError('A directory with this name already exists');
            put(a.path, a.executable ? '100755' : '100644', await this.writeBlob(a.content));
            break;
          case 'update':
            if (!existing) throw new CommitRefusedError("A file with this name doesn't exist");
            put(a.path, a.executable === undefined ? existing.mode : a.executable ? '100755' : '100644', await this.writeBlob(a.content));
            break;
          case 'delete':
            if (!existing) throw new CommitRefusedError("A file with this name doesn't exist");
            drop(a.path);
            break;
          case 'move': {
            if (!isSafeTreePath(a.previousPath)) throw new CommitRefusedError(`Invalid path: ${a.previousPath}`);
            const from = current.get(a.previousPath);
            if (!from) throw new CommitRefusedError("A file with this name doesn't exist");
            if (existing && a.path !== a.previousPath) throw new CommitRefusedError('A file with this name already exists');
            drop(a.previousPath);
            put(a.path, from.mode, a.content !== undefined ? await this.writeBlob(a.content) : from.id);
            break;
          }
          case 'chmod':
            if (!existing) throw new CommitRefusedError("A file with this name doesn't exist");
            put(a.path, a.executable ? '100755' : '100644', existing.id);
            break;
        }
      }
      if (lines.length) await this.run(['update-index', '-z', '--index-info'], { env, input: lines.join('\0') + '\0' });
      const tree = (await this.run(['write-tree'], { env })).stdout.toString().trim();
      return await this.commitTree(tree, opts.parent ? [opts.parent] : [], opts.message, opts.author, opts.committer);
    } finally {
      await rm(index, { force: true });
    }
  }

  async writeBlob(content: Buffer): Promise<string> {
    return (await this.run(['hash-object', '-w', '--stdin'], { input: content })).stdout.toString().trim();
  }

  /** `git commit-tree` with the message exactly as given and explicit identities. */
  async commitTree(tree: string, parents: string[], message: string, author: Person, committer: Person): Promise<string> {
    const args = ['commit-tree', tree];
    for (const p of parents) args.push('-p', p);
    const env = {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: author.date ?? new Date().toISOString(),
      GIT_COMMITTER_NAME: committer.name,
      GIT_COMMITTER_EMAIL: committer.email,
      GIT_COMMITTER_DATE: committer.date ?? new Date().toISOString(),
    };
    return (await this.run(args, { env, input: message })).stdout.toString().trim();
  }

  /** A three-way merge of two commits (`merge-tree --write-tree`): the tree, or the conflicting paths. */
  async mergeTree(ours: string, theirs: string): Promise<MergeResult> {
    const r = await this.run(['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', '--allow-unrelated-histories', ours, theirs], { okCodes: [1] });
    const parts = r.stdout.toString('utf8').split('\0');
    const tree = parts[0].trim();
    if (r.code === 0) return { tree, conflicts: [] };
    return { tree: null, conflicts: [...new Set(parts.slice(1).filter(Boolean))] };
  }

  /**
   * `commit` replayed onto `onto` (a cherry-pick without a worktree): both sides are re-rooted on
   * the commit's parent so merge-tree uses it as the base. Returns the new tree, or null on conflict.
   */
  async cherryPickTree(commit: Commit, onto: string, person: Person): Promise<string | null> {
    const parent = commit.parents[0];
    if (!parent) return commit.tree;
    const ontoCommit = await this.commit(onto);
    if (!ontoCommit) return null;
    const side = (tree: string): Promise<string> => this.commitTree(tree, [parent], 'sandlab cherry-pick', person, person);
    const result = await this.mergeTree(await side(ontoCommit.tree), await side(commit.tree));
    return result.tree;
  }

  /**
   * The tree of `onto` with `commit` undone (a revert without a worktree): both sides re-rooted on
   * the commit, so merge-tree applies commit -> its parent onto `onto`. null on conflict.
   */
  async revertTree(commit: Commit, onto: string, person: Person): Promise<string | null> {
    const ontoCommit = await this.commit(onto);
    if (!ontoCommit) return null;
    const parentTree = commit.parents[0] ? (await this.commit(commit.parents[0]))?.tree : EMPTY_TREE;
    if (!parentTree) return null;
    const side = (tree: string): Promise<string> => this.commitTree(tree, [commit.id], 'sandlab revert', person, person);
    const result = await this.mergeTree(await side(ontoCommit.tree), await side(parentTree));
    return result.tree;
  }

  /** The signature block a commit carries (gpgsig header), or null when it is unsigned. */
  async commitSignature(sha: string): Promise<string | null> {
    if (!SHA_RE.test(sha)) return null;
    const raw = (await this.run(['cat-file', 'commit', sha])).stdout.toString('utf8');
    const headers = raw.slice(0, raw.indexOf('\n\n') === -1 ? raw.length : raw.indexOf('\n\n'));
    const m = /^gpgsig(?:-sha256)? (.*(?:\n .*)*)/m.exec(headers);
    return m ? m[1].replace(/\n /g, '\n') : null;
  }

  // --- archives -----------------------------------------------------------------------------

  /** `git archive` of a commit (optionally one path); the caller streams stdout. bzip2 comes from the system's `bzip2`. */
  archive(commit: string, format: 'tar' | 'tar.gz' | 'zip' | 'tar.bz2', prefix: string, path?: string): ChildProcess {
    if (!SHA_RE.test(commit)) throw new Error('archive takes a commit id');
    const args = ['archive', `--format=${format}`, `--prefix=${prefix}/`, commit];
    if (path) args.push('--', path);
    return this.spawn(args, { config: [['tar.tar.bz2.command', 'bzip2 -c']] });
  }

}

function epochSeconds(iso: string): number {
  return Math.floor(new Date(iso).getTime() / 1000);
}

/** git's well-known empty tree. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

function signature(p: Person): string {
  const seconds = Math.floor(new Date(p.date ?? Date.now()).getTime() / 1000);
  return `${p.name} <${p.email}> ${seconds} +0000`;
}

/** `1700000000 +0100` (for-each-ref's raw date) -> ISO in that offset. */
function rawDateToIso(raw: string): string {
  const m = /^(\d+) ([+-])(\d{2})(\d{2})$/.exec(raw.trim());
  if (!m) return '';
  return isoWithOffset(Number(m[1]), (m[2] === '-' ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4])));
}
