/**
 * The watcher's share of a token's hour, in the real ledger on a real file store: slots taken as
 * the watcher stop at the share (refused with reason `watch` and when the next fits), interactive
 * slots go on; a share above 25 % is refused; the watcher's slots leave the window with the rest;
 * another ledger on the same store (another process) sees the same count.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { QuotaLedger } from '../../src/quota/ledger.js';
import { asWatcher } from '../../src/quota/watch-share.js';

let dir: string;
let clock: number;
const ledger = (share?: number) => QuotaLedger.forToken('tok', { stateDir: dir, now: () => clock, limit: 200, watchShare: share, warn: () => {} });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ynab-mcp-watch-share-'));
  clock = Date.parse('2026-11-24T12:00:00Z');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("the watcher's share of the hour", () => {
  it('stops the watcher at 10 % of 200 by default, while interactive reads go on', async () => {
    const l = ledger();
    const taken = [];
    for (let i = 0; i < 25; i++) {
      clock += 1_000;
      taken.push(await asWatcher(() => l.acquire('read')));
    }
    expect(taken.filter((t) => t.ok)).toHaveLength(20);
    const refused = taken[20]!;
    expect(refused).toMatchObject({ ok: false, reason: 'watch' });
    // The first watcher slot (taken at +1 s) frees an hour later.
    expect(!refused.ok && refused.nextSlotAt.getTime()).toBe(Date.parse('2026-11-24T13:00:01Z'));
    expect(!refused.ok && refused.message).toMatch(/watcher's share of the hour \(20 requests\) is used up/);
    expect((await l.acquire('read')).ok).toBe(true);
    expect(await l.watchRoom()).toMatchObject({ used: 20, cap: 20 });
    expect((await l.status()).used).toBe(21);
    // Another process sharing the store counts the same watcher requests.
    expect((await ledger().watchRoom()).used).toBe(20);
    // An hour later they have left the window with the rest.
    clock += 3_600_000;
    expect(await l.watchRoom()).toMatchObject({ used: 0, nextAt: null });
    expect((await asWatcher(() => l.acquire('read'))).ok).toBe(true);
  });

  it('takes the share it is given, and refuses more than 25 %', async () => {
    const l = ledger(0.25);
    for (let i = 0; i < 50; i++) expect((await asWatcher(() => l.acquire('read'))).ok).toBe(true);
    expect(await asWatcher(() => l.acquire('read'))).toMatchObject({ ok: false, reason: 'watch' });
    expect(() => ledger(0.3)).toThrow(/at most 25 %/);
    expect(() => ledger(0)).toThrow(/above 0/);
  });
});
