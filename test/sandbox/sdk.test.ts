/**
 * The official JS SDK (`ynab` 4.1.0, pinned) against the sandbox, across its methods. The SDK
 * maps every response through its generated models and throws on a missing required array, so
 * a full pass is itself a shape check; on top of that, each entity is checked with the SDK's own
 * `instanceOfX` guards (every required field present). SDK errors must be the plain
 * `{error:{id,name,detail}}` objects the SDK throws for non-2xx answers.
 *
 * 4.1.0 facts: positional arguments, `/plans` paths, no `untilDate` parameter, no
 * money-movement getter on `API` (the generated MoneyMovementsApi is used directly).
 */
import * as ynab from 'ynab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let api: ynab.API;
let planId: string;
let checking: ynab.Account;
let savings: ynab.Account;
let category: ynab.Category;

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const monthStart = () => `${today().slice(0, 8)}01`;
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

/** The SDK's own required-field guard for a model, e.g. is('TransactionDetail', t). */
function is(model: string, value: unknown, where = model): void {
  const guard = (ynab as unknown as Record<string, (v: unknown) => boolean>)[`instanceOf${model}`];
  expect(guard, `no guard for ${model}`).toBeTypeOf('function');
  expect(value, `${where}: missing`).toBeTruthy();
  expect(guard!(value), `${where}: a required field of ${model} is missing: ${JSON.stringify(value)?.slice(0, 300)}`).toBe(true);
}

const all = (model: string, values: unknown[] | undefined, where = model) => {
  expect(Array.isArray(values), `${where}: not an array`).toBe(true);
  values!.forEach((v, i) => is(model, v, `${where}[${i}]`));
};

function transactionOk(t: ynab.TransactionDetail) {
  is('TransactionDetail', t);
  all('SubTransaction', t.subtransactions, `transaction ${t.id}.subtransactions`);
}

/** Calls and returns the error the SDK throws (it throws the parsed JSON body). */
async function thrown(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected the SDK call to throw');
}

function expectApiError(e: any, status: string, name: string) {
  expect(e).not.toBeInstanceOf(Error);
  expect(Object.keys(e)).toEqual(['error']);
  expect(e.error).toEqual({ id: status, name, detail: expect.any(String) });
  is('ErrorDetail', e.error);
}

beforeAll(async () => {
  sb = await testSandbox();
  api = new ynab.API(sb.accessToken, sb.baseUrl);
  const plans = await api.plans.getPlans();
  planId = plans.data.plans[0]!.id;
  const accounts = (await api.accounts.getAccounts(planId)).data.accounts;
  checking = accounts.find((a) => a.type === 'checking' && !a.closed)!;
  savings = accounts.find((a) => a.type === 'savings' && !a.closed)!;
  const groups = (await api.categories.getCategories(planId)).data.category_groups;
  category = groups
    .filter((g) => !g.hidden && !g.name.match(/Internal|Credit Card/i))
    .flatMap((g) => g.categories)
    .find((c) => !c.hidden)!;
});

afterAll(() => sb.close());

