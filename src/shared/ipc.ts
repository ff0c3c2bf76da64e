/**
 * The IPC contract between renderer, preload and main: one map from channel to request and
 * response types. The desktop-shell work fills this out; the foundation needs only the two below.
 */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface ServiceStatus {
  url: string;
  dataDir: string;
  version: string;
}

export interface IpcContract {
  'sandlab:api': { request: ApiRequest; response: ApiResponse };
  'sandlab:service-status': { request: void; response: ServiceStatus };
}

export type IpcChannel = keyof IpcContract;
