import type { WebPreferences } from 'electron';

/** The one set of webPreferences every Sandlab window uses (checked by test/unit/build.test.ts). */
export function secureWebPreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
  };
}

/** Links that may leave the app: http(s) only, to the system browser; never file:, javascript:, custom schemes. */
export function isSafeExternalUrl(raw: string): boolean {
  try {
    const u = new URL(raw);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !!u.hostname && !u.username && !u.password;
  } catch {
    return false;
  }
}

/** Whether an IPC message comes from the app's own page (its origin), not a navigated-away frame. */
export function isAppPageUrl(frameUrl: string, rendererUrl: string | undefined): boolean {
  if (rendererUrl) {
    try {
      return new URL(frameUrl).origin === new URL(rendererUrl).origin;
    } catch {
      return false;
    }
  }
  return frameUrl.startsWith('file://');
}
