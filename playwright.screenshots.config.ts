import { defineConfig } from '@playwright/test';
import base from './playwright.config';

// `npm run screenshots`: refreshes the README's pictures (docs/screenshots/, committed) from a real
// `serve --ui` on a fresh data dir, in light and dark. Not part of the test suites.
export default defineConfig({
  ...base,
  testDir: 'test/screenshots',
  testMatch: '*.shots.ts',
  outputDir: 'test-results/screenshots',
  use: { ...base.use, viewport: { width: 1360, height: 820 } },
});
