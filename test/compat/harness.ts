import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const COMPAT_ROOT_TOKEN = 'glpat-compat-root-token-0001';
const ROOT = resolve(__dirname, '../..');

export interface Served {
  url: string;
  token: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** Starts `npm run serve`'s script on a free port with a fresh data dir, as a user would. */
export async function startServe(): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-compat-'));
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'scripts/serve.mjs'), '--port', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    env: { ...process.env, SANDLAB_ROOT_TOKEN: COMPAT_ROOT_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const url = await new Promise<string>((res, rej) => {
    let out = '';
    const timer = setTimeout(() => rej(new Error(`serve did not start: ${stderr}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /Sandlab listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        res(m[1]);
      }
    });
    child.on('exit', (code) => rej(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return {
    url,
    token: COMPAT_ROOT_TOKEN,
    dataDir,
    async stop() {
      await new Promise<void>((res) => {
        child.on('exit', () => res());
        child.kill('SIGTERM');
      });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs a python-gitlab script with Debian's /usr/bin/python3. The prelude connects as root
 * (`gl`, already `auth()`ed) and turns every warning into an error, so base-URL mismatches and
 * pagination warnings fail the test. The script prints its result as JSON on the last line.
 */
export function runPython(served: Served, script: string): any {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-py-'));
  const file = join(dir, 'case.py');
  const prelude = [
    'import gitlab, json, os, warnings',
    'warnings.simplefilter("error")',
    'gl = gitlab.Gitlab(os.environ["GL_URL"], private_token=os.environ["GL_TOKEN"])',
    'gl.auth()',
    '',
  ].join('\n');
  writeFileSync(file, prelude + script);
  const r = spawnSync('/usr/bin/python3', [file], {
    env: { ...process.env, GL_URL: served.url, GL_TOKEN: served.token, PYTHONDONTWRITEBYTECODE: '1' },
    encoding: 'utf8',
    timeout: 90_000,
  });
  rmSync(dir, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`python-gitlab script failed (${r.status}):\n${r.stderr}\n${r.stdout}`);
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] || 'null');
}

export const pythonGitlabAvailable = (): boolean =>
  spawnSync('/usr/bin/python3', ['-c', 'import gitlab'], { encoding: 'utf8' }).status === 0;
