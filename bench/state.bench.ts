/**
 * The state store and what goes through it: latency of the file store's operations (the ledger
 * and the write journal are atomic updates), what the write journal adds to a create compared
 * with sending the same create straight through the client, and what checking a saved replica's
 * shape costs when it is loaded, and what a saved copy costs in bytes and CPU (the columnar form
 * against the gzip'd JSON before it), at 1,500, 20,000 and 100,000 transactions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, gzipSync } from 'node:zlib';
import { startSandbox } from '../src/sandbox/app.js';
import { FileStateStore } from '../src/storage/file-store.js';
import { replicaKey } from '../src/storage/keys.js';
import { ReplicaFiles } from '../src/sync/persist.js';
import type { ReplicaSnapshot } from '../src/sync/replica.js';
import { ephemeralKey } from '../src/sync/seal.js';
import { snapshotProblem } from '../src/sync/snapshot-check.js';
import { gunzipJson, snapshotJson } from '../src/sync/snapshot-codec.js';
import { encodeColumnar } from '../src/sync/columnar-codec.js';
import { BROTLI_QUALITY } from '../src/sync/saved-form.js';
import { createStack } from '../src/stack/stack.js';
import type { BenchSection } from './section.js';
import { kb, median, ms, percentile, timed } from './stats.js';

/** CPU (this process's user + system time) of `fn`, in ms: the machine is shared, so not wall time. */
async function cpuOf(fn: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * What a saved copy costs: its bytes in the store (sealed), and the CPU of a save and of a read,
 * against the gzip'd JSON copies were saved as before (its bytes, and the CPU of making it and of
 * reading it back). Medians of 5.
 */
async function savedCopyCost(snapshot: ReplicaSnapshot, dir: string): Promise<Record<string, string>> {
  const store = new FileStateStore(dir);
  const files = new ReplicaFiles(store, ephemeralKey(), () => undefined);
  const key = replicaKey('bench', snapshot.summary.id);
  const save = [];
  const read = [];
  for (let i = 0; i < 5; i++) {
    save.push(await cpuOf(() => files.save('bench', snapshot)));
    read.push(await cpuOf(() => files.load('bench', snapshot.summary.id)));
  }
  const bytes = (await store.get(key))!.length;
  let gz = Buffer.alloc(0);
  const gzipSave = [];
  const gzipRead = [];
  for (let i = 0; i < 5; i++) {
    gzipSave.push(await cpuOf(async () => (gz = gzipSync(Buffer.concat([...snapshotJson(snapshot)].map((p) => Buffer.from(p)))))));
    gzipRead.push(await cpuOf(() => gunzipJson(gz)));
  }
  return {
    'saved copy (columnar, brotli, sealed)': kb(bytes),
    'save CPU p50': ms(median(save)),
    'read CPU p50': ms(median(read)),
    "before: gzip'd JSON": kb(gz.length),
    'before: save / read CPU p50': `${ms(median(gzipSave))} / ${ms(median(gzipRead))}`,
  };
}

/**
 * The brotli lever: the columnar form's bytes and CPU at qualities 5 to 11 (window 4 MB, and 16 MB
 * at 11). Medians of 3. What is left after the columns is mostly random ids, which no setting shrinks.
 */
function brotliSweep(snapshot: ReplicaSnapshot, transactions: number, report: (row: Record<string, string | number>) => void): void {
  const form = encodeColumnar(snapshot);
  for (const [quality, window] of [
    [5, 22],
    [6, 22],
    [9, 22],
    [10, 22],
    [11, 22],
    [11, 24],
  ] as const) {
    let packed = Buffer.alloc(0);
    const params = { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_LGWIN]: window, [constants.BROTLI_PARAM_SIZE_HINT]: form.length };
    const save: number[] = [];
    const read: number[] = [];
    for (let i = 0; i < 3; i++) {
      let before = process.cpuUsage();
      packed = brotliCompressSync(form, { params });
      let used = process.cpuUsage(before);
      save.push((used.user + used.system) / 1000);
      before = process.cpuUsage();
      brotliDecompressSync(packed);
      used = process.cpuUsage(before);
      read.push((used.user + used.system) / 1000);
    }
    report({
      section: 'state',
      transactions,
      brotli: `quality ${quality}, window ${2 ** window / 2 ** 20} MB${quality === BROTLI_QUALITY && window === 22 ? ' (saved copies)' : ''}`,
      'compressed form': kb(packed.length),
      'compress CPU p50': ms(median(save)),
      'inflate CPU p50': ms(median(read)),
    });
  }
}

