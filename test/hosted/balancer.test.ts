/**
 * The load balancer of the hosted tests and benches (test/helpers/hosted.ts loadBalancer): in
 * turn by default, and, when asked (the crowd bench's BENCH_CROWD_BALANCE=least-outstanding), to
 * the instance with the fewest requests outstanding, so that the crowd's figures can be compared
 * under both (bench/RESULTS.md, hosted). Two plain HTTP servers stand in for the instances: one
 * holds every request it gets, the other answers at once.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { type Balance, loadBalancer } from '../helpers/hosted.js';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A stand-in instance: counts its requests; `hold` keeps each unanswered until the test ends. */
async function instance(hold: boolean): Promise<{ url: string; hits: () => number }> {
  const held: ServerResponse[] = [];
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => (hold ? held.push(res) : res.end('ok')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closing.push(async () => {
    for (const res of held) res.end('ok');
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

async function balancer(balance?: Balance) {
  const slow = await instance(true);
  const fast = await instance(false);
  const proxy = await loadBalancer(balance);
  closing.push(() => proxy.close());
  proxy.targets.push(slow.url, fast.url);
  let sent = 0;
  proxy.onForward = () => sent++;
  const post = () => fetch(`${proxy.url}/mcp`, { method: 'POST', body: '{}' });
  const forwarded = async (n: number) => {
    while (sent < n) await new Promise((r) => setTimeout(r, 5));
  };
  return { slow, fast, post, forwarded };
}

it('sends requests in turn by default, to the instance holding its earlier ones too', async () => {
  const { slow, fast, post, forwarded } = await balancer();
  for (let i = 0; i < 6; i++) void post().catch(() => undefined);
  await forwarded(6);
  while (slow.hits() + fast.hits() < 6) await new Promise((r) => setTimeout(r, 5));
  expect([slow.hits(), fast.hits()]).toEqual([3, 3]);
});

it('least outstanding: sends each request to the instance with the fewest unanswered', async () => {
  const { slow, fast, post, forwarded } = await balancer('least-outstanding');
  void post().catch(() => undefined); // the first goes to the first instance, which holds it
  await forwarded(1);
  // In turn, the second of these would go to the instance holding the first, and never be answered.
  for (let i = 0; i < 5; i++) expect(await (await post()).text()).toBe('ok');
  expect([slow.hits(), fast.hits()]).toEqual([1, 5]);
});
