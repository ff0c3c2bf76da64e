/**
 * The renderer's Content Security Policy: no eval, no inline script or style, no plugins, no
 * remote origins. `connect-src 'self'` lets the HTTP bridge (a browser behind `serve --ui`) reach
 * the API of the page's own origin; in Electron the renderer uses IPC and needs no network at all.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

/**
 * `electron-vite dev` only: Vite's client injects inline styles and scripts (React refresh) and
 * talks to its dev server over a WebSocket. Never shipped: builds get the strict policy.
 */
export const DEV_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
  .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
  .replace("connect-src 'self'", "connect-src 'self' ws://localhost:* http://localhost:*");
