/**
 * A user's YNAB access token expiring while three instances serve them: it is refreshed exactly
 * once for everyone (YNAB refresh tokens are single use), whichever instances notice first and
 * however many calls are in flight, and every call succeeds. The sandbox issues tokens that live
 * 320 s; the provider refreshes 300 s before expiry, so a token is due 20 s after it was issued.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { ok } from '../helpers/mcp.js';

const TTL_S = 320;
const DUE_AFTER_MS = (TTL_S - 300) * 1000;

let d: Deployment;
let user: SignedIn;
let signedInAt = 0;

beforeAll(async () => {
  // --max-staleness 0: every read asks YNAB, so every call needs the token.
  d = await startDeployment({ instances: 3, sandbox: { oauthTokenTtl: TTL_S }, args: ['--max-staleness', '0'] });
  user = await signIn(d.mcpUrl, new MemoryOAuthProvider('Refresh Test'));
  signedInAt = Date.now();
});

afterAll(async () => {
  await user?.close().catch(() => undefined);
  await d?.close();
});

const refreshes = (from: number) => d.upstream.requests.slice(from).filter((r) => r.url.startsWith('/oauth/token') && r.form?.get('grant_type') === 'refresh_token');

it('an expiring YNAB token is refreshed exactly once across three instances, and every call succeeds', async () => {
  // Each instance starts serving the user with the token as it is now.
  for (let i = 0; i < 3; i++) ok(await user.call('list_accounts'));
  expect(refreshes(0)).toHaveLength(0);
  await new Promise((r) => setTimeout(r, Math.max(0, signedInAt + DUE_AFTER_MS + 1000 - Date.now())));
  const mark = d.upstream.requests.length;
  const results = await Promise.all(Array.from({ length: 9 }, (_, i) => user.call(i % 2 ? 'list_accounts' : 'list_categories')));
  for (const r of results) ok(r);
  expect(refreshes(mark)).toHaveLength(1);
  // After it, the calls carried the new token, and the old one no more.
  const bearers = new Set(d.upstream.requests.slice(mark).filter((r) => r.url.startsWith('/v1/')).map((r) => r.authorization));
  const grants = d.sandbox.tokens.snapshot().grants;
  const newest = grants.at(-1)!;
  expect(bearers.has(`Bearer ${newest.access_token}`)).toBe(true);
  // The new grant is what is stored: later calls need no refresh.
  const later = d.upstream.requests.length;
  for (let i = 0; i < 3; i++) ok(await user.call('list_accounts'));
  expect(refreshes(later)).toHaveLength(0);
});
