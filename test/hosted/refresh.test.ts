// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Two users' YNAB access tokens expiring while three instances serve them: each is refreshed
 * exactly once for everyone (YNAB refresh tokens are single use), whichever instances notice first and
 * however many calls are in flight, and every call succeeds. The sandbox issues tokens that live
 * 320 s; the provider refreshes 300 s before expiry, so a token is due 20 s after it was issued.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';

const TTL_S = 320;
const DUE_AFTER_MS = (TTL_S - 300) * 1000;

let d: Deployment;
const people: { s: SignedIn; sb: SandboxUser }[] = [];
let lastSignIn = 0;

beforeAll(async () => {
  // --max-staleness 0: every read asks YNAB, so every call needs the token.
  d = await startDeployment({ instances: 3, sandbox: { users: 2, oauthTokenTtl: TTL_S }, args: ['--max-staleness', '0'] });
  for (const [i, sb] of d.sandbox.state.users.entries()) {
    people.push({ s: await signIn(d.mcpUrl, new MemoryOAuthProvider(`Refresh Test ${i}`, `http://127.0.0.1:${7790 + i}/callback`), { login: sb.email }), sb });
  }
  lastSignIn = Date.now();
});

afterAll(async () => {
  for (const p of people) await p.s.close().catch(() => undefined);
  await d?.close();
});

/** The refreshes YNAB received since `from`, as the user whose grant each one refreshed. */
function refreshesByUser(from: number): Map<string, number> {
  const owner = new Map(
    d.sandbox.tokens
      .snapshot()
      .grants.filter((g) => g.refresh_token)
      .map((g) => [g.refresh_token!, g.user_id]),
  );
  const counts = new Map<string, number>();
  for (const r of d.upstream.requests.slice(from)) {
    if (!r.url.startsWith('/oauth/token') || r.form?.get('grant_type') !== 'refresh_token') continue;
    const user = owner.get(r.form.get('refresh_token')!) ?? 'unknown';
    counts.set(user, (counts.get(user) ?? 0) + 1);
  }
  return counts;
}

it("each user's expiring YNAB token is refreshed exactly once across three instances, and every call succeeds", async () => {
  // Each instance starts serving each user with the token as it is now.
  for (let i = 0; i < 3; i++) for (const p of people) ok(await p.s.call('list_accounts'));
  expect(refreshesByUser(0).size).toBe(0);
  await new Promise((r) => setTimeout(r, Math.max(0, lastSignIn + DUE_AFTER_MS + 1000 - Date.now())));
  const mark = d.upstream.requests.length;
  // Money movements of a budget named by id are asked of YNAB every time (at --max-staleness 0)
  // and outside any budget sync (which takes a lock of its own), so the instances need the token
  // at the same moment. Without the refresh lock this test sees three refreshes per user.
  const results = await Promise.all(
    people.flatMap((p) => Array.from({ length: 12 }, (_, i) => p.s.call(i % 4 ? 'list_money_movements' : 'list_accounts', { budget_id: p.sb.budgets[0]!.id }))),
  );
  for (const r of results) ok(r);
  expect(Object.fromEntries(refreshesByUser(mark))).toEqual(Object.fromEntries(people.map((p) => [p.sb.id, 1])));
  // After it, each user's calls carried their own new token.
  const grants = d.sandbox.tokens.snapshot().grants;
  const bearers = new Set(
    d.upstream.requests
      .slice(mark)
      .filter((r) => r.url.startsWith('/v1/'))
      .map((r) => r.authorization),
  );
  for (const p of people) {
    const newest = grants.filter((g) => g.user_id === p.sb.id && g.kind === 'oauth').at(-1)!;
    expect(bearers.has(`Bearer ${newest.access_token}`)).toBe(true);
  }
  // The new grants are what is stored: later calls need no refresh.
  const later = d.upstream.requests.length;
  for (let i = 0; i < 3; i++) for (const p of people) ok(await p.s.call('list_accounts'));
  expect(refreshesByUser(later).size).toBe(0);
});
