/**
 * Answers lost whole: a sandbox that applies 15% of requests and then drops the connection before
 * any of the answer (`--faults silent=0.15`). Nothing tells the server whether such a request
 * arrived, and an identical transaction entered elsewhere meanwhile would look the same, so a
 * create whose answer is lost whole is never claimed: its result says the outcome cannot be known
 * and names the one transaction that appeared, which is its own; it is not sent again. One with an
 * import_id is identified by it and claimed. Through real MCP tool calls, single purchases and
 * pairs of identical ones end exactly as intended: none missing, none doubled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let budgetId: string;
let account: string;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  h = await mcpHarness({
    sandbox: { seed: 'silent-losses', faults: 'silent=0.15' },
    stack: { retry: { attempts: 8, baseDelayMs: 2, maxDelayMs: 20 } },
  });
  budgetId = h.sb.state.budgets[0]!.id;
  account = ok(await h.call('list_accounts', { budget_id: budgetId })).accounts.find((a: any) => a.on_budget && !a.closed).id;
}, 120_000);

afterAll(() => h.close());

const live = (memo: string) => [...h.sb.state.budgets[0]!.rec.transactions.values()].filter((t) => !t.deleted && t.memo === memo);

describe('creates whose answers are lost whole', () => {
  it('each result is its own transaction, or says the outcome is unknown and names its own; nothing doubled or missing', async () => {
    const intended = new Map<string, number>();
    const uncertain: { memo: string; text: string }[] = [];
    let importUncertain = 0;
    const purchase = (memo: string, i: number) => {
      const base = { account_id: account, date: today, amount_milliunits: -(2_000 + i), payee_name: 'Quiet Café', memo };
      return i % 10 === 0 ? { ...base, import_id: `silent-import-${i}` } : base;
    };
    const send = async (memo: string, i: number) => {
      intended.set(memo, (intended.get(memo) ?? 0) + 1);
      // allow_duplicate: the pairs are meant (the user confirmed a second identical purchase).
      const res = await h.call('create_transactions', { budget_id: budgetId, transactions: [purchase(memo, i)], allow_duplicate: true });
      if (!res.isError) {
        expect(
          res.structuredContent.transactions?.map((t: any) => t.memo),
          JSON.stringify(res.structuredContent).slice(0, 600),
        ).toEqual([memo]);
        return res.structuredContent.transaction_ids[0] as string;
      }
      const text = res.content[0].text as string;
      expect(text, memo).toMatch(/^Outcome unknown: .*Most likely (it is|they are) this call's, but nothing proves that its request arrived/);
      if (i % 10 === 0) importUncertain++;
      uncertain.push({ memo, text });
      return undefined;
    };
    const claimed = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const id = await send(`silent-${i}`, i);
      if (id) claimed.add(id);
    }
    // Pairs of identical purchases: two calls each, the same content.
    for (let k = 0; k < 15; k++) {
      for (let n = 0; n < 2; n++) {
        const id = await send(`silent-pair-${k}`, 1_001 + k * 10);
        if (id) {
          expect(claimed.has(id), `pair ${k}: a second result named the first one's transaction`).toBe(false);
          claimed.add(id);
        }
      }
    }
    for (const [memo, n] of intended) expect(live(memo), memo).toHaveLength(n);
    // An uncertain result names a transaction of its own content that no successful result named.
    for (const { memo, text } of uncertain) {
      const named = live(memo).filter((t) => text.includes(t.id));
      expect(named, text).toHaveLength(1);
      expect(claimed.has(named[0]!.id), text).toBe(false);
    }
    expect(uncertain.length).toBeGreaterThan(3);
    expect(importUncertain).toBe(0);
  }, 300_000);
});
