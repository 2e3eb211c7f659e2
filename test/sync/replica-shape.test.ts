/**
 * Saved copies carry the fingerprint of the schemas they were checked against: a copy this build
 * saved is read without checking every entity again, and any other (an older layout, another
 * build's schemas) is checked entity by entity, and discarded when it is not the expected shape.
 * Forged copies are sealed here by test/storage/replica-seal.ts, independently of the code under test.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FileStateStore } from '../../src/storage/file-store.js';
import { fileKey } from '../../src/storage/key-file.js';
import { replicaKey } from '../../src/storage/keys.js';
import { ReplicaFiles } from '../../src/sync/persist.js';
import type { ReplicaSnapshot } from '../../src/sync/replica.js';
import { snapshotShape } from '../../src/sync/snapshot-check.js';
import { isColumnarReplica, openReplica, renameForm, sealColumnarV3, sealReplica, shapeOfReplica } from '../storage/replica-seal.js';
import { sandboxStack, type SandboxStack } from './sandbox-stack.js';

const IDENTITY = 'shape-test';
let s: SandboxStack;
let snapshot: ReplicaSnapshot;
let dir: string;
let files: ReplicaFiles;
let file: string;
const keyFile = () => join(dir, 'replica.key');

beforeAll(async () => {
  s = await sandboxStack({ seed: 'shape' }, {});
  await s.stack.service.call('getAccounts', { params: { budget_id: 'last-used' } });
  snapshot = s.stack.replicas.held()[0]!.snapshot();
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-shape-'));
  files = new ReplicaFiles(new FileStateStore(dir), fileKey(keyFile()), () => undefined);
  file = join(dir, replicaKey(IDENTITY, snapshot.summary.id));
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const load = () => files.load(IDENTITY, snapshot.summary.id);
const spoiled = () => {
  const x = structuredClone(snapshot) as any;
  x.transactions[0].amount = '-4.50';
  return x;
};

it('the fingerprint is stable, and is in the header of what this build saves', async () => {
  expect(snapshotShape()).toMatch(/^[0-9a-f]{16}$/);
  expect(snapshotShape()).toBe(snapshotShape());
  await files.save(IDENTITY, snapshot);
  expect(shapeOfReplica(file)).toBe(snapshotShape());
  expect(openReplica(file, keyFile(), IDENTITY, snapshot.summary.id)).toEqual(JSON.parse(JSON.stringify(snapshot)));
});

it("a copy the previous version saved (gzip'd JSON of this build's shape) is read as it is, and saved again in the columnar form", async () => {
  sealReplica(file, keyFile(), IDENTITY, snapshot.summary.id, snapshot, snapshotShape());
  expect(isColumnarReplica(file)).toBe(false);
  const loaded = await load();
  expect(loaded.snapshot).toEqual(JSON.parse(JSON.stringify(snapshot)));
  expect(loaded.snapshot && loaded.checked).toBe(false);
  await files.save(IDENTITY, loaded.snapshot!);
  expect(isColumnarReplica(file)).toBe(true);
  expect(JSON.stringify(openReplica(file, keyFile(), IDENTITY, snapshot.summary.id))).toBe(JSON.stringify(snapshot));
});

it("a copy of this build's shape is read without the entity check", async () => {
  await files.save(IDENTITY, snapshot);
  const loaded = await load();
  expect(loaded.snapshot).toEqual(JSON.parse(JSON.stringify(snapshot)));
  expect(loaded.snapshot && loaded.checked).toBe(false);
});

it.each([
  ['an older layout (no shape)', undefined],
  ["another build's shape", '0123456789abcdef'],
])('a good copy of %s is checked and used', async (_what, shape) => {
  sealReplica(file, keyFile(), IDENTITY, snapshot.summary.id, snapshot, shape);
  const loaded = await load();
  expect(loaded.snapshot).toEqual(JSON.parse(JSON.stringify(snapshot)));
  expect(loaded.snapshot && loaded.checked).toBe(true);
});

it.each([
  ['an older layout (no shape)', undefined],
  ["another build's shape", '0123456789abcdef'],
])('a copy of %s that is not the expected shape is discarded', async (_what, shape) => {
  sealReplica(file, keyFile(), IDENTITY, snapshot.summary.id, spoiled(), shape);
  expect(await load()).toEqual({ discarded: 'unexpected content at transactions.0.amount' });
});

it("a header naming this build's shape over a value sealed without it does not open", async () => {
  // The shape is in the associated data too: a header cannot be changed to skip the check.
  sealReplica(file, keyFile(), IDENTITY, snapshot.summary.id, spoiled(), '0123456789abcdef');
  const bytes = readFileSync(file);
  bytes.write(snapshotShape(), 'YMCPR2 '.length, 'latin1');
  writeFileSync(file, bytes);
  const loaded = await load();
  expect(loaded.snapshot).toBeUndefined();
  expect(loaded.snapshot ? '' : loaded.discarded).toMatch(/does not open/);
});

it('a copy the previous version saved in the columnar form (YMCPR3, months that refer back) is read as it is, whole and months later, and saved again in the current form', async () => {
  const exact = JSON.stringify(snapshot);
  sealColumnarV3(file, keyFile(), IDENTITY, snapshot.summary.id, snapshot, snapshotShape());
  expect(isColumnarReplica(file)).toBe(false);
  const whole = await load();
  expect(JSON.stringify(whole.snapshot)).toBe(exact);
  expect(whole.snapshot && whole.checked).toBe(false);
  const later = await files.load(IDENTITY, snapshot.summary.id, { monthsLater: true });
  expect(later.snapshot && JSON.stringify({ ...later.snapshot, months: later.months!() })).toBe(exact);
  await files.save(IDENTITY, whole.snapshot!);
  expect(isColumnarReplica(file)).toBe(true);
  expect(JSON.stringify(openReplica(file, keyFile(), IDENTITY, snapshot.summary.id))).toBe(exact);
  const again = await files.load(IDENTITY, snapshot.summary.id, { monthsLater: true });
  expect(again.snapshot && JSON.stringify({ ...again.snapshot, months: again.months!() })).toBe(exact);
});

it.each([
  ['the current form (YMCPR4) over the previous one', '4'],
  ['the previous form (YMCPR3) over the current one', '3'],
])('a header changed to name %s does not open', async (_what, version) => {
  // Read by the other form's rules, the months' balances would come out wrong without an error.
  if (version === '4') sealColumnarV3(file, keyFile(), IDENTITY, snapshot.summary.id, snapshot, snapshotShape());
  else await files.save(IDENTITY, snapshot);
  renameForm(file, version);
  const loaded = await load();
  expect(loaded.snapshot).toBeUndefined();
  expect(loaded.snapshot ? '' : loaded.discarded).toMatch(/does not open/);
});
