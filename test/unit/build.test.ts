import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY } from '../../src/shared/csp';
import { IPC_CHANNELS } from '../../src/shared/ipc';
import { isAppPageUrl, isSafeExternalUrl, secureWebPreferences } from '../../src/main/security';

// Builds the app into a scratch folder (electron-vite needs no Electron binary) and reads what ships.
const root = resolve(__dirname, '../..');
let out: string;

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), 'sandlab-build-'));
  const r = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--outDir', out], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build failed:\n${r.stderr}\n${r.stdout}`);
}, 60_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('the built app', () => {
  it('opens its window with contextIsolation, sandbox and no Node integration', () => {
    const main = readFileSync(join(out, 'main/index.js'), 'utf8');
    const prefs = /function secureWebPreferences\(preload\) \{\s*return \{([^}]*)\}/.exec(main);
    expect(prefs, 'secureWebPreferences in out/main/index.js').not.toBeNull();
    const body = prefs![1];
    expect(body).toMatch(/contextIsolation: true/);
    expect(body).toMatch(/sandbox: true/);
    expect(body).toMatch(/nodeIntegration: false/);
    expect(body).toMatch(/webviewTag: false/);
    expect(main).toMatch(/webPreferences: secureWebPreferences\(/);
    expect(main).not.toMatch(/sandbox: false|contextIsolation: false|nodeIntegration: true|webSecurity: false/);
  });

  it('denies window.open and navigation, and checks every IPC sender', () => {
    const main = readFileSync(join(out, 'main/index.js'), 'utf8');
    expect(main).toMatch(/setWindowOpenHandler\(/);
    expect(main).toMatch(/action: "deny"/);
    expect(main).toMatch(/"will-navigate", \(e, url\) => \{\s*e\.preventDefault\(\)/);
    expect(main).toMatch(/requestSingleInstanceLock\(\)/);
    expect(main).toMatch(/UntrustedSenderError/);
  });

  it('ships the strict CSP in the renderer, without unsafe-eval or unsafe-inline', () => {
    const html = readFileSync(join(out, 'renderer/index.html'), 'utf8');
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html);
    expect(meta?.[1]).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|unsafe-inline|\*/);
    expect(CONTENT_SECURITY_POLICY).toMatch(/default-src 'none'/);
    expect(html).not.toMatch(/<script>(?!<)/);
    // No inline scripts: every script is a file of the bundle.
    for (const m of html.matchAll(/<script([^>]*)>/g)) expect(m[1]).toMatch(/src="\.\/assets\//);
  });

  it('never evaluates strings in the renderer bundle', () => {
    const dir = join(out, 'renderer/assets');
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
      const js = readFileSync(join(dir, f), 'utf8');
      expect(js).not.toMatch(/\beval\(|new Function\(/);
    }
  });

  it('has a preload that needs nothing but electron (sandboxed preloads cannot require Node modules)', () => {
    const preload = readFileSync(join(out, 'preload/index.js'), 'utf8');
    const requires = [...preload.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
    expect(requires).toEqual(['electron']);
    expect(preload).toMatch(/exposeInMainWorld\("sandlab"/);
    expect(preload).not.toMatch(/exposeInMainWorld\([^)]*ipcRenderer\)/);
  });
});

describe('the built main process, run in Node with a stand-in electron module', () => {
  // test/unit/fake-electron.cjs records what out/main/index.js asks of Electron and drives it.
  let report: any;
  beforeAll(() => {
    const userData = mkdtempSync(join(tmpdir(), 'sandlab-main-'));
    writeFileSync(join(userData, 'preferences.json'), JSON.stringify({ port: 0 }));
    const r = spawnSync(process.execPath, ['-r', join(__dirname, 'fake-electron.cjs'), join(out, 'main/index.js')], {
      encoding: 'utf8',
      timeout: 30_000,
      // The build lives in a scratch folder: resolve its externals from the project's node_modules.
      env: { ...process.env, FAKE_USER_DATA: userData, FAKE_APP_PATH: root, NODE_PATH: join(root, 'node_modules') },
    });
    rmSync(userData, { recursive: true, force: true });
    const last = r.stdout.trim().split('\n').pop() ?? '';
    if (r.status !== 0 || !last.startsWith('{')) throw new Error(`main did not run:\n${r.stderr}\n${r.stdout}`);
    report = JSON.parse(last);
  }, 40_000);

  it('opens one window with the secure webPreferences and the built renderer', () => {
    expect(report.windows).toHaveLength(1);
    expect(report.windows[0].options.webPreferences).toEqual({ ...secureWebPreferences(join(out, 'preload/index.js')) });
    expect(report.windows[0].loaded).toBe(`file://${join(out, 'renderer/index.html')}`);
  });

  it('starts the service, registers every channel and answers only its own window', () => {
    expect(report.ipcChannels).toEqual([...IPC_CHANNELS].sort());
    expect(report.clipboard).toBe('copied through main');
    expect(report.calls.status.value).toMatchObject({ listening: true, error: null, appVersion: '0.1.0-test' });
    expect(report.calls.user.value).toMatchObject({ status: 200, body: { username: 'root' } });
    expect(report.calls.otherWindow).toMatchObject({ ok: false, error: expect.stringMatching(/not the app's window/) });
    expect(report.calls.navigatedAway).toMatchObject({ ok: false, error: expect.stringMatching(/not the app's window/) });
    expect(report.calls.invalid).toMatchObject({ ok: false, error: expect.stringMatching(/invalid payload/) });
    // electron-store's own unchecked listener is removed.
    expect(report.ipcOnListeners).toEqual([]);
  });

  it('denies new windows and navigation, sending only http(s) links to the browser', () => {
    expect(report.windowOpen).toEqual([{ action: 'deny' }, { action: 'deny' }]);
    expect(report.opened).toEqual(['https://docs.gitlab.com/']);
    expect(report.navigationPrevented).toBe(true);
    expect(report.permissionCheck).toBe(false);
  });

  it('applies preferences: theme at once, a new data dir or port by restarting the service', () => {
    expect(report.themeSource).toBe('dark');
    expect(report.calls.moveData.value.status).toMatchObject({ listening: true, dataDir: expect.stringMatching(/other-data$/) });
    expect(report.calls.userAfterMove.value).toMatchObject({ status: 200, body: { username: 'root' } });
  });

  it('reports a taken port in the window and keeps answering over IPC', () => {
    expect(report.calls.takenPort.value.status).toMatchObject({ listening: false, url: '', error: expect.stringContaining(`Port ${report.blockedPort}`) });
    expect(report.calls.userOnTakenPort.value.status).toBe(200);
    expect(report.calls.freePort.value.status).toMatchObject({ listening: true, error: null });
  });

  it('holds the quit until the service has closed', () => {
    expect(report.httpBeforeQuit).toBe(401);
    expect(report.quitCompleted).toBe(true);
    expect(report.httpAfterQuit).toBe('refused');
  });
});

describe('the built main process code', () => {
  it('is ASCII without doc comments: a start reads, hashes and compiles less (scripts/code-cache.cjs)', () => {
    const files = ['main/cli.js', 'main/index.js', ...readdirSync(join(out, 'main/chunks')).map((f) => `main/chunks/${f}`)];
    for (const file of files) {
      const code = readFileSync(join(out, file), 'utf8');
      expect(code, file).not.toMatch(/[^\x00-\x7f]/);
      expect(code, file).not.toMatch(/\/\*\*\s/);
    }
    // A non-ASCII string in the source is escaped, not lost (git/commits.ts's ellipsis).
    expect(readFileSync(join(out, files.find((f) => f.includes('chunks/service-'))!), 'utf8')).toContain('\\u2026');
  });

  it("carries better-sqlite3's JavaScript (compiled from the code cache with the rest), not a require of it", () => {
    for (const f of readdirSync(join(out, 'main/chunks'))) {
      const code = readFileSync(join(out, 'main/chunks', f), 'utf8');
      expect(code, f).not.toMatch(/require\("better-sqlite3(\/[^"]*)?"\)/);
    }
    const service = readFileSync(join(out, 'main/chunks', readdirSync(join(out, 'main/chunks')).find((f) => f.startsWith('service-'))!), 'utf8');
    // better-sqlite3's own check of its options, from lib/database.js.
    expect(service).toMatch(/nativeBinding\\?" option to be a string or addon object/);
  });

  it("gets V8's code cache from the build's last step (postbuild: one start, one request, a clean stop)", () => {
    // A checkout whose out/ is this build (a symlink) and whose scripts are the real ones.
    const checkout = mkdtempSync(join(tmpdir(), 'sandlab-warm-checkout-'));
    try {
      symlinkSync(out, join(checkout, 'out'));
      mkdirSync(join(checkout, 'scripts'));
      for (const f of ['serve.mjs', 'code-cache.cjs', 'warm-code-cache.mjs']) cpSync(join(root, 'scripts', f), join(checkout, 'scripts', f));
      const r = spawnSync(process.execPath, [join(checkout, 'scripts/warm-code-cache.mjs')], { encoding: 'utf8', env: { ...process.env, NODE_PATH: join(root, 'node_modules') } });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const service = readdirSync(join(out, 'main/chunks')).find((f) => f.startsWith('service-'))!;
      const cache = readFileSync(join(out, 'main/.code-cache', `${service}.cache`));
      // The SHA-256 of the path (real, as Node names the module) and source it was made from, then V8's data.
      const file = realpathSync(join(out, 'main/chunks', service));
      expect(cache.subarray(0, 32)).toEqual(createHash('sha256').update(file).update('\0').update(readFileSync(file)).digest());
      expect(cache.length).toBeGreaterThan(100_000);
      // The next start compiles from it: the warm start made it under the flags a start has, not
      // those the service sets for its heap once it runs (V8 rejects a cache made under other flags).
      const statuses = spawnSync(
        process.execPath,
        ['-e', `process.stdout.write(JSON.stringify(require(${JSON.stringify(join(checkout, 'scripts/code-cache.cjs'))}).requireWithCodeCache(${JSON.stringify(join(checkout, 'out/main/cli.js'))}).statuses))`, 'serve', '--help'],
        { encoding: 'utf8', env: { ...process.env, NODE_PATH: join(root, 'node_modules') }, timeout: 30_000 },
      );
      // stdout: the usage line (--help: the entry prints it and returns), then the statuses.
      expect(Object.values(JSON.parse(statuses.stdout.slice(statuses.stdout.indexOf('{'))))).toEqual(['used', 'used']);
    } finally {
      rmSync(checkout, { recursive: true, force: true });
    }
  });
});

describe('security helpers', () => {
  it('gives every window the secure preferences', () => {
    expect(secureWebPreferences('/p.js')).toMatchObject({ preload: '/p.js', contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
  });

  it('opens only plain http(s) links outside the app', () => {
    expect(isSafeExternalUrl('https://docs.gitlab.com/ee/api/')).toBe(true);
    expect(isSafeExternalUrl('http://127.0.0.1:8929/root/p')).toBe(true);
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'https://user:pw@host/', 'not a url', 'ms-settings:']) {
      expect(isSafeExternalUrl(bad), bad).toBe(false);
    }
  });

  it("trusts IPC only from the app's own page", () => {
    expect(isAppPageUrl('file:///app/out/renderer/index.html', undefined)).toBe(true);
    expect(isAppPageUrl('https://evil.example/', undefined)).toBe(false);
    expect(isAppPageUrl('http://localhost:5173/index.html', 'http://localhost:5173')).toBe(true);
    expect(isAppPageUrl('http://localhost:5174/', 'http://localhost:5173')).toBe(false);
  });
});
