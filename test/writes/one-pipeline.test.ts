/**
 * One write pipeline (src/writes/pipeline.ts), through a real MCP client against the sandbox and
 * in the code itself: a task that computes from YNAB's figures (move_money) plans from YNAB as it
 * is now; the duplicate guard, the freshness of a plan's read and the steps of the pipeline each
 * live in one place in src/writes/, mcp/ keeping the protocol side only; task handlers take the
 * type of their schema; the write operations each have their row.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentMonth } from '../../src/api/dates.js';
import { OPERATIONS } from '../../src/api/operations/index.js';
import { API_WRITES } from '../../src/writes/api-writes.js';
import { sizeProblems } from '../../scripts/check-sizes.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { mcpHarness, ok, type McpHarness } from '../helpers/mcp.js';

const today = new Date().toISOString().slice(0, 10);
let h: McpHarness;

beforeAll(async () => {
  h = await mcpHarness({ sandbox: { seed: 'one-pipeline' } });
});
afterAll(() => h.close());

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
    expect(moved.from.assigned_milliunits).toBe(431_100);
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
    expect(where('src', /duplicateCandidates\(/)).toEqual(['src/writes/duplicates.ts']);
  });

  it("names the freshness of a plan's read by its purpose, in one place", () => {
    // A max age or dirtyOk given to a read of the budget's copy, outside the replicas themselves.
    expect(where('src', /\.fresh\([^()]*,/).filter((f) => !f.startsWith('src/sync/'))).toEqual(['src/writes/reads.ts']);
  });

  it('leaves mcp/ the protocol side: it plans, guards, gates and records no write', () => {
    const steps =
      /confirmTokens\.|\.redeem\(|\.issue\(|mustConfirm\(|checkTargets\(|closedAccountNotices\(|new Writer\(|\.append\(|\.settle\(|checkCallArguments\(/;
    expect(where('src/mcp', steps)).toEqual([]);
  });

  it('types every task handler from its schema', () => {
    const handlers = [
      'src/mcp/tools/tasks.ts',
      ...['transfer', 'move-money', 'bulk', 'split', 'undo-task', 'task', 'task-run', 'pipeline'].map((f) => `src/writes/${f}.ts`),
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
