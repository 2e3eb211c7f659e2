/**
 * A sandbox with one stack reading from it (full-access token, replicas not persisted) into a
 * temporary state directory, for the sync suites that drive a single stack; close() ends the
 * stack before the sandbox it talks to, then removes the directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxOptions } from '../../src/sandbox/app.js';
import { createStack, type Stack, type StackOptions } from '../../src/stack/stack.js';
import type { ReplicaSnapshot } from '../../src/sync/replica.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

export interface SandboxStack {
  sb: TestSandbox;
  stack: Stack;
  close(): Promise<void>;
}

export async function sandboxStack(sandbox: SandboxOptions, stackOpts: Partial<StackOptions>): Promise<SandboxStack> {
  const sb = await testSandbox(sandbox);
  const dir = mkdtempSync(join(tmpdir(), `ynab-mcp-${sandbox.seed ?? 'sync'}-`));
  const stack = createStack({
    credentials: { token: async () => sb.accessToken },
    baseUrl: sb.baseUrl,
    stateDir: dir,
    persist: false,
    ...stackOpts,
  });
  const close = async () => {
    await stack.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { sb, stack, close };
}

/** A sandbox of `seed` and the copy of each of its budgets, as synced whole by one stack. */
export async function syncedCopies(seed: string): Promise<{ demo: SandboxStack; copies: ReplicaSnapshot[] }> {
  const demo = await sandboxStack({ seed }, {});
  for (const b of demo.sb.state.budgets) await demo.stack.service.call('getAccounts', { params: { budget_id: b.id } });
  return { demo, copies: demo.stack.replicas.held().map((r) => r.snapshot()) };
}
