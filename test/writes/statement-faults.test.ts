/**
 * import_statement and reconcile_account through a flaky network: the sandbox fails about 20% of
 * requests (500, 503, dropped connections before and after the change was applied, answers lost
 * whole). The test calls the tools as an assistant would: a failed call is repeated with the same
 * arguments, and where the error says the token no longer applies, a new preview is made. The
 * checks read the sandbox's own records, fault-free (its in-process operations, not HTTP): every
 * new row is there exactly once, by import id and amount; the planted hand-entered transactions
 * are cleared and not doubled; nothing else changed; a reconcile's updates were applied once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import { mcpHarness, type McpHarness } from '../helpers/mcp.js';
import { COLUMNS, csv, freeAmount, sandboxDirect, type Row } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;
let budget: string;
let account: string;

beforeAll(async () => {
  h = await mcpHarness({
    sandbox: { seed: 'statement-faults', faults: '500=0.05,503=0.05,reset=0.05,silent=0.05', requestTimeoutMs: 2_000 },
    stack: { retry: { baseDelayMs: 2, maxDelayMs: 20 } },
  });
  budget = h.sb.state.budgets[0]!.id;
  account = [...h.sb.state.budgets[0]!.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
}, 120_000);
afterAll(() => h.close());

const direct = (method: string, path: string, body?: unknown) => sandboxDirect(h, method, path, body);

/** Every transaction of the budget, not deleted, as the API gives them (fault-free). */
const everything = (): any[] => (direct('GET', `/budgets/${budget}/transactions`).transactions as any[]).filter((t) => !t.deleted);

/** What an assistant does: repeats a failed call; makes a new preview when the error says the token no longer applies. */
async function asAssistant(name: string, args: Record<string, unknown>, errors: string[]): Promise<any> {
  let token: string | undefined;
  for (let attempt = 0; attempt < 30; attempt++) {
    const res = await h.call(name, token ? { ...args, confirm_token: token } : args);
    if (res.isError) {
      const text: string = res.content[0].text;
      errors.push(text);
      if (/without confirm_token|already used/.test(text)) token = undefined;
      continue;
    }
    const body = res.structuredContent;
    if (body.preview && !token) {
      token = body.confirm_token;
      continue;
    }
    return body;
  }
  throw new Error(`${name} never got through: ${errors.slice(-3).join(' | ')}`);
}

/** What a tool call met: an error, or a notice of a recovered request. */
const met = (errors: string[], done: any) => errors.length + (done.notices ?? []).filter((n: string) => /^Attempt \d/.test(n)).length;

/**
 * Each round's new rows are bought at its own shop: a statement lists every booking of its days,
 * so a transaction of an earlier round at the same shop on those days, missing from this round's
 * file, would rightly read as that row with another amount (statement-match.ts).
 */
const SHOPS = ['Alder', 'Birch', 'Cedar', 'Dogwood', 'Elm', 'Fir', 'Hazel', 'Juniper'];

