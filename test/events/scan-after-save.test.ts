/**
 * A sync's alerts scan runs after the copy's save, never beside it (issue 61 item 1: at 100,000
 * transactions each takes tens of MB while it runs, and run together their peaks added): on three
 * seeds, when the first sync's scan records what fired, the budget's copy is already saved, and
 * what fired is what a scan of that copy finds.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detect } from '../../src/events/detect.js';
import { BudgetView } from '../../src/insights/core/view.js';
import { createStack } from '../../src/stack/stack.js';
import { fileKey } from '../../src/sync/persist.js';
import { testSandbox } from '../helpers/sandbox.js';

const SEEDS = ['test', 'cash-flow-a', 'cash-flow-b'];

/** The saved copies in a state directory. */
const savedCopies = (dir: string) => {
  try {
    return readdirSync(join(dir, 'replicas'), { recursive: true }).filter((f) => String(f).endsWith('.replica')).length;
  } catch {
    return 0;
  }
};

describe.each(SEEDS)('scan after save, seed %s', (seed) => {
  it("records the first sync's alerts once its copy is saved", async () => {
    const sb = await testSandbox({ seed });
    const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-scan-after-save-'));
    const stack = createStack({
      credentials: { token: async () => sb.accessToken },
      baseUrl: sb.baseUrl,
      stateDir: dir,
      configDir: dir,
      persist: true,
      keySource: fileKey(join(dir, 'replica.key')),
    });
    try {
      const seen: { copies: number; names: string[] }[] = [];
      stack.events.onFired((_, fired) => seen.push({ copies: savedCopies(dir), names: fired.map((o) => o.name) }));
      const id = sb.state.budgets[0]!.id;
      await stack.service.call('getAccounts', { params: { budget_id: id } });
      await stack.settled();
      expect(seen.length).toBe(1);
      expect(seen[0]!.copies).toBe(1);
      const replica = stack.replicas.peek(id)!;
      const found = [...new Set(detect(BudgetView.of(replica), new Date()).map((c) => c.name))].sort();
      expect([...new Set(seen[0]!.names)].sort()).toEqual(found);
    } finally {
      await stack.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
