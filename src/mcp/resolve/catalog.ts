/**
 * What the user has, by names people recognise, for resource lists and completions: budgets, and
 * a budget's accounts, categories, payees, months and scheduled transactions, each as an id with
 * a label ("Everyday Checking", "May 2025"). Typing part of a label finds the id; that is how a
 * client completes `{account_id}` from "check". Labels are budget text: their control characters
 * are escaped here (output/sanitize.ts), so resource lists, completions and prompts that quote
 * them get them clean.
 */
import { scrub } from '../../api/client/scrub.js';
import { currentMonth } from '../../api/dates.js';
import { formatMilliunits } from '../../api/money.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { escapeBoundary, escapeControls, escapeText } from '../output/sanitize.js';
import { sessionBudgetParam } from './resolve.js';
import type { ServerState } from '../state/state.js';

export type EntityType = 'account' | 'category' | 'payee' | 'month' | 'scheduled_transaction';

export interface Entry {
  /** What goes into the URI or argument: an id, a month, "current", "last-used". */
  id: string;
  /** The readable name. Budget text: it comes from the user or a bank. */
  label: string;
  /** A short qualifier shown next to the name (account type, category group). */
  detail?: string;
  /** A closed account: listed, but not offered for new transactions. */
  closed?: boolean;
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "2025-05-01" → "May 2025". */
export function monthLabel(month: string): string {
  return `${MONTH_NAMES[Number(month.slice(5, 7)) - 1] ?? month.slice(5, 7)} ${month.slice(0, 4)}`;
}

const lastLogged = new Map<string, number>();

/**
 * Runs a convenience (a resource list, a completion): when it cannot be had (no token yet, YNAB
 * unreachable) the answer is `fallback`, and why goes to stderr, once a minute per reason, since
 * one resources/list asks every template in turn.
 */
export async function bestEffort<T>(state: ServerState, what: string, fallback: T, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    const stack = await state.started();
    const reason = (e as Error)?.message ?? String(e);
    const line = `ynab-mcp: ${what}: ${scrub(reason, stack?.client.secrets() ?? [])}`;
    const now = Date.now();
    if (now - (lastLogged.get(reason) ?? 0) > 60_000) {
      lastLogged.set(reason, now);
      process.stderr.write(`${line}\n`);
    }
    return fallback;
  }
}

/** The budgets the user has (the cached budget list), and "last-used". */
export async function budgetEntries(state: ServerState): Promise<Entry[]> {
  const service = await state.service();
  const res = await service.call('getPlans', { params: {}, query: {} });
  const budgets = (res.data.plans ?? []) as { id: string; name: string }[];
  return [...budgets.map((b) => clean({ id: b.id, label: b.name })), { id: 'last-used', label: 'last-used', detail: 'the budget last opened in YNAB' }];
}

function clean(e: Entry): Entry {
  return { ...e, id: escapeText(e.id), label: escapeText(e.label), ...(e.detail !== undefined ? { detail: escapeText(e.detail) } : {}) };
}

/**
 * What a completion offers, as it goes out: each value once, with line and format controls
 * escaped and no data boundary in it (output/sanitize.ts). A completion value is an argument's
 * value, but a host may paste it into a prompt: it must not end a line or the data there. Every
 * completion (prompt arguments, resource template variables) answers through this.
 */
export function completionValues(values: readonly string[]): string[] {
  return [...new Set(values.map((v) => escapeBoundary(escapeControls(v))))];
}

/** A budget's replica, synced when not fresh enough (the same copy the tools answer from). */
export async function replicaOf(state: ServerState, budget: string | undefined): Promise<BudgetReplica> {
  const service = await state.service();
  return (await service.replicas.fresh(await sessionBudgetParam(state, budget))).replica;
}

export function entityEntries(r: BudgetReplica, type: EntityType, now: Date = new Date()): Entry[] {
  return entries(r, type, now).map(clean);
}

function entries(r: BudgetReplica, type: EntityType, now: Date): Entry[] {
  switch (type) {
    case 'account':
      return [...r.accounts.values()].map((a) => ({
        id: a.id,
        label: a.name,
        detail: `${a.type}${a.on_budget ? '' : ', tracking'}${a.closed ? ', closed' : ''}`,
        closed: a.closed,
      }));
    case 'category':
      return [...r.categories.values()].map((c) => ({
        id: c.id,
        label: c.name,
        detail: r.categoryGroups.get(c.category_group_id)?.name ?? c.category_group_name,
      }));
    case 'payee':
      return [...r.payees.values()].map((p) => ({ id: p.id, label: p.name }));
    case 'month': {
      // Most recent first: the months people ask about.
      const months = [...r.months.keys()].sort().reverse();
      const current = currentMonth(now);
      return [{ id: 'current', label: 'current', detail: monthLabel(current) }, ...months.map((m) => ({ id: m, label: monthLabel(m) }))];
    }
    case 'scheduled_transaction':
      return [...r.scheduled.values()].map((s) => {
        const payee = (s.payee_id && r.payees.get(s.payee_id)?.name) || s.memo || 'no payee';
        return { id: s.id, label: `${payee} ${formatMilliunits(s.amount, r.summary.currency_format)}`, detail: `${s.frequency}, next ${s.date_next}` };
      });
  }
}

/**
 * The entries a typed fragment points at, best first: labels starting with it, then labels with
 * a word starting with it, then labels containing it, then ids starting with it (a pasted id).
 * Case-insensitive; nothing typed matches everything.
 */
export function matching(entries: readonly Entry[], typed: string): Entry[] {
  // Labels are escaped (clean): so is what was typed, so that "Tom >" finds "Tom \u003e Jerry".
  const q = escapeText(typed.trim()).toLowerCase();
  if (!q) return [...entries];
  const rank = (e: Entry): number => {
    const label = e.label.toLowerCase();
    if (label.startsWith(q)) return 0;
    if (label.split(/[\s\-:/&(),.]+/).some((w) => w.startsWith(q))) return 1;
    if (label.includes(q)) return 2;
    if (e.id.toLowerCase().startsWith(q)) return 3;
    return 4;
  };
  return entries
    .map((e, i) => ({ e, i, r: rank(e) }))
    .filter((x) => x.r < 4)
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.e);
}
