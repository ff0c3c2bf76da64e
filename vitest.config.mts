import { defineConfig } from 'vitest/config';

// `npm test`: the service over real HTTP and unit tests in Node; the renderer's stores and
// components in jsdom.
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // After the whole run: no secret the tests used may rest in a data dir, a preferences file or a log.
    globalSetup: ['test/secrets-sweep.ts'],
    projects: [
      { extends: true, test: { name: 'node', include: ['test/service/**/*.test.ts', 'test/unit/**/*.test.ts'], setupFiles: ['test/helpers/log-capture.ts'] } },
      { extends: true, test: { name: 'renderer', include: ['test/renderer/**/*.test.{ts,tsx}'], environment: 'jsdom' } },
    ],
  },
});
