/**
 * The capacity rows of `npm run bench -- hosted` (bench/hosted-capacity.ts): the model's measured
 * inputs derived from one fixed set of bench measurements, and the plan row they give, every
 * expectation worked out by hand below from the formula docs/capacity.md gives.
 */
import { describe, expect, it } from 'vitest';
import { type CrowdMeasured, derivedInputs, inputRows, inputsOf, planRows, type RunMeasured } from '../../bench/hosted-capacity.js';
// @ts-expect-error: a plain .mjs script without types
import { INPUTS } from '../../scripts/capacity.mjs';

const crowd20x50: CrowdMeasured = {
  users: 20,
  callsPerUser: 50,
  redis: 'single',
  calls: 1000,
  callsPerSecond: 125,
  instanceCpuSeconds: 4.8,
  upstream: 40,
  cacheBytes: [40e6, 41e6, 39e6],
  rssBytes: [250e6, 260e6, 245e6],
  redisBytes: 1_240_000,
};
const crowd100x20: CrowdMeasured = {
  users: 100,
  callsPerUser: 20,
  redis: 'single',
  calls: 2000,
  callsPerSecond: 100,
  instanceCpuSeconds: 9,
  upstream: 80,
  cacheBytes: [200e6, 210e6, 205e6],
  rssBytes: [460e6, 470e6, 490e6],
  redisBytes: 6_010_000,
};
const cluster100x20: CrowdMeasured = { ...crowd100x20, redis: 'cluster', cacheBytes: [300e6, 300e6, 300e6], rssBytes: [700e6, 700e6, 700e6], redisBytes: 9e6 };
const watch = { budgets: 200, intervalMs: 60_000, watchCpuMsPerBudget: 22, requestsPerBudgetHour: 59.4 };
const run: RunMeasured = { machineCores: 2, crowd: [crowd20x50, crowd100x20, cluster100x20], watch };

const values = (m: RunMeasured) => Object.fromEntries(derivedInputs(m).map((d) => [d.key, d.value]));

describe("the capacity model's inputs from a hosted bench run", () => {
  it('takes CPU and requests per call at 20 x 50, memory at the most users on one Redis, the watchers per budget', () => {
    const v = values(run);
    expect(v.cpuPerCallMs).toBeCloseTo(4.8, 9); // 4.8 s of the instances' CPU / 1,000 calls
    expect(v.upstreamPerCall).toBeCloseTo(0.04, 9); // 40 YNAB requests / 1,000 calls
    expect(v.watchCpuMsPerBudget).toBe(22);
    expect(v.requestsPerWatchedBudgetHour).toBeCloseTo(3.96, 9); // 59.4 an hour at 60 s, x 60 s / 900 s
    expect(v.redisBytesPerUser).toBe(60_100); // 6,010,000 bytes / 100 users (one Redis, not the cluster)
    expect(v.replicaBytesPerActiveUser).toBe(2_100_000); // the fullest instance's 210 MB / 100 users
    expect(v.instanceBaseBytes).toBe(285e6); // RSS less cache: 260, 260, 285 MB
    expect(Object.keys(v).sort()).toEqual(
      [
        'cpuPerCallMs',
        'instanceBaseBytes',
        'redisBytesPerUser',
        'replicaBytesPerActiveUser',
        'requestsPerWatchedBudgetHour',
        'upstreamPerCall',
        'watchCpuMsPerBudget',
      ].sort(),
    );
  });

  it("says beside the instances' CPU per call what the whole machine's was", () => {
    const cpu = derivedInputs(run).find((d) => d.key === 'cpuPerCallMs')!;
    expect(cpu.from).toContain('2 cores / 125 calls/s = 16 ms'); // 2,000 ms of CPU a second / 125 calls
  });

  it('falls back to the loads that ran: per call from the first row, memory from the cluster', () => {
    const v = values({ machineCores: 2, crowd: [cluster100x20] });
    expect(v.cpuPerCallMs).toBeCloseTo(4.5, 9); // 9 s / 2,000 calls
    expect(v.upstreamPerCall).toBeCloseTo(0.04, 9); // 80 / 2,000
    expect(v.redisBytesPerUser).toBe(90_000); // 9,000,000 / 100
    expect(v.instanceBaseBytes).toBe(400e6);
    expect(v.watchCpuMsPerBudget).toBeUndefined();
  });

  it("keeps docs/capacity.md's figure for what the run did not measure, and says so", () => {
    const rows = inputRows({ machineCores: 2, crowd: [], watch });
    const cpu = rows.find((r) => r['capacity model input'] === '`cpuPerCallMs`')!;
    expect(cpu['this run']).toBe(cpu['docs/capacity.md']);
    expect(cpu['docs/capacity.md']).toBe(String(INPUTS.cpuPerCallMs.value));
    expect(cpu.from).toMatch(/^not measured by this bench/);
    const w = rows.find((r) => r['capacity model input'] === '`watchCpuMsPerBudget`')!;
    expect(w['this run']).toBe('22');
    expect(rows).toHaveLength(Object.keys(INPUTS).length);
  });
});

describe('the plan from those inputs', () => {
  it('gives 10,000 users with 5 % active what the formula gives by hand', () => {
    const rows = planRows(inputsOf(run));
    expect(rows).toHaveLength(6); // 1,000 / 10,000 / 100,000 users x 1 % / 5 %
    const row = rows.find((r) => r['plan from this run: users (all watched)'] === '10,000' && String(r['active at peak']).startsWith('5 %'))!;
    // 500 active users x 2 calls a minute = 16.67 calls/s; x 4.8 ms = 0.08 cores; watchers 10,000 x 22 ms / 900 s = 0.244;
    // (0.08 + 0.244) / 0.6 = 0.54 cores => 2 instances (at least 2). Memory: 285 MB + a replica cache of
    // max(512 MB, 500 x 2.1 MB) = 1.335 GB (watched copies share that cache). Redis 10,000 x 60,100 bytes.
    // YNAB: 16.67 x 0.04 + 10,000 x 3.96 / 3,600 = 0.67 + 11 = 11.67 a second.
    expect(row).toEqual({
      'plan from this run: users (all watched)': '10,000',
      'active at peak': '5 % (500)',
      'calls/s': '16.7',
      'cores: calls + watchers = at 60 %': '0.08 + 0.24 = 0.5',
      instances: '2',
      'memory per instance': '1.3 GB',
      'Redis memory': '601 MB',
      'Redis masters': '1',
      'YNAB requests/s': '11.7',
    });
  });

  it('says when no instance fits: 100,000 users with 5 % active hold 5,000 x 2.1 MB on every instance', () => {
    const row = planRows(inputsOf(run)).find(
      (r) => r['plan from this run: users (all watched)'] === '100,000' && String(r['active at peak']).startsWith('5 %'),
    )!;
    expect(row.instances).toBe('no fit (see below)');
    expect(row['memory per instance']).toBe('> 8.0 GB');
  });
});
