/**
 * The occurrence log as it is kept: compressed, then sealed (a hosted user's Redis memory counts
 * it), and a log kept as plain JSON by an earlier version still reads and records on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyScan, EVENTS_MAGIC, OccurrenceLog, type LogState } from '../../src/events/log.js';
import type { Condition } from '../../src/events/detect.js';
import { FileStateStore } from '../../src/storage/file-store.js';
import { ephemeralKey, Sealer } from '../../src/sync/seal.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-log-form-'));
  dirs.push(dir);
  const store = new FileStateStore(dir);
  const sealer = new Sealer(ephemeralKey(), EVENTS_MAGIC);
  const log = new OccurrenceLog(store, sealer, async () => 'someone');
  return { store, sealer, log, key: 'events/someone/b1.log' };
}

const conditions = (n: number): Condition[] =>
  Array.from({ length: n }, (_, i) => ({
    name: 'category.overspent',
    key: `category.overspent:t${i}`,
    data: { transaction_id: `t${i}`, payee_name: `Payee ${i % 7}`, amount: -1000 * i, account_name: 'Checking' },
  }));

describe('the occurrence log as kept', () => {
  it('is compressed before it is sealed, and reads back as recorded', async () => {
    const { store, sealer, log, key } = setUp();
    const { state } = await log.record('b1', conditions(200), new Date('2026-11-24T10:00:00Z'));
    const plain = await sealer.open((await store.get(key))!, key);
    const json = Buffer.from(JSON.stringify(state));
    expect(plain[0]).not.toBe('{'.charCodeAt(0));
    expect(plain.length).toBeLessThan(json.length / 3);
    expect(await log.read('b1')).toEqual(JSON.parse(json.toString()));
  });

  it('kept as plain JSON (earlier versions), still reads and records on from it', async () => {
    const { store, sealer, log, key } = setUp();
    const old: LogState = {
      v: 1,
      epoch: 'abcdef012345',
      seq: 3,
      open: { 'category.overspent:t1': 'evt_abcdef012345_3' },
      levels: {},
      events: [{ eventId: 'evt_abcdef012345_3', name: 'category.overspent', timestamp: '2026-11-20T00:00:00.000Z', data: { transaction_id: 't1' }, seq: 3 }],
    };
    await store.set(key, await sealer.seal(Buffer.from(JSON.stringify(old)), key));
    expect(await log.read('b1')).toEqual(old);
    const { fired, state } = await log.record('b1', conditions(3), new Date('2026-11-24T10:00:00Z'));
    // t1 was open already: t0 and t2 fire, numbered after the old log's last.
    expect(fired.map((o) => [o.seq, o.data.transaction_id])).toEqual([
      [4, 't0'],
      [5, 't2'],
    ]);
    expect(state.epoch).toBe(old.epoch);
    expect((await sealer.open((await store.get(key))!, key))[0]).not.toBe('{'.charCodeAt(0));
  });

  it('a scan leaves the log it was applied to as it was (a record opens the kept log once and compares against it), and writes nothing when nothing changed', async () => {
    const { store, log, key } = setUp();
    const { state } = await log.record('b1', conditions(5), new Date('2026-11-24T10:00:00Z'));
    const before = JSON.stringify(state);
    const { state: after, fired } = applyScan(state, conditions(7), new Date('2026-11-24T11:00:00Z'));
    expect(fired.map((o) => o.data.transaction_id)).toEqual(['t5', 't6']);
    expect(after.events).toHaveLength(7);
    expect(JSON.stringify(state)).toBe(before);
    // The same conditions again: nothing fires and the kept value is not written again.
    const kept = await store.get(key);
    expect((await log.record('b1', conditions(5))).fired).toEqual([]);
    expect(Buffer.from((await store.get(key))!).equals(Buffer.from(kept!))).toBe(true);
    // Fewer: the cleared ones are written (so they fire again when they come back).
    await log.record('b1', conditions(3));
    expect(Buffer.from((await store.get(key))!).equals(Buffer.from(kept!))).toBe(false);
    expect(Object.keys((await log.read('b1')).open)).toHaveLength(3);
  });
});