describe('user and plans', () => {
  it('user.getUser', async () => {
    const res = await api.user.getUser();
    is('UserResponseData', res.data);
    is('User', res.data.user);
    expect(res.data.user.id).toBe(sb.state.userId);
  });

  it('plans.getPlans, with and without accounts', async () => {
    const res = await api.plans.getPlans();
    is('PlanSummaryResponseData', res.data);
    all('PlanSummary', res.data.plans);
    expect(res.data.plans.length).toBeGreaterThanOrEqual(2);
    expect(res.data.default_plan).toBeUndefined();
    for (const p of res.data.plans) {
      is('CurrencyFormat', p.currency_format);
      is('DateFormat', p.date_format);
    }
    const withAccounts = await api.plans.getPlans(true);
    for (const p of withAccounts.data.plans) all('Account', p.accounts, `plan ${p.name}.accounts`);
    expect(withAccounts.data.plans[0]!.accounts!.length).toBeGreaterThan(3);
  });

  it('plans.getPlanById: the full export of every plan, and a delta', async () => {
    for (const summary of (await api.plans.getPlans()).data.plans) {
      const res = await api.plans.getPlanById(summary.id);
      is('PlanDetailResponseData', res.data);
      const plan = res.data.plan;
      is('PlanDetail', plan);
      expect(plan.id).toBe(summary.id);
      all('Account', plan.accounts, 'plan.accounts');
      all('Payee', plan.payees, 'plan.payees');
      all('PayeeLocation', plan.payee_locations, 'plan.payee_locations');
      all('CategoryGroup', plan.category_groups, 'plan.category_groups');
      all('Category', plan.categories, 'plan.categories');
      all('MonthDetail', plan.months, 'plan.months');
      all('TransactionSummary', plan.transactions, 'plan.transactions');
      all('SubTransaction', plan.subtransactions, 'plan.subtransactions');
      all('ScheduledTransactionSummary', plan.scheduled_transactions, 'plan.scheduled_transactions');
      all('ScheduledSubTransaction', plan.scheduled_subtransactions, 'plan.scheduled_subtransactions');
      expect(plan.transactions!.length).toBeGreaterThan(10);
      expect(res.data.server_knowledge).toBeGreaterThan(0);
    }

    const k = (await api.plans.getPlanById(planId)).data.server_knowledge;
    const payee = await api.payees.createPayee(planId, { payee: { name: 'SDK Delta Payee' } });
    const delta = await api.plans.getPlanById(planId, k);
    expect(delta.data.server_knowledge).toBe(k + 1);
    expect(delta.data.plan.payees!.map((p) => p.id)).toEqual([payee.data.payee.id]);
    expect(delta.data.plan.transactions).toEqual([]);
  });

  it('plans.getPlanSettingsById', async () => {
    const res = await api.plans.getPlanSettingsById(planId);
    is('PlanSettings', res.data.settings);
    is('CurrencyFormat', res.data.settings.currency_format);
    expect(res.data.settings.currency_format!.iso_code).toBe('USD');
  });
});

describe('accounts', () => {
  it('getAccounts (and delta), getAccountById, createAccount', async () => {
    const res = await api.accounts.getAccounts(planId);
    all('Account', res.data.accounts);
    const k = res.data.server_knowledge;
    const one = await api.accounts.getAccountById(planId, checking.id);
    is('Account', one.data.account);
    expect(one.data.account).toEqual(checking);

    const created = await api.accounts.createAccount(planId, { account: { name: 'SDK Savings', type: ynab.AccountType.Savings, balance: 125_000 } });
    is('Account', created.data.account);
    expect(created.data.account).toMatchObject({ name: 'SDK Savings', type: 'savings', balance: 125_000, on_budget: true, closed: false });
    const delta = await api.accounts.getAccounts(planId, k);
    expect(delta.data.accounts.map((a) => a.id)).toEqual([created.data.account.id]);
    expect(delta.data.server_knowledge).toBeGreaterThan(k);
  });
});

