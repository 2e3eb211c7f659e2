/**
 * Closing while a call is still running writes nothing afterwards: an HTTP call that timed out
 * goes on behind its answer (its requests to YNAB, its ledger entries, its saved replica), and
 * once the server and its ServerState are closed, none of it may reach the state directory (a
 * process that exits, or a test that removes the directory, would otherwise race it). The call
 * is really slow: every request to the sandbox is delayed by its injected `slow` fault.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { ServerState } from '../../src/mcp/state/state.js';
import { ephemeralKey } from '../../src/sync/seal.js';
import { serveHttp } from '../../src/transport/http.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { connect } from './http-harness.js';

let sb: TestSandbox;
const dirs: string[] = [];

beforeAll(async () => {
  // Every answer comes after up to 1.5 × 400 ms; past 400 ms it is a 503, which the client retries.
  sb = await testSandbox({ faults: 'slow=1', requestTimeoutMs: 400 });
});
afterAll(async () => {
  await sb?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Every file and directory under `dir`, with its size and modification time. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => {
      const path = join(e.parentPath, e.name);
      const st = statSync(path);
      return `${path.slice(dir.length + 1)}${e.isDirectory() ? '/' : ''} ${e.isDirectory() ? '' : st.size} ${st.mtimeMs}`;
    })
    .sort();
}

describe('closing during a slow call', () => {
  it.each([
    ['started before the call: the store and the key are closed under it', 'started'],
    ['still starting when the close begins: it is closed as soon as it is there', 'starting'],
  ])('a call that timed out writes nothing to the state directory once ServerState.close() has returned, its stack %s', async (_, when) => {
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-close-during-'));
    dirs.push(dir);
    // 'starting': the stack waits for its credentials until the close has begun.
    let release!: () => void;
    const credentials = when === 'starting' ? new Promise<void>((r) => (release = r)) : Promise.resolve();
    const state = new ServerState(
      mcpConfig({}, {}),
      async () => {
        await credentials;
        return { credentials: { token: async () => sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: sb.baseUrl };
      },
      // Replicas saved too, sealed with a key of this process (no keychain, no key file).
      { stateDir: dir, persist: true, keySource: ephemeralKey(), retry: { baseDelayMs: 50 } },
    );
    if (when === 'started') await state.ready();
    let callEnded!: (outcome: string) => void;
    const ended = new Promise<string>((resolve) => (callEnded = resolve));
    const server = await serveHttp(state, {
      port: 0,
      requestTimeoutMs: 250,
      observer: { begin: () => ({ run: (serve) => serve(), end: () => {} }), onToolCall: (_tool, outcome) => callEnded(outcome) },
    });
    const client = await connect(server.url, 'modern');
    await expect(client.callTool({ name: 'list_accounts', arguments: {} }, { timeout: 30_000 })).rejects.toThrow(/timed out after 250 ms/);
    await client.close();
    await server.close();
    const closing = state.close();
    release?.();
    await closing;
    const atClose = snapshot(dir);
    // A call that reaches for the stack only now gets none.
    await expect(state.ready()).rejects.toThrow('The server has closed; this call was still running and ends here, with nothing written.');

    // The call goes on behind its timed-out answer until it ends, one way or the other.
    expect(['ok', 'error']).toContain(await ended);
    // Whatever it was still doing then (its last ledger entry, a replica being saved) has had time to land.
    await new Promise((r) => setTimeout(r, 500));
    expect(snapshot(dir)).toEqual(atClose);
  });
});
