// @module-tag redis (needs redis-server and redis-cli: skipped without them, see test/helpers/services.ts)
/**
 * A test deployment (test/helpers/hosted.ts) that cannot start leaves nothing running: the Redis
 * servers and other parts started before the one that failed are stopped again before the error
 * reaches the caller. (A bench whose sandbox would not start waited on the Redis servers it had
 * left, until a timeout killed it, and they stayed behind.)
 */
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { startDeployment } from '../helpers/hosted.js';

/** This process's children that pgrep finds with `match` (e.g. `-x redis-server`). */
function children(...match: string[]): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), ...match], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when none matches
  }
}
const redisChildren = () => children('-x', 'redis-server');

/** Waits (up to 5 s) for this process's Redis children to be gone: what was stopped exits moments later. */
async function redisGone(): Promise<number[]> {
  const until = Date.now() + 5_000;
  while (redisChildren().length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return redisChildren();
}

it.each(['single', 'cluster'] as const)(
  'a deployment whose sandbox does not start stops the Redis it started (%s)',
  async (redis) => {
    expect(redisChildren()).toEqual([]);
    // The sandbox refuses more than 100 users: it exits before it announces itself.
    await expect(startDeployment({ redis, sandboxProcess: true, sandbox: { users: 101, rateLimit: 100_000 } })).rejects.toThrow(
      /--users must be between 1 and 100/,
    );
    expect(await redisGone()).toEqual([]);
  },
  120_000,
);

it('a deployment whose instances do not start stops the sandbox and Redis it started', async () => {
  expect(redisChildren()).toEqual([]);
  // An argument the server refuses: every instance exits before it listens.
  await expect(startDeployment({ redis: 'single', sandboxProcess: true, args: ['--no-such-flag'] })).rejects.toThrow(/Unknown option '--no-such-flag'/);
  expect(await redisGone()).toEqual([]);
  expect(children('-f', 'cli')).toEqual([]);
}, 120_000);
