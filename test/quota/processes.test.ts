/**
 * Real OS processes sharing one ledger file: the cross-process lock must make the sum of
 * granted slots exact (no over-grant from lost updates, no under-grant from lost slots).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QuotaLedger } from '../../src/quota/ledger.js';
import { runTogether as together, startChild } from '../helpers/go-child.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'acquire-many.ts');
const TOKEN = 'proc-test-token-8c1f2e';

interface Summary {
  okRead: number;
  okWrite: number;
  refused: number;
  okAt: number[];
  start: number;
  end: number;
}

function runTogether(stateDir: string, specs: { count: number; kind: string }[], limit: number): Promise<Summary[]> {
  return together(specs.map((spec) => startChild<Summary>(FIXTURE, { QUOTA_TEST_TOKEN: TOKEN }, [stateDir, String(spec.count), spec.kind, String(limit)])));
}

function overlaps(a: number[], b: number[]): boolean {
  return Math.min(...a) <= Math.max(...b) && Math.min(...b) <= Math.max(...a);
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quota-proc-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('two processes sharing one ledger', () => {
  it('grants exactly the limit to 2 × 150 concurrent writes with limit 200', async () => {
    const [a, b] = await runTogether(
      dir,
      [
        { count: 150, kind: 'write' },
        { count: 150, kind: 'write' },
      ],
      200,
    );
    if (!a || !b) throw new Error('missing child result');
    expect(a.okWrite + b.okWrite).toBe(200);
    expect(a.refused + b.refused).toBe(100);
    // Both processes got slots while the other was running: the lock was really contended.
    expect(overlaps(a.okAt, b.okAt)).toBe(true);
    const status = await QuotaLedger.forToken(TOKEN, { stateDir: dir }).status();
    expect(status.used).toBe(200);
    expect(status.remaining).toBe(0);
  });

  it('keeps the write reserve: 2 × 150 concurrent reads get exactly limit − reserve', async () => {
    const [a, b] = await runTogether(
      dir,
      [
        { count: 150, kind: 'read' },
        { count: 150, kind: 'read' },
      ],
      200,
    );
    if (!a || !b) throw new Error('missing child result');
    expect(a.okRead + b.okRead).toBe(190);
    expect(overlaps(a.okAt, b.okAt)).toBe(true);
    const status = await QuotaLedger.forToken(TOKEN, { stateDir: dir }).status();
    expect(status.used).toBe(190);
    expect(status.readRemaining).toBe(0);
    expect(status.remaining).toBe(10);
  });

  it('never over-grants with reads and writes mixed across processes', async () => {
    const results = await runTogether(
      dir,
      [
        { count: 150, kind: 'mixed' },
        { count: 150, kind: 'mixed' },
      ],
      200,
    );
    const reads = results.reduce((n, s) => n + s.okRead, 0);
    const writes = results.reduce((n, s) => n + s.okWrite, 0);
    // Each process alternates read, write, … and serves its calls in order, so reads hit the
    // 190 cap with writes still queued in both processes; those fill the window to exactly 200.
    expect(reads).toBeLessThanOrEqual(190);
    expect(reads + writes).toBe(200);
    const status = await QuotaLedger.forToken(TOKEN, { stateDir: dir }).status();
    expect(status.used).toBe(reads + writes);
  });
});
