/**
 * The warm-up's deadline (src/hosted/warm-up.ts): each timed step is given what remains before it,
 * shared by the steps left in proportion to their budgets and never more than its own; a step
 * that begins past the deadline is given nothing; the report and its log line say what each got.
 * The steps here are rows of the scheduler's table that spend the time they are given (the real
 * steps are run by test/hosted/warm-up.test.ts and warm-users.test.ts); nothing is asserted about
 * how long anything took, only what was given, which follows from the deadline by construction.
 */
import { describe, expect, it } from 'vitest';
import { deadlineLine, leastRounds, MIN_ROUNDS, readyWithinMs, warmUp, type WarmUpContext, type WarmUpStep } from '../../src/hosted/warm-up.js';

const ctx = {} as WarmUpContext; // the rows below use nothing of it
const spend = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** code (untimed) taking `codeMs`, then three timed steps that spend what they are given. */
function rows(codeMs: number, usersRead = 0): WarmUpStep[] {
  return [
    { name: 'code', run: () => spend(codeMs) },
    { name: 'answers', budgetMs: 400, run: async (_, ms) => (await spend(ms), { rounds: 1 }) },
    { name: 'users', budgetMs: 1000, run: async (_, ms) => (await spend(ms), { read: usersRead, left: 5 - usersRead }) },
    { name: 'mcp', budgetMs: 400, run: async (_, ms) => (await spend(ms), { rounds: 1 }) },
  ];
}

describe("the warm-up's deadline", () => {
  it('with time for every budget, each step is given its whole budget, and the line says nothing was cut', async () => {
    const r = await warmUp(ctx, () => undefined, performance.now() + 60_000, rows(0, 5));
    expect(r.steps.map((s) => [s.name, s.given, s.budget])).toEqual([
      ['code', undefined, undefined],
      ['answers', 400, 400],
      ['users', 1000, 1000],
      ['mcp', 400, 400],
    ]);
    expect(deadlineLine(r)).toMatch(/; answers given 400 of 400 ms, users 1000 of 1000 ms \(5 read, 0 left to their first calls\), mcp 400 of 400 ms$/);
  });

  it('short of time, the steps share what remains in proportion to their budgets, within the deadline', async () => {
    const deadline = performance.now() + 450;
    const r = await warmUp(ctx, () => undefined, deadline, rows(0, 2));
    const given = Object.fromEntries(r.steps.map((s) => [s.name, s.given]));
    // answers first: at most 400/1800 of the 450 ms left; users then at most 1000/1400 of what was left.
    expect(given.answers).toBeLessThanOrEqual(Math.round((450 * 400) / 1800));
    expect(given.answers).toBeGreaterThan(0);
    expect(given.users).toBeLessThanOrEqual(Math.round(((450 - given.answers!) * 1000) / 1400));
    // No step was given time past the deadline: together no more than the 450 ms there were.
    expect(given.answers! + given.users! + given.mcp!).toBeLessThanOrEqual(450);
    expect(deadlineLine(r)).toMatch(/users \d+ of 1000 ms \(2 read, 3 left to their first calls\), mcp \d+ of 400 ms: cut short$/);
  });

  it('a step that begins past the deadline is given 0 ms, and the rounds least is then none', async () => {
    const r = await warmUp(ctx, () => undefined, performance.now() + 20, rows(60));
    expect(r.steps.filter((s) => s.budget !== undefined).map((s) => s.given)).toEqual([0, 0, 0]);
    expect(r.deadlineMs).toBeLessThan(r.readyAtMs);
    expect(leastRounds(0)).toBe(0);
    expect(leastRounds(1)).toBe(MIN_ROUNDS);
  });

  it('YNAB_MCP_READY_WITHIN_MS sets it (default 2500 ms from the start); anything but a whole number is refused, naming it', () => {
    expect(readyWithinMs({})).toBe(2500);
    expect(readyWithinMs({ YNAB_MCP_READY_WITHIN_MS: '1800' })).toBe(1800);
    expect(() => readyWithinMs({ YNAB_MCP_READY_WITHIN_MS: '2.5s' })).toThrow(
      /YNAB_MCP_READY_WITHIN_MS="2.5s" is not a whole number from 0 to 600000 \(default 2500\)/,
    );
  });
});
