import { app, BrowserWindow, clipboard, dialog, ipcMain, nativeTheme, safeStorage, session, shell, type WebContents } from 'electron';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { JOB_PROGRESS_CHANNEL, type Preferences, type ServiceStatus } from '../shared/ipc';
import { createIpcHandlers, registerIpcHandlers, type IpcDeps } from './ipc/handlers';
import { JobProgressHub, ProgressBatcher, toProgressEvent } from './ipc/progress';
import { openTokenVault, type KeytarLike, type TokenVault } from './secrets/vault';
import { isAppPageUrl, isSafeExternalUrl, secureWebPreferences } from './security';
import { ServiceHost } from './service-host';
import { SANDLAB_GITLAB_VERSION } from './service/areas/core/routes/users';
import { openPreferences } from './settings/electron-store';
import type { PreferencesService } from './settings/preferences';
import icon from '../../resources/icon.png?asset';

// Electron entry: hosts the same service the CLI runs on 127.0.0.1, keeps the desktop token in
// the OS keychain, and opens one sandboxed window that drives the API over IPC.

// Tests (and a second profile) point the app at another user-data folder.
if (process.env.SANDLAB_USER_DATA_DIR) app.setPath('userData', process.env.SANDLAB_USER_DATA_DIR);

const rendererUrl = process.env.ELECTRON_RENDERER_URL;
const nodeRequire = createRequire(__filename);

let mainWindow: BrowserWindow | null = null;
let host: ServiceHost | null = null;
let startupError: string | null = null;
let vault: TokenVault | null = null;
/**
 * Job progress for the window: the service's job runner (bulk imports, repository imports)
 * publishes here, and the window receives it batched (see ipc/progress.ts).
 */
const jobProgress = new JobProgressHub();

/** Native modules built for Electron's ABI by scripts/prepare-electron-native.mjs (npm start). */
function electronNativeModule(name: 'better_sqlite3' | 'keytar'): string | undefined {
  const file = join(app.getAppPath(), 'node_modules', '.cache', 'sandlab-native', `${name}-electron-${process.versions.electron}-${process.platform}-${process.arch}.node`);
  return existsSync(file) ? file : undefined;
}

function loadKeytar(): KeytarLike {
  const binding = electronNativeModule('keytar');
  return (binding ? nodeRequire(binding) : nodeRequire('keytar')) as KeytarLike;
}

const dataDirOf = (prefs: Preferences): string => prefs.dataDir || join(app.getPath('userData'), 'data');

async function startHost(prefs: Preferences): Promise<void> {
  try {
    host = await ServiceHost.start({
      dataDir: dataDirOf(prefs),
      port: prefs.port,
      vault: vault!,
      appVersion: app.getVersion(),
      nativeBinding: electronNativeModule('better_sqlite3'),
    });
    // The host (and its runner) is replaced when the port or data dir changes: subscribe each time.
    host.subscribeJobs((e) => jobProgress.publish(toProgressEvent(e)));
    startupError = null;
  } catch (err) {
    // Reported in the window (e.g. a native module built for another runtime), not a crash.
    host = null;
    startupError = `The API service could not start: ${err instanceof Error ? err.message : String(err)}`;
    console.error('[sandlab]', startupError);
  }
}

function currentStatus(prefs: Preferences): ServiceStatus {
  if (host) return host.status();
  return {
    url: '',
    port: null,
    listening: false,
    error: startupError,
    dataDir: dataDirOf(prefs),
    version: SANDLAB_GITLAB_VERSION,
    appVersion: app.getVersion(),
    uptimeSeconds: 0,
    vault: vault!.status,
  };
}

function requireHost(): ServiceHost {
  if (!host) throw new Error(startupError ?? 'the API service is not running');
  return host;
}

