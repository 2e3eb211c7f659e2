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

it('reads back what it wrote, and what the whole-string version wrote', async () => {
  const chunks: Buffer[] = [];
  for await (const chunk of gzipSnapshot(snapshot)) chunks.push(chunk as Buffer);
  const written = Buffer.concat(chunks);
  expect(gunzipSync(written).toString('utf8')).toBe(JSON.stringify(snapshot));
  expect(await gunzipJson(written)).toEqual(snapshot);
  expect(await gunzipJson(gzipSync(Buffer.from(JSON.stringify(snapshot))))).toEqual(snapshot);
});

it('refuses a truncated file', async () => {
  const text = gzipSync(Buffer.from(JSON.stringify(snapshot).slice(0, -10)));
  await expect(gunzipJson(text)).rejects.toThrow(SyntaxError);
});
