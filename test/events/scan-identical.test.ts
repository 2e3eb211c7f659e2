/**
 * The alerts' scan finds the same conditions, byte for byte, as before the view's lines were made
 * compact (issue 61 item 1): on three demo seeds and a generated budget of 10,000 transactions, at
 * a fixed date, the conditions of a copy built from the sandbox's full export are pinned to those
 * the scan gave before that change (the snapshot next to this file, written by the code before it).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { detect } from '../../src/events/detect.js';
import { BudgetView } from '../../src/insights/core/view.js';
import { copyOfExport } from '../helpers/export-copy.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const NOW = '2026-11-16T12:00:00Z';
const CASES: [string, number | undefined][] = [
  ['test', undefined],
  ['cash-flow-a', undefined],
  ['cash-flow-b', undefined],
  ['test', 10_000],
];

describe.each(CASES)('alerts scan of seed %s (%s transactions)', (seed, transactions) => {
  let sb: TestSandbox;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(NOW) });
    sb = await testSandbox({ seed, ...(transactions ? { transactions } : {}) });
  });
  afterEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(NOW) });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await sb.close();
  });

  it('gives the conditions it gave before the compact lines', async () => {
    const id = (await sb.get('/plans')).body.data.plans[0].id;
    const res = await sb.get(`/plans/${id}`);
    expect(res.status).toBe(200);
    const { plan, server_knowledge } = res.body.data;
    const r = copyOfExport(plan, server_knowledge, Date.parse(NOW));
    const found = detect(BudgetView.of(r), new Date(NOW)).map((c) => ({ key: c.key, data: c.data, level: c.level }));
    expect(found.length).toBeGreaterThan(0);
    await expect(JSON.stringify(found, null, 1)).toMatchFileSnapshot(`__snapshots__/scan-identical.${seed}.${transactions ?? 'demo'}.json`);
  });
});
