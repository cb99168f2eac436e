import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Child-process and socket tests share two cores; keep the pool small and predictable.
    pool: 'forks',
    maxWorkers: 2,
  },
});
