import { defineConfig } from 'vitest/config';

// Real clients (python-gitlab from Debian, @gitbeaker/rest) against a live `serve` process.
export default defineConfig({
  test: {
    include: ['test/compat/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
