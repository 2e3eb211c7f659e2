/**
 * An instance's warm-up: the work its first calls would otherwise pay for, done before /readyz
 * says ready (readiness.ts), so that a crowd arriving with the instance (a rolling deploy under
 * load, a morning rush after a restart) is not served by an instance still loading its code
 * (bench/RESULTS.md: the first 1.5 s of each instance were its slowest calls). Its steps:
 *  - code: the modules the first tool calls, reads and writes load when first asked (the tool
 *    handlers, the answer path and builders, the write pipeline, the copies' decoding, alerts);
 *  - redis: a PING to every master, opening their connections (a cluster's too);
 *  - answers: a made-up budget of a few entities (warm-budget.ts) saved, read back (sealed,
 *    compressed, columnar) and answered from, in memory: the copies' and answers' code runs;
 *  - mcp: the request path (a 2025-era tools/call's checks, served straight from node:http as a
 *    call is: the SDK's checks, a server built for the one tool, our call path), in process
 *    (warm-mcp.ts).
 * The answers and mcp steps run in rounds for a time budget each (JIT_BUDGET_MS), not once: code
 * run once is still interpreted, and a restarted instance's first wave paid for its compiling
 * (bench/RESULTS.md: p99 2.4 s against 0.8-1.0 s on instances that had served before).
 * The whole warm-up has a deadline counted from the process's start (YNAB_MCP_READY_WITHIN_MS,
 * default DEFAULT_READY_WITHIN_MS): three instances restarted at once on two cores each spent
 * 1.4-3.4 s before they listened, and then their full budgets, so they were ready 3-6 s after
 * the restart (bench/RESULTS.md, hosted). Each timed step is given what remains, shared by the
 * steps left in proportion to their budgets (its own budget at most). A step given time still runs
 * MIN_ROUNDS rounds at least, one given none (past the deadline) none; copies being read when the
 * users step's time is up are finished after it. So ready comes by the deadline (plus those least
 * rounds), or, when the start took longer, once the code is loaded and Redis answers.
 * A step that fails costs a warning, not the start: it only makes the first calls slower.
 * The time from the process's start to the end is logged and kept for /metrics, and a second
 * line says what each timed step was given and what it left.
 */
import type { McpConfig } from '../mcp/state/config.js';
import type { RedisStateStore } from '../storage/redis-store.js';
import type { Change, StateStore } from '../storage/store.js';
import { envCount, warmUsersSettings, type WarmUsersResult } from './warm-users.js';

export interface WarmUpReport {
  /**
   * Milliseconds from the process's start (performance.now's origin) to the warm-up's start, once
   * the instance listens: the start before it (loading the code of serving, connecting to Redis).
   */
  startedAtMs: number;
  /** Milliseconds from the process's start to the warm-up's end. */
  readyAtMs: number;
  /** Milliseconds from the process's start by which the timed steps were to end (YNAB_MCP_READY_WITHIN_MS). */
  deadlineMs: number;
  /**
   * Each step that ran, with its time (and its rounds or what it read); a timed one with the time
   * it was given of its budget, the users step with the users it left; a failed one with why.
   */
  steps: ({ name: string; ms: number; failed?: string; given?: number; budget?: number } & StepResult)[];
}

/** What a step did: its rounds, or the users it read and those it left to their first calls. */
export interface StepResult {
  rounds?: number;
  read?: number;
  left?: number;
  months?: number;
}

/** Each repeated step's time budget: long enough for V8 to optimize its hot paths, short enough to keep ready under 3 s. */
export const JIT_BUDGET_MS = 400;
/** Each repeated step's rounds at least, however slow the machine, unless the deadline has passed. */
export const MIN_ROUNDS = 3;
/** A step given no time (the deadline passed) runs no round: its first call will pay for the code's first run. */
export const leastRounds = (givenMs: number): number => (givenMs > 0 ? MIN_ROUNDS : 0);
/**
 * The warm-up's end at the latest, from the process's start, unless rounds at least or a copy in
 * flight run past it: ready under 3 s after a restart of three instances at once on two cores
 * (bench: hosted, the crowd's 'instances ready after'), the check's poll and the process's own
 * start before its clock included.
 */
export const DEFAULT_READY_WITHIN_MS = 2_500;

/** YNAB_MCP_READY_WITHIN_MS, or the default; anything but a whole number stops the start, naming it. */
export const readyWithinMs = (env: NodeJS.ProcessEnv = process.env): number => envCount(env, 'YNAB_MCP_READY_WITHIN_MS', DEFAULT_READY_WITHIN_MS, 600_000);