describe('categories', () => {
  it('getCategories, getCategoryById, getMonthCategoryById', async () => {
    const res = await api.categories.getCategories(planId);
    all('CategoryGroupWithCategories', res.data.category_groups);
    for (const g of res.data.category_groups) all('Category', g.categories, `group ${g.name}`);
    const one = await api.categories.getCategoryById(planId, category.id);
    is('Category', one.data.category);
    expect(one.data.category.id).toBe(category.id);
    const month = await api.categories.getMonthCategoryById(planId, 'current', category.id);
    is('Category', month.data.category);
    const explicit = await api.categories.getMonthCategoryById(planId, monthStart(), category.id);
    expect(explicit.data.category).toEqual(month.data.category);
  });

  it('updateMonthCategory changes budgeted and Ready to Assign', async () => {
    const before = (await api.months.getPlanMonth(planId, 'current')).data.month;
    const current = (await api.categories.getMonthCategoryById(planId, 'current', category.id)).data.category;
    const res = await api.categories.updateMonthCategory(planId, 'current', category.id, { category: { budgeted: current.budgeted + 10_000 } });
    is('SaveCategoryResponseData', res.data);
    is('Category', res.data.category);
    expect(res.data.category.budgeted).toBe(current.budgeted + 10_000);
    expect(res.data.category.balance).toBe(current.balance + 10_000);
    const after = (await api.months.getPlanMonth(planId, 'current')).data.month;
    expect(after.to_be_budgeted).toBe(before.to_be_budgeted - 10_000);
    expect(after.budgeted).toBe(before.budgeted + 10_000);
  });

  it('createCategoryGroup, updateCategoryGroup, createCategory, updateCategory', async () => {
    const group = await api.categories.createCategoryGroup(planId, { category_group: { name: 'SDK Group' } });
    is('SaveCategoryGroupResponseData', group.data);
    is('CategoryGroup', group.data.category_group);
    const renamed = await api.categories.updateCategoryGroup(planId, group.data.category_group.id, { category_group: { name: 'SDK Group 2' } });
    expect(renamed.data.category_group.name).toBe('SDK Group 2');

    const created = await api.categories.createCategory(planId, { category: { name: 'SDK Category', category_group_id: group.data.category_group.id } });
    is('Category', created.data.category);
    expect(created.data.category).toMatchObject({ name: 'SDK Category', category_group_id: group.data.category_group.id, budgeted: 0, balance: 0 });
    const updated = await api.categories.updateCategory(planId, created.data.category.id, { category: { note: 'from the SDK', goal_target: 50_000 } });
    is('Category', updated.data.category);
    expect(updated.data.category.note).toBe('from the SDK');
    expect(updated.data.category.goal_target).toBe(50_000);
    const listed = (await api.categories.getCategories(planId)).data.category_groups.find((g) => g.id === group.data.category_group.id)!;
    expect(listed.name).toBe('SDK Group 2');
    expect(listed.categories.map((c) => c.name)).toEqual(['SDK Category']);
  });
});

describe('payees and payee locations', () => {
  it('getPayees (and delta), getPayeeById, createPayee, updatePayee', async () => {
    const res = await api.payees.getPayees(planId);
    all('Payee', res.data.payees);
    const k = res.data.server_knowledge;
    const created = await api.payees.createPayee(planId, { payee: { name: 'SDK Payee' } });
    is('SavePayeeResponseData', created.data);
    is('Payee', created.data.payee);
    const renamed = await api.payees.updatePayee(planId, created.data.payee.id, { payee: { name: 'SDK Payee Renamed' } });
    expect(renamed.data.payee.name).toBe('SDK Payee Renamed');
    expect(renamed.data.server_knowledge).toBe(k + 2);
    const one = await api.payees.getPayeeById(planId, created.data.payee.id);
    expect(one.data.payee).toEqual(renamed.data.payee);
    const delta = await api.payees.getPayees(planId, k);
    expect(delta.data.payees).toEqual([renamed.data.payee]);
  });

  it('getPayeeLocations, getPayeeLocationById, getPayeeLocationsByPayee', async () => {
    const res = await api.payeeLocations.getPayeeLocations(planId);
    all('PayeeLocation', res.data.payee_locations);
    expect(res.data.payee_locations.length).toBeGreaterThan(0);
    const location = res.data.payee_locations[0]!;
    const one = await api.payeeLocations.getPayeeLocationById(planId, location.id);
    is('PayeeLocation', one.data.payee_location);
    expect(one.data.payee_location).toEqual(location);
    const byPayee = await api.payeeLocations.getPayeeLocationsByPayee(planId, location.payee_id);
    all('PayeeLocation', byPayee.data.payee_locations);
    expect(byPayee.data.payee_locations.map((l) => l.id)).toContain(location.id);
    expect(byPayee.data.payee_locations.every((l) => l.payee_id === location.payee_id)).toBe(true);
  });
});

describe('months', () => {
  it('getPlanMonths (and delta), getPlanMonth', async () => {
    const res = await api.months.getPlanMonths(planId);
    all('MonthSummary', res.data.months);
    expect(res.data.months.length).toBeGreaterThanOrEqual(24);
    const current = await api.months.getPlanMonth(planId, 'current');
    is('MonthDetail', current.data.month);
    all('Category', current.data.month.categories, 'month.categories');
    expect(current.data.month.month).toBe(monthStart());
    const older = await api.months.getPlanMonth(planId, res.data.months.at(-1)!.month);
    is('MonthDetail', older.data.month);
    const delta = await api.months.getPlanMonths(planId, res.data.server_knowledge);
    expect(delta.data.months).toEqual([]);
  });
});