async function times(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await timed(() => fn(i)))[1]);
  return out;
}

const p = (v: number[]) => `${ms(median(v))} / ${ms(percentile(v, 99))}`;

export async function stateBench(report: (row: Record<string, string | number>) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-state-'));
  try {
    const store = new FileStateStore(dir);
    const bytes = new TextEncoder().encode(JSON.stringify({ v: 1, entries: Array.from({ length: 200 }, (_, i) => 1.7e12 + i) }));
    const set = await times(300, () => store.set('quota/bench.json', bytes));
    const get = await times(300, () => store.get('quota/bench.json'));
    const update = await times(300, () => store.update('quota/bench.json', (cur) => ({ value: cur ?? bytes, result: undefined })));
    report({ section: 'state', store: 'file', 'get p50 / p99': p(get), 'set p50 / p99': p(set), 'update (locked) p50 / p99': p(update) });

    const sb = await startSandbox({ seed: 'bench-state', rateLimit: 10_000_000, log: () => {} });
    const stack = createStack({
      credentials: { token: async () => sb.accessToken },
      baseUrl: sb.baseUrl,
      stateDir: join(dir, 'stack'),
      persist: false,
      quotaLimit: 10_000_000,
    });
    const budget = sb.state.budgets[0]!.id;
    const account = (await stack.service.call('getAccounts', { params: { budget_id: budget } })).data.accounts.find((a: any) => a.on_budget && !a.closed).id;
    const body = (i: number) => ({ transaction: { account_id: account, date: '2026-01-15', amount: -1000 - i, payee_name: 'Bench', memo: `bench ${i}` } });
    const direct = await times(150, (i) => stack.client.call('createTransaction', { params: { budget_id: budget }, body: body(i) }));
    const journaled = await times(150, (i) => stack.service.call('createTransaction', { params: { budget_id: budget }, body: body(1000 + i) }));
    report({
      section: 'state',
      store: 'file',
      'create, client only p50': ms(median(direct)),
      'create with journal p50 / p99': p(journaled),
      'journal share of a create': `${ms(median(journaled) - median(direct))}`,
    });
    await stack.close();

    for (const n of [1_500, 20_000, 100_000]) {
      const big = await startSandbox({ seed: 'bench-state', transactions: n, rateLimit: 10_000_000, log: () => {} });
      const s = createStack({
        credentials: { token: async () => big.accessToken },
        baseUrl: big.baseUrl,
        stateDir: join(dir, `load-${n}`),
        persist: false,
        quotaLimit: 10_000_000,
      });
      const id = big.state.budgets[0]!.id;
      await s.service.call('getAccounts', { params: { budget_id: id } });
      const snapshot = JSON.parse(JSON.stringify(s.replicas.peek(id)!.snapshot()));
      const check = await times(5, async () => snapshotProblem(snapshot, id, Date.now()));
      report({
        section: 'state',
        transactions: n,
        'replica shape check on load p50': ms(median(check)),
        ...(await savedCopyCost(s.replicas.peek(id)!.snapshot(), join(dir, `copies-${n}`))),
      });
      if (n <= 20_000) brotliSweep(snapshot, n, report);
      await s.close();
      await big.close();
    }
    await sb.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const stateSection: BenchSection = {
  name: 'state',
  title: 'State store',
  about:
    "The state store and what goes through it: latency of the file store's operations (the ledger and the write journal are atomic updates), what the write journal adds to a create compared with sending it straight through the client, what checking a saved replica's shape costs when it is loaded, and what a saved copy costs in bytes and CPU (columnar form, brotli, sealed; against the gzip'd JSON before it) at 1,500, 20,000 and 100,000 transactions, with the brotli quality and window as a lever.",
  run: (r) => stateBench((row) => r.row(row)),
};