function ipcDeps(prefs: PreferencesService): IpcDeps {
  return {
    host: {
      status: () => currentStatus(prefs.all()),
      inject: (o) => requireHost().inject(o),
      desktopToken: () => requireHost().desktopToken(),
      get dataDir() {
        return dataDirOf(prefs.all());
      },
    },
    vault: vault!,
    preferences: prefs,
    async applyPreferences(previous, next) {
      nativeTheme.themeSource = next.theme;
      if (previous.port !== next.port || dataDirOf(previous) !== dataDirOf(next)) {
        await host?.close();
        host = null;
        await startHost(next);
      }
      return currentStatus(next);
    },
    showOpenDialog: (req) =>
      dialog.showOpenDialog(mainWindow!, {
        title: req.title,
        filters: req.filters,
        properties: req.multiple ? ['openFile', 'multiSelections'] : ['openFile'],
      }),
    showSaveDialog: (req) => dialog.showSaveDialog(mainWindow!, { title: req.title, defaultPath: req.defaultName, filters: req.filters }),
    async revealPath(path) {
      const error = await shell.openPath(path);
      if (error) throw new Error(error);
    },
    writeClipboard: (text) => clipboard.writeText(text),
    publishProgress: (event) => jobProgress.publish(event),
  };
}

/** Every web contents: no navigation, no new windows, no webviews; http(s) links go to the browser. */
function hardenWebContents(contents: WebContents): void {
  const openOutside = (url: string): void => {
    if (isSafeExternalUrl(url)) void shell.openExternal(url);
  };
  contents.setWindowOpenHandler(({ url }) => {
    openOutside(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (e, url) => {
    e.preventDefault();
    openOutside(url);
  });
  contents.on('will-redirect', (e) => e.preventDefault());
  contents.on('will-attach-webview', (e) => e.preventDefault());
}

function createWindow(prefs: PreferencesService): BrowserWindow {
  const bounds = prefs.all().windowBounds;
  const win = new BrowserWindow({
    ...bounds,
    minWidth: 640,
    minHeight: 400,
    title: 'Sandlab',
    icon,
    show: false,
    webPreferences: secureWebPreferences(join(__dirname, '../preload/index.js')),
  });
  win.once('ready-to-show', () => win.show());
  win.on('close', () => prefs.setWindowBounds(win.getNormalBounds()));
  if (rendererUrl) void win.loadURL(rendererUrl);
  else void win.loadFile(join(__dirname, '../renderer/index.html'));
  return win;
}

async function main(): Promise<void> {
  // The renderer needs no camera, notifications, geolocation, ...: refuse them all.
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  const prefs = openPreferences();
  nativeTheme.themeSource = prefs.all().theme;
  vault = await openTokenVault({
    loadKeytar,
    safeStorage: {
      isEncryptionAvailable: () => safeStorage.isEncryptionAvailable(),
      encryptString: (plain) => safeStorage.encryptString(plain),
      decryptString: (buf) => safeStorage.decryptString(buf),
      // Linux only: tells a real keyring from the hard-coded 'basic_text' key.
      getSelectedStorageBackend: process.platform === 'linux' ? () => safeStorage.getSelectedStorageBackend() : undefined,
    },
    fallbackFile: join(app.getPath('userData'), 'secrets.enc'),
  });
  if (vault.status.message) console.warn(`[sandlab] ${vault.status.message}`);
  await startHost(prefs.all());

  registerIpcHandlers(ipcMain, createIpcHandlers(ipcDeps(prefs)), (event) => {
    if (!mainWindow || mainWindow.isDestroyed() || event.sender.id !== mainWindow.webContents.id) return false;
    return isAppPageUrl(event.senderFrame?.url ?? '', rendererUrl);
  });
  const batcher = new ProgressBatcher((events) => {
    if (mainWindow && !mainWindow.isDestroyed()) mainWindow.webContents.send(JOB_PROGRESS_CHANNEL, events);
  });
  jobProgress.subscribe((e) => batcher.push(e));
  mainWindow = createWindow(prefs);
  mainWindow.on('closed', () => {
    mainWindow = null;
    batcher.dispose();
  });
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (!mainWindow) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on('web-contents-created', (_e, contents) => hardenWebContents(contents));
  app.on('window-all-closed', () => app.quit());
  // Close the database cleanly before exiting: hold the quit until the service has stopped.
  let closed = false;
  app.on('before-quit', (e) => {
    if (closed || !host) return;
    e.preventDefault();
    const closing = host;
    host = null;
    closing.close().finally(() => {
      closed = true;
      app.quit();
    });
  });
  app
    .whenReady()
    .then(main)
    .catch((err) => {
      console.error('[sandlab]', err);
      dialog.showErrorBox('Sandlab could not start', err instanceof Error ? err.message : String(err));
      app.quit();
    });
}
