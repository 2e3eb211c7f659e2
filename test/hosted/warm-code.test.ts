// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * The warm-up's code step (src/hosted/warm-up.ts) loads every module a user's first calls after a
 * restart load: the crowd's reads (list_transactions, list_accounts, get_month, list_categories,
 * list_payees) and a logged purchase (create_transactions), so none of them compiles a module
 * while a crowd waits behind it (a purchase's rename rules were loaded by the first create, in
 * the middle of a crowd: bench/RESULTS.md, hosted). Asked of the instance itself: a module loader
 * hook (test/helpers/module-loads.mjs) writes each module it loads to its stderr, and none of the
 * repository's own code may load after the warm-up's line and before the calls' answers are in.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';

const HOOK = fileURLToPath(new URL('../helpers/module-loads.mjs', import.meta.url));

let d: Deployment;
let s: SignedIn;

beforeAll(async () => {
  d = await startDeployment({
    instances: 1,
    sandbox: { users: 1 },
    env: { NODE_OPTIONS: `--import ${HOOK}`, YNAB_MCP_WRITES: 'direct', YNAB_MCP_READY_WITHIN_MS: '60000' },
  });
  s = await signIn(d.mcpUrl, new MemoryOAuthProvider('Warm Code', 'http://127.0.0.1:7840/callback'), { login: d.sandbox.state.users[0]!.email });
  ok(await s.call('list_accounts'));
});

afterAll(async () => {
  await s?.close().catch(() => undefined);
  await d?.close();
});

/** The modules of the repository (src/ or dist/) an instance's stderr says it loaded, in order. */
const ownLoads = (stderr: string): string[] =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{"module_load"'))
    .map((l) => (JSON.parse(l) as { url: string }).url)
    .filter((url) => url.startsWith('file:') && !url.includes('/node_modules/') && /\/(src|dist)\//.test(url));

describe("a restarted instance's warm-up loads the code of its users' first calls", () => {
  it('no module of its own loads during the first reads and the first purchase after the restart', async () => {
    await d.kill(0);
    await d.start(0);
    const instance = d.instances[0]!;
    await instance.proc.waitFor('stderr', /ynab-mcp: warmed up \d+ ms after the process started/, 60_000);
    const warmed = ownLoads(instance.proc.stderr);
    // The hook is heard: the serving code and the warm-up's modules were loaded through it.
    expect(warmed.length).toBeGreaterThan(50);

    const account = (ok(await s.call('list_accounts')).accounts as { id: string; type: string; closed: boolean }[]).find(
      (a) => a.type === 'checking' && !a.closed,
    )!;
    ok(await s.call('list_transactions', { limit: 20 }));
    ok(await s.call('get_month', { month: 'current', limit: 20 }));
    ok(await s.call('list_categories'));
    ok(await s.call('list_payees', { limit: 20 }));
    const today = new Date().toISOString().slice(0, 10);
    ok(
      await s.call('create_transactions', {
        transactions: [{ account_id: account.id, date: today, amount: -3.5, payee_name: 'Warm Code Cafe', memo: 'warm code' }],
      }),
    );

    expect(ownLoads(instance.proc.stderr).slice(warmed.length)).toEqual([]);
  });
});
