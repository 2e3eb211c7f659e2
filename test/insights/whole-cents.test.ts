/**
 * Whole cents (issue 42 item 12): every amount an insight tool reports is a whole number of the
 * budget's currency's minor unit (cents in both demo budgets), as YNAB would show it, never a
 * tenth of a cent. Each checked tool is called through the real MCP client on both demo budgets
 * of three seeds, in compact and full detail, on the middle of a month and on the first of one
 * (this process's clock, which the server and the sandbox share), and every money figure of its
 * answer (in rows, totals, schedules, nested objects) is checked: a `*_milliunits` one, or (the
 * answer vocabulary, issue 43) a number with its `*_formatted` text beside it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { INSIGHTS } from '../../src/mcp/tools/insights.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';
import { shiftMonth } from './raw.js';

/** The tools held to whole cents, with the arguments that reach their computed amounts. */
const CHECKED: Record<string, Record<string, unknown>[]> = {
  cash_flow: [{}, { months: 12 }, { months: 1, complete_months_only: false }],
  debt_payoff: [{}, { apr: { 'Visa Rewards': 22.9, 'Citi Store Card': 26.99, 'Home Equity Line': 8.5 }, extra_per_month: 250.5 }],
  spending_summary: [{}, { group_by: 'month', since_date: '2025-01-01' }, { compare_months: 3 }],
  search_transactions: [{}, { query: 'a' }],
  needs_attention: [{}],
  credit_cards: [{ include_lines_of_credit: true }],
  targets_summary: [{}, { month: shiftMonth(`${new Date().toISOString().slice(0, 7)}-01`, 1) }],
  review_transactions: [{}],
  upcoming: [{}],
  forecast: [{}, { include: ['scheduled', 'recurring', 'assigned'] }],
  recurring: [{}],
};
/**
 * TODO(lead): the other insight tools, to move into CHECKED as their branches round to the minor
 * unit (api/money.ts roundToMinor / toMinorUnit) and are merged.
 */
const PENDING: string[] = [];

/** Every money figure in an answer (`*_milliunits`, or a number with its `*_formatted` text beside it), with where it is. */
function amounts(value: unknown, path: string, out: [string, number][], money = false): [string, number][] {
  if (typeof value === 'number') {
    if (money) out.push([path, value]);
  } else if (Array.isArray(value)) value.forEach((v, i) => amounts(v, `${path}[${i}]`, out, money));
  else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(o)) amounts(v, `${path}.${k}`, out, money || k.endsWith('_milliunits') || typeof o[`${k}_formatted`] === 'string');
  }
  return out;
}

const month0 = `${new Date().toISOString().slice(0, 7)}-01`;

const SEEDS = ['whole-cents', 'whole-cents-b', 'whole-cents-c'];
const DATES = [`${month0.slice(0, 8)}15`, shiftMonth(month0, 1)];

describe.each(SEEDS.flatMap((seed) => DATES.map((date) => [seed, date] as const)))('whole cents, seed %s on %s', (seed, date) => {
  let h: McpHarness;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(`${date}T12:00:00Z`) });
    h = await mcpHarness({ sandbox: { seed } });
  });
  afterAll(async () => {
    await h.close();
    vi.useRealTimers();
  });

  it.each(Object.keys(CHECKED))('%s reports every amount in whole cents', async (tool) => {
    let seen = 0;
    for (const budget of ['Demo Household', 'Haushalt Berlin'])
      for (const args of CHECKED[tool]!)
        for (const detail of ['compact', 'full']) {
          // The store card and line of credit live in the household only.
          const { apr, ...rest } = args;
          const given = budget === 'Demo Household' || apr === undefined ? args : rest;
          const res = ok(await h.call(tool, { budget_id: budget, ...given, detail }));
          const found = amounts(res, tool, []);
          seen += found.length;
          expect(
            found.filter(([, v]) => v % 10 !== 0),
            `${tool} ${budget} ${JSON.stringify(given)} ${detail}`,
          ).toEqual([]);
        }
    expect(seen).toBeGreaterThan(10);
  });
});

it('holds every insight tool to whole cents, or lists it as pending', () => {
  expect([...Object.keys(CHECKED), ...PENDING].sort()).toEqual(INSIGHTS.map((t) => t.name).sort());
});
