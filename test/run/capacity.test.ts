/**
 * The capacity plan (docs/capacity.md) is what scripts/capacity.mjs computes from its inputs: the
 * doc's generated tables match the script's output, and the script's arithmetic is checked here
 * against one row worked out by hand from the formula the doc gives.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { DOC, filled, INPUTS, plan } from '../../scripts/capacity.mjs';

describe('the capacity plan', () => {
  it('has in docs/capacity.md the tables the script writes (node scripts/capacity.mjs --write)', () => {
    const text = readFileSync(DOC, 'utf8');
    expect(text, 'docs/capacity.md differs from the script: run node scripts/capacity.mjs --write').toBe(filled(text));
  });

  it('follows the formula the doc gives, for 10,000 users with 5 % active', () => {
    const v = Object.fromEntries(Object.entries(INPUTS as Record<string, { value: number }>).map(([k, i]) => [k, i.value]));
    const calls = (500 * v.callsPerActiveUserPerMin!) / 60;
    const cores = ((calls * v.cpuPerCallMs!) / 1000 + (10_000 * v.watchCpuMsPerBudget!) / 1000 / (v.watchIntervalMin! * 60)) / v.cpuTarget!;
    const p = plan(10_000, 0.05);
    expect(p.callsPerSecond).toBeCloseTo(calls, 9);
    expect(p.cores).toBeCloseTo(cores, 9);
    expect(p.redisBytes).toBe(10_000 * v.redisBytesPerUser!);
    expect(p.outbound).toBeCloseTo(calls * v.upstreamPerCall! + (10_000 * v.requestsPerWatchedBudgetHour! * (15 / v.watchIntervalMin!)) / 3600, 9);
    // Each instance's memory: its base and a replica cache holding every active user's copies (at
    // least the default bound; watched copies share it); instances as the cores need.
    expect(p.instanceBytes).toBe(v.instanceBaseBytes! + Math.max(v.replicaCacheMinBytes!, 500 * v.replicaBytesPerActiveUser!));
    expect(p.instanceBytes).toBeLessThanOrEqual(v.instanceMemoryBytes!);
    expect(p.instances).toBe(Math.max(v.minInstances!, Math.ceil(cores / v.coresPerInstance!)));
    // 5,000 active users' copies (9.7 GB) fit no 8 GB instance.
    expect(plan(100_000, 0.05).instances).toBe(Infinity);
  });

  it('refuses a doc that lost its markers', () => {
    expect(() => filled('# no markers')).toThrow(/needs <!-- generated:capacity-inputs -->/);
  });
});
