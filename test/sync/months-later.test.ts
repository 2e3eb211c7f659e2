/**
 * A saved copy's months are read when first asked for (src/sync/columnar-reader.ts
 * decodeColumnarDeferring, persist.ts, replica-months.ts): the copy writes them last, and reading it
 * leaves them, a third of reading a demo copy, until an answer needs them. Read later, they are
 * what a whole read gives, exports merged in between are merged after them in order, a form that
 * is not one throws what a whole read throws, and a copy whose months cannot be read is dropped
 * and the budget fetched whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type * as E from '../../src/api/schemas/entities.js';
import { tokenKey } from '../../src/quota/ledger.js';
import { createStack } from '../../src/stack/stack.js';
import { FileStateStore } from '../../src/storage/file-store.js';
import { CorruptError } from '../../src/sync/byte-stream.js';
import { encodeColumnar } from '../../src/sync/columnar-codec.js';
import { decodeColumnar, decodeColumnarDeferring } from '../../src/sync/columnar-reader.js';
import { fileKey, ReplicaFiles } from '../../src/sync/persist.js';
import { READ_BY_MS } from '../../src/sync/replica-months.js';
import { BudgetReplica, type ReplicaSnapshot } from '../../src/sync/replica.js';
import { syncedCopies, type SandboxStack } from './sandbox-stack.js';

let demo: SandboxStack;
let copies: ReplicaSnapshot[];

beforeAll(async () => {
  ({ demo, copies } = await syncedCopies('months-later'));
}, 60_000);
afterAll(() => demo?.close());

const text = (v: unknown) => JSON.stringify(v);
const outcome = (read: () => unknown) => {
  try {
    return text(read());
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
};

it('a copy writes its months last; read later they are what a whole read gives', () => {
  expect(copies.length).toBeGreaterThan(1);
  for (const copy of copies) {
    expect(Object.keys(copy).at(-1)).toBe('months');
    const form = encodeColumnar(copy);
    const { value, rest } = decodeColumnarDeferring(form, 'months');
    expect(value.months).toBeUndefined();
    expect(rest).toBeTypeOf('function');
    expect(text({ ...value, months: rest!() })).toBe(text(copy));
  }
});

it('months written alone (as copies are saved now) read back the same, later or whole; read by the other rule they do not', () => {
  for (const copy of copies) {
    const form = encodeColumnar(copy, 'months');
    const { value, rest } = decodeColumnarDeferring(form, 'months', 'months');
    expect(value.months).toBeUndefined();
    expect(text({ ...value, months: rest!() })).toBe(text(copy));
    expect(text(decodeColumnar(form, 'months'))).toBe(text(copy));
    // The rule is the form's: the header and the associated data name it (persist.ts), never guessed.
    expect(outcome(() => decodeColumnar(form))).not.toBe(text(copy));
    expect(outcome(() => decodeColumnar(encodeColumnar(copy), 'months'))).not.toBe(text(copy));
  }
});

it('until they are read, months written alone hold none of the rows before them (a copy read so is held in about half the memory)', () => {
  // vitest gives no --expose-gc: the collector is reached as node's own tests do.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const copy = copies.reduce((a, b) => (b.transactions.length > a.transactions.length ? b : a));
  const heldPerRead = (alone: string | undefined) => {
    const form = encodeColumnar(copy, alone);
    gc();
    const before = process.memoryUsage().heapUsed;
    const reads = Array.from({ length: 8 }, () => decodeColumnarDeferring(form, 'months', alone));
    gc();
    const held = (process.memoryUsage().heapUsed - before) / reads.length;
    expect(reads.every((r) => r.rest)).toBe(true);
    return held;
  };
  const [referBack, alone] = [heldPerRead(undefined), heldPerRead('months')];
  expect(alone).toBeLessThan(referBack * 0.7);
});

it('a form whose months are not last (saved before) is read whole at once', () => {
  const { months, ...rest } = copies[0]!;
  const fields = Object.entries(rest);
  const older = Object.fromEntries([fields[0]!, ['months', months], ...fields.slice(1)]);
  const read = decodeColumnarDeferring(encodeColumnar(older), 'months');
  expect(read.rest).toBeUndefined();
  expect(text(read.value)).toBe(text(older));
});

it("every byte of a form changed reads as a whole read does: the same value or the same error, the months' errors when they are read", () => {
  // A small copy (two months, twenty transactions, a few of everything else) so that every byte can be changed.
  const full = copies[0]!;
  const copy = {
    ...full,
    payees: full.payees.slice(0, 10),
    transactions: full.transactions.slice(0, 20),
    subtransactions: full.subtransactions.slice(0, 5),
    scheduled_transactions: full.scheduled_transactions.slice(0, 2),
    months: full.months.slice(0, 2),
  };
  // Both forms: months that may refer back (saved before), and months written alone.
  for (const alone of [undefined, 'months']) {
    const form = encodeColumnar(copy, alone);
    let inMonths = 0;
    for (let at = 0; at < form.length; at++) {
      const spoilt = Buffer.from(form);
      spoilt[at] = spoilt[at]! ^ 0x5a;
      const whole = outcome(() => decodeColumnar(spoilt, alone));
      let later: { value: Record<string, unknown>; rest?: () => unknown } | undefined;
      const first = outcome(() => (later = decodeColumnarDeferring(spoilt, 'months', alone)).value);
      if (!later) {
        expect(first, `byte ${at}`).toBe(whole);
        continue;
      }
      const both = outcome(() => (later!.rest ? { ...later!.value, months: later!.rest() } : later!.value));
      expect(both, `byte ${at}`).toBe(whole);
      if (later.rest && !both.startsWith('{')) inMonths += 1;
    }
    // Changes the first read cannot see, found when the months are read.
    expect(inMonths).toBeGreaterThan(0);
  }
});

/** A delta that changes one month, deletes another and adds a third. */
function monthsDelta(months: E.MonthDetailBase[]): E.MonthDetailBase[] {
  const [a, b] = months;
  return [
    { ...a!, note: 'changed while the months were not read', categories: a!.categories.slice(1) },
    { ...b!, deleted: true },
    { ...a!, month: '2099-01-01', note: 'added' },
  ];
}

