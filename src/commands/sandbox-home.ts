/**
 * The sandbox `call --sandbox` keeps between calls, so that a preview's confirm_token made by one
 * call is redeemed by the next, and an undo finds the change it undoes. It lives in a directory of
 * its own under the state directory, one per seed: `sandbox/<seed>/data.json` (the sandbox's
 * --data file) and `sandbox/<seed>/server/` (what the server keeps: confirm tokens, the undo
 * journal, saved budget copies, the request ledger, sealed with a key file there: demo data never
 * touches the keychain). The user's own state beside it is never read or written.
 *
 * One call at a time: a call holds `sandbox/<seed>.lock` from start to close, so a second call
 * started meanwhile waits for it (proper-lockfile; a lock left by a crash is taken over after 10 s).
 * `--fresh` removes the directory first: the seed's demo budgets as new.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { warningLine } from '../shared/cli-flags.js';
import { privateDir, reasonOf } from '../storage/safe-fs.js';
import { fileKey } from '../storage/key-file.js';
import { segment } from '../storage/keys.js';
import { startSandbox, type RunningSandbox } from '../sandbox/app.js';
import type { KeySource } from '../sync/persist.js';

const STALE_MS = 10_000;
/** Another call may run for a while (a large import): wait up to two minutes for it. */
const RETRIES = { retries: 2000, factor: 1.2, minTimeout: 20, maxTimeout: 250, randomize: true, maxRetryTime: 120_000 };

export interface KeptSandbox {
  sandbox: RunningSandbox;
  /** The server's state directory for this sandbox. */
  serverDir: string;
  keySource: KeySource;
  close(): Promise<void>;
}

/** Where the sandbox of `seed` is kept. */
export function keptSandboxDir(stateDir: string, seed: string): string {
  return join(stateDir, 'sandbox', segment(seed));
}

export async function openKeptSandbox(opts: { stateDir: string; seed: string; fresh: boolean; log: (line: string) => void }): Promise<KeptSandbox> {
  const { stateDir, seed, log } = opts;
  const dir = keptSandboxDir(stateDir, seed);
  const warn = (m: string) => log(warningLine(m));
  try {
    privateDir(stateDir, join(stateDir, 'sandbox'), warn);
  } catch (e) {
    const path = (e as NodeJS.ErrnoException).path ?? stateDir;
    throw new Error(`the sandbox cannot be kept in the state directory ${stateDir}: ${path}: ${reasonOf(e)}`);
  }
  const release = await lockfile.lock(dir, { realpath: false, lockfilePath: `${dir}.lock`, stale: STALE_MS, retries: RETRIES, onCompromised: () => {} });
  try {
    const dataFile = join(dir, 'data.json');
    // Without its data, what the server kept (copies synced to a later point) belongs to no sandbox.
    const isNew = opts.fresh || !existsSync(dataFile);
    if (isNew) rmSync(dir, { recursive: true, force: true });
    privateDir(stateDir, join(dir, 'server'), warn);
    const sandbox = await startSandbox({ seed, dataFile, log, rateLimit: 1_000_000 });
    if (isNew) log(`ynab-mcp: the sandbox (seed "${seed}") is kept in ${dir} between calls; --fresh starts it again`);
    const serverDir = join(dir, 'server');
    return {
      sandbox,
      serverDir,
      keySource: fileKey(join(serverDir, 'replica.key'), warn, 'sandbox key file'),
      async close() {
        try {
          await sandbox.close();
        } finally {
          await release().catch(() => undefined);
        }
      },
    };
  } catch (e) {
    await release().catch(() => undefined);
    throw e;
  }
}
