/**
 * The shared CLI harness (test/helpers/cli.ts) set up for the credential tests: every run gets
 * its own config and state directories and YNAB_MCP_KEYCHAIN=off (unless a test asks for the
 * keychain), and every byte it prints is kept in `allOutput` for the "no secret is ever printed"
 * checks. End leftover runs with killAllCli() from the core (afterEach, also after failures).
 */
import * as cli from '../helpers/cli.js';

export interface CliEnv {
  configDir: string;
  stateDir: string;
  /** Extra variables; undefined removes one. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed. Default: stdin closed at once. */
  stdin?: string;
}

/** Every stdout and stderr chunk of every run, for the "no secret is ever printed" checks. */
export const allOutput: string[] = [];

function options(opts: CliEnv): cli.CliOptions {
  return {
    env: {
      YNAB_MCP_CONFIG_DIR: opts.configDir,
      YNAB_MCP_STATE_DIR: opts.stateDir,
      YNAB_MCP_KEYCHAIN: 'off',
      // A developer's own token or API must not leak into a test.
      YNAB_ACCESS_TOKEN: undefined,
      YNAB_BASE_URL: undefined,
      ...opts.env,
    },
    stdin: opts.stdin,
    onOutput: (chunk) => void allOutput.push(chunk),
  };
}

/** The environment a credential test's child gets (also for children that are not the CLI). */
export function cliEnv(opts: CliEnv): NodeJS.ProcessEnv {
  return cli.childEnv(options(opts).env);
}

export function startCli(args: string[], opts: CliEnv): cli.CliProcess {
  return cli.startCli(args, options(opts));
}

/** Runs the CLI to its exit. */
export function runCli(args: string[], opts: CliEnv, timeoutMs = 60_000) {
  return cli.runCli(args, options(opts), timeoutMs);
}
