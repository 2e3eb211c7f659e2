// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * House rules in hosted mode (two instances behind a round-robin proxy, one Redis, two users of
 * the sandbox, each signed in through the full MCP authorization flow): each user's rules are kept
 * in Redis under that user's identity, sealed, every instance sees them, and neither user ever
 * sees, or numbers after, the other's. (The store itself: test/rules/core.test.ts.)
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataKey, parseDataKey } from '../../src/hosted/sealing.js';
import { identityOf } from '../../src/hosted/ynab-grants.js';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';

let d: Deployment;
let alice: SignedIn;
let bob: SignedIn;
let sbAlice: SandboxUser;
let sbBob: SandboxUser;

beforeAll(async () => {
  d = await startDeployment({ instances: 2, sandbox: { users: 2 } });
  [sbAlice, sbBob] = d.sandbox.state.users as [SandboxUser, SandboxUser];
  alice = await signIn(d.mcpUrl, new MemoryOAuthProvider("Alice's assistant"), { login: sbAlice.email });
  bob = await signIn(d.mcpUrl, new MemoryOAuthProvider("Bob's assistant", 'http://127.0.0.1:7779/callback'), { login: sbBob.email });
}, 120_000);

afterAll(async () => {
  await alice?.close().catch(() => undefined);
  await bob?.close().catch(() => undefined);
  await d?.close();
});

describe("two users' house rules", () => {
  it('are kept apart: each sees only their own, on every instance, and cannot reach the other budget', async () => {
    const aliceBudget = sbAlice.budgets[0]!.id;
    const bobBudget = sbBob.budgets[0]!.id;
    const mine = ok(
      await alice.call('set_rule', {
        budget_id: aliceBudget,
        match: { text: { kind: 'contains', value: 'alice-only-text' } },
        set: { memo: 'secret of alice' },
      }),
    );
    expect(mine.rule.id).toBe('r1');
    // Round robin: each call may reach either instance; both read the same store.
    for (let i = 0; i < 2; i++) {
      expect(ok(await alice.call('list_rules', { budget_id: aliceBudget })).rules.map((r: any) => r.set.memo)).toEqual(['secret of alice']);
      expect(ok(await bob.call('list_rules', { budget_id: bobBudget })).rules).toEqual([]);
    }
    // Bob's rules are numbered on their own, and Alice never sees them.
    const his = ok(await bob.call('set_rule', { budget_id: bobBudget, match: { direction: 'inflow' }, set: { memo: 'secret of bob' } }));
    expect(his.rule.id).toBe('r1');
    expect(JSON.stringify(ok(await alice.call('list_rules', { budget_id: aliceBudget })))).not.toContain('secret of bob');
    // Alice's budget is not Bob's to name: refused before any rule is read.
    const refused = await bob.call('list_rules', { budget_id: aliceBudget });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused)).not.toContain('secret of alice');
    const deleted = await bob.call('delete_rule', { budget_id: aliceBudget, id: 'r1' });
    expect(deleted.isError).toBe(true);
    expect(ok(await alice.call('list_rules', { budget_id: aliceBudget })).rules).toHaveLength(1);

    // In Redis: one value per user and budget, under each user's own identity.
    const raw = createClient({ url: d.redis.url });
    await raw.connect();
    try {
      const key = new DataKey(parseDataKey(d.env.dataKey, 'test'));
      const keys: string[] = [];
      for await (const batch of raw.scanIterator({ MATCH: 'ynab-mcp:rules/*', COUNT: 1000 })) keys.push(...batch);
      expect(keys.sort()).toEqual(
        [`ynab-mcp:rules/${identityOf(key, sbAlice.id)}/${aliceBudget}.json`, `ynab-mcp:rules/${identityOf(key, sbBob.id)}/${bobBudget}.json`].sort(),
      );
      // Sealed with the budget copies' key, as the undo journal is: no rule text in Redis.
      for (const k of keys) {
        const value = (await raw.get(k))!;
        expect(value).not.toContain('secret of');
        expect(value).not.toContain('"rules"');
      }
    } finally {
      await raw.close();
    }
  });
});