it('exports merged before the months are read are merged after them, in order; they are read once', () => {
  for (const copy of copies) {
    const eager = BudgetReplica.fromSnapshot(structuredClone(copy), false);
    let reads = 0;
    const lazy = BudgetReplica.fromSnapshot({ ...structuredClone(copy), months: [] }, false, () => {
      reads += 1;
      return structuredClone(copy.months);
    });
    // The LRU's estimate does not read them (YNAB's months run from first_month to last_month).
    expect(lazy.approximateSize()).toBe(eager.approximateSize());
    const delta = { id: copy.summary.id, name: copy.summary.name, months: monthsDelta(copy.months), transactions: [] } as unknown as E.BudgetDetail;
    for (const r of [eager, lazy]) r.applyExport(structuredClone(delta), copy.knowledge + 1, copy.syncedAt + 1);
    expect(reads).toBe(0);
    expect(text(lazy.snapshot())).toBe(text(eager.snapshot()));
    expect(lazy.months.get('2099-01-01')?.note).toBe('added');
    expect(reads).toBe(1);
  }
});

it(`unread months are read ${READ_BY_MS / 1000} s after their copy, asked for or not (unread, a copy holds its form, and one saved before its months were written alone every row before them)`, () => {
  vi.useFakeTimers();
  try {
    const copy = copies[0]!;
    let reads = 0;
    const r = BudgetReplica.fromSnapshot({ ...structuredClone(copy), months: [] }, false, () => {
      reads += 1;
      return structuredClone(copy.months);
    });
    vi.advanceTimersByTime(READ_BY_MS - 1);
    expect(reads).toBe(0);
    vi.advanceTimersByTime(1);
    expect(reads).toBe(1);
    expect(text([...r.months.values()])).toBe(text(copy.months));
    expect(reads).toBe(1);
    // Read when asked for first: the timer reads nothing more.
    let again = 0;
    const asked = BudgetReplica.fromSnapshot({ ...structuredClone(copy), months: [] }, false, () => {
      again += 1;
      return structuredClone(copy.months);
    });
    expect(asked.months.size).toBe(copy.months.length);
    vi.advanceTimersByTime(READ_BY_MS);
    expect(again).toBe(1);
  } finally {
    vi.useRealTimers();
  }
});

it('months that cannot be read throw a CorruptError at every ask', () => {
  const copy = copies[0]!;
  let reads = 0;
  const r = BudgetReplica.fromSnapshot({ ...structuredClone(copy), months: [] }, false, () => {
    reads += 1;
    throw new CorruptError('the saved form ends early');
  });
  expect(r.transactions.size).toBe(copy.transactions.length);
  expect(() => r.months).toThrow(CorruptError);
  expect(() => r.monthCategory(copy.months[0]!.month, copy.categories[0]!.id)).toThrow(CorruptError);
  expect(reads).toBe(1);
});

it('a saved copy is loaded with its months left for later only when asked; a copy whose months cannot be read is dropped and the budget fetched whole', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-months-later-'));
  const start = () =>
    createStack({ credentials: { token: async () => demo.sb.accessToken }, baseUrl: demo.sb.baseUrl, stateDir: dir, keySource: fileKey(join(dir, 'k.key')) });
  try {
    const first = start();
    const month = ((await first.service.call('getPlanMonth', { params: { budget_id: 'last-used', month: 'current' } })) as any).data.month;
    const id = first.replicas.held()[0]!.summary.id;
    await first.close();

    const files = new ReplicaFiles(new FileStateStore(dir), fileKey(join(dir, 'k.key')), () => undefined);
    const identity = tokenKey(demo.sb.accessToken);
    const whole = await files.load(identity, id);
    const later = await files.load(identity, id, { monthsLater: true });
    expect(whole.snapshot!.months.length).toBeGreaterThan(0);
    expect(later.snapshot!.months).toEqual([]);
    expect(later.snapshot && text(later.months!())).toBe(text(whole.snapshot!.months));

    // The next run holds the copy with its months unread; they turn out not to be a form.
    const second = start();
    await second.service.call('getAccounts', { params: { budget_id: id } });
    const held = second.replicas.peek(id) as any;
    expect(held.restored).toBe(true);
    expect(held.monthsHeld.pending).toBe(true);
    held.monthsHeld.later.read = () => {
      throw new CorruptError('a reference in the saved form points past what was read');
    };
    const again = (await second.service.call('getPlanMonth', { params: { budget_id: id, month: 'current' } })) as any;
    expect(text(again.data.month)).toBe(text(month));
    expect(second.replicas.peek(id)).not.toBe(held);
    await second.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
