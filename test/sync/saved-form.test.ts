/**
 * Saved copies' columnar form (src/sync/columnar-codec.ts, columnar-reader.ts, saved-form.ts):
 * what is read back is exactly what was saved, judged by the JSON text of both (so also the order
 * of every object's keys), on every demo budget, on a generated 100,000-transaction budget, and on
 * values made to hit every case: deleted rows, split lines, nulls, text in any script, numbers that
 * are not integers, keys and strings that look like something else. And it is smaller than the
 * gzip'd JSON it replaces.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ByteReader, ByteWriter, CorruptError } from '../../src/sync/byte-stream.js';
import { encodeColumnar, encodeColumnarPieces } from '../../src/sync/columnar-codec.js';
import { decodeColumnar } from '../../src/sync/columnar-reader.js';
import type { ReplicaSnapshot } from '../../src/sync/replica.js';
import { COMPRESS_ONE_STEP_BYTES, INFLATE_ONE_STEP_BYTES, packValue, unpackValue } from '../../src/sync/saved-form.js';
import { sandboxStack, syncedCopies, type SandboxStack } from './sandbox-stack.js';

let demo: SandboxStack;
let demoCopies: ReplicaSnapshot[];

beforeAll(async () => {
  ({ demo, copies: demoCopies } = await syncedCopies('saved-form'));
}, 60_000);
afterAll(() => demo?.close());

const text = (v: unknown) => JSON.stringify(v);

it("reads every demo budget back exactly, in under half the bytes of their gzip'd JSON", async () => {
  expect(demoCopies.length).toBe(demo.sb.state.budgets.length);
  let [packedBytes, gzipBytes] = [0, 0];
  for (const copy of demoCopies) {
    const packed = await packValue(copy);
    expect(text(await unpackValue(packed))).toBe(text(copy));
    packedBytes += packed.length;
    gzipBytes += gzipSync(text(copy)).length;
  }
  expect(packedBytes).toBeLessThan(gzipBytes / 2);
});

it('reads back deleted rows, split lines, nulls, text in any script, and odd numbers exactly', () => {
  const copy = structuredClone(demoCopies[0]!) as any;
  const [t0, t1, t2, t3] = copy.transactions;
  Object.assign(t0, { deleted: true, memo: 'Café ☕ 東京 — naïve 👩‍👩‍👧 ﷽', payee_id: null });
  Object.assign(t1, { memo: 'lone \ud800 surrogate', amount: -0, flag_color: null, category_id: 'AB2C3D4E-0000-1000-8000-00000000000A' });
  Object.assign(t2, { memo: '2024-02-30', import_id: 'YNAB:-1:2024-13-01:1', amount: Number.MAX_SAFE_INTEGER });
  Object.assign(t3, { memo: '', amount: -(2 ** 60), date: '1969-12-31' });
  copy.subtransactions.push({ ...copy.subtransactions[0], id: '00000000-0000-0000-0000-000000000000', deleted: true, memo: null, amount: 12.5 });
  copy.months[0].categories = [];
  copy.summary.currency_format = { ...copy.summary.currency_format, extra: [1, 'two', [3], { four: null }] };
  copy.odd = JSON.parse('{"__proto__": "an own key", "constructor": 1, "a\\u0000b": [{}, {"x": 1}, {"y": []}]}');
  copy.leftOut = undefined;
  const back = decodeColumnar(encodeColumnar(copy));
  expect(text(back)).toBe(text(copy));
  expect(Object.getPrototypeOf(back.odd)).toBe(Object.prototype);
  expect(Object.keys(back.odd as object)).toEqual(['__proto__', 'constructor', 'a\u0000b']);
});

it('reads back a generated budget of 100,000 transactions exactly', async () => {
  const big = await sandboxStack({ seed: 'saved-form-big', transactions: 100_000 }, {});
  try {
    const id = big.sb.state.budgets[0]!.id;
    await big.stack.service.call('getAccounts', { params: { budget_id: id } });
    const copy = big.stack.replicas.peek(id)!.snapshot();
    expect(copy.transactions.length).toBeGreaterThanOrEqual(100_000);
    expect(copy.subtransactions.length).toBeGreaterThan(0);
    expect(text(await unpackValue(await packValue(copy)))).toBe(text(copy));
  } finally {
    await big.close();
  }
}, 180_000);

it('writes bytes in chunks that read back exactly across their edges, and gives the form in pieces never joined', () => {
  const w = new ByteWriter();
  const ops: (() => unknown)[] = [];
  const r = () => new ByteReader(Buffer.from(w.view()));
  for (let i = 0; i < 40_000; i++) {
    const s = i % 1000 === 0 ? 'é'.repeat(70_000) : `s${i}€`;
    w.uint(i * 7919);
    w.float(i / 3);
    w.string(s);
    w.int(-i - 1);
    ops.push(() => [i * 7919, i / 3, s, -i - 1]);
  }
  const inner = new ByteWriter();
  inner.bytes(Buffer.alloc(100_000, 7));
  w.block(inner);
  const reader = r();
  for (const op of ops) expect([reader.uint(), reader.float(), reader.string(), reader.int()]).toEqual(op());
  expect(Buffer.from(reader.block().buf).equals(Buffer.alloc(100_000, 7))).toBe(true);
  expect(reader.done).toBe(true);
  expect(w.pieces().length).toBeGreaterThan(1);
  expect(Buffer.concat(w.pieces()).equals(Buffer.from(w.view()))).toBe(true);
  // A copy's form: its columns' own pieces, none the whole form (issue 61: the form was copied whole beside its columns).
  const pieces = encodeColumnarPieces(demoCopies[0]!);
  expect(Buffer.concat(pieces).equals(Buffer.from(encodeColumnar(demoCopies[0]!)))).toBe(true);
  const form = pieces.reduce((n, p) => n + p.length, 0);
  expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(form);
});

it('refuses a form cut short, with bytes past its end, or not a form at all', async () => {
  const form = encodeColumnar(demoCopies[1]!);
  expect(() => decodeColumnar(form.subarray(0, form.length - 7))).toThrow(CorruptError);
  expect(() => decodeColumnar(Buffer.concat([form, Buffer.from([0])]))).toThrow(CorruptError);
  expect(() => decodeColumnar(Buffer.from('{"summary":{}}'))).toThrow(CorruptError);
  await expect(unpackValue(Buffer.from('not brotli at all'))).rejects.toThrow();
});

it("packs and reads back a demo copy without a turn of the event loop, and a large form through zlib's pool", async () => {
  // Did a turn of the loop pass since? (zlib's pool answers in a later turn; setImmediate runs in the next.)
  const watch = () => {
    let turned = false;
    setImmediate(() => (turned = true));
    return () => turned;
  };
  const copy = demoCopies[0]!;
  expect(encodeColumnar(copy).length).toBeLessThanOrEqual(COMPRESS_ONE_STEP_BYTES);
  let turned = watch();
  const packed = await packValue(copy);
  expect(turned()).toBe(false);
  turned = watch();
  expect(text(await unpackValue(packed))).toBe(text(copy));
  expect(turned()).toBe(false);

  // Random ids do not compress: about 740 kB encoded, over 128 kB packed.
  const large = { rows: Array.from({ length: 20_000 }, (_, n) => ({ id: randomUUID(), n })) };
  turned = watch();
  const largePacked = await packValue(large);
  expect(turned()).toBe(true);
  expect(largePacked.length).toBeGreaterThan(INFLATE_ONE_STEP_BYTES);
  turned = watch();
  expect(text(await unpackValue(largePacked))).toBe(text(large));
  expect(turned()).toBe(true);
});
