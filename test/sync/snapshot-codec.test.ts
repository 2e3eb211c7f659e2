/**
 * Saved replicas are written and read a piece at a time: the text is exactly JSON.stringify's (so
 * files of either version read with the other) and reads back to the same snapshot.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { gunzipJson, gzipSnapshot, snapshotJson } from '../../src/sync/snapshot-codec.js';
import type { ReplicaSnapshot } from '../../src/sync/replica.js';
import { sandboxStack, type SandboxStack } from './sandbox-stack.js';

let s: SandboxStack;
let snapshot: ReplicaSnapshot;

beforeAll(async () => {
  s = await sandboxStack({ seed: 'codec', transactions: 3_000 }, {});
  await s.stack.service.call('getAccounts', { params: { budget_id: 'last-used' } });
  snapshot = s.stack.replicas.held()[0]!.snapshot();
});
afterAll(() => s?.close());

it('writes the same text as JSON.stringify, in pieces of about 64 kB', () => {
  const pieces = [...snapshotJson(snapshot)];
  expect(pieces.join('')).toBe(JSON.stringify(snapshot));
  expect(pieces.length).toBeGreaterThan(5);
  expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(80 * 1024);
});

// In one piece (the default for a copy of this size) and piecewise (a copy above the limit).
const READS = [
  ['in one piece', undefined],
  ['piecewise', 0],
] as const;

it.each(READS)('reads back what it wrote, and what the whole-string version wrote (%s)', async (_how, limit) => {
  const chunks: Buffer[] = [];
  for await (const chunk of gzipSnapshot(snapshot)) chunks.push(chunk as Buffer);
  const written = Buffer.concat(chunks);
  expect(gunzipSync(written).toString('utf8')).toBe(JSON.stringify(snapshot));
  expect(await gunzipJson(written, limit)).toEqual(snapshot);
  expect(await gunzipJson(gzipSync(Buffer.from(JSON.stringify(snapshot))), limit)).toEqual(snapshot);
});

it.each(READS)('refuses a truncated text and a truncated file (%s)', async (_how, limit) => {
  const text = gzipSync(Buffer.from(JSON.stringify(snapshot).slice(0, -10)));
  await expect(gunzipJson(text, limit)).rejects.toThrow(SyntaxError);
  const whole = gzipSync(Buffer.from(JSON.stringify(snapshot)));
  await expect(gunzipJson(whole.subarray(0, whole.length - 100), limit)).rejects.toThrow();
});

it('a file larger than its trailer says is not read in one piece, and is refused', async () => {
  const whole = gzipSync(Buffer.from(JSON.stringify(snapshot)));
  expect(await gunzipJson(whole, 1000)).toEqual(snapshot); // stated beyond the limit: piecewise
  const lying = Buffer.from(whole);
  lying.writeUInt32LE(10, lying.length - 4);
  // Stated within the limit, so tried in one piece: that stops at the limit, and the piecewise
  // read that follows fails gzip's own size check at the end.
  await expect(gunzipJson(lying, 1000)).rejects.toThrow(/size|length|check/i);
});
