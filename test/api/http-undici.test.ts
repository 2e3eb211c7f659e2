/**
 * src/api/client/http.ts loads three of undici's own files instead of its index (which loads all
 * of undici: about 170 ms of a fresh server's first call). This holds it to undici: the classes
 * are the ones undici exports, the request API is there, and a real request goes through, so an
 * upgrade that moves or changes those files fails here rather than in use.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { errors, Pool } from '../../src/api/client/http.js';

describe('the undici parts the client loads', () => {
  it('are the classes undici itself exports', () => {
    expect(Pool).toBe(undici.Pool);
    expect(errors).toBe(undici.errors);
    for (const name of ['ConnectTimeoutError', 'HeadersTimeoutError', 'BodyTimeoutError', 'SocketError'] as const) expect(typeof errors[name]).toBe('function');
    expect(typeof Pool.prototype.request).toBe('function');
  });

  it('make a real request, and a failure is one of those error classes', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/cut') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial');
        setTimeout(() => res.destroy(), 10);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const res = await pool.request({ path: '/', method: 'GET' });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toEqual({ ok: true });
      const cut = await pool.request({ path: '/cut', method: 'GET' });
      const e = await cut.body.text().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(errors.UndiciError);
    } finally {
      await pool.close();
      server.close();
    }
  });
});
