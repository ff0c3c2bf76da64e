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

/**
 * Starts `npm run serve`'s script on a free port with a fresh data dir, as a user would; or on
 * `dataDir`, one a test filled first (stop() removes it too).
 */
export async function startServe(dataDir = mkdtempSync(join(tmpdir(), 'sandlab-compat-'))): Promise<Served> {
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

/**
 * Runs a Ruby script with Debian's ruby-gitlab gem (`ruby-gitlab`). The prelude gives `gl`, a
 * client for this Sandlab as root; the script prints its result as JSON on the last line.
 */
export function runRuby(served: Served, script: string): any {
  const prelude = [
    'require "gitlab"',
    'require "json"',
    'gl = Gitlab.client(endpoint: ENV["GL_URL"] + "/api/v4", private_token: ENV["GL_TOKEN"])',
    '',
  ].join('\n');
  return runScript('ruby', ['/usr/bin/ruby'], 'case.rb', prelude + script, served);
}

/**
 * Builds and runs a Go program against Debian's go-gitlab (`golang-github-xanzy-go-gitlab-dev`,
 * GOPATH mode: no network). `body` is the inside of `run(git *gitlab.Client) any`; its result is
 * printed as JSON. `imports` adds packages besides fmt, os, encoding/json and go-gitlab.
 */
export function runGo(served: Served, body: string, imports: string[] = []): any {
  const program = `package main

import (
	"encoding/json"
	"fmt"
	"os"
${imports.map((i) => `\t"${i}"`).join('\n')}
	"github.com/xanzy/go-gitlab"
)

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(git *gitlab.Client) any {
${body}
}

func main() {
	git, err := gitlab.NewClient(os.Getenv("GL_TOKEN"), gitlab.WithBaseURL(os.Getenv("GL_URL")+"/api/v4"))
	must(err)
	out, err := json.Marshal(run(git))
	must(err)
	fmt.Println(string(out))
}
`;
  const env = { GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOCACHE: join(tmpdir(), 'sandlab-gocache'), GOFLAGS: '' };
  return runScript('go', ['/usr/bin/go', 'run'], 'main.go', program, served, env);
}

/**
 * Applies a gitlabracadabra action file (Debian's `gitlabracadabra`, a GitOps tool built on
 * python-gitlab) to this Sandlab; returns its combined output. Throws when it reports an error.
 */
export function runRacadabra(served: Served, actionYaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-rac-'));
  try {
    writeFileSync(join(dir, 'python-gitlab.cfg'), `[global]\ndefault = local\ntimeout = 60\n\n[local]\nurl = ${served.url}\nprivate_token = ${served.token}\napi_version = 4\n`);
    writeFileSync(join(dir, 'actions.yml'), actionYaml);
    const r = spawnSync('/usr/bin/gitlabracadabra', ['-v', '-c', join(dir, 'python-gitlab.cfg'), join(dir, 'actions.yml')], {
      cwd: dir,
      env: { ...process.env, HOME: dir, PYTHONDONTWRITEBYTECODE: '1' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = `${r.stdout}${r.stderr}`;
    if (r.status !== 0 || /^(ERROR|CRITICAL)\b/m.test(output)) throw new Error(`gitlabracadabra failed (${r.status}):\n${output}`);
    return output;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runScript(what: string, command: string[], file: string, text: string, served: Served, env: Record<string, string> = {}): any {
  const dir = mkdtempSync(join(tmpdir(), `sandlab-${what}-`));
  try {
    writeFileSync(join(dir, file), text);
    const r = spawnSync(command[0], [...command.slice(1), join(dir, file)], {
      cwd: dir,
      env: { ...process.env, ...env, GL_URL: served.url, GL_TOKEN: served.token },
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (r.status !== 0) throw new Error(`${what} script failed (${r.status}):\n${r.stderr}\n${r.stdout}`);
    const lines = r.stdout.trim().split('\n');
    return JSON.parse(lines[lines.length - 1] || 'null');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
