import type { SandlabDesktopApi } from '../shared/ipc';

declare global {
  interface Window {
    /** Present in the Electron window only (preload); absent in a plain browser. */
    sandlab?: SandlabDesktopApi;
  }
}

export {};
