/**
 * One seeded random write against a budget: creates, splits, transfers, updates, deletes, bulk
 * approvals, money assigned in a month, category targets, payees, groups, accounts, scheduled
 * transactions. Returns the kind of write. Used to drive replicas through realistic change.
 */
import { addDays, addMonths } from '../../src/api/dates.js';
import type { Random } from '../../src/sandbox/demo/random.js';
import type { TestSandbox } from '../helpers/sandbox.js';

export type Writer = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

const PAYEES = ['Corner Shop', 'Fuel Stop', 'Book Nook', 'Tea House', 'Hardware Hub', 'Pet Place'];

export const WRITE_KINDS = ['create', 'split', 'transfer', 'update', 'delete', 'bulk', 'month', 'category', 'payee', 'scheduled', 'group', 'account'] as const;

/** Does one write; `forced` picks its kind, else the kind is drawn at random. */
export async function randomWrite(sb: TestSandbox, budgetId: string, rng: Random, writer?: Writer, forced?: string): Promise<string> {
  const write: Writer = writer ?? ((m, p, b) => sb.call(m, p, b));
  const b = `/budgets/${budgetId}`;
  const today = new Date().toISOString().slice(0, 10);
  const accounts: any[] = (await sb.get(`${b}/accounts`)).body.data.accounts.filter((a: any) => !a.closed);
  const onBudget: any[] = accounts.filter((a: any) => a.on_budget);
  const categories: any[] = (await sb.get(`${b}/categories`)).body.data.category_groups.filter((g: any) => !g.internal).flatMap((g: any) => g.categories);
  const recent: any[] = (await sb.get(`${b}/transactions?since_date=${addDays(today, -60)}`)).body.data.transactions;
  const date = addDays(today, -rng.int(0, 40));
  const amount = -rng.cents(2, 150);
  const account = rng.pick(onBudget) as any;
  const check = (res: { status: number; body: any }, what: string) => {
    if (res.status >= 300) throw new Error(`${what} failed: ${res.status} ${JSON.stringify(res.body)}`);
  };
  const kind =
    forced ??
    rng.pick(['create', 'create', 'split', 'transfer', 'update', 'update', 'delete', 'bulk', 'month', 'category', 'payee', 'scheduled', 'group', 'account']);
  switch (kind) {
    case 'create': {
      const txn: Record<string, unknown> = { account_id: account.id, date, amount, payee_name: rng.pick(PAYEES), category_id: rng.pick(categories).id };
      if (rng.chance(0.5)) txn.memo = `note ${rng.int(1, 999)}`;
      if (rng.chance(0.3)) txn.cleared = 'cleared';
      if (rng.chance(0.2)) txn.flag_color = 'purple';
      if (rng.chance(0.2)) txn.category_id = null;
      check(await write('POST', `${b}/transactions`, { transaction: txn }), kind);
      return kind;
    }
    case 'split': {
      const first = -rng.cents(1, 60);
      check(
        await write('POST', `${b}/transactions`, {
          transaction: {
            account_id: account.id,
            date,
            amount: first + amount,
            payee_name: rng.pick(PAYEES),
            subtransactions: [
              { amount: first, category_id: rng.pick(categories).id, memo: 'part one' },
              { amount, category_id: rng.pick(categories).id },
            ],
          },
        }),
        kind,
      );
      return kind;
    }
    case 'transfer': {
      const other = rng.pick(accounts.filter((a: any) => a.id !== account.id)) as any;
      check(
        await write('POST', `${b}/transactions`, {
          transaction: {
            account_id: account.id,
            date,
            amount,
            payee_id: other.transfer_payee_id,
            category_id: other.on_budget ? null : rng.pick(categories).id,
          },
        }),
        kind,
      );
      return kind;
    }
    case 'update': {
      const t = rng.pick(recent.filter((x: any) => !x.subtransactions.length)) as any;
      if (!t) return 'none';
      const change: Record<string, unknown> = rng.chance(0.5) ? { amount: -rng.cents(1, 90) } : { memo: `edited ${rng.int(1, 99)}` };
      if (!t.transfer_account_id && rng.chance(0.5)) change.category_id = rng.pick(categories).id;
      if (rng.chance(0.3)) change.approved = true;
      check(await write('PUT', `${b}/transactions/${t.id}`, { transaction: change }), kind);
      return kind;
    }
    case 'delete': {
      const t = rng.pick(recent) as any;
      if (!t) return 'none';
      const res = await write('DELETE', `${b}/transactions/${t.id}`);
      // The other side of a split line's transfer cannot be deleted on its own.
      if (res.status !== 400) check(res, kind);
      return kind;
    }
    case 'bulk': {
      const unapproved = recent.filter((x: any) => !x.approved).slice(0, 3);
      if (!unapproved.length) return 'none';
      check(await write('PATCH', `${b}/transactions`, { transactions: unapproved.map((t: any) => ({ id: t.id, approved: true })) }), kind);
      return 'update';
    }
    case 'month': {
      const month = rng.chance(0.5) ? 'current' : addMonths(`${today.slice(0, 8)}01`, 1);
      check(await write('PATCH', `${b}/months/${month}/categories/${rng.pick(categories).id}`, { category: { budgeted: rng.cents(0, 400) } }), kind);
      return kind;
    }
    case 'category': {
      const c = rng.pick(categories) as any;
      const change = rng.chance(0.5) ? { goal_target: rng.cents(10, 500) } : { name: `${c.name.split(' #')[0]} #${rng.int(1, 99)}` };
      check(await write('PATCH', `${b}/categories/${c.id}`, { category: change }), kind);
      return kind;
    }
    case 'payee': {
      const payees: any[] = (await sb.get(`${b}/payees`)).body.data.payees.filter((p: any) => !p.transfer_account_id);
      if (rng.chance(0.5)) check(await write('POST', `${b}/payees`, { payee: { name: `New Payee ${rng.int(1, 9999)}` } }), kind);
      else check(await write('PATCH', `${b}/payees/${(rng.pick(payees) as any).id}`, { payee: { name: `Renamed ${rng.int(1, 9999)}` } }), kind);
      return kind;
    }
    case 'scheduled': {
      const list: any[] = (await sb.get(`${b}/scheduled_transactions`)).body.data.scheduled_transactions.filter((s: any) => !s.subtransactions.length);
      const roll = rng.next();
      const body = {
        scheduled_transaction: {
          account_id: account.id,
          date: addDays(today, rng.int(2, 90)),
          amount,
          frequency: rng.pick(['never', 'monthly', 'weekly']),
          payee_name: rng.pick(PAYEES),
        },
      };
      if (roll < 0.4 || !list.length) check(await write('POST', `${b}/scheduled_transactions`, body), kind);
      else if (roll < 0.7) check(await write('PUT', `${b}/scheduled_transactions/${(rng.pick(list) as any).id}`, body), kind);
      else check(await write('DELETE', `${b}/scheduled_transactions/${(rng.pick(list) as any).id}`), kind);
      return kind;
    }
    case 'group': {
      check(await write('POST', `${b}/category_groups`, { category_group: { name: `Group ${rng.int(1, 999)}` } }), kind);
      return kind;
    }
    default: {
      check(
        await write('POST', `${b}/accounts`, {
          account: { name: `Account ${rng.int(1, 999)}`, type: rng.pick(['checking', 'savings', 'otherAsset']), balance: rng.cents(0, 900) },
        }),
        kind,
      );
      return kind;
    }
  }
}
