import { defineConfig } from '@playwright/test';

// End-to-end: the real renderer in Debian's Chromium against a real `serve --ui` (fresh data dir),
// plus an Electron smoke test where an Electron binary exists (test/e2e/electron.spec.ts).
export const E2E_PORT = Number(process.env.SANDLAB_E2E_PORT ?? 18929);
export const E2E_ROOT_TOKEN = 'glpat-e2e-root-token-00000000';
/** Where the import providers' stand-ins listen in e2e (test/helpers/stand-ins), next to the service. */
export const E2E_PROVIDER_PORTS = { providera: E2E_PORT + 1, providerb_server: E2E_PORT + 2, providerb_cloud: E2E_PORT + 3 };

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '*.spec.ts',
  timeout: 60_000,
  workers: 1,
  forbidOnly: true,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    browserName: 'chromium',
    headless: true,
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    launchOptions: {
      executablePath: process.env.SANDLAB_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: `node test/e2e/serve-ui.mjs --port ${E2E_PORT}`,
    url: `http://127.0.0.1:${E2E_PORT}/`,
    env: {
      SANDLAB_ROOT_TOKEN: E2E_ROOT_TOKEN,
      // The public provider hosts, as the imports e2e test's stand-ins serve them.
      SANDLAB_PROVIDERA_URL: `http://127.0.0.1:${E2E_PROVIDER_PORTS.providera}`,
      SANDLAB_PROVIDERB_CLOUD_URL: `http://127.0.0.1:${E2E_PROVIDER_PORTS.providerb_cloud}`,
    },
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
