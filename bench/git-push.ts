// A large push and clone over smart HTTP, and the server's memory while the pack streams.
//
//   npx tsx bench/git-push.ts [sizeMB=200]
//
// Spawns the service in its own process, commits `sizeMB` of random (incompressible) files in a
// local repository, pushes them with the git CLI to a new project, clones them back, samples the
// Node server's RSS from /proc meanwhile (git's own receive-pack/upload-pack processes are its
// children and not counted: the point is that Sandlab relays the pack without holding it), and
// prints figures. Everything it writes is deleted at the end.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

const TOKEN = 'glpat-bench-git-push-token-01';
const MB = 1024 * 1024;

async function serverMain(dataDir: string): Promise<void> {
  const { createService } = await import('../src/main/service');
  const service = await createService({ dataDir, port: 0, rootToken: TOKEN });
  const url = await service.listen();
  process.stdout.write(`listening on ${url}\n`);
  process.on('SIGTERM', () => void service.close().then(() => process.exit(0)));
}

function rssMb(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

function spawnServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--server', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

/** Runs git asynchronously (the sampler keeps ticking) and resolves with the seconds it took. */
function timedGit(args: string[], cwd: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn('git', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => (code === 0 ? resolve((performance.now() - t0) / 1000) : reject(new Error(`git ${args[0]} exited ${code}: ${stderr}`))));
  });
}

async function main(): Promise<void> {
  const sizeMb = Number(process.argv[2] ?? 200);
  const work = mkdtempSync(join(tmpdir(), 'sandlab-bench-push-'));
  const local = join(work, 'local');
  const dataDir = join(work, 'data');
  let child: ChildProcess | undefined;
  try {
    mkdirSync(local);
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: local, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    // 4 MB files: random bytes do not compress, so the pack is about as large as the data.
    for (let i = 0; i < Math.ceil(sizeMb / 4); i++) writeFileSync(join(local, `blob-${i}.bin`), randomBytes(Math.min(4, sizeMb - i * 4) * MB));
    git('add', '.');
    git('-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'Large commit');

    const server = await spawnServer(dataDir);
    child = server.child;
    const pid = child.pid!;
    const headers = { 'private-token': TOKEN, 'content-type': 'application/json' };
    const project = (await (await fetch(`${server.url}/api/v4/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench-push' }) })).json()) as {
      http_url_to_repo: string;
    };
    const remote = project.http_url_to_repo.replace('://', `://oauth2:${TOKEN}@`);
    // Warm up the git routes with a ref listing, then take the idle baseline.
    await fetch(`${project.http_url_to_repo}/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from(`oauth2:${TOKEN}`).toString('base64')}` } });
    const baseline = rssMb(pid);

    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 20);
    const pushS = await timedGit(['push', '-q', remote, 'main'], local);
    const pushPeak = peak;
    const cloneS = await timedGit(['clone', '-q', '--bare', remote, join(work, 'clone.git')], work);
    clearInterval(sampler);
    const packBytes = Number(/size-pack: (\d+)/.exec(execFileSync('git', ['count-objects', '-v'], { cwd: join(work, 'clone.git'), encoding: 'utf8' }))?.[1] ?? 0) * 1024;

    const fmt = (n: number): string => n.toFixed(1);
    const packMb = packBytes / MB;
    console.log(`pack ${fmt(packMb)} MB (${sizeMb} MB of random files)`);
    console.log(`push: ${fmt(pushS)} s, ${fmt(packMb / pushS)} MB/s; clone: ${fmt(cloneS)} s, ${fmt(packMb / cloneS)} MB/s`);
    console.log(
      `server RSS: idle ${fmt(baseline)} MB, peak during push ${fmt(pushPeak)} MB (+${fmt(pushPeak - baseline)} MB), during push+clone ${fmt(peak)} MB (+${fmt(peak - baseline)} MB), VmHWM ${fmt(rssMb(pid, 'VmHWM'))} MB`,
    );
  } finally {
    if (child && child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--server') {
  void serverMain(process.argv[3]);
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
