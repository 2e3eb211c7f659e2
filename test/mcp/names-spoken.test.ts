/**
 * Names as people say them (issue 58 item 7), through a real MCP client: an account, category or
 * payee given as a word or the start of its name ("the Visa", "Dining") that only one of them can
 * mean resolves to it, and the answer says which was used; a word that several share is refused
 * with its candidates; an exact name wins over a longer one it starts. Which entity each word can
 * mean is found in the sandbox's raw API, not by the code under test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
let budget: any;
const u = Date.now().toString(36);
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  h = await mcpHarness();
  budget = (await h.sb.get('/budgets')).body.data.budgets.find((b: any) => b.name === 'Demo Household');
});
afterAll(() => h.close());

const rawAccounts = async () => (await h.sb.get(`/budgets/${budget.id}/accounts`)).body.data.accounts.filter((a: any) => !a.deleted);
const rawCategories = async () =>
  (await h.sb.get(`/budgets/${budget.id}/categories`)).body.data.category_groups.flatMap((g: any) => g.categories).filter((c: any) => !c.deleted);
/** The entries a word can mean: a name with a word that starts with it. */
const meant = (entries: any[], word: string) =>
  entries.filter((e) =>
    e.name
      .toLowerCase()
      .split(/\s+/)
      .some((w: string) => w.startsWith(word.toLowerCase())),
  );

describe('a word or the start of a name', () => {
  it('"the Visa" is the one account it can mean, and the answer says so', async () => {
    const [visa, ...others] = meant(await rawAccounts(), 'visa');
    expect(others).toEqual([]);
    expect(visa.name).toBe('Visa Rewards');
    const res = ok(await h.call('get_account', { budget_id: budget.id, account_id: 'the Visa' }));
    expect(res.account.id).toBe(visa.id);
    expect(res.notices).toContain('account_id "the Visa" taken as "Visa Rewards".');
    // Its exact name needs no word about it.
    expect(ok(await h.call('get_account', { budget_id: budget.id, account_id: 'visa rewards' })).notices ?? []).toEqual([]);
  });

  it('a write files under the category and account a word means, and says which it used', async () => {
    const [dining, ...others] = meant(await rawCategories(), 'dining');
    expect(others).toEqual([]);
    const [visa] = meant(await rawAccounts(), 'visa');
    const res = ok(
      await h.call('create_transactions', {
        budget_id: budget.id,
        transactions: [{ account_id: 'Visa', date: today, amount: -3, payee_name: `Spoken ${u}`, category_id: 'dining' }],
      }),
    );
    expect(res.notices).toEqual(
      expect.arrayContaining([
        `transactions[0].account_id "Visa" taken as "Visa Rewards".`,
        `transactions[0].category_id "dining" taken as ${JSON.stringify(dining.name)}.`,
      ]),
    );
    const made = (await h.sb.get(`/budgets/${budget.id}/transactions/${res.transactions[0].id}`)).body.data.transaction;
    expect([made.account_id, made.category_id]).toEqual([visa.id, dining.id]);
  });

  it('a word several names share is refused with its candidates, and nothing is written', async () => {
    for (const name of [`Zebra Savings ${u}`, `Zebra Cash ${u}`])
      expect((await h.sb.call('POST', `/budgets/${budget.id}/accounts`, { account: { name, type: 'savings', balance: 0 } })).status).toBe(201);
    // A copy synced within the last second is not asked again for a name it does not know.
    await new Promise((r) => setTimeout(r, 1100));
    const zebras = meant(await rawAccounts(), 'zebra');
    expect(zebras).toHaveLength(2);
    const res = await h.call('create_transactions', {
      budget_id: budget.id,
      transactions: [{ account_id: 'zebra', date: today, amount: -1, payee_name: `Refused ${u}` }],
    });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/transactions\[0\]\.account_id "zebra": 2 accounts have a name it starts or a word in it starts/);
    for (const z of zebras) expect(res.content[0].text).toContain(z.id);
    const found = (await h.sb.get(`/budgets/${budget.id}/transactions`)).body.data.transactions.filter((t: any) => t.payee_name === `Refused ${u}`);
    expect(found).toEqual([]);
  });

  it('an exact name wins over longer names it starts; a word in no name is refused as before', async () => {
    const [costco] = (await h.sb.get(`/budgets/${budget.id}/payees`)).body.data.payees.filter((p: any) => p.name === 'Costco');
    const made = await h.sb.call('POST', `/budgets/${budget.id}/payees`, { payee: { name: `Costco Gas ${u}` } });
    expect(made.status).toBe(201);
    const res = ok(await h.call('get_payee', { budget_id: budget.id, payee_id: 'costco' }));
    expect(res.payee.id).toBe(costco.id);
    expect(res.notices ?? []).toEqual([]);
    const none = await h.call('get_account', { budget_id: budget.id, account_id: 'Visax' });
    expect(none.isError).toBe(true);
    expect(none.content[0].text).toMatch(/account_id "Visax": no account has that id or name/);
  });
});