describe('money movements (MoneyMovementsApi, not on API in 4.1.0)', () => {
  it('getMoneyMovements, ByMonth, getMoneyMovementGroups, ByMonth', async () => {
    const mm = new ynab.MoneyMovementsApi(new ynab.Configuration({ accessToken: sb.accessToken, basePath: sb.baseUrl }));
    const movements = await mm.getMoneyMovements(planId);
    is('MoneyMovementsResponseData', movements.data);
    all('MoneyMovement', movements.data.money_movements);
    const monthly = await mm.getMoneyMovementsByMonth(planId, 'current');
    all('MoneyMovement', monthly.data.money_movements);
    const groups = await mm.getMoneyMovementGroups(planId);
    is('MoneyMovementGroupsResponseData', groups.data);
    all('MoneyMovementGroup', groups.data.money_movement_groups);
    const monthlyGroups = await mm.getMoneyMovementGroupsByMonth(planId, 'current');
    all('MoneyMovementGroup', monthlyGroups.data.money_movement_groups);
  });
});

describe('transactions', () => {
  it('getTransactions with sinceDate, type and lastKnowledgeOfServer (positional, no untilDate in 4.1.0)', async () => {
    const res = await api.transactions.getTransactions(planId);
    res.data.transactions.forEach(transactionOk);
    expect(res.data.transactions.length).toBeGreaterThan(100);
    const recent = await api.transactions.getTransactions(planId, daysAgo(30));
    expect(recent.data.transactions.length).toBeGreaterThan(0);
    expect(recent.data.transactions.length).toBeLessThan(res.data.transactions.length);
    expect(recent.data.transactions.every((t) => t.date >= daysAgo(30))).toBe(true);
    const unapproved = await api.transactions.getTransactions(planId, daysAgo(400), ynab.GetTransactionsTypeEnum.Unapproved);
    expect(unapproved.data.transactions.length).toBeGreaterThan(0);
    expect(unapproved.data.transactions.every((t) => !t.approved)).toBe(true);
    const byType = await api.transactions.getTransactionsByType(planId, 'unapproved');
    expect(byType.data.transactions.every((t) => !t.approved)).toBe(true);
    const delta = await api.transactions.getTransactions(planId, undefined, undefined, res.data.server_knowledge);
    expect(delta.data.transactions).toEqual([]);
    expect(delta.data.server_knowledge).toBe(res.data.server_knowledge);
  });

  it('getTransactionsByAccount, ByCategory (hybrid), ByPayee (hybrid), ByMonth', async () => {
    const byAccount = await api.transactions.getTransactionsByAccount(planId, checking.id, daysAgo(90));
    byAccount.data.transactions.forEach(transactionOk);
    expect(byAccount.data.transactions.length).toBeGreaterThan(0);
    expect(byAccount.data.transactions.every((t) => t.account_id === checking.id)).toBe(true);

    const byCategory = await api.transactions.getTransactionsByCategory(planId, category.id, daysAgo(365));
    is('HybridTransactionsResponseData', byCategory.data);
    all('HybridTransaction', byCategory.data.transactions);
    expect(byCategory.data.transactions.every((t) => t.category_id === category.id)).toBe(true);
    expect(byCategory.data.server_knowledge).toBeGreaterThan(0);

    const payeeId = byAccount.data.transactions.find((t) => t.payee_id)!.payee_id!;
    const byPayee = await api.transactions.getTransactionsByPayee(planId, payeeId);
    all('HybridTransaction', byPayee.data.transactions);
    expect(byPayee.data.transactions.length).toBeGreaterThan(0);
    expect(byPayee.data.transactions.every((t) => t.payee_id === payeeId)).toBe(true);

    const byMonth = await api.transactions.getTransactionsByMonth(planId, 'current');
    byMonth.data.transactions.forEach(transactionOk);
    expect(byMonth.data.transactions.every((t) => t.date.startsWith(today().slice(0, 7)))).toBe(true);
  });

  it('createTransaction (single, split, transfer), getTransactionById, updateTransaction, deleteTransaction', async () => {
    const single = await api.transactions.createTransaction(planId, {
      transaction: {
        account_id: checking.id,
        date: today(),
        amount: -23_450,
        payee_name: 'SDK Store',
        category_id: category.id,
        memo: 'sdk single',
        cleared: ynab.TransactionClearedStatus.Cleared,
        approved: true,
        flag_color: ynab.TransactionFlagColor.Blue,
      },
    });
    is('SaveTransactionsResponseData', single.data);
    transactionOk(single.data.transaction!);
    expect(single.data.transaction_ids).toEqual([single.data.transaction!.id]);
    expect(single.data.transaction).toMatchObject({ amount: -23_450, memo: 'sdk single', cleared: 'cleared', flag_color: 'blue', payee_name: 'SDK Store' });
    const id = single.data.transaction!.id;

    const got = await api.transactions.getTransactionById(planId, id);
    transactionOk(got.data.transaction);
    expect(got.data.transaction).toEqual(single.data.transaction);

    const updated = await api.transactions.updateTransaction(planId, id, { transaction: { memo: 'sdk updated', flag_color: null } });
    transactionOk(updated.data.transaction);
    expect(updated.data.transaction.memo).toBe('sdk updated');
    expect(updated.data.transaction.flag_color).toBeUndefined();

    const split = await api.transactions.createTransaction(planId, {
      transaction: {
        account_id: checking.id,
        date: today(),
        amount: -30_000,
        payee_name: 'SDK Split Store',
        subtransactions: [
          { amount: -20_000, category_id: category.id, memo: 'part one' },
          { amount: -10_000, category_id: category.id },
        ],
      },
    });
    transactionOk(split.data.transaction!);
    expect(split.data.transaction!.category_name).toBe('Split');
    expect(split.data.transaction!.subtransactions.map((s) => s.amount)).toEqual([-20_000, -10_000]);

    const transfer = await api.transactions.createTransaction(planId, {
      transaction: { account_id: checking.id, date: today(), amount: -5_000, payee_id: savings.transfer_payee_id },
    });
    const out = transfer.data.transaction!;
    transactionOk(out);
    expect(out.transfer_account_id).toBe(savings.id);
    const other = await api.transactions.getTransactionById(planId, out.transfer_transaction_id!);
    expect(other.data.transaction).toMatchObject({ account_id: savings.id, amount: 5_000, transfer_transaction_id: out.id });

    const deleted = await api.transactions.deleteTransaction(planId, id);
    transactionOk(deleted.data.transaction);
    expect(deleted.data.transaction.deleted).toBe(true);
    expectApiError(await thrown(api.transactions.getTransactionById(planId, id)), '404.2', 'resource_not_found');
  });

  it('createTransaction with several (and createTransactions), duplicate import ids, updateTransactions', async () => {
    const importId = `YNAB:-1000:${today()}:1`;
    const multi = await api.transactions.createTransaction(planId, {
      transactions: [
        { account_id: checking.id, date: today(), amount: -1_000, memo: 'multi a', import_id: importId },
        { account_id: checking.id, date: daysAgo(1), amount: -2_000, memo: 'multi b' },
      ],
    });
    is('SaveTransactionsResponseData', multi.data);
    multi.data.transactions!.forEach(transactionOk);
    expect(multi.data.transactions).toHaveLength(2);
    expect(multi.data.transaction_ids).toHaveLength(2);

    const again = await api.transactions.createTransactions(planId, {
      transactions: [
        { account_id: checking.id, date: today(), amount: -1_000, memo: 'dup', import_id: importId },
        { account_id: checking.id, date: today(), amount: -3_000, memo: 'multi c' },
      ],
    });
    expect(again.data.duplicate_import_ids).toEqual([importId]);
    expect(again.data.transactions).toHaveLength(1);
    expect(again.data.transaction_ids).toHaveLength(1);

    expectApiError(
      await thrown(
        api.transactions.createTransaction(planId, { transaction: { account_id: checking.id, date: today(), amount: -1_000, import_id: importId } }),
      ),
      '409',
      'conflict',
    );

    const [a, b] = multi.data.transactions!;
    const bulk = await api.transactions.updateTransactions(planId, {
      transactions: [
        { id: b!.id, memo: 'bulk by id', approved: true },
        { import_id: importId, memo: 'bulk by import id' },
      ],
    });
    is('SaveTransactionsResponseData', bulk.data);
    bulk.data.transactions!.forEach(transactionOk);
    expect(bulk.data.transactions!.map((t) => [t.id, t.memo]).sort()).toEqual(
      [
        [a!.id, 'bulk by import id'],
        [b!.id, 'bulk by id'],
      ].sort(),
    );
  });

  it('importTransactions', async () => {
    const res = await api.transactions.importTransactions(planId);
    is('TransactionsImportResponseData', res.data);
    expect(Array.isArray(res.data.transaction_ids)).toBe(true);
  });
});

