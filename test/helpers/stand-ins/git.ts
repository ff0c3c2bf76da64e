import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { gitOk } from '../git';

/**
 * The git side of a provider stand-in: its repositories' clone URLs answer git's smart HTTP
 * protocol (fetch only), as GitHub's and Bitbucket's do, through the machine's own `git
 * upload-pack`, so an import really clones them.
 */

const pkt = (text: string): string => `${(Buffer.byteLength(text) + 4).toString(16).padStart(4, '0')}${text}`;

function upload(dir: string, args: string[], protocol: string | undefined): ReturnType<typeof spawn> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: tmpdir(), LC_ALL: 'C' };
  if (protocol && /^[\w=:.,-]+$/.test(protocol)) env.GIT_PROTOCOL = protocol;
  return spawn('git', ['upload-pack', '--stateless-rpc', ...args, dir], { env, stdio: ['pipe', 'pipe', 'ignore'] });
}

/** Answers `<repo>.git/info/refs?service=git-upload-pack` and `<repo>.git/git-upload-pack` from a bare repository. */
export function serveGit(req: IncomingMessage, res: ServerResponse, dir: string, endpoint: string): void {
  const protocol = req.headers['git-protocol'] as string | undefined;
  if (endpoint === 'info/refs') {
    if (!req.url?.includes('service=git-upload-pack')) {
      res.writeHead(403).end('Only git-upload-pack is served here');
      return;
    }
    req.resume();
    res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement', 'cache-control': 'no-cache' });
    if (!protocol?.includes('version=2')) res.write(`${pkt('# service=git-upload-pack\n')}0000`);
    const child = upload(dir, ['--advertise-refs'], protocol);
    child.stdin!.end();
    child.stdout!.pipe(res);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result', 'cache-control': 'no-cache' });
  const child = upload(dir, [], protocol);
  const body = /gzip/i.test(String(req.headers['content-encoding'] ?? '')) ? req.pipe(createGunzip()) : req;
  child.stdin!.on('error', () => undefined);
  body.pipe(child.stdin!);
  child.stdout!.pipe(res);
}

/** The two git endpoints of a clone URL path: `['/octo/rocket', 'info/refs']`, or null. */
export function gitEndpoint(path: string): [string, string] | null {
  const m = /^(.+)\.git\/(info\/refs|git-upload-pack)$/.exec(path);
  return m ? [m[1], m[2]] : null;
}

let empty: string | null = null;

/** One empty bare repository per process: what a provider serves for a repository nobody pushed to yet. */
export function emptyRepository(): string {
  if (!empty) {
    const dir = join(mkdtempSync(join(tmpdir(), 'sandlab-upstream-empty-')), 'empty.git');
    execFileSync('git', ['init', '--bare', '--quiet', dir]);
    empty = dir;
  }
  return empty;
}

export interface UpstreamRepository {
  /** The bare repository's directory. */
  dir: string;
  /** Branch name -> commit id; tag name -> the commit it points at. */
  branches: Record<string, string>;
  tags: Record<string, string>;
  remove(): void;
}

/**
 * A small upstream repository: `main` with a README and two commits, a `feature` branch one commit
 * ahead, a lightweight tag `v1.0` and an annotated tag `v1.1`; `defaultBranch` names the first branch.
 */
export async function makeUpstreamRepository(defaultBranch = 'main'): Promise<UpstreamRepository> {
  const root = mkdtempSync(join(tmpdir(), 'sandlab-upstream-'));
  const work = join(root, 'work');
  const dir = join(root, 'upstream.git');
  const at = (date: string) => ({ GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date, GIT_AUTHOR_NAME: 'The Octo', GIT_AUTHOR_EMAIL: 'octo@example.com' });
  await gitOk(root, ['init', '--quiet', '-b', defaultBranch, work]);
  await gitOk(work, ['commit', '--quiet', '--allow-empty', '-m', 'Start the rocket'], at('2024-01-02T03:04:05Z'));
  writeFileSync(join(work, 'README.md'), '# Rocket\n\nGoes up.\n');
  await gitOk(work, ['add', 'README.md']);
  await gitOk(work, ['commit', '--quiet', '-m', 'Add a README'], at('2024-01-03T03:04:05Z'));
  await gitOk(work, ['tag', 'v1.0']);
  await gitOk(work, ['tag', '-a', 'v1.1', '-m', 'Second release']);
  await gitOk(work, ['checkout', '--quiet', '-b', 'feature']);
  writeFileSync(join(work, 'engine.txt'), 'more thrust\n');
  await gitOk(work, ['add', 'engine.txt']);
  await gitOk(work, ['commit', '--quiet', '-m', 'More thrust'], at('2024-01-04T03:04:05Z'));
  // The upstream's HEAD names its default branch, as on a hosting service.
  await gitOk(work, ['checkout', '--quiet', defaultBranch]);
  await gitOk(root, ['clone', '--quiet', '--bare', work, dir]);
  const refs = async (kind: string) =>
    Object.fromEntries(
      (await gitOk(dir, ['for-each-ref', '--format=%(refname:short) %(*objectname)%(objectname)', `refs/${kind}`]))
        .trim()
        .split('\n')
        .map((l) => l.split(' '))
        // An annotated tag prints its peeled commit first, then the tag object: keep the commit.
        .map(([name, ids]) => [name, ids.slice(0, 40)]),
    );
  const tags = await refs('tags');
  return { dir, branches: await refs('heads'), tags, remove: () => rmSync(root, { recursive: true, force: true }) };
}
