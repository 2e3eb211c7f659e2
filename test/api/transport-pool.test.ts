/**
 * The client's transport makes its connection pool at its first request, not when it is made (a
 * hosted instance makes a transport for each user it serves, and most calls are answered from the
 * copy without a request to YNAB). What that must not change, on a real HTTP server that counts its
 * connections: a transport closed before any request refuses one exactly as a transport closed
 * after a request does (the same error), connecting to nothing, and it closes without a pool.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/api/client/errors.js';
import { Transport } from '../../src/api/client/transport.js';

let server: Server;
let base = '';
let connections = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"data":{"ok":true}}');
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

const ask = (t: Transport) => t.request({ method: 'GET', path: '/user', token: 'not-a-real-token' });

describe("the transport's connection pool", () => {
  it('closed before any request refuses one as it does when closed after a request, and connects to nothing', async () => {
    const used = new Transport({ baseUrl: base });
    await ask(used);
    await used.close();
    const after = await ask(used).catch((e: unknown) => e);

    const before = connections;
    const unused = new Transport({ baseUrl: base });
    await unused.close();
    const refused = await ask(unused).catch((e: unknown) => e);

    expect(after).toBeInstanceOf(NetworkError);
    expect(refused).toBeInstanceOf(NetworkError);
    expect({ ...(refused as NetworkError), message: (refused as Error).message }).toEqual({ ...(after as NetworkError), message: (after as Error).message });
    expect(connections).toBe(before);
  });

  it('closes without having connected', async () => {
    await expect(new Transport({ baseUrl: base }).close()).resolves.toBeUndefined();
  });
});