describe('scheduled transactions', () => {
  it('getScheduledTransactions (and delta), ById, create, update, delete', async () => {
    const res = await api.scheduledTransactions.getScheduledTransactions(planId);
    all('ScheduledTransactionDetail', res.data.scheduled_transactions);
    expect(res.data.scheduled_transactions.length).toBeGreaterThanOrEqual(8);
    for (const s of res.data.scheduled_transactions) all('ScheduledSubTransaction', s.subtransactions, `scheduled ${s.id}`);
    const k = res.data.server_knowledge;

    const created = await api.scheduledTransactions.createScheduledTransaction(planId, {
      scheduled_transaction: {
        account_id: checking.id,
        date: inDays(10),
        amount: -99_000,
        payee_name: 'SDK Landlord',
        category_id: category.id,
        frequency: ynab.ScheduledTransactionFrequency.Monthly,
        memo: 'rent',
      },
    });
    is('ScheduledTransactionDetail', created.data.scheduled_transaction);
    const st = created.data.scheduled_transaction;
    expect(st).toMatchObject({ date_first: inDays(10), date_next: inDays(10), frequency: 'monthly', amount: -99_000, payee_name: 'SDK Landlord' });

    const one = await api.scheduledTransactions.getScheduledTransactionById(planId, st.id);
    expect(one.data.scheduled_transaction).toEqual(st);

    const updated = await api.scheduledTransactions.updateScheduledTransaction(planId, st.id, {
      scheduled_transaction: { account_id: checking.id, date: inDays(12), amount: -98_000, frequency: ynab.ScheduledTransactionFrequency.EveryOtherMonth },
    });
    is('ScheduledTransactionDetail', updated.data.scheduled_transaction);
    expect(updated.data.scheduled_transaction).toMatchObject({ date_next: inDays(12), amount: -98_000, frequency: 'everyOtherMonth' });

    const delta = await api.scheduledTransactions.getScheduledTransactions(planId, k);
    expect(delta.data.scheduled_transactions.map((s) => s.id)).toEqual([st.id]);

    const deleted = await api.scheduledTransactions.deleteScheduledTransaction(planId, st.id);
    expect(deleted.data.scheduled_transaction.deleted).toBe(true);
    expectApiError(await thrown(api.scheduledTransactions.getScheduledTransactionById(planId, st.id)), '404.2', 'resource_not_found');
  });
});