const IDENTITY = '000000000000000000000000';

/** The modules a first call would load (each is also what the first of its kind loads lazily). */
const loadCode = () =>
  Promise.all([
    import('../mcp/tools/call.js'),
    import('../mcp/tools/definitions.js'),
    import('../mcp/tools/tool-schemas.js'),
    import('../mcp/tools/run.js'),
    import('../mcp/answer/tool-answer.js'),
    import('../mcp/output/builder.js'),
    import('../mcp/resources/resource-read.js'),
    import('../stack/stack.js'),
    import('../writes/pipeline/pipeline.js'),
    import('../writes/pipeline/after-state.js'),
    import('../writes/api-tools/api-plan.js'),
    import('../writes/rules/create-rules.js'),
    import('../sync/creates.js'),
    import('../sync/replica-reads.js'),
    import('../events/alerts.js'),
  ]);

/** A store in memory, for the made-up budget's copy alone. */
class MemoryStore implements StateStore {
  readonly location = 'memory (warm-up)';
  private readonly values = new Map<string, Uint8Array>();
  describe = (key: string) => key;
  get = async (key: string) => this.values.get(key);
  set = async (key: string, value: Uint8Array) => void this.values.set(key, value);
  delete = async (key: string) => void this.values.delete(key);
  list = async (prefix: string) => [...this.values.keys()].filter((k) => k.startsWith(prefix));
  async update<T>(key: string, change: (current: Uint8Array | undefined) => Change<T>): Promise<T> {
    const { value, result } = change(this.values.get(key));
    if (value === null) this.values.delete(key);
    else if (value !== undefined) this.values.set(key, value);
    return result;
  }
  withLock = <T>(_name: string, fn: () => Promise<T>) => fn();
}

async function warmAnswers(budgetMs: number): Promise<StepResult> {
  const [{ BudgetReplica }, { ReplicaFiles }, { ephemeralKey }, { answerFromReplica }, { warmBudget, WARM_BUDGET_ID }] = await Promise.all([
    import('../sync/replica.js'),
    import('../sync/persist.js'),
    import('../sync/seal.js'),
    import('../sync/replica-reads.js'),
    import('./warm-budget.js'),
  ]);
  const now = new Date();
  const files = new ReplicaFiles(new MemoryStore(), ephemeralKey(), () => undefined);
  const params = { budget_id: WARM_BUDGET_ID, month: 'current' };
  const until = performance.now() + budgetMs;
  let rounds = 0;
  while (rounds < leastRounds(budgetMs) || performance.now() < until) {
    await files.save(IDENTITY, BudgetReplica.fromExport(warmBudget(now.toISOString().slice(0, 10)), 1, now.getTime()).snapshot());
    const loaded = await files.load(IDENTITY, WARM_BUDGET_ID, { monthsLater: true });
    if (!loaded.snapshot) throw new Error(`its copy did not read back (${loaded.discarded ?? 'none'})`);
    const copy = BudgetReplica.fromSnapshot(loaded.snapshot, loaded.shared, loaded.months);
    for (const id of ['getAccounts', 'getCategories', 'getPayees', 'getTransactions', 'getPlanMonth', 'getScheduledTransactions'] as const) {
      answerFromReplica(copy, id, params, {}, now);
    }
    rounds++;
  }
  return { rounds };
}

/** What the steps work with. */
export interface WarmUpContext {
  store: RedisStateStore;
  config: McpConfig;
  /** Reads the recently active users' copies (warm-users.ts) for at most the time given. */
  users?: (budgetMs: number) => Promise<WarmUsersResult>;
}

/**
 * A step: its name (the `step` label of its metric: metrics-load.ts) and its work. A timed step
 * has a budget (ms), and is given at most that of what remains before the deadline.
 */
export interface WarmUpStep {
  name: string;
  budgetMs?: number;
  run(ctx: WarmUpContext, givenMs: number): Promise<StepResult | void>;
}

