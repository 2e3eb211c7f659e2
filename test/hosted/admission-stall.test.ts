/**
 * What an instance's admission says of itself (src/transport/http-admission.ts `state`), read by
 * the metrics and by /readyz (src/hosted/readiness.ts): the requests waiting, computing and in
 * the loop, and how long the line has stood still, requests waiting and none let in. A line that
 * stands still ADMISSION_STALLED_MS makes the instance not ready, with the reason: a safety net
 * under the admission, so that an instance that stops serving for whatever cause is taken out of
 * the balancer's rotation and shows on its metrics, instead of answering /readyz 200 while its
 * requests wait for ever (the stall of bench/RESULTS.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMISSION_STALLED_MS, readiness } from '../../src/hosted/readiness.js';
import type { HostedOptions } from '../../src/hosted/options.js';
import { FileStateStore } from '../../src/storage/file-store.js';
import { Admission } from '../../src/transport/http-admission.js';
import { gate, turnOfLoop } from '../helpers/admission.js';

describe('Admission.state', () => {
  it('at rest: no one waiting, computing or in the loop, and a line that has not stood still', () => {
    expect(new Admission(8, 1000, 4).state()).toEqual({ waiting: 0, computing: 0, inLoop: 0, stalledMs: 0 });
  });

  it('counts the requests in the loop and computing, and how long the line has stood still; a request let in moves it', async () => {
    const a = new Admission(4, 60_000, 1);
    const first = await a.enter();
    const redis = gate();
    const waiting = first.run(() => a.aside(() => redis.wait)); // holds the one place, waiting on Redis
    await turnOfLoop();
    const lined = performance.now();
    const second = a.enter();
    await turnOfLoop();
    const later = a.state(lined + 25_000);
    expect(later).toMatchObject({ waiting: 1, computing: 0, inLoop: 1 });
    expect(later.stalledMs).toBeGreaterThan(24_000);
    expect(later.stalledMs).toBeLessThan(26_000);
    redis.open();
    await waiting;
    expect(a.state()).toMatchObject({ waiting: 1, computing: 1, inLoop: 1 });
    first();
    const letIn = performance.now();
    (await second)();
    expect(a.state()).toEqual({ waiting: 0, computing: 0, inLoop: 0, stalledMs: 0 });
    // The line's standing still is counted from the last let in, or from when one began to wait in an empty line.
    const third = await a.enter();
    const fourth = a.enter();
    await turnOfLoop();
    expect(a.state(letIn + 5_000).stalledMs).toBeLessThan(5_000);
    third();
    (await fourth)();
  });
});

describe('/readyz in hosted mode', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-stall-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it(`says not ready, and why, once requests have waited ${ADMISSION_STALLED_MS / 1000} s with none let in; ready while the line moves`, async () => {
    const store = new FileStateStore(dir); // empty: no sealed key to open, Redis's part of the check passes
    const opts = {} as HostedOptions; // read only to open a sealed key, which an empty store has not
    const a = new Admission(4, 60_000, 1);
    const first = await a.enter();
    const stuck = gate();
    const holding = first.run(() => a.aside(() => stuck.wait));
    await turnOfLoop();
    const since = performance.now();
    const waiting = [a.enter(), a.enter()];
    await turnOfLoop();
    let seenAt = since + ADMISSION_STALLED_MS - 1_000;
    const check = readiness(store, opts, undefined, () => a.state(seenAt));
    expect(await check()).toBeUndefined();
    seenAt = since + ADMISSION_STALLED_MS + 1_000;
    expect(await check()).toMatch(/^2 requests have waited 2\d s for their turn and none was let in: this instance has stopped serving; restart it$/);
    stuck.open();
    await holding;
    first();
    for (const w of waiting) (await w)();
    expect(await check()).toBeUndefined(); // the line moved, and is empty
  });
});
