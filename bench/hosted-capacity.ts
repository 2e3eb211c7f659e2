/**
 * The capacity model's measured inputs (docs/capacity.md, scripts/capacity.mjs) derived from what
 * one run of `npm run bench -- hosted` just measured, and the plan they give: the crowd's rows
 * (CPU and YNAB requests per call, Redis and replica memory per user, an instance's resident base)
 * and the watchers' run (CPU per watched budget per interval, requests per watched budget).
 * The operator's choices (cores and memory per instance, the CPU target, the interval...) stay
 * those of scripts/capacity.mjs. Pure: measurements in, figures and rows out.
 */
// @ts-expect-error: a plain .mjs script without types
import { ACTIVE, INPUTS, PLAN_COLUMNS, plan, planCells, SCALES } from '../scripts/capacity.mjs';
import type { Reporter, Row } from './section.js';

/** One crowd row's raw figures (bench/hosted.bench.ts). */
export interface CrowdMeasured {
  users: number;
  callsPerUser: number;
  redis: 'single' | 'cluster';
  /** Tool calls made, calls per second over the crowd's wall time. */
  calls: number;
  callsPerSecond: number;
  /** CPU seconds of all instances together during the crowd (their process CPU counter). */
  instanceCpuSeconds: number;
  /** YNAB requests during the crowd. */
  upstream: number;
  /** Per instance after the crowd: replica cache bytes and resident size. */
  cacheBytes: number[];
  rssBytes: number[];
  /** Redis memory of every key after the crowd. */
  redisBytes: number;
}

/** The watchers run's raw figures (bench/hosted-watch.ts). */
export interface WatchMeasured {
  budgets: number;
  intervalMs: number;
  /** Instance CPU per watched budget per interval, the watchers alone. */
  watchCpuMsPerBudget: number;
  /** YNAB requests per watched budget per hour at intervalMs. */
  requestsPerBudgetHour: number;
}

export interface RunMeasured {
  /** The bench machine's cores (the crowd saturates them: cores / calls/s is the whole machine's CPU per call). */
  machineCores: number;
  crowd: CrowdMeasured[];
  watch?: WatchMeasured;
}

interface Input {
  value: number;
  unit: string;
  source: string;
}
type Inputs = Record<string, Input>;

export interface Derived {
  key: string;
  value: number;
  /** How this run measured it, with the figures it came from. */
  from: string;
}

/** A figure to three significant digits, thousands separated (as docs/capacity.md writes its inputs). */
export const shown = (v: number): string => v.toLocaleString('en-US', { maximumSignificantDigits: 3 });

const loadName = (c: CrowdMeasured) => `${c.users} users x ${c.callsPerUser} calls, ${c.redis === 'single' ? 'one Redis' : 'Redis Cluster'}`;
const MB = (bytes: number) => `${shown(bytes / 1e6)} MB`;

/** The load the latency goal is set at (20 x 50, one Redis) when it ran, else the first. */
function perCallLoad(crowd: CrowdMeasured[]): CrowdMeasured | undefined {
  return crowd.find((c) => c.users === 20 && c.callsPerUser === 50 && c.redis === 'single') ?? crowd[0];
}

/** The most users on one Redis (per-user memory amortises the shared keys best there), else the most users. */
function memoryLoad(crowd: CrowdMeasured[]): CrowdMeasured | undefined {
  const most = (list: CrowdMeasured[]) => list.reduce<CrowdMeasured | undefined>((best, c) => (!best || c.users > best.users ? c : best), undefined);
  return most(crowd.filter((c) => c.redis === 'single')) ?? most(crowd);
}

