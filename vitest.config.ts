import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.js';
import { checkServices, serviceTags } from './test/helpers/services.js';

export default defineConfig(async () => {
  // What this machine has of redis-server, Chromium, a keychain and openssl: tests that need a
  // missing one skip (or fail, when YNAB_MCP_REQUIRE_SERVICES names it). See test/helpers/services.ts.
  const services = await checkServices();
  return {
    test: {
      include: ['test/**/*.test.ts'],
      // Tests start real HTTP services and child processes; give them room.
      testTimeout: 60_000,
      hookTimeout: 60_000,
      pool: 'forks',
      // Each file starts its own sandbox on a free port. Three workers on the 2-core CI machine: much of
      // a file's time is spent waiting on child processes, servers and timers, not on the CPU (measured:
      // 39 mid-sized files took 250 s on two workers, 187 s on three; bench/RESULTS.md, "tests").
      maxWorkers: 3,
      // Longest files first, also on a fresh clone with no durations cached (test/helpers/sequencer.ts).
      sequence: { sequencer: LongestFirst },
      tags: serviceTags(services),
      provide: { services },
      // cli-build.ts: src/ transpiled once, so CLI children start without tsx (test/helpers/cli.ts).
      globalSetup: ['test/helpers/services-notice.ts', 'test/helpers/cli-build.ts'],
    },
  };
});