/** The steps, in order. Another piece of work before ready is one more row, with its own time budget. */
export const steps = (usersBudgetMs = warmUsersSettings().budgetMs): readonly WarmUpStep[] => [
  { name: 'code', run: async () => void (await loadCode()) },
  { name: 'redis', run: async ({ store }) => void (await store.warm()) },
  { name: 'answers', budgetMs: JIT_BUDGET_MS, run: async (_, ms) => (ms > 0 ? warmAnswers(ms) : { rounds: 0 }) },
  // After answers, whose rounds compiled the copies' decoding.
  { name: 'users', budgetMs: usersBudgetMs, run: async ({ users }, ms) => (users ? users(ms) : { read: 0, left: 0 }) },
  {
    name: 'mcp',
    budgetMs: JIT_BUDGET_MS,
    run: async ({ config }, ms) => ({ rounds: ms > 0 ? await (await import('./warm-mcp.js')).warmRequests(config, ms, leastRounds(ms)) : 0 }),
  },
];

/** A timed step's share of what remains before the deadline: in proportion to the budgets left, its own at most. */
function share(budgetMs: number, left: readonly WarmUpStep[], deadlineMs: number): number {
  const remaining = deadlineMs - performance.now();
  const budgets = left.reduce((sum, s) => sum + (s.budgetMs ?? 0), 0);
  return remaining <= 0 || budgets === 0 ? 0 : Math.floor(Math.min(budgetMs, (remaining * budgetMs) / budgets));
}

/** Runs the steps in turn, the timed ones given their share before the deadline; resolves with what ran (never rejects). */
export async function warmUp(
  ctx: WarmUpContext,
  warn: (line: string) => void,
  deadlineMs = readyWithinMs(),
  list: readonly WarmUpStep[] = steps(),
): Promise<WarmUpReport> {
  const startedAtMs = Math.round(performance.now());
  const ran: WarmUpReport['steps'] = [];
  for (const [i, { name, budgetMs, run }] of list.entries()) {
    const given = budgetMs === undefined ? undefined : share(budgetMs, list.slice(i), deadlineMs);
    const timed = given === undefined ? {} : { given, budget: budgetMs };
    const started = performance.now();
    try {
      const done = await run(ctx, given ?? 0);
      ran.push({ name, ms: Math.round(performance.now() - started), ...timed, ...done });
    } catch (e) {
      const failed = (e as Error).message ?? String(e);
      ran.push({ name, ms: Math.round(performance.now() - started), ...timed, failed });
      warn(`ynab-mcp: warning: the warm-up's ${name} step failed (${failed}); the first calls will do that work`);
    }
  }
  return { startedAtMs, readyAtMs: Math.round(performance.now()), deadlineMs, steps: ran };
}

/** An instance's warm-up, started once it listens: /readyz waits for its end (readiness.ts). */
export class Warming {
  report: WarmUpReport | undefined;
  /** Read as the instance starts: a bad setting stops it, naming the variable. */
  readonly deadlineMs = readyWithinMs();
  private readonly steps = steps();

  start(store: RedisStateStore, config: McpConfig, log: (line: string) => void, onDone?: (r: WarmUpReport) => void, users?: WarmUpContext['users']): void {
    void warmUp({ store, config, users }, log, this.deadlineMs, this.steps).then((r) => {
      this.report = r;
      log(warmUpLine(r));
      log(deadlineLine(r));
      onDone?.(r);
    });
  }
}

/** The log line of a finished warm-up. */
export function warmUpLine(r: WarmUpReport): string {
  const steps = r.steps
    .map(
      (s) =>
        `${s.name} ${s.ms} ms${s.rounds !== undefined ? ` x${s.rounds}` : ''}${s.read !== undefined ? ` (${s.read} read${s.months !== undefined ? `, ${s.months} with their months` : ''})` : ''}${s.failed ? ' (failed)' : ''}`,
    )
    .join(', ');
  return `ynab-mcp: warmed up ${r.readyAtMs} ms after the process started (listening at ${r.startedAtMs} ms; ${steps}); ready`;
}

/** The log line of what each timed step was given before the deadline, and what it left. */
export function deadlineLine(r: WarmUpReport): string {
  const timed = r.steps.filter((s) => s.budget !== undefined);
  const left = (s: (typeof timed)[number]) => (s.read !== undefined ? ` (${s.read} read, ${s.left ?? 0} left to their first calls)` : '');
  const given = timed.map((s, i) => `${s.name} ${i ? '' : 'given '}${s.given} of ${s.budget} ms${left(s)}`).join(', ');
  const cut = timed.some((s) => s.given! < s.budget!);
  return `ynab-mcp: warm-up deadline ${r.deadlineMs} ms after the process started; ${given}${cut ? ': cut short' : ''}`;
}
