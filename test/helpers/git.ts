import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

const home = mkdtempSync(join(tmpdir(), 'sandlab-git-home-'));

/** The real git CLI, isolated from the machine's config, never prompting. */
export function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<GitRun> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['-c', 'user.name=Test Pusher', '-c', 'user.email=pusher@example.com', '-c', 'init.defaultBranch=main', '-c', 'protocol.version=2', ...args],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', ...env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

/** Like git(), but throws with git's stderr when it fails. */
export async function gitOk(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await git(cwd, args, env);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** `http://user:secret@host/path.git` for a project's http_url_to_repo. */
export function withCredentials(httpUrl: string, user: string, secret: string): string {
  const u = new URL(httpUrl);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(secret);
  return u.toString();
}

export function scratchDir(prefix = 'sandlab-clone-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
