/**
 * `ynab-mcp sandbox` as a child process: the shared CLI harness (test/helpers/cli.ts) plus the
 * sandbox's announcement, the JSON object on its first stdout line.
 */
import type { Announcement } from '../../src/sandbox/app.js';
import * as cli from '../helpers/cli.js';

export { killAllCli, type Exit } from '../helpers/cli.js';

export type { Announcement } from '../../src/sandbox/app.js';

export interface CliProcess extends cli.CliProcess {
  /** Resolves with the parsed first stdout line; rejects if the process exits first. */
  announcement: Promise<Announcement>;
}

export function startCli(args: string[], timeoutMs = 30_000): CliProcess {
  const p = cli.startCli(args);
  // Asked for at once, so the timeout counts from the start.
  const announcement = p.waitFor('stdout', /^([^\n]*)\n/, timeoutMs).then(([, line]) => {
    try {
      return JSON.parse(line!) as Announcement;
    } catch (e) {
      throw new Error(`the first stdout line is not JSON: ${line} (${(e as Error).message})`);
    }
  });
  // Unhandled rejections are the caller's choice; do not crash the test worker on them.
  announcement.catch(() => {});
  return Object.assign(p, { announcement });
}

/** Runs the CLI to its exit (for invocations that must fail at once). */
export function runCli(args: string[], timeoutMs = 30_000) {
  return cli.runCli(args, {}, timeoutMs);
}