describe('errors reach SDK users as the plain error objects', () => {
  const unknown = '00000000-0000-4000-8000-000000000000';

  it('404.2 for an unknown resource, 404 for an unknown plan', async () => {
    expectApiError(await thrown(api.accounts.getAccountById(planId, unknown)), '404.2', 'resource_not_found');
    expectApiError(await thrown(api.plans.getPlanById(unknown)), '404.2', 'resource_not_found');
  });

  it('401 for a bad token, 403.3 for a read-only token writing, 400 for bad input', async () => {
    expectApiError(await thrown(new ynab.API('wrong-token', sb.baseUrl).user.getUser()), '401', 'not_authorized');
    const readOnly = new ynab.API(sb.readOnlyToken, sb.baseUrl);
    expect((await readOnly.payees.getPayees(planId)).data.payees.length).toBeGreaterThan(0);
    expectApiError(await thrown(readOnly.payees.createPayee(planId, { payee: { name: 'x' } })), '403.3', 'unauthorized_scope');
    const bad = await thrown(api.transactions.createTransaction(planId, { transaction: { account_id: checking.id, date: inDays(3), amount: -1 } }));
    expectApiError(bad, '400', 'bad_request');
    expect(bad.error.detail).toMatch(/future/);
  });

  it('resolves last-used for SDK callers', async () => {
    const res = await api.accounts.getAccounts('last-used');
    all('Account', res.data.accounts);
  });
});
