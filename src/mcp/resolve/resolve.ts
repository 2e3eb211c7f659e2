/**
 * Where tool arguments meet the budget, once for every tool (API and insight alike): the budget
 * is found by id, alias ("last-used", "default") or name, names of accounts, categories, groups
 * and payees become ids, and what converting money needs (the currency's decimals) is known.
 *
 * It costs no request when the budget's copy is fresh: `last-used` is the session's budget,
 * resolved once through the copy itself and then fixed (session-budget.ts: YNAB's alias moves with
 * every access), `default` resolves through the copy, names through the copy held in
 * memory, brought up to date with one delta only when a name is not found in it (something
 * created since), and budget names through the cached budget list.
 */
import { checkPathParam } from '../../api/argument-check.js';
import { ConfigError, InvalidArgumentError } from '../../api/client/errors.js';
import { ArgumentError } from '../../shared/argument-error.js';
import type { BudgetReplica } from '../../sync/replica.js';
import { checkIdsKnown, looksLikeId, namesIn, replaceNames, resolveName } from './names.js';
import { refuseOtherBudgetsIds } from './other-budget.js';
import type { ServerState } from '../state/state.js';
import type { ToolDefinition } from '../tools/definitions.js';

/** A copy synced this recently is not asked again for a name it does not know. */
const REFRESH_AFTER_MS = 1000;

export interface Target {
  /** The arguments with every name turned into an id. */
  args: Record<string, unknown>;
  /** The budget's id, for tools that take one. */
  budgetId?: string;
  /** Named in the answer when budget_id was left out, an alias or a name. */
  named: boolean;
  /** The budget's copy when one was needed (possibly older than the staleness bound). */
  replica?: BudgetReplica;
  /** Which budget this session took as its default, on the call that took it. */
  notice?: string;
  /** Names given as people say them, each with the one it was taken as (names.ts, spokenMatches). */
  taken?: string[];
}

/** The user's budgets (the cached list: one request at most every few minutes). */
export async function budgetList(state: ServerState): Promise<{ id: string; name: string }[]> {
  const service = await state.service();
  const res = await service.call('getPlans', { params: {}, query: {} });
  return ((res.data.plans ?? []) as { id: string; name: string }[]).map((b) => ({ id: b.id, name: b.name }));
}

interface Found {
  id: string;
  replica?: BudgetReplica;
  /** Said in the answer of the call that chose the session's budget. */
  notice?: string;
}

async function budgetFrom(state: ServerState, raw: string, given: boolean): Promise<Found> {
  // `last-used`, given or by default, is the session's: resolved once, then fixed (session-budget.ts).
  if (raw === 'last-used') {
    if (state.config.defaultBudget !== 'last-used') return budgetFrom(state, state.config.defaultBudget, false);
    const found = await sessionLastUsed(state);
    return state.session.tell() ? { ...found, notice: await chosenNotice(state, found.id) } : found;
  }
  if (given) return budgetNamedBy(state, raw, 'budget_id');
  // The default comes from the server's configuration: a bad one is blamed there, not on the call.
  const from = state.config.defaultBudgetFrom ?? '--budget / YNAB_BUDGET_ID';
  try {
    return await budgetNamedBy(state, raw, `the configured default budget (${from})`);
  } catch (e) {
    if (!(e instanceof ArgumentError || e instanceof InvalidArgumentError)) throw e;
    const why = e.message
      .replace(/^the configured default budget \([^)]*\):?\s*/, '')
      .replace(/^budget_id /, '')
      .replace(/\.$/, '');
    throw new ConfigError(
      `The budget ${JSON.stringify(raw)} set by ${from} (this server's configuration, checked at the first call that uses it) cannot be used: ${why}. ` +
        `Set ${from} to an id or name from list_budgets, or to "last-used"; or pass budget_id.`,
    );
  }
}

/** The session's `last-used` (its copy too, when this call resolved it). */
async function sessionLastUsed(state: ServerState): Promise<Found> {
  const service = await state.service();
  let replica: BudgetReplica | undefined;
  const id = await state.session.resolve(async () => {
    // The first answer names the other budgets (chosenNotice): their list is asked for beside the
    // export, not after it (answers to it are cached, so chosenNotice's ask is answered by this one).
    void budgetList(state).catch(() => undefined);
    replica = (await service.replicas.fresh('last-used')).replica;
    return replica.summary.id;
  });
  return { id, replica };
}

/**
 * The budget a call without budget_id uses (`raw` undefined), or `raw` as given, with
 * `last-used` as the session's: for completions and prompts, which resolve ids themselves.
 */
