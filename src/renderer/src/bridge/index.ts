import type { SandlabDesktopApi } from '../../../shared/ipc';
import { createHttpBridge, sessionTokenStore } from './http';
import { createIpcBridge } from './ipc';
import type { Bridge } from './types';

export type { Bridge, BridgeResponse, BridgeStatus } from './types';
export { ApiCallError, apiOk } from './types';

// Written against globalThis (not the DOM's window type) so the bridge type-checks in Node tests too.
const page = globalThis as unknown as { sandlab?: SandlabDesktopApi; location: { origin: string } };

/** IPC inside the Electron window (preload exposed `window.sandlab`), HTTP anywhere else. */
export function createBridge(): Bridge {
  if (page.sandlab) return createIpcBridge(page.sandlab);
  return createHttpBridge(page.location.origin, sessionTokenStore());
}

export const bridge: Bridge = createBridge();
