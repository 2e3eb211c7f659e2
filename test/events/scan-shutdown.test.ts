/**
 * A scan cut short by the server closing is no failure (issue 61 item 1d): at shutdown, the scan
 * after the last sync's save ran into the closed store and the log said "events: scan failed: …
 * settings.json was not read: the server had closed". Closed right after a first sync, while its
 * save and scan are under way, the stack logs no such line, on three seeds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStack } from '../../src/stack/stack.js';
import { fileKey } from '../../src/sync/persist.js';
import { testSandbox } from '../helpers/sandbox.js';

const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];

describe.each(SEEDS)('a scan cut by the close, seed %s', (seed) => {
  it('logs no scan failure', async () => {
    const sb = await testSandbox({ seed });
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-scan-shutdown-'));
    const lines: string[] = [];
    const stack = createStack({
      credentials: { token: async () => sb.accessToken },
      baseUrl: sb.baseUrl,
      stateDir: dir,
      configDir: dir,
      persist: true,
      keySource: fileKey(join(dir, 'replica.key')),
      log: (line) => lines.push(line),
    });
    let closed: Promise<void> | undefined;
    try {
      // The server closes as the sync's scan starts (at a shutdown right after a call), and the scan goes on.
      const scan = stack.events.scan.bind(stack.events);
      stack.events.scan = async (r) => {
        await (closed ??= stack.close());
        return scan(r);
      };
      await stack.service.call('getAccounts', { params: { budget_id: sb.state.budgets[0]!.id } });
      await stack.settled();
      await closed;
      expect(lines.filter((l) => l.includes('scan failed'))).toEqual([]);
    } finally {
      await (closed ?? stack.close());
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