export async function sessionBudgetParam(state: ServerState, raw?: string): Promise<string> {
  const param = raw || state.config.defaultBudget;
  if (param !== 'last-used') return param;
  if (state.config.defaultBudget !== 'last-used') return state.config.defaultBudget;
  return (await sessionLastUsed(state)).id;
}

/** With several budgets, the first answer says which one the session took, and how to take another. */
async function chosenNotice(state: ServerState, id: string): Promise<string | undefined> {
  const budgets = await budgetList(state).catch(() => []);
  const name = budgets.find((b) => b.id === id)?.name;
  const others = budgets.filter((b) => b.id !== id).map((b) => JSON.stringify(b.name));
  if (!others.length || name === undefined) return undefined;
  return (
    `Calls without budget_id use ${JSON.stringify(name)}, the budget last used in YNAB when this session started; it stays the default for this session. ` +
    `Your other budgets: ${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}. Pass budget_id (a name or id) to use another.`
  );
}

async function budgetNamedBy(state: ServerState, raw: string, label: string): Promise<{ id: string; replica?: BudgetReplica }> {
  const service = await state.service();
  checkPathParam('budget_id', raw);
  if (looksLikeId(raw)) return { id: raw };
  if (raw === 'default') {
    const { replica } = await service.replicas.fresh(raw);
    return { id: replica.summary.id, replica };
  }
  return { id: resolveName(await budgetList(state), raw, label, 'budget') };
}

/** The budget's copy: the one held in memory, else a synced one. */
async function copyOf(state: ServerState, budgetId: string): Promise<BudgetReplica> {
  const service = await state.service();
  return service.replicas.peek(budgetId) ?? (await service.replicas.fresh(budgetId)).replica;
}

/** Arguments that are amounts in currency units: converting them needs the currency's decimals. */
const DECIMAL_MONEY = new Set(['amount', 'balance', 'budgeted', 'goal_target', 'min_amount', 'max_amount']);

function hasDecimalMoney(args: unknown): boolean {
  if (Array.isArray(args)) return args.some(hasDecimalMoney);
  if (!args || typeof args !== 'object') return false;
  return Object.entries(args).some(([k, v]) => (typeof v === 'number' && DECIMAL_MONEY.has(k)) || (typeof v === 'object' && hasDecimalMoney(v)));
}

export async function resolveTarget(def: ToolDefinition, args: Record<string, unknown>, state: ServerState): Promise<Target> {
  if (!def.budget) return { args, named: false };
  const given = args.budget_id !== undefined;
  const raw = (args.budget_id as string | undefined) ?? state.config.defaultBudget;
  const budget = await budgetFrom(state, raw, given);
  // An id another budget's copy holds is refused here, naming that budget: YNAB would answer 404.
  refuseOtherBudgetsIds(args, budget.id, (await state.service()).replicas.held());
  const named = !given || !looksLikeId(raw);
  const notice = budget.notice;
  const names = namesIn(args);
  let replica = budget.replica;
  // Insights answer from the copy: an id it does not hold is refused (the API would say 404). A
  // task write sends several requests: every account, category and payee id it will send (split
  // lines' too) must be this budget's before the first one goes, so that no step is refused
  // after another was made (an id of another budget, one deleted, a typo).
  const checkIds = def.kind === 'insight' || (def.kind === 'task' && def.access === 'write');
  if (!replica && (names.length || checkIds || hasDecimalMoney(args))) replica = await copyOf(state, budget.id);
  let resolved = { ...args, ...(given ? { budget_id: budget.id } : {}) };
  let taken: string[] = [];
  const resolveIn = (r: BudgetReplica) => {
    taken = [];
    const out = names.length ? replaceNames(resolved, r, (note) => taken.push(note)) : resolved;
    if (checkIds) checkIdsKnown(out, r);
    return out;
  };
  if ((names.length || checkIds) && replica) {
    try {
      resolved = resolveIn(replica);
    } catch (e) {
      // Not in the copy: it may have been created since (in YNAB, or by another client). One
      // delta brings the copy up to date, then the names are looked up once more.
      // A write since the last sync (whose answer may not have shown it all) syncs anyway.
      const service = await state.service();
      if (replica.dirty) replica = (await service.replicas.fresh(budget.id)).replica;
      else if (Date.now() - replica.syncedAt >= REFRESH_AFTER_MS) {
        await service.replicas.changesSince(budget.id, replica.knowledge);
        replica = service.replicas.peek(budget.id) ?? replica;
      } else throw e;
      resolved = resolveIn(replica);
    }
  }
  return { args: resolved, budgetId: budget.id, named, replica, ...(notice ? { notice } : {}), ...(taken.length ? { taken } : {}) };
}
