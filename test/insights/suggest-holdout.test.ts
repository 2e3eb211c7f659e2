/**
 * Suggestion accuracy on the demo budgets (issue 26 item 9): for seeds 1 to 5, every demo budget
 * of each, the last 60 days of categorized history are held out, the suggester is built from what
 * came before, and each held-out transaction (read from the API over HTTP: approved, categorized,
 * not a split, transfer or starting balance) is suggested a category. Among high-confidence
 * suggestions at least 90% name the real category, and high-confidence suggestions cover at
 * least half of the held-out rows (a threshold so strict it never fires would pass the first).
 */
import { describe, expect, it } from 'vitest';
import { holdout } from '../helpers/holdout.js';

describe('category suggestions on held-out history', () => {
  it.each([1, 2, 3, 4, 5])('seed %i: top-1 accuracy of high-confidence suggestions is at least 90% in every demo budget', async (seed) => {
    const measured = await holdout(seed);
    expect(measured.map((m) => m.budget).sort()).toEqual(['Demo Household', 'Haushalt Berlin']);
    for (const m of measured) {
      expect(m.rows, m.budget).toBeGreaterThan(20);
      expect(m.high.n, m.budget).toBeGreaterThan(0);
      expect(m.high.right / m.high.n, `${m.budget}: ${m.misses.join('; ')}`).toBeGreaterThanOrEqual(0.9);
      expect(m.high.n / m.rows, m.budget).toBeGreaterThanOrEqual(0.5);
    }
  });
});
