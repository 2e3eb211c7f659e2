import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real HTTP services and child processes; give them room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each file starts its own sandbox on a free port; two workers match the CI machine's cores.
    maxWorkers: 2,
  },
});
