/**
 * The hooks shared by the credential test files that run the CLI against a sandbox: one sandbox
 * for the file (handed to `use` once started); after each test no run left running and no temp
 * directory left behind; after the file, no secret of the sandbox in anything any run printed.
 * Returns env(), which gives fresh config and state directories for one test.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { killAllCli } from '../helpers/cli.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { allOutput } from './cli-run.js';
import { tempDirs } from './helpers.js';
import { expectNoSecrets, sandboxSecrets } from './oauth-fixtures.js';

export function cliSuite(use: (sb: TestSandbox) => void): () => { configDir: string; stateDir: string } {
  let sb: TestSandbox | undefined;
  const dirs = tempDirs();
  beforeAll(async () => {
    sb = await testSandbox({ rateLimit: 100_000 });
    use(sb);
  });
  afterEach(async () => {
    await killAllCli();
    dirs.cleanup();
  });
  afterAll(async () => {
    // Whatever any run printed, across every test of this file: no secret.
    expectNoSecrets(allOutput.join(''), sandboxSecrets(sb!), 'CLI output');
    await sb?.close();
  });
  return dirs.configAndState;
}
