import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

/** Oldest git Sandlab works with: `merge-tree --write-tree` (merges without a worktree) arrived in 2.38. */
export const MIN_GIT_VERSION = [2, 38] as const;

/** `git` cannot be used on this machine (not installed, not on PATH, too old). */
export class GitMissingError extends Error {}

/** A git command exited with a code the caller did not expect. */
export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ''} failed (${exitCode ?? 'killed'}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  }
}

export class GitTimeoutError extends Error {
  constructor(readonly args: readonly string[], ms: number) {
    super(`git ${args[0] ?? ''} did not finish within ${ms} ms`);
  }
}

export interface GitProgram {
  /** What was run: `git` found on PATH, or SANDLAB_GIT. */
  command: string;
  version: string;
}

export type GitLocation = { ok: true; program: GitProgram } | { ok: false; reason: string };

/** The git program to run: `SANDLAB_GIT` when set, else `git` on PATH (Debian's git, Git for Windows, Xcode's). */
export const defaultGitCommand = (): string => process.env.SANDLAB_GIT || 'git';

/**
 * Finds git by running `git --version`. Never throws: a missing or too old git is a reason Sandlab
 * reports, not a crash.
 */
export async function locateGit(command = defaultGitCommand()): Promise<GitLocation> {
  const out = await new Promise<{ code: number | null; stdout: string; error?: Error }>((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(command, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'], windowsHide: true });
    } catch (error) {
      resolve({ code: null, stdout: '', error: error as Error });
      return;
    }
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', (error) => resolve({ code: null, stdout, error }));
    child.on('close', (code) => resolve({ code, stdout }));
  });
  return gitLocation(command, out);
}

/** locateGit, waiting for git (a few ms): for the first use of git before the background probe has answered. */
export function locateGitSync(command = defaultGitCommand()): GitLocation {
  const run = spawnSync(command, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'], windowsHide: true, encoding: 'utf8' });
  return gitLocation(command, { code: run.status, stdout: run.stdout ?? '', error: run.error });
}

function gitLocation(command: string, out: { code: number | null; stdout: string; error?: Error }): GitLocation {
  if (out.error || out.code !== 0) {
    const why = (out.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' ? 'was not found on PATH' : 'could not be run';
    return { ok: false, reason: `git ${why}: Sandlab needs the git program (${MIN_GIT_VERSION.join('.')} or newer) for repositories` };
  }
  const m = /git version (\d+)\.(\d+)(\.\d+)?/.exec(out.stdout);
  const version = m ? `${m[1]}.${m[2]}${m[3] ?? ''}` : out.stdout.trim();
  if (!m || Number(m[1]) < MIN_GIT_VERSION[0] || (Number(m[1]) === MIN_GIT_VERSION[0] && Number(m[2]) < MIN_GIT_VERSION[1])) {
    return { ok: false, reason: `git ${version} is too old: Sandlab needs git ${MIN_GIT_VERSION.join('.')} or newer for repositories` };
  }
  return { ok: true, program: { command, version } };
}

/**
 * Configuration every git process gets, whatever the user's own ~/.gitconfig says: repositories
 * owned by another account are fine (a data dir copied between machines), internal refs stay
 * hidden and cannot be pushed, partial clones work as on GitLab.
 */
const SANDLAB_GIT_CONFIG: [string, string][] = [
  ['safe.directory', '*'],
  ['core.quotePath', 'false'],
  ['init.defaultBranch', 'main'],
  ['uploadpack.allowFilter', 'true'],
  ['uploadpack.allowAnySHA1InWant', 'true'],
  ['receive.hideRefs', 'refs/merge-requests'],
  ['transfer.hideRefs', 'refs/keep-around'],
  ['transfer.hideRefs', 'refs/tmp'],
  ['receive.advertisePushOptions', 'true'],
  ['gc.autoDetach', 'false'],
];

/** The environment of a git process: the caller's PATH and locale plumbing, nothing git-specific inherited. */
export function gitEnv(extraConfig: [string, string][] = [], extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  const config = [...SANDLAB_GIT_CONFIG, ...extraConfig];
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: process.platform === 'win32' ? 'NUL' : '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    LC_ALL: 'C',
    GIT_CONFIG_COUNT: String(config.length),
    ...extra,
  });
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

export interface RunOptions {
  /** The repository (`--git-dir`). */
  gitDir?: string;
  /** Bytes for stdin. */
  input?: Buffer | string;
  /** Extra environment (author identity, a temporary index). */
  env?: Record<string, string>;
  /** Per-process config (`http.extraHeader` for a fetch). */
  config?: [string, string][];
  /** Exit codes that are answers, not failures (`merge-base --is-ancestor` exits 1 for "no"). */
  okCodes?: number[];
  timeoutMs?: number;
  /** Kills git when aborted (a canceled job); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface RunResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

/** Spawns git with arguments as an array (never a shell). The caller wires the streams. */
export function spawnGit(program: GitProgram, args: readonly string[], opts: Omit<RunOptions, 'input' | 'okCodes' | 'timeoutMs'> = {}): ChildProcess {
  const full = opts.gitDir ? ['--git-dir', opts.gitDir, ...args] : [...args];
  return spawn(program.command, full, { env: gitEnv(opts.config, opts.env), stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
}

/** Runs git to completion, collecting stdout; rejects on an unexpected exit code or the timeout. */
export function runGit(program: GitProgram, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    opts.signal?.throwIfAborted();
    const child = spawnGit(program, args, opts);
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const abort = () => child.kill('SIGKILL');
    opts.signal?.addEventListener('abort', abort, { once: true });
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => {
      if (err.length < 64_000) err += d.toString();
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', abort);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', abort);
      if (opts.signal?.aborted) return reject(opts.signal.reason);
      if (timedOut) return reject(new GitTimeoutError(args, timeoutMs));
      const result = { code: code ?? -1, stdout: Buffer.concat(out), stderr: err };
      if (code === 0 || (code !== null && opts.okCodes?.includes(code))) resolve(result);
      else reject(new GitCommandError(args, code, err));
    });
    // stdin: the input, or closed at once; a process that exits before reading it is not an error.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(opts.input ?? undefined);
  });
}

/** Waits for a streaming child to exit; resolves its code and the tail of stderr. */
export function childExit(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err = (err + d.toString()).slice(-8000);
  });
  return new Promise((resolve) => {
    child.on('error', () => resolve({ code: null, stderr: err }));
    child.on('close', (code) => resolve({ code, stderr: err }));
  });
}

/** Pipes a readable into the child's stdin; a child that stops reading early does not crash us. */
export function feedStdin(child: ChildProcess, input: Readable): void {
  child.stdin!.on('error', () => undefined);
  // Closing stdin too: the child's 'close' waits for it, and nothing writes to it any more.
  input.on('error', () => {
    child.stdin!.destroy();
    child.kill('SIGKILL');
  });
  input.pipe(child.stdin!);
}
