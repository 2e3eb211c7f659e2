/**
 * House rules applied where transactions arrive and to the past (issue 34 items 2 and 3), through
 * a real MCP client against the sandbox over HTTP. Expectations are read from the API's raw data:
 *  - apply_rules previews (per transaction: what changes, which rule), applies as one change in
 *    at most 3 requests (the third reads back the categories after it), counts each rule's applications, and undo_change puts every transaction
 *    back exactly as the API showed it before; a rule edited after the preview spends the token;
 *  - import_statement gives a matched row the rule's payee and category, and its preview names
 *    the rule;
 *  - review_transactions puts a rule's category first, `basis: "rule <id>"`, confidence high;
 *  - approve_transactions with apply_rules: true sets what the rules set while approving;
 *  - create_transactions sends a payee_name a rename rule matches as the rule's payee, and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/api/dates.js';
import type { RuleStore } from '../../src/rules/store.js';
import type { Rule } from '../../src/rules/types.js';
import { confirmed, mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { COLUMNS, csv, freeAmount, rawTransactions, sandboxDirect } from './statement-helpers.js';

const today = new Date().toISOString().slice(0, 10);
const u = Date.now().toString(36);
let h: McpHarness;
let budget: string;
let checking: string;
let savings: string;
let rules: RuleStore;
let requests = 0;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'rules-applied' }, maxStalenessMs: 1_000, stack: { onRequest: () => (requests += 1) } });
  const b = h.sb.state.budgets[0]!;
  budget = b.id;
  checking = [...b.rec.accounts.values()].find((a) => a.name === 'Everyday Checking')!.id;
  savings = [...b.rec.accounts.values()].find((a) => a.name === 'Rainy Day Savings')!.id;
  rules = (await h.state.ready()).rules;
}, 60_000);
afterAll(() => h.close());

const allRaw = async (): Promise<any[]> =>
  ((await h.sb.get(`/budgets/${budget}/transactions?since_date=2000-01-01`)).body.data.transactions as any[]).filter((t) => !t.deleted);
const categoryNamed = async (name: string) =>
  (await h.sb.get(`/budgets/${budget}/categories`)).body.data.category_groups.flatMap((g: any) => g.categories).find((c: any) => c.name === name && !c.deleted);
const payeesNamed = async (name: string) => (await h.sb.get(`/budgets/${budget}/payees`)).body.data.payees.filter((p: any) => p.name === name && !p.deleted);

/**
 * Transactions as a bank import leaves them (an import id, so YNAB keeps the bank's text), made in
 * YNAB beside the server; then a pause past the 1 s in which a held write's plan takes the copy as
 * fresh (reads.ts), so that the server's next plan sees them.
 */
async function imported(account: string, texts: string[], memo: string, approved = true): Promise<string[]> {
  const items = texts.map((text, i) => ({
    account_id: account,
    date: addDays(today, -1 - i),
    amount: -(11_110 + i * 10),
    payee_name: text,
    memo,
    cleared: 'cleared',
    approved,
    import_id: `rules-${u}-${memo}-${i}`,
  }));
  const ids = sandboxDirect(h, 'POST', `/budgets/${budget}/transactions`, { transactions: items }).transaction_ids;
  await new Promise((done) => setTimeout(done, 1_100));
  return ids;
}

async function rule(r: Omit<Rule, 'id' | 'created_at' | 'applied_count'>): Promise<Rule> {
  return rules.put(budget, r);
}

