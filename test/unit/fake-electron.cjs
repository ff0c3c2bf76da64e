// A stand-in for the `electron` module, so the BUILT main (out/main/index.js) runs in plain Node:
// `node -r fake-electron.cjs out/main/index.js`. It records what main asks of Electron, then drives
// it (IPC calls from trusted and untrusted senders, link handling, quit) and prints a JSON report
// as its last stdout line. Used by test/unit/build.test.ts. CommonJS on purpose: it must hook
// require('electron') before the built main loads.
const Module = require('node:module');
const { EventEmitter } = require('node:events');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { createServer } = require('node:net');

const report = { windows: [], ipcChannels: [], ipcOnListeners: [], calls: {}, opened: [], errors: [] };
const appEvents = new EventEmitter();
const paths = { userData: process.env.FAKE_USER_DATA };
const ipcHandlers = new Map();
const ipcOn = new Map();

const app = {
  setPath: (n, p) => void (paths[n] = p),
  getPath: (n) => paths[n] ?? tmpdir(),
  getAppPath: () => process.env.FAKE_APP_PATH,
  getVersion: () => '0.1.0-test',
  getName: () => 'Sandlab',
  isPackaged: false,
  requestSingleInstanceLock: () => true,
  on: (e, fn) => (appEvents.on(e, fn), app),
  once: (e, fn) => (appEvents.once(e, fn), app),
  whenReady: () => Promise.resolve(),
  quit: () => {
    report.quitCalls = (report.quitCalls ?? 0) + 1;
    const e = { defaultPrevented: false, preventDefault() { this.defaultPrevented = true; } };
    appEvents.emit('before-quit', e);
    if (!e.defaultPrevented) report.quitCompleted = true;
  },
  exit: () => {},
};

function fakeWebContents(id) {
  const ev = new EventEmitter();
  return {
    id,
    on: (e, fn) => ev.on(e, fn),
    emit: (...a) => ev.emit(...a),
    setWindowOpenHandler(fn) { this.windowOpenHandler = fn; },
    send: () => {},
  };
}

class BrowserWindow extends EventEmitter {
  constructor(options) {
    super();
    this.webContents = fakeWebContents(1);
    appEvents.emit('web-contents-created', {}, this.webContents);
    report.windows.push({ options, loaded: null });
    this.record = report.windows[report.windows.length - 1];
  }
  loadFile(p) { this.record.loaded = `file://${p}`; return Promise.resolve(); }
  loadURL(u) { this.record.loaded = u; return Promise.resolve(); }
  isDestroyed() { return false; }
  isMinimized() { return false; }
  getNormalBounds() { return { x: 0, y: 0, width: 1000, height: 700 }; }
  show() {}
  focus() {}
  restore() {}
}

const electron = {
  app,
  BrowserWindow,
  ipcMain: {
    handle: (c, fn) => void ipcHandlers.set(c, fn),
    removeHandler: (c) => void ipcHandlers.delete(c),
    on: (c, fn) => void ipcOn.set(c, fn),
    removeAllListeners: (c) => void ipcOn.delete(c),
  },
  dialog: { showOpenDialog: async () => ({ canceled: true, filePaths: [] }), showSaveDialog: async () => ({ canceled: true }), showErrorBox: (t, m) => report.errors.push(`${t}: ${m}`) },
  shell: { openExternal: async (u) => void report.opened.push(u), openPath: async () => '' },
  nativeTheme: { themeSource: 'system' },
  clipboard: { writeText: (t) => void (report.clipboard = t) },
  safeStorage: { isEncryptionAvailable: () => false, encryptString: () => { throw new Error('no'); }, decryptString: () => { throw new Error('no'); }, getSelectedStorageBackend: () => 'basic_text' },
  session: { defaultSession: { setPermissionRequestHandler: (fn) => (report.permissionRequestHandler = typeof fn), setPermissionCheckHandler: (fn) => (report.permissionCheck = fn()) } },
};

const originalLoad = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'electron') return electron;
  return originalLoad.call(this, request, ...rest);
};

const TRUSTED = { sender: { id: 1 }, senderFrame: { url: 'file:///app/out/renderer/index.html' } };
const OTHER_WINDOW = { sender: { id: 2 }, senderFrame: { url: 'file:///app/out/renderer/index.html' } };
const NAVIGATED_AWAY = { sender: { id: 1 }, senderFrame: { url: 'https://evil.example/' } };

async function call(channel, event, payload) {
  try {
    return { ok: true, value: await ipcHandlers.get(channel)(event, payload) };
  } catch (err) {
    return { ok: false, error: String(err && err.message) };
  }
}

async function drive() {
  for (let i = 0; i < 200 && report.windows.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  report.ipcChannels = [...ipcHandlers.keys()].sort();
  report.ipcOnListeners = [...ipcOn.keys()];
  report.calls.status = await call('sandlab:service-status', TRUSTED);
  report.calls.user = await call('sandlab:api', TRUSTED, { method: 'GET', path: '/user' });
  report.calls.otherWindow = await call('sandlab:service-status', OTHER_WINDOW);
  report.calls.navigatedAway = await call('sandlab:api', NAVIGATED_AWAY, { method: 'GET', path: '/user' });
  report.calls.invalid = await call('sandlab:api', TRUSTED, { method: 'GET', path: '/../x' });
  report.calls.copy = await call('sandlab:clipboard-write', TRUSTED, { text: 'copied through main' });

  const wc = fakeWebContents(9);
  appEvents.emit('web-contents-created', {}, wc);
  report.windowOpen = [wc.windowOpenHandler({ url: 'https://docs.gitlab.com/' }), wc.windowOpenHandler({ url: 'file:///etc/passwd' })];
  const nav = { prevented: false, preventDefault() { this.prevented = true; } };
  wc.emit('will-navigate', nav, 'javascript:alert(1)');
  report.navigationPrevented = nav.prevented;

  // Preferences: theme applies at once; a new data dir or a taken port restarts the service.
  report.calls.theme = await call('sandlab:preferences-set', TRUSTED, { theme: 'dark' });
  report.themeSource = electron.nativeTheme.themeSource;
  const otherDir = join(paths.userData, 'other-data');
  report.calls.moveData = await call('sandlab:preferences-set', TRUSTED, { dataDir: otherDir });
  report.calls.userAfterMove = await call('sandlab:api', TRUSTED, { method: 'GET', path: '/user' });
  const blocker = createServer((sock) => sock.end());
  await new Promise((r) => blocker.listen(0, '127.0.0.1', r));
  report.blockedPort = blocker.address().port;
  report.calls.takenPort = await call('sandlab:preferences-set', TRUSTED, { port: report.blockedPort });
  report.calls.userOnTakenPort = await call('sandlab:api', TRUSTED, { method: 'GET', path: '/user' });
  report.calls.freePort = await call('sandlab:preferences-set', TRUSTED, { port: 0 });
  await new Promise((r) => blocker.close(r));

  const url = report.calls.freePort.ok ? report.calls.freePort.value.status.url : '';
  report.httpBeforeQuit = url ? (await fetch(`${url}/api/v4/version`)).status : null;
  app.quit();
  for (let i = 0; i < 200 && !report.quitCompleted; i++) await new Promise((r) => setTimeout(r, 25));
  report.httpAfterQuit = await fetch(`${url}/api/v4/version`).then((r) => r.status, () => 'refused');
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}

setImmediate(() => drive().catch((err) => {
  process.stdout.write(`${JSON.stringify({ ...report, driverError: String(err && err.stack) })}\n`);
  process.exit(1);
}));
