// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * An instance is ready when it is fast (src/hosted/warm-up.ts): a hosted instance, probed on
 * /readyz from the moment it is started, answers 503 "warming up" until its warm-up is over (its
 * code loaded, its Redis connections open, answers over a made-up budget and the request path run
 * in rounds, for V8 to optimize them) and 200
 * from then on. Its log says the warm-up ran, step by step, none failed, and when it ended after the
 * process's start; /metrics has the same (ynab_mcp_warmup_seconds, ynab_mcp_warmup_step_seconds).
 * How long it takes is the bench's to say (a figure, never a timed assertion here).
 */
import parsePrometheus from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeployment, startInstance, type Deployment, type Instance } from '../helpers/hosted.js';
import { freePort } from '../helpers/redis.js';
import { MIN_ROUNDS } from '../../src/hosted/warm-up.js';

let d: Deployment;
let instance: Instance | undefined;

beforeAll(async () => {
  // The deadline far off (YNAB_MCP_READY_WITHIN_MS): on a loaded machine an instance may listen late,
  // and the deadline would then cut the rounds this test counts (test/hosted/warm-deadline.test.ts
  // holds the deadline itself and its default).
  d = await startDeployment({ instances: 1, sandbox: { users: 1 }, env: { YNAB_MCP_READY_WITHIN_MS: '60000' } });
});

afterAll(async () => {
  await instance?.proc.stop();
  await d?.close();
});

interface Probe {
  status: number;
  reason?: string;
}

/** /readyz, asked every few milliseconds from before the instance listens until it said ready `after` times. */
async function probeUntilReady(url: string, after: number): Promise<Probe[]> {
  const answers: Probe[] = [];
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && answers.filter((a) => a.status === 200).length < after) {
    try {
      const res = await fetch(url);
      const body = (await res.json()) as { reason?: string };
      answers.push({ status: res.status, reason: body.reason });
    } catch {
      await new Promise((r) => setTimeout(r, 2)); // not listening yet
    }
  }
  return answers;
}

describe('an instance warms up before /readyz says ready', () => {
  it('503 "warming up" until the warm-up ends, 200 after; the log and /metrics say which steps ran', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const probing = probeUntilReady(`http://127.0.0.1:${port}/readyz`, 5);
    instance = await startInstance({ ...d.env, port, args: ['--metrics-port', String(metricsPort)] });
    const answers = await probing;

    const firstReady = answers.findIndex((a) => a.status === 200);
    expect(firstReady, JSON.stringify(answers.slice(0, 5))).toBeGreaterThan(0);
    // Before: not ready, because it was warming up; from the first 200 on: ready every time.
    for (const a of answers.slice(0, firstReady)) expect(a).toEqual({ status: 503, reason: expect.stringMatching(/^warming up/) });
    for (const a of answers.slice(firstReady)) expect(a.status).toBe(200);

    const line = await instance.proc.waitFor(
      'stderr',
      /ynab-mcp: warmed up (\d+) ms after the process started \(listening at (\d+) ms; (.*)\); ready\n/,
      10_000,
    );
    // Where the time went: the start until the instance listened, then each step.
    expect(Number(line[2])).toBeGreaterThan(0);
    expect(Number(line[2])).toBeLessThanOrEqual(Number(line[1]));
    // The answers and the request path run in rounds (for V8 to optimize them), not once.
    const steps = line[3]!.match(
      /^code (\d+) ms, redis (\d+) ms, answers (\d+) ms x(\d+), users (\d+) ms \((\d+) read, (\d+) with their months\), mcp (\d+) ms x(\d+)$/,
    );
    expect(steps, line[2]).not.toBeNull();
    expect(Number(steps![4])).toBeGreaterThanOrEqual(MIN_ROUNDS);
    expect(Number(steps![9])).toBeGreaterThanOrEqual(MIN_ROUNDS);
    // The steps ran one after the other from the moment it listened (a millisecond of rounding each).
    const stepsMs = [1, 2, 3, 5, 8].reduce((sum, i) => sum + Number(steps![i]), 0);
    expect(Math.abs(Number(line[1]) - Number(line[2]) - stepsMs)).toBeLessThanOrEqual(4);
    expect(instance.proc.stderr).not.toMatch(/warm-up's \w+ step failed/);
    // Before the serving code loaded, the hosted budget of V8's optimizing (src/hosted/tier-up.ts): said once.
    expect(instance.proc.stderr.match(/V8 optimizes a function after 4 times its default work \(--interrupt-budget=270336\)/g)).toHaveLength(1);
    // The deadline (YNAB_MCP_READY_WITHIN_MS, 60000 ms from the start here): what each timed step
    // was given of its budget, never more; the rounds ran until their time given was up.
    const given = await instance.proc.waitFor(
      'stderr',
      /ynab-mcp: warm-up deadline 60000 ms after the process started; answers given (\d+) of 400 ms, users (\d+) of 3000 ms \(0 read, 0 left to their first calls\), mcp (\d+) of 400 ms(: cut short)?\n/,
      10_000,
    );
    expect(Number(given[1])).toBeLessThanOrEqual(400);
    expect(Number(given[2])).toBeLessThanOrEqual(3000);
    expect(Number(given[3])).toBeLessThanOrEqual(400);
    expect(Number(steps![3])).toBeGreaterThanOrEqual(Number(given[1]) - 1);
    expect(Number(steps![8])).toBeGreaterThanOrEqual(Number(given[3]) - 1);

    const families = parsePrometheus(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
    const gauge = (name: string) => families.find((f) => f.name === name)?.metrics ?? [];
    expect(Number(gauge('ynab_mcp_warmup_seconds')[0]?.value)).toBeCloseTo(Number(line[1]) / 1000, 3);
    const gauges = gauge('ynab_mcp_warmup_step_seconds').map((m) => `${m.labels?.step} ${m.labels?.outcome}`);
    expect(gauges.sort()).toEqual(['answers ok', 'code ok', 'mcp ok', 'redis ok', 'users ok']);
    process.stderr.write(
      `warm-up: ready ${line[1]} ms after the process started (listening at ${line[2]} ms; ${line[3]}); /readyz answered 503 ${firstReady} times first\n`,
    );
  });
});
