/**
 * When V8 optimizes a hosted instance's code: after four times the work its default asks
 * (--interrupt-budget), so that a restarted instance's first crowd spends less of its CPU compiling.
 *
 * Why: an instance's first 1,000-2,000 calls after a start cost about 1.6 times the CPU of the
 * calls after them, and most of the difference was V8 still compiling the request path (its
 * worker threads, where the optimizing compiler runs, used twice the CPU a call of the crowd after;
 * bench/RESULTS.md, hosted history, 2026-11-28). With the budget raised four times, fewer functions
 * are optimized during that first crowd, each once it has run longer: the instances' CPU a call in
 * a restarted crowd fell by about a seventh (crowd-only runs in turns). Lowering it went the other
 * way (a quarter of the default: 6.8-7.6 ms a call against 5.1-6.1), and so did no optimizing
 * compiler at all (6.9-7.5 ms): it is a measured middle, not "less is better". Code that stays hot
 * is optimized as before, only later. The single-user server is not touched: one person's calls
 * never reach the counts where this matters.
 *
 * An operator who gives node the flag (`node --interrupt-budget=<n> dist/cli.js serve --hosted`;
 * NODE_OPTIONS does not take it) keeps theirs: V8's default is `--interrupt-budget=67584` on Node 20.
 */
import { setFlagsFromString } from 'node:v8';

/** V8's default interrupt budget on Node 20 (V8 11.3), in bytes of bytecode run. */
export const V8_DEFAULT_INTERRUPT_BUDGET = 67_584;
/** How many times the default the hosted instances' is (bench/RESULTS.md; 8 and 16 measured no better). */
const TIMES_DEFAULT = 4;
export const HOSTED_INTERRUPT_BUDGET = TIMES_DEFAULT * V8_DEFAULT_INTERRUPT_BUDGET;

/** Whether node was started with its own interrupt budget (V8 takes `-` and `_` alike in a flag's name). */
const givenByOperator = (execArgv: readonly string[]): boolean => execArgv.some((a) => /^--interrupt[-_]budget(=|$)/.test(a));

/** The V8 flags a hosted instance sets at its start: none when node was given its own budget. */
export function tierUpFlags(execArgv: readonly string[] = process.execArgv): string[] {
  return givenByOperator(execArgv) ? [] : [`--interrupt-budget=${HOSTED_INTERRUPT_BUDGET}`];
}

/**
 * Sets them, before the serving code is loaded (V8 reads the budget each time it counts a
 * function's work anew, so code compiled after this counts by it). Returns the line to log: what
 * was set, or that the operator's was kept.
 */
export function applyTierUp(execArgv: readonly string[] = process.execArgv): string {
  const flags = tierUpFlags(execArgv);
  if (flags.length === 0) return "ynab-mcp: V8's interrupt budget as node was started with (--interrupt-budget given)";
  setFlagsFromString(flags.join(' '));
  return `ynab-mcp: V8 optimizes a function after ${TIMES_DEFAULT} times its default work (${flags.join(' ')}): a restarted instance's first calls spend less compiling`;
}