/** One statement's import: planted hand-entered transactions to match, new rows; checked from the sandbox's records. */
async function importRound(round: number): Promise<number> {
  const txns = everything();
  const used = new Set<number>();
  // Planted: hand-entered, uncleared, each alone at its amount; fault-free.
  const planted = Array.from({ length: 4 }, (_, i) => {
    const date = addDays(today, -4 - i * 5 - round);
    const amount = freeAmount(txns, date, used, -51_230 - round * 40_000 - i * 1000);
    const body = { account_id: account, date, amount, payee_name: `Planted Grocer ${round}-${i}`, cleared: 'uncleared', approved: true };
    return direct('POST', `/budgets/${budget}/transactions`, { transaction: body }).transaction;
  });
  const withPlanted = everything();
  const fresh: Row[] = Array.from({ length: 26 }, (_, i) => {
    const date = addDays(today, -1 - ((i + round) % 28));
    return { date, payee: `${SHOPS[round % SHOPS.length]} Shop ${i}`, amount: freeAmount(withPlanted, date, used, -71_110 - round * 40_000 - i * 1000) };
  });
  const rows: Row[] = [...planted.map((t: any) => ({ date: t.date, payee: t.payee_name.toUpperCase(), amount: t.amount })), ...fresh];
  const before = new Map(withPlanted.map((t) => [t.id, t]));

  const errors: string[] = [];
  const done = await asAssistant('import_statement', { account_id: account, content: csv(rows), columns: COLUMNS }, errors);

  const now = everything();
  const mine = now.filter((t) => t.account_id === account);
  for (const f of fresh) {
    const made = mine.filter((t) => t.import_id === `YNAB:${f.amount}:${f.date}:1`);
    expect(made, `round ${round}: ${f.payee}`).toHaveLength(1);
    expect(made[0]).toMatchObject({ amount: f.amount, date: f.date, cleared: 'cleared', approved: false });
    expect(mine.filter((t) => t.amount === f.amount && t.date === f.date)).toHaveLength(1);
  }
  for (const p of planted) {
    expect(now.find((t) => t.id === p.id)).toEqual({ ...before.get(p.id), cleared: 'cleared' });
    expect(mine.filter((t) => t.amount === p.amount && t.date === p.date)).toHaveLength(1);
  }
  // Nothing else changed.
  const plantedIds = new Set(planted.map((p: any) => p.id));
  for (const [id, t] of before)
    if (!plantedIds.has(id))
      expect(
        now.find((x) => x.id === id),
        id,
      ).toEqual(t);
  expect(now).toHaveLength(before.size + fresh.length);
  return met(errors, done);
}

/** One reconcile with an adjustment, after a cleared transaction is planted; checked from the sandbox's records. */
async function reconcileRound(round: number): Promise<number> {
  const body = {
    account_id: account,
    date: addDays(today, -2),
    amount: -(3_000 + round * 10),
    payee_name: `Cleared Shop ${round}`,
    cleared: 'cleared',
    approved: true,
  };
  direct('POST', `/budgets/${budget}/transactions`, { transaction: body });
  const before = everything();
  const mine = before.filter((t) => t.account_id === account && t.date <= today);
  const cleared = mine.filter((t) => t.cleared !== 'uncleared').reduce((n, t) => n + t.amount, 0);
  const toReconcile = mine.filter((t) => t.cleared === 'cleared');
  expect(toReconcile.length).toBeGreaterThan(0);
  const errors: string[] = [];
  const adjustment = 10 + round;
  const done = await asAssistant(
    'reconcile_account',
    { account_id: account, statement_balance_milliunits: cleared + adjustment, create_adjustment: true },
    errors,
  );

  const now = everything();
  const byId = new Map(now.map((t) => [t.id, t]));
  for (const t of toReconcile) expect(byId.get(t.id), t.id).toEqual({ ...t, cleared: 'reconciled' });
  const made = now.filter((t) => !before.some((b) => b.id === t.id));
  expect(made, `round ${round}`).toHaveLength(1);
  expect(made[0]).toMatchObject({ account_id: account, amount: adjustment, payee_name: 'Reconciliation Balance Adjustment', cleared: 'reconciled' });
  const reconciled = new Set(toReconcile.map((t) => t.id));
  for (const t of before) if (!reconciled.has(t.id)) expect(byId.get(t.id), t.id).toEqual(t);
  // Every error said what had happened: nothing, or what was done and that undo_change puts it back.
  for (const e of errors) expect(e).toMatch(/Nothing was changed|recorded as change/);
  return met(errors, done);
}

describe('statements through 20% faults', () => {
  it('import_statement, 8 statements of 30 rows: every new row once, the planted hand-entered ones cleared and not doubled, nothing else changed', async () => {
    let hit = 0;
    for (let round = 0; round < 8; round++) hit += await importRound(round);
    // The faults did reach the imports' writes (reads are retried below the tools, unseen).
    expect(hit).toBeGreaterThan(0);
  }, 300_000);

  it('reconcile_account, 8 times: its updates applied once, each adjustment made once, whatever failed on the way', async () => {
    let hit = 0;
    for (let round = 0; round < 8; round++) hit += await reconcileRound(round);
    expect(hit).toBeGreaterThan(0);
  }, 300_000);
});
