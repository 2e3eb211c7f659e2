/**
 * Preloaded into the peer server (`node --import bench/peer-redirect.mjs …`) by the session bench
 * (bench/session.bench.ts): the peer pins its API to https://api.ynab.com/v1 and every request it
 * makes (its `ynab` SDK calls and its own) goes through globalThis.fetch, so this rewraps fetch to
 * send api.ynab.com requests to the sandbox at PEER_REDIRECT_BASE_URL instead. Nothing else changes.
 */
const target = process.env.PEER_REDIRECT_BASE_URL;
if (!target) throw new Error('peer-redirect: PEER_REDIRECT_BASE_URL is not set');
const base = new URL(target.endsWith('/') ? target : `${target}/`);
const original = globalThis.fetch;

globalThis.fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.hostname !== 'api.ynab.com') return original(input, init);
  // https://api.ynab.com/v1/budgets?x → <base>budgets?x (base ends in /v1/).
  const moved = new URL(url.pathname.replace(/^\/v1\//, '') + url.search, base);
  return input instanceof Request ? original(new Request(moved, input), init) : original(moved, init);
};
