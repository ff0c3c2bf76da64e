import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/service/**/*.test.ts', 'test/unit/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
