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
 *  - mcp: the request path (the SDK's checks of an initialize and a tools/call, a server built for
 *    the one tool, our call path), in process (warm-mcp.ts).
 * The answers and mcp steps run in rounds for a time budget each (JIT_BUDGET_MS), not once: code
 * run once is still interpreted, and a restarted instance's first wave paid for its compiling
 * (bench/RESULTS.md: p99 2.4 s against 0.8-1.0 s on instances that had served before).
 * A step that fails costs a warning, not the start: it only makes the first calls slower.
 * The time from the process's start to the end is logged and kept for /metrics.
 */
import type { McpConfig } from '../mcp/state/config.js';
import type { RedisStateStore } from '../storage/redis-store.js';
import type { Change, StateStore } from '../storage/store.js';

export interface WarmUpReport {
  /**
   * Milliseconds from the process's start (performance.now's origin) to the warm-up's start, once
   * the instance listens: the start before it (loading the code of serving, connecting to Redis).
   */
  startedAtMs: number;
  /** Milliseconds from the process's start to the warm-up's end. */
  readyAtMs: number;
  /** Each step that ran, with its time (and its rounds or what it read); a failed one with why. */
  steps: { name: string; ms: number; rounds?: number; read?: number; failed?: string }[];
}

/** Each repeated step's time budget: long enough for V8 to optimize its hot paths, short enough to keep ready under 3 s. */
export const JIT_BUDGET_MS = 400;
/** Each repeated step's rounds at least, however slow the machine. */
export const MIN_ROUNDS = 3;

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

async function warmAnswers(): Promise<number> {
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
  const until = performance.now() + JIT_BUDGET_MS;
  let rounds = 0;
  do {
    await files.save(IDENTITY, BudgetReplica.fromExport(warmBudget(now.toISOString().slice(0, 10)), 1, now.getTime()).snapshot());
    const loaded = await files.load(IDENTITY, WARM_BUDGET_ID, { monthsLater: true });
    if (!loaded.snapshot) throw new Error(`its copy did not read back (${loaded.discarded ?? 'none'})`);
    const copy = BudgetReplica.fromSnapshot(loaded.snapshot, loaded.shared, loaded.months);
    for (const id of ['getAccounts', 'getCategories', 'getPayees', 'getTransactions', 'getPlanMonth', 'getScheduledTransactions'] as const) {
      answerFromReplica(copy, id, params, {}, now);
    }
    rounds++;
  } while (rounds < MIN_ROUNDS || performance.now() < until);
  return rounds;
}

/** What the steps work with. */
export interface WarmUpContext {
  store: RedisStateStore;
  config: McpConfig;
  /** Reads the recently active users' copies (warm-users.ts); resolves with how many. */
  users?: () => Promise<number>;
}

/**
 * A step: its name (the `step` label of its metric: metrics-load.ts) and its work. A number it
 * resolves with is its rounds, or with `counts: 'read'` how many things it read.
 */
export interface WarmUpStep {
  name: string;
  counts?: 'rounds' | 'read';
  run(ctx: WarmUpContext): Promise<unknown>;
}

/** The steps, in order. Another piece of work before ready is one more row, with its own time budget. */
export const STEPS: readonly WarmUpStep[] = [
  { name: 'code', run: loadCode },
  { name: 'redis', run: async ({ store }) => void (await store.warm()) },
  { name: 'answers', run: warmAnswers },
  // After answers, whose rounds compiled the copies' decoding.
  { name: 'users', counts: 'read', run: async ({ users }) => (users ? users() : 0) },
  { name: 'mcp', run: async ({ config }) => (await import('./warm-mcp.js')).warmRequests(config, JIT_BUDGET_MS, MIN_ROUNDS) },
];

/** Runs the steps in turn; resolves with what ran (never rejects). */
export async function warmUp(
  store: RedisStateStore,
  config: McpConfig,
  warn: (line: string) => void,
  users?: () => Promise<number>,
  steps = STEPS,
): Promise<WarmUpReport> {
  const startedAtMs = Math.round(performance.now());
  const ran: WarmUpReport['steps'] = [];
  for (const { name, counts = 'rounds', run } of steps) {
    const started = performance.now();
    try {
      const done = await run({ store, config, users });
      ran.push({ name, ms: Math.round(performance.now() - started), ...(typeof done === 'number' ? { [counts]: done } : {}) });
    } catch (e) {
      const failed = (e as Error).message ?? String(e);
      ran.push({ name, ms: Math.round(performance.now() - started), failed });
      warn(`ynab-mcp: warning: the warm-up's ${name} step failed (${failed}); the first calls will do that work`);
    }
  }
  return { startedAtMs, readyAtMs: Math.round(performance.now()), steps: ran };
}

/** An instance's warm-up, started once it listens: /readyz waits for its end (readiness.ts). */
export class Warming {
  report: WarmUpReport | undefined;

  start(store: RedisStateStore, config: McpConfig, log: (line: string) => void, onDone?: (r: WarmUpReport) => void, users?: () => Promise<number>): void {
    void warmUp(store, config, log, users).then((r) => {
      this.report = r;
      log(warmUpLine(r));
      onDone?.(r);
    });
  }
}

/** The log line of a finished warm-up. */
export function warmUpLine(r: WarmUpReport): string {
  const steps = r.steps
    .map((s) => `${s.name} ${s.ms} ms${s.rounds ? ` x${s.rounds}` : ''}${s.read !== undefined ? ` (${s.read} read)` : ''}${s.failed ? ' (failed)' : ''}`)
    .join(', ');
  return `ynab-mcp: warmed up ${r.readyAtMs} ms after the process started (listening at ${r.startedAtMs} ms; ${steps}); ready`;
}
