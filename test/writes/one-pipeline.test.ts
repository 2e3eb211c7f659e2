/**
 * One write pipeline (src/writes/pipeline/pipeline.ts), through a real MCP client against the sandbox and
 * in the code itself: a write's arguments are checked once on their way to YNAB, API write and
 * task write alike; a task that computes from YNAB's figures (move_money) plans from YNAB as it
 * is now; the duplicate guard, the freshness of a plan's read and the steps of the pipeline each
 * live in one place in src/writes/, mcp/ keeping the protocol side only; task handlers take the
 * type of their schema; the write operations each have their row.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { currentMonth } from '../../src/api/dates.js';
import { OPERATIONS } from '../../src/api/operations/index.js';
import { API_WRITES } from '../../src/writes/api-tools/api-writes.js';
import { sizeProblems } from '../../scripts/check-sizes.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'one-pipeline' } });
});
afterAll(() => h.close());

/**
 * How often `text` is looked at for an unpaired surrogate (src/api/argument-check.ts) while `run`
 * runs: the argument check walks every string of a request once per time it is made.
 */
async function surrogateChecks(text: string, run: () => Promise<unknown>): Promise<number> {
  const exec = RegExp.prototype.exec;
  let n = 0;
  const spy = vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, s: string) {
    if (s === text && this.source.includes('\\uD800-\\uDBFF')) n++;
    return exec.call(this, s);
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return n;
}

describe("a write's arguments", () => {
  it('are checked once on their way to YNAB: an API write (before it is planned) and a task write', async () => {
    const memo = 'checked once: groceries';
    const created = await surrogateChecks(memo, async () =>
      ok(
        await h.call('create_transactions', {
          transactions: [{ account_id: 'Everyday Checking', date: today, amount: -12.34, payee_name: 'Corner Shop', memo }],
        }),
      ),
    );
    expect(created).toBe(1);
    const moved = 'checked once: to savings';
    const transfer = await surrogateChecks(moved, async () =>
      ok(await h.call('create_transfer', { from_account_id: 'Everyday Checking', to_account_id: 'Rainy Day Savings', amount: 10, memo: moved })),
    );
    expect(transfer).toBe(1);
  });

  it('with half a character are still refused before anything is planned or sent', async () => {
    const before = h.sb.state.budgets[0]!.rec.transactions.size;
    const res = await h.call('create_transactions', { transactions: [{ account_id: 'Everyday Checking', date: today, amount: -1, memo: 'half \ud800' }] });
    expect(res.isError).toBe(true);
    expect(res.content[0].text).toMatch(/memo .* contains an unpaired surrogate \(U\+D800\)/);
    expect(h.sb.state.budgets[0]!.rec.transactions.size).toBe(before);
  });
});

describe('move_money', () => {
  it("plans from YNAB's figures as they are now, not from a copy synced a second ago", async () => {
    const budget = h.sb.state.budgets[0]!.id;
    const month = currentMonth();
    const vacation = ((await h.sb.get(`/budgets/${budget}/months/${month}`)).body.data.month.categories as any[]).find((c) => c.name === 'Vacation');
    ok(await h.call('get_month', { month: 'current' })); // the server's copy, synced now
    // Changed in YNAB, not through this server: the server's copy (synced just now) does not know.
    const set = await h.sb.call('PATCH', `/budgets/${budget}/months/${month}/categories/${vacation.id}`, { category: { budgeted: 432_100 } });
    expect(set.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    const moved = ok(await h.call('move_money', { from_category_id: 'Vacation', to_category_id: 'Dining Out', amount: 1 }));
    expect(moved.from.assigned_before_formatted).toMatch(/432\.10/);
    expect(moved.from.assigned).toBe(431_100);
  });
});

/** The repository's source files under `dir`, with their text. */
function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(join(REPO_ROOT, dir)).flatMap((name) => {
    const path = join(REPO_ROOT, dir, name);
    if (statSync(path).isDirectory()) return sources(relative(REPO_ROOT, path));
    return name.endsWith('.ts') ? [{ file: relative(REPO_ROOT, path), text: readFileSync(path, 'utf8') }] : [];
  });
}

const where = (dir: string, pattern: RegExp) =>
  sources(dir)
    .filter((f) => pattern.test(f.text))
    .map((f) => f.file);

describe('the write pipeline in the code', () => {
  it('has one duplicate guard', () => {
    expect(where('src', /duplicateCandidates\(/)).toEqual(['src/writes/pipeline/duplicates.ts']);
  });

  it("names the freshness of a plan's read by its purpose, in one place", () => {
    // A max age or dirtyOk given to a read of the budget's copy, outside the replicas themselves.
    expect(where('src', /\.fresh\([^()]*,/).filter((f) => !f.startsWith('src/sync/'))).toEqual(['src/writes/pipeline/reads.ts']);
  });

  it('leaves mcp/ the protocol side: it plans, guards, gates and records no write', () => {
    const steps =
      /confirmTokens\.|\.redeem\(|\.issue\(|mustConfirm\(|checkTargets\(|closedAccountNotices\(|new Writer\(|\.append\(|\.settle\(|checkCallArguments\(/;
    expect(where('src/mcp', steps)).toEqual([]);
  });

  it('types every task handler from its schema', () => {
    const handlers = [
      'src/mcp/tools/tasks.ts',
      ...['transfer/transfer', 'move/move-money', 'bulk/bulk', 'split/split', 'undo/undo-task', 'pipeline/task', 'pipeline/task-run', 'pipeline/pipeline'].map(
        (f) => `src/writes/${f}.ts`,
      ),
    ];
    expect(handlers.filter((f) => readFileSync(join(REPO_ROOT, f), 'utf8').includes('Record<string, any>'))).toEqual([]);
  });

  it('keeps its functions and files within the size limits', () => {
    expect([...sources('src/writes'), ...sources('src/mcp')].flatMap((f) => sizeProblems(f.file, f.text))).toEqual([]);
  });

  it('has a row for every write operation', () => {
    const writes = OPERATIONS.filter((op) => op.access === 'write').map((op) => op.id);
    expect(Object.keys(API_WRITES).sort()).toEqual([...writes].sort());
  });
});