/** The inputs this run measured; an input it did not measure is left out. */
export function derivedInputs(m: RunMeasured): Derived[] {
  const out: Derived[] = [];
  const call = perCallLoad(m.crowd);
  if (call) {
    const cpu = (call.instanceCpuSeconds * 1000) / call.calls;
    const machine = (m.machineCores * 1000) / call.callsPerSecond;
    out.push({
      key: 'cpuPerCallMs',
      value: cpu,
      from: `instances' CPU ${shown(call.instanceCpuSeconds)} s / ${shown(call.calls)} calls at ${loadName(call)} (cores / calls/s, the whole machine's with the sandbox, the bench's clients and whatever else runs: ${m.machineCores} cores / ${shown(call.callsPerSecond)} calls/s = ${shown(machine)} ms)`,
    });
    out.push({
      key: 'upstreamPerCall',
      value: call.upstream / call.calls,
      from: `${shown(call.upstream)} YNAB requests / ${shown(call.calls)} calls at ${loadName(call)}`,
    });
  }
  if (m.watch) {
    const w = m.watch;
    const interval = `${w.budgets} watched budgets, ${w.intervalMs / 1000} s interval`;
    out.push({ key: 'watchCpuMsPerBudget', value: w.watchCpuMsPerBudget, from: `one interval with the watchers alone, ${interval}` });
    // Requests per sync do not depend on the interval: scaled to the model's 15 minutes.
    out.push({
      key: 'requestsPerWatchedBudgetHour',
      value: (w.requestsPerBudgetHour * w.intervalMs) / 900_000,
      from: `${shown(w.requestsPerBudgetHour)} per hour at ${interval}, x ${w.intervalMs / 1000} s / 15 min`,
    });
  }
  const mem = memoryLoad(m.crowd);
  if (mem) {
    const cache = Math.max(...mem.cacheBytes);
    const base = Math.max(...mem.rssBytes.map((rss, i) => rss - mem.cacheBytes[i]!));
    out.push({
      key: 'redisBytesPerUser',
      value: Math.round(mem.redisBytes / mem.users),
      from: `Redis memory, every key, ${MB(mem.redisBytes)} / ${mem.users} users at ${loadName(mem)}`,
    });
    out.push({
      key: 'replicaBytesPerActiveUser',
      value: Math.round(cache / mem.users),
      from: `replica cache of the fullest instance, ${MB(cache)} / ${mem.users} users at ${loadName(mem)}`,
    });
    out.push({
      key: 'instanceBaseBytes',
      value: base,
      from: `an instance's resident size less its replica cache, the most of the instances, at ${loadName(mem)}`,
    });
  }
  return out;
}

/** scripts/capacity.mjs's inputs with this run's measurements in place of its figures. */
export function inputsOf(m: RunMeasured, base: Inputs = INPUTS): Inputs {
  const out: Inputs = { ...base };
  for (const d of derivedInputs(m)) out[d.key] = { ...base[d.key]!, value: d.value, source: `this run: ${d.from}` };
  return out;
}

/** The inputs table: every input, this run's figure beside docs/capacity.md's. */
export function inputRows(m: RunMeasured, base: Inputs = INPUTS): Row[] {
  const derived = new Map(derivedInputs(m).map((d) => [d.key, d]));
  return Object.entries(base).map(([key, input]) => {
    const d = derived.get(key);
    return {
      'capacity model input': `\`${key}\``,
      'this run': shown(d ? d.value : input.value),
      'docs/capacity.md': shown(input.value),
      unit: input.unit,
      from: d ? d.from : `not measured by this bench; scripts/capacity.mjs: ${input.source}`,
    };
  });
}

/** The plan table (docs/capacity.md's) computed by scripts/capacity.mjs's plan() from `inputs`. */
export function planRows(inputs: Inputs): Row[] {
  const columns = PLAN_COLUMNS as string[];
  return (SCALES as number[]).flatMap((users) =>
    (ACTIVE as number[]).map((active) => {
      const cells = planCells(plan(users, active, inputs), inputs) as string[];
      return Object.fromEntries(columns.map((c, i) => [i === 0 ? `plan from this run: ${c}` : c, cells[i]!]));
    }),
  );
}

/** The section's capacity rows (after the crowd's and the watchers'): the inputs table, then the plan. */
export function capacityReport(r: Reporter, m: RunMeasured): void {
  for (const row of inputRows(m)) r.row(row);
  for (const row of planRows(inputsOf(m))) r.row(row);
  r.note(
    "Capacity (issue 45 item 6; bench/hosted-capacity.ts): the capacity model's measured inputs as this run measured them, beside the figures docs/capacity.md plans with, and the plan table scripts/capacity.mjs's plan() computes from them (1,000 / 10,000 / 100,000 users, 1 % and 5 % active at peak, all watched; the operator's choices stay the script's). An input a row did not measure this time (a load not run) keeps the doc's figure and says so. `cpuPerCallMs` is the instances' own CPU per call (their process counter): the doc's 10.7 ms was the whole machine's, cores / calls/s, which counts the sandbox, the proxy, Redis, the bench's clients and any other work on the machine too (the row says both). docs/capacity.md changes only when someone copies a figure into scripts/capacity.mjs and runs it with --write.",
  );
}
