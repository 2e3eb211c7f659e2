/**
 * Suggestion accuracy on a demo budget, measured the way a user would feel it: the last 60 days of
 * categorized history are held out, the suggester is built from what came before, and each
 * held-out transaction's suggestion is compared with the category it really has. What counts as a
 * held-out row is read from the API's own answer (GET transactions over HTTP), not from the copy
 * the suggester works on: approved, non-split transactions of budget accounts with a category,
 * not transfers between budget accounts nor starting balances (a split takes no single category).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { categorySuggester } from '../../src/insights/review/suggest.js';
import { BudgetView } from '../../src/insights/core/view.js';
import { startSandbox } from '../../src/sandbox/app.js';
import { createStack } from '../../src/stack/stack.js';

export const HOLDOUT_DAYS = 60;

export interface Holdout {
  budget: string;
  seed: number;
  /** Held-out rows. */
  rows: number;
  /** Rows with a suggestion of each confidence, and how many of those named the real category. */
  high: { n: number; right: number };
  medium: { n: number; right: number };
  low: { n: number; right: number };
  none: number;
  /** High-confidence misses, for the report: real and suggested category names. */
  misses: string[];
}

const minusDays = (date: string, n: number) => new Date(Date.parse(date) - n * 86_400_000).toISOString().slice(0, 10);

async function get(baseUrl: string, token: string, path: string): Promise<any> {
  const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status}`);
  return ((await res.json()) as { data: any }).data;
}

/** Every demo budget of a seed, measured. */
export async function holdout(seed: number): Promise<Holdout[]> {
  const sb = await startSandbox({ seed, rateLimit: 10_000_000, log: () => {} });
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-holdout-'));
  const stack = createStack({
    credentials: { token: async () => sb.accessToken },
    baseUrl: sb.baseUrl,
    stateDir: dir,
    persist: false,
    maxStalenessMs: 60_000,
    quotaLimit: 10_000_000,
  });
  const out: Holdout[] = [];
  try {
    const today = new Date().toISOString().slice(0, 10);
    const cut = minusDays(today, HOLDOUT_DAYS);
    for (const budget of (await get(sb.baseUrl, sb.accessToken, '/budgets')).budgets) {
      const b = `/budgets/${budget.id}`;
      const accounts = new Map<string, any>((await get(sb.baseUrl, sb.accessToken, `${b}/accounts`)).accounts.map((a: any) => [a.id, a]));
      const categories = new Map<string, any>(
        (await get(sb.baseUrl, sb.accessToken, `${b}/categories`)).category_groups.flatMap((g: any) => g.categories.map((c: any) => [c.id, c])),
      );
      const transactions = (await get(sb.baseUrl, sb.accessToken, `${b}/transactions?since_date=${cut}`)).transactions as any[];
      const held = transactions.filter(
        (t) =>
          !t.deleted &&
          t.date >= cut &&
          t.approved &&
          accounts.get(t.account_id)?.on_budget &&
          t.category_id &&
          categories.get(t.category_id)?.name !== 'Uncategorized' &&
          !(t.subtransactions ?? []).some((x: any) => !x.deleted) &&
          !(t.transfer_account_id && accounts.get(t.transfer_account_id)?.on_budget) &&
          t.payee_name !== 'Starting Balance',
      );
      const { replica } = await stack.service.replicas.fresh(budget.id);
      const suggest = categorySuggester(BudgetView.of(replica), { before: cut });
      const m: Holdout = {
        budget: budget.name,
        seed,
        rows: held.length,
        high: { n: 0, right: 0 },
        medium: { n: 0, right: 0 },
        low: { n: 0, right: 0 },
        none: 0,
        misses: [],
      };
      for (const t of held) {
        const s = suggest({
          payee_id: t.payee_id,
          payee_name: t.payee_name,
          import_payee_name: t.import_payee_name,
          amount: t.amount,
          account_id: t.account_id,
          date: t.date,
        });
        if (!s) {
          m.none += 1;
          continue;
        }
        const right = s.category_id === t.category_id;
        m[s.confidence].n += 1;
        if (right) m[s.confidence].right += 1;
        else if (s.confidence === 'high') m.misses.push(`${t.payee_name} ${t.amount}: ${categories.get(t.category_id)?.name} not ${s.category} (${s.basis})`);
      }
      out.push(m);
    }
  } finally {
    await stack.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
