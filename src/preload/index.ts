import { contextBridge, ipcRenderer } from 'electron';
import type { ApiRequest, ApiResponse, ServiceStatus } from '../shared/ipc';

// The one object the renderer gets: typed, narrow, no raw ipcRenderer.
const sandlab = {
  api: (req: ApiRequest): Promise<ApiResponse> => ipcRenderer.invoke('sandlab:api', req),
  serviceStatus: (): Promise<ServiceStatus> => ipcRenderer.invoke('sandlab:service-status'),
};

export type SandlabBridge = typeof sandlab;

contextBridge.exposeInMainWorld('sandlab', sandlab);
