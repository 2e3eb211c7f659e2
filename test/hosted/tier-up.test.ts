/**
 * When V8 optimizes a hosted instance's code (src/hosted/tier-up.ts): four times later than its
 * default, unless node was given its own --interrupt-budget. Measured in a child node with V8's
 * own answer (%GetOptimizationStatus, --allow-natives-syntax), the optimizing compiler on the main
 * thread (--no-concurrent-recompilation) and no Maglev (the tier newer Node runs first), so that
 * the count of calls before a function is optimized is exact and the same every run: no time is
 * measured. That the instance sets it before its serving code loads is
 * test/hosted/warm-up.test.ts's (its log line).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { HOSTED_INTERRUPT_BUDGET, tierUpFlags, V8_DEFAULT_INTERRUPT_BUDGET } from '../../src/hosted/tier-up.js';

/**
 * Calls of a fresh function until V8 has optimized it, in a child node that first applies the
 * module as a hosted start does ('applied'), as node started with its own budget does ('operator'),
 * or not at all ('none'). Its log line comes back too.
 */
function callsBeforeOptimized(mode: 'none' | 'applied' | 'operator'): { calls: number; line: string } {
  const script = `
    const { applyTierUp } = await import('./src/hosted/tier-up.ts');
    const mode = process.argv[1];
    const line = mode === 'none' ? '' : applyTierUp(mode === 'operator' ? ['--interrupt-budget=${V8_DEFAULT_INTERRUPT_BUDGET}'] : []);
    const f = new Function('a', 'let s = 0; for (let i = 0; i < 10; i++) s += a * i; return s;');
    const optimized = new Function('f', 'return (%GetOptimizationStatus(f) & 16) !== 0');
    let n = 0;
    for (; n < 100000 && !optimized(f); n++) f(n);
    console.log(JSON.stringify({ calls: n, line }));`;
  const child = spawnSync(
    process.execPath,
    ['--allow-natives-syntax', '--no-concurrent-recompilation', '--no-maglev', '--import', 'tsx', '--input-type=module', '-e', script, mode],
    { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').pop()!);
}

describe("a hosted instance's V8 optimizes later", () => {
  it('four times the default budget, unless node was given its own (either spelling, either form)', () => {
    expect(HOSTED_INTERRUPT_BUDGET).toBe(4 * V8_DEFAULT_INTERRUPT_BUDGET);
    expect(tierUpFlags([])).toEqual([`--interrupt-budget=${HOSTED_INTERRUPT_BUDGET}`]);
    expect(tierUpFlags(['--enable-source-maps'])).toEqual([`--interrupt-budget=${HOSTED_INTERRUPT_BUDGET}`]);
    expect(tierUpFlags(['--interrupt-budget=1000'])).toEqual([]);
    expect(tierUpFlags(['--interrupt_budget=1000'])).toEqual([]);
    expect(tierUpFlags(['--interrupt-budget', '1000'])).toEqual([]);
    // Another flag whose name starts the same is not the budget.
    expect(tierUpFlags(['--interrupt-budget-for-feedback-allocation=940'])).toEqual([`--interrupt-budget=${HOSTED_INTERRUPT_BUDGET}`]);
  });

  it('applied, a function is optimized after about four times the calls; with the operator’s budget, as without', () => {
    const none = callsBeforeOptimized('none');
    const applied = callsBeforeOptimized('applied');
    const operator = callsBeforeOptimized('operator');
    expect(none.calls).toBeGreaterThan(0);
    expect(none.calls).toBeLessThan(100_000);
    expect(applied.calls).toBeGreaterThanOrEqual(3 * none.calls);
    expect(applied.calls).toBeLessThan(100_000);
    expect(operator.calls).toBe(none.calls);
    expect(applied.line).toBe(
      `ynab-mcp: V8 optimizes a function after 4 times its default work (--interrupt-budget=${HOSTED_INTERRUPT_BUDGET}): a restarted instance's first calls spend less compiling`,
    );
    expect(operator.line).toMatch(/as node was started with \(--interrupt-budget given\)/);
  });
});