describe('apply_rules', () => {
  it('previews what changes and which rule, applies as one change in at most 3 requests, and undo puts back what the API showed', async () => {
    const fuel = await categoryNamed('Fuel');
    const mine = await imported(
      checking,
      Array.from({ length: 8 }, (_, i) => `SHELL OIL ${u} #${1000 + i}`),
      'apply',
    );
    const elsewhere = await imported(savings, [`SHELL OIL ${u} #9`], 'apply-savings');
    // The rules through set_rule, as an assistant sets them; what it says they would change is what apply_rules finds.
    const shellSet = ok(
      await h.call('set_rule', { match: { text: { kind: 'prefix', value: `SHELL OIL ${u}` } }, set: { payee_name: `Shell ${u}`, category_id: fuel.id } }),
    );
    expect(shellSet.would_change).toBe(9);
    const shell: Rule = shellSet.rule;
    const flag: Rule = ok(
      await h.call('set_rule', { match: { text: { kind: 'contains', value: u }, direction: 'outflow', account_id: checking }, set: { flag_color: 'blue' } }),
    ).rule;
    const before = await allRaw();

    const args = { account_id: 'Everyday Checking', since_date: addDays(today, -30) };
    const preview = ok(await h.call('apply_rules', args));
    expect(preview.preview).toBe(true);
    expect(preview.count).toBe(8);
    expect(preview.by_rule).toEqual({ [shell.id]: 8, [flag.id]: 8 });
    const row = preview.rows.find((r: any) => r.id === mine[0]);
    expect(row.changes).toMatchObject({ payee: { to: `Shell ${u}` }, category: { to: 'Fuel' }, flag: { from: null, to: 'blue' } });
    expect(row.rules).toEqual({ payee_name: shell.id, category_id: shell.id, flag_color: flag.id });

    requests = 0;
    const done = ok(await h.call('apply_rules', { ...args, confirm_token: preview.confirm_token }));
    // The update, the confirm's read, and the categories' available after, read back (issue 58 item 3).
    expect(requests).toBeLessThanOrEqual(3);
    expect(done.updated).toBe(8);
    expect(typeof done.change_id).toBe('string');
    const [payee] = await payeesNamed(`Shell ${u}`);
    expect(await payeesNamed(`Shell ${u}`)).toHaveLength(1);
    const after = await allRaw();
    for (const id of mine) expect(after.find((t) => t.id === id)).toMatchObject({ payee_id: payee.id, category_id: fuel.id, flag_color: 'blue' });
    // Out of scope (another account): as it was.
    expect(after.find((t) => t.id === elsewhere[0])).toEqual(before.find((t) => t.id === elsewhere[0]));
    const counts = Object.fromEntries((await rules.list(budget)).map((r) => [r.id, r.applied_count]));
    expect(counts).toMatchObject({ [shell.id]: 8, [flag.id]: 8 });

    // Applied again: nothing left to change.
    const again = ok(await h.call('apply_rules', args));
    expect(again).toMatchObject({ updated: 0 });

    const { result } = await confirmed(h, 'undo_change', { change_id: done.change_id });
    ok(result);
    expect(await allRaw()).toEqual(before);
  }, 60_000);

  it('a rule edited after the preview spends the token: nothing changes', async () => {
    const hobbies = await categoryNamed('Hobbies');
    const r = await rule({ match: { text: { kind: 'exact', value: `EDITED ${u}` } }, set: { category_id: hobbies.id } });
    const [id] = await imported(checking, [`EDITED ${u}`], 'edited');
    const before = await allRaw();
    const preview = ok(await h.call('apply_rules', {}));
    expect(preview.by_rule[r.id]).toBe(1);
    await rules.put(budget, { id: r.id, match: r.match, set: { category_id: hobbies.id, memo: 'edited' } });
    const res = await h.call('apply_rules', { confirm_token: preview.confirm_token });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/rules/);
    expect((await allRaw()).find((t) => t.id === id)).toEqual(before.find((t) => t.id === id));
    await rules.remove(budget, r.id);
  });

  it('undo puts back a flag on the other side of a transfer a split line made (which refuses even an unchanged account or amount)', async () => {
    const transferPayee = sandboxDirect(h, 'GET', `/budgets/${budget}/accounts/${savings}`).account.transfer_payee_id;
    const groceries = await categoryNamed('Groceries');
    sandboxDirect(h, 'POST', `/budgets/${budget}/transactions`, {
      transaction: {
        account_id: checking,
        date: addDays(today, -3),
        amount: -50_000,
        payee_name: `Split ${u}`,
        memo: `split-transfer ${u}`,
        subtransactions: [
          { amount: -20_000, category_id: groceries.id },
          { amount: -30_000, payee_id: transferPayee },
        ],
      },
    });
    await new Promise((done) => setTimeout(done, 1_100));
    const r = await rule({ match: { account_id: savings, direction: 'inflow', amount: { min: 30_000, max: 30_000 } }, set: { flag_color: 'green' } });
    const before = await allRaw();
    const other = before.find((t) => t.account_id === savings && t.amount === 30_000 && t.date === addDays(today, -3) && t.transfer_account_id === checking);
    expect(other).toBeDefined();
    const { result } = await confirmed(h, 'apply_rules', { account_id: 'Rainy Day Savings', since_date: addDays(today, -3), until_date: addDays(today, -3) });
    const done = ok(result);
    expect(done.by_rule).toEqual({ [r.id]: 1 });
    expect((await allRaw()).find((t) => t.id === other.id).flag_color).toBe('green');
    ok((await confirmed(h, 'undo_change', { change_id: done.change_id })).result);
    expect(await allRaw()).toEqual(before);
    await rules.remove(budget, r.id);
  });

  it("set_rule's count is what apply_rules changes by default, and it names the reconciled ones it leaves out (issue 58 item 5)", async () => {
    const memo = `reconciled ${u}`;
    const texts = [0, 1, 2].map((i) => `RECON ${u} #${i}`);
    // Three bank rows, two of them reconciled: as the issue found them (set_rule said 3, apply_rules changed 1).
    sandboxDirect(h, 'POST', `/budgets/${budget}/transactions`, {
      transactions: texts.map((text, i) => ({
        account_id: checking,
        date: addDays(today, -1 - i),
        amount: -(12_340 + i * 10),
        payee_name: text,
        memo,
        cleared: i ? 'reconciled' : 'cleared',
        approved: true,
        import_id: `rules-${u}-recon-${i}`,
      })),
    });
    await new Promise((done) => setTimeout(done, 1_100));
    const raws = (await allRaw()).filter((t) => t.memo === memo);
    const open = raws.filter((t) => t.cleared !== 'reconciled').length;
    const reconciled = raws.length - open;
    expect([open, reconciled]).toEqual([1, 2]);

    const set = ok(await h.call('set_rule', { match: { text: { kind: 'prefix', value: `RECON ${u}` } }, set: { memo: `Recon rule ${u}` } }));
    const preview = ok(await h.call('apply_rules', {}));
    expect(set.would_change).toBe(open);
    expect(set.would_change).toBe(preview.by_rule[set.rule.id]);
    expect(set.reconciled_left_out).toBe(reconciled);
    expect(set.notices.join(' ')).toContain(`${reconciled} reconciled transactions it matches are left out`);
    expect(preview.reconciled_left_out).toBe(reconciled);
    await rules.remove(budget, set.rule.id);
  });

  it('with no rule that changes anything, says so and changes nothing', async () => {
    const res = ok(await h.call('apply_rules', { account_id: 'Rainy Day Savings', since_date: today, until_date: today }));
    expect(res.updated).toBe(0);
    expect(res.message).toMatch(/Nothing to change/);
  });
});

