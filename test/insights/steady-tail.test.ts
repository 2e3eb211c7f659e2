/**
 * steadyTail (the price-rise check's steady run of charges, src/insights/recurring/price-increase.ts)
 * parses each date once and works each gap out once. It must find exactly the run and interval that
 * trying every run with its gaps worked out anew finds (the rule as written before, kept here as the
 * reference), on series of steady, jittered and irregular charges.
 */
import { describe, expect, it } from 'vitest';
import { median, steadyTail } from '../../src/insights/recurring/price-increase.js';

const DAY_MS = 86_400_000;

/** The rule run by run, each run's gaps from its dates (as price-increase.ts had it before). */
function reference<T extends { date: string }>(charges: T[]): { run: T[]; interval: number } | undefined {
  const gap = (a: string, b: string) => Math.round((Date.parse(b) - Date.parse(a)) / DAY_MS);
  for (let start = 0; start + 3 <= charges.length; start++) {
    const run = charges.slice(start);
    const gaps = run.slice(1).map((c, i) => gap(run[i]!.date, c.date));
    const usual = median(gaps);
    const tolerance = Math.max(3, usual * 0.15);
    if (usual >= 6 && gaps.every((g) => Math.abs(g - usual) <= tolerance)) return { run, interval: usual };
  }
  return undefined;
}

/** A small seeded generator (mulberry32), so a failure can be run again. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A series of `n` charges from 2025-01-01: gaps around `every` days, each off by up to `jitter`, some far off. */
function series(next: () => number, n: number, every: number, jitter: number, odd: number): { date: string; amount: number }[] {
  let t = Date.parse('2025-01-01');
  const out: { date: string; amount: number }[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ date: new Date(t).toISOString().slice(0, 10), amount: 9_990 });
    const off = next() < odd ? Math.floor(next() * every * 2) : Math.round((next() * 2 - 1) * jitter);
    t += Math.max(0, every + off) * DAY_MS;
  }
  return out;
}

describe('steadyTail', () => {
  it('finds the run and interval that trying every run anew finds, on 5,000 random series', () => {
    const next = random(45);
    let found = 0;
    for (let k = 0; k < 5_000; k++) {
      const every = [3, 7, 14, 30, 31, 91, 365][Math.floor(next() * 7)]!;
      const charges = series(next, Math.floor(next() * 30), every, Math.floor(next() * 6), next() * 0.3);
      const want = reference(charges);
      const got = steadyTail(charges);
      expect(got?.interval, `series ${k}`).toBe(want?.interval);
      expect(got?.run, `series ${k}`).toEqual(want?.run);
      if (want) found++;
    }
    // Both outcomes were met often (a check that the series are not all of one kind).
    expect(found).toBeGreaterThan(1_000);
    expect(found).toBeLessThan(4_000);
  });

  it('takes the longest steady run ending with the latest charge', () => {
    const dates = ['2025-01-03', '2025-02-20', '2025-03-01', '2025-04-01', '2025-05-01', '2025-06-01'];
    const got = steadyTail(dates.map((date) => ({ date })));
    expect(got).toEqual({ run: dates.slice(2).map((date) => ({ date })), interval: 31 });
  });
});
