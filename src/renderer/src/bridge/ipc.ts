import type { SandlabDesktopApi } from '../../../shared/ipc';
import type { Bridge, BridgeResponse } from './types';

/** In Electron: every call goes through preload to main, which adds the desktop token. */
export function createIpcBridge(desktop: SandlabDesktopApi): Bridge {
  return {
    kind: 'ipc',
    desktop,
    isReady: () => true,
    api: async <T>(req: Parameters<SandlabDesktopApi['api']>[0]) => (await desktop.api(req)) as BridgeResponse<T>,
    // Main streams the body to the service and reports its progress on the job-progress channel.
    async upload<T>(req: Parameters<SandlabDesktopApi['api']>[0], onProgress: (done: number, total: number) => void) {
      const progressId = `upload-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      const stop = desktop.onJobProgress((events) => {
        for (const e of events) if (e.jobId === progressId) onProgress(e.done, e.total);
      });
      try {
        return (await desktop.api({ ...req, progressId })) as BridgeResponse<T>;
      } finally {
        stop();
      }
    },
    status: () => desktop.serviceStatus(),
    onJobProgress: (listener) => desktop.onJobProgress(listener),
  };
}
