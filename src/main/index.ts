import { app, BrowserWindow, ipcMain } from 'electron';
import { join } from 'node:path';
import { createService, type Service } from './service';
import { SANDLAB_GITLAB_VERSION } from './service/areas/core/routes/users';
import type { ApiRequest, ApiResponse, ServiceStatus } from '../shared/ipc';

// Electron entry: hosts the same service the CLI runs, on 127.0.0.1, and a window that shows it.
let service: Service | null = null;
let mainWindow: BrowserWindow | null = null;

async function start(): Promise<void> {
  const dataDir = join(app.getPath('userData'), 'data');
  service = await createService({ dataDir, host: '127.0.0.1', port: 0 });
  await service.listen();

  ipcMain.handle('sandlab:service-status', (event): ServiceStatus => {
    assertTrustedSender(event.sender);
    return { url: service!.url, dataDir, version: SANDLAB_GITLAB_VERSION };
  });
  ipcMain.handle('sandlab:api', async (event, req: ApiRequest): Promise<ApiResponse> => {
    assertTrustedSender(event.sender);
    const res = await service!.inject({ method: req.method, url: `/api/v4${req.path}`, query: req.query as Record<string, string>, payload: req.body as string });
    let body: unknown = res.body;
    try {
      body = res.body ? JSON.parse(res.body) : null;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: res.statusCode, headers: res.headers as Record<string, string>, body };
  });

  mainWindow = new BrowserWindow({
    width: 1100,
    height: 750,
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  mainWindow.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  mainWindow.webContents.on('will-navigate', (e) => e.preventDefault());
  if (process.env.ELECTRON_RENDERER_URL) await mainWindow.loadURL(process.env.ELECTRON_RENDERER_URL);
  else await mainWindow.loadFile(join(__dirname, '../renderer/index.html'));
}

function assertTrustedSender(sender: Electron.WebContents): void {
  if (!mainWindow || sender.id !== mainWindow.webContents.id) throw new Error('IPC from an untrusted sender');
}

if (!app.requestSingleInstanceLock()) app.quit();
else {
  app.whenReady().then(start, (err) => {
    console.error(err);
    app.quit();
  });
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    void service?.close();
  });
}