describe('rules where transactions arrive', () => {
  it('import_statement: a matched row gets the rule payee and category, and the preview names the rule', async () => {
    const groceries = await categoryNamed('Groceries');
    const r = await rule({ match: { text: { kind: 'regex', value: `^MKT ${u} \\d+$` } }, set: { payee_name: `Market ${u}`, category_id: groceries.id } });
    const txns = await rawTransactions(h, budget, checking);
    const used = new Set<number>();
    const rows = [0, 1].map((i) => ({
      date: addDays(today, -2 - i),
      payee: `MKT ${u} ${400 + i}`,
      amount: freeAmount(txns, addDays(today, -2 - i), used, -23_450),
    }));
    const { preview, result } = await confirmed(h, 'import_statement', { account_id: 'Everyday Checking', content: csv(rows), columns: COLUMNS });
    const shown = preview.rows.filter((x: any) => x.status === 'new');
    expect(shown).toHaveLength(2);
    for (const x of shown)
      expect(x).toMatchObject({ payee: `Market ${u}`, payee_basis: `rule ${r.id}`, category: 'Groceries', rules: { payee_name: r.id, category_id: r.id } });
    expect(ok(result).created).toBe(2);
    const [payee] = await payeesNamed(`Market ${u}`);
    const made = (await rawTransactions(h, budget, checking)).filter((t) => rows.some((x) => x.amount === t.amount && x.date === t.date));
    expect(made).toHaveLength(2);
    for (const t of made) expect(t).toMatchObject({ payee_id: payee.id, category_id: groceries.id });
    expect((await rules.list(budget)).find((x) => x.id === r.id)!.applied_count).toBe(2);
  }, 60_000);

  it('review_transactions: a rule\'s category comes first, basis "rule <id>", confidence high', async () => {
    const gifts = await categoryNamed('Hobbies');
    const r = await rule({ match: { text: { kind: 'exact', value: `REVIEW ${u}` } }, set: { category_id: gifts.id } });
    const [id] = await imported(checking, [`REVIEW ${u}`], 'review', false);
    const res = ok(await h.call('review_transactions', { detail: 'full', limit: 100 }));
    const row = res.transactions.find((t: any) => t.id === id);
    expect(row.suggestion).toEqual({ category_id: gifts.id, category: 'Hobbies', confidence: 'high', basis: `rule ${r.id}` });
  });

  it('approve_transactions with apply_rules: true sets what the rules set while approving, as one change', async () => {
    const coffee = await categoryNamed('Coffee');
    const r = await rule({ match: { text: { kind: 'contains', value: `BEANS ${u}` } }, set: { category_id: coffee.id, memo: `beans ${u}` } });
    const ids = await imported(checking, [`BEANS ${u} 1`, `BEANS ${u} 2`], 'approve', false);
    const plain = await imported(checking, [`BEANS ${u} 3`], 'approve-plain', false);
    ok(await h.call('approve_transactions', { transaction_ids: plain }));
    expect((await allRaw()).find((t) => t.id === plain[0])).toMatchObject({ approved: true, memo: 'approve-plain' });
    const res = ok(await h.call('approve_transactions', { transaction_ids: ids, apply_rules: true }));
    expect(res).toMatchObject({ updated: 2, by_rule: { [r.id]: 2 } });
    for (const id of ids) expect((await allRaw()).find((t) => t.id === id)).toMatchObject({ approved: true, category_id: coffee.id, memo: `beans ${u}` });
    expect((await rules.list(budget)).find((x) => x.id === r.id)!.applied_count).toBe(2);
  });

  it('create_transactions: a payee_name a rename rule matches is sent as the rule payee, with a notice', async () => {
    const r = await rule({ match: { text: { kind: 'prefix', value: `AMZN ${u}` } }, set: { payee_name: `Amazon ${u}` } });
    const res = ok(
      await h.call('create_transactions', {
        transactions: [{ account_id: 'Everyday Checking', date: today, amount: -12.34, payee_name: `AMZN ${u} MKTP*77`, memo: 'create' }],
        allow_new_payee: true,
      }),
    );
    expect(res.notices.join(' ')).toContain(`rule ${r.id}`);
    const [payee] = await payeesNamed(`Amazon ${u}`);
    const t = (await allRaw()).find((x) => x.id === res.transaction_ids[0]);
    expect(t.payee_id).toBe(payee.id);
    expect(await payeesNamed(`AMZN ${u} MKTP*77`)).toHaveLength(0);
  });
});

