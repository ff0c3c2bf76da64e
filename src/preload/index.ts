import { contextBridge, ipcRenderer } from 'electron';
import { JOB_PROGRESS_CHANNEL } from '../shared/ipc';
import type { IpcChannel, IpcRequest, IpcResponse, JobProgressEvent, SandlabDesktopApi } from '../shared/ipc';

// The one object the renderer gets: typed wrappers over a fixed set of channels, no raw ipcRenderer.
function invoke<C extends IpcChannel>(channel: C, request?: IpcRequest<C>): Promise<IpcResponse<C>> {
  return ipcRenderer.invoke(channel, request);
}

const sandlab: SandlabDesktopApi = {
  api: (req) => invoke('sandlab:api', req),
  serviceStatus: () => invoke('sandlab:service-status'),
  getPreferences: () => invoke('sandlab:preferences-get'),
  setPreferences: (update) => invoke('sandlab:preferences-set', update),
  setCredential: (name, value) => invoke('sandlab:credentials-set', { name, value }),
  deleteCredential: (name) => invoke('sandlab:credentials-delete', { name }),
  listCredentials: () => invoke('sandlab:credentials-list'),
  openDialog: (req) => invoke('sandlab:dialog-open', req),
  saveDialog: (req) => invoke('sandlab:dialog-save', req),
  revealDataDir: () => invoke('sandlab:reveal-data-dir'),
  copyText: (text) => invoke('sandlab:clipboard-write', { text }),
  onJobProgress(listener) {
    // The IPC event (with its sender) never reaches the page: only the batch does.
    const wrapped = (_e: Electron.IpcRendererEvent, events: JobProgressEvent[]): void => listener(events);
    ipcRenderer.on(JOB_PROGRESS_CHANNEL, wrapped);
    return () => {
      ipcRenderer.removeListener(JOB_PROGRESS_CHANNEL, wrapped);
    };
  },
};

contextBridge.exposeInMainWorld('sandlab', sandlab);
