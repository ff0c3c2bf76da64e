import type { ApiRequest, ApiResponse, ServiceStatus } from '../shared/ipc';

declare global {
  interface Window {
    sandlab?: {
      api(req: ApiRequest): Promise<ApiResponse>;
      serviceStatus(): Promise<ServiceStatus>;
    };
  }
}

export {};