describe('rules under --writes confirm', () => {
  it('a create renamed by a rule previews the rule payee and its notice; apply_rules confirms once, a second use of its token applies nothing', async () => {
    const c = await mcpHarness({ sandbox: { seed: 'rules-confirm' }, flags: { writes: 'confirm' } });
    try {
      const b = c.sb.state.budgets[0]!.id;
      const store = (await c.state.ready()).rules;
      const r = await store.put(b, { match: { text: { kind: 'prefix', value: `CAFE ${u}` } }, set: { payee_name: `Cafe ${u}` } });
      const args = { transactions: [{ account_id: 'Everyday Checking', date: today, amount: -3.5, payee_name: `CAFE ${u} 0042` }], allow_new_payee: true };
      const { preview, result } = await confirmed(c, 'create_transactions', args);
      expect(JSON.stringify(preview.changes)).toContain(`Cafe ${u}`);
      expect(preview.notices.join(' ')).toContain(`rule ${r.id}`);
      const made = ok(result);
      const t = (await c.sb.get(`/budgets/${b}/transactions/${made.transaction_ids[0]}`)).body.data.transaction;
      expect(t.payee_name).toBe(`Cafe ${u}`);

      const hobbies = (await c.sb.get(`/budgets/${b}/categories`)).body.data.category_groups
        .flatMap((g: any) => g.categories)
        .find((x: any) => x.name === 'Hobbies');
      await store.put(b, { match: { text: { kind: 'exact', value: `Cafe ${u}` } }, set: { category_id: hobbies.id } });
      const first = await confirmed(c, 'apply_rules', { since_date: today });
      expect(ok(first.result).updated).toBe(1);
      const again = await c.call('apply_rules', { since_date: today, confirm_token: first.preview.confirm_token });
      // Nothing is left to change, and nothing is applied twice (the token is spent either way).
      expect(again.isError || again.structuredContent.updated === 0).toBe(true);
      expect(ok(await c.call('list_recent_changes', {})).changes.filter((x: any) => x.tool === 'apply_rules')).toHaveLength(1);
      expect((await c.sb.get(`/budgets/${b}/transactions/${made.transaction_ids[0]}`)).body.data.transaction.category_id).toBe(hobbies.id);
    } finally {
      await c.close();
    }
  }, 60_000);
});
