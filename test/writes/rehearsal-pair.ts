/**
 * Two sandboxes for apply_rehearsal's tests: A plays YNAB, B holds the rehearsal, loaded from A's
 * budget export (GET /budgets/{id}) as `sandbox --from` loads it. The server against A is given
 * B's undo journal and the export's server_knowledge, as rehearsal mode gives them; the requests
 * it sends to A are recorded.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mcpHarness, ok, type HarnessOptions, type McpHarness } from '../helpers/mcp.js';
import { giveReadyToAssign } from '../helpers/sandbox.js';
import type { RehearsalSource } from '../../src/writes/pipeline/pipeline.js';
import { payeeNames } from '../../src/commands/rehearse.js';

export interface RehearsalPair {
  A: McpHarness;
  B: McpHarness;
  budgetId: string;
  source: RehearsalSource;
  /** Each request the server against A sent ("METHOD /path"). */
  requests: string[];
  close(): Promise<void>;
}

export async function rehearsalPair(real: HarnessOptions = {}): Promise<RehearsalPair> {
  const requests: string[] = [];
  let B: McpHarness | undefined;
  const source: RehearsalSource = {
    budgetId: '',
    knowledge: 0,
    takenAt: '',
    changes: async () => (await B!.state.ready()).changes.recent(source.budgetId),
    limit: 100, // B's journal keeps a budget's last 100
    payees: async () => payeeNames((await (await B!.state.ready()).service.replicas.fresh(source.budgetId)).replica),
    scope: () => (A.state.readOnly ? 'read-only' : A.state.tokenInfo()?.scope),
  };
  const A = await mcpHarness({ ...real, stack: { ...real.stack, rehearsal: source, onRequest: (r) => requests.push(`${r.method} ${r.path}`) } });
  const budgetId = (await A.sb.get('/budgets')).body.data.budgets[0].id as string;
  // Money to assign whatever the day, before the export: the rehearsal funds next month's targets.
  await giveReadyToAssign(A.sb, budgetId, 1_000_000);
  const exported = (await A.sb.get(`/budgets/${budgetId}`)).body.data;
  Object.assign(source, { budgetId, knowledge: exported.server_knowledge, takenAt: new Date().toISOString() });
  const dir = mkdtempSync(join(tmpdir(), 'rehearsal-'));
  writeFileSync(join(dir, 'export.json'), JSON.stringify({ data: exported }));
  B = await mcpHarness({ sandbox: { from: join(dir, 'export.json') } });
  const b = B;
  return {
    A,
    B,
    budgetId,
    source,
    requests,
    async close() {
      await b.close();
      await A.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A write, confirmed when it answers with a preview; fails on anything held or nothing changed. */
export async function write(h: McpHarness, name: string, args: Record<string, unknown>): Promise<any> {
  const first = ok(await h.call(name, args));
  if (first.held || (!first.confirm_token && /^Nothing (was changed|to change)/.test(first.message ?? '')))
    throw new Error(`${name} held: ${JSON.stringify(first).slice(0, 400)}`);
  return first.confirm_token ? ok(await h.call(name, { ...args, confirm_token: first.confirm_token })) : first;
}
