import type { SandlabDesktopApi } from '../../../shared/ipc';
import type { Bridge, BridgeResponse } from './types';

/** In Electron: every call goes through preload to main, which adds the desktop token. */
export function createIpcBridge(desktop: SandlabDesktopApi): Bridge {
  return {
    kind: 'ipc',
    desktop,
    isReady: () => true,
    api: async <T>(req: Parameters<SandlabDesktopApi['api']>[0]) => (await desktop.api(req)) as BridgeResponse<T>,
    status: () => desktop.serviceStatus(),
    onJobProgress: (listener) => desktop.onJobProgress(listener),
  };
}
