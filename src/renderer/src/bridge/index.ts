import { createHttpBridge, sessionTokenStore } from './http';
import { createIpcBridge } from './ipc';
import type { Bridge } from './types';

export type { Bridge, BridgeResponse, BridgeStatus } from './types';
export { ApiCallError, apiOk } from './types';

/** IPC inside the Electron window (preload exposed `window.sandlab`), HTTP anywhere else. */
export function createBridge(): Bridge {
  if (window.sandlab) return createIpcBridge(window.sandlab);
  return createHttpBridge(window.location.origin, sessionTokenStore());
}

export const bridge: Bridge = createBridge();
