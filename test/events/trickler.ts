/**
 * Receivers that trickle (issue 59 item 8): an HTTP receiver on loopback that answers a delivery,
 * or its verification handshake, with 200 and then one byte a second, recording whether the server
 * closed the exchange and how many bytes it let through; and the trickle itself, for raw sockets.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How a trickling exchange went: the bytes it got out before its socket closed, and whether it closed. */
export interface Trickle {
  bytes: number;
  closed: boolean;
}

/** Writes `first`, then one byte a second for up to 90 s, until the peer closes the socket. */
export function trickle(socket: Socket, first: string, write: (s: string) => void = (s) => socket.write(s)): Trickle {
  const t: Trickle = { bytes: 0, closed: false };
  write(first);
  const timer = setInterval(() => {
    if (t.bytes >= 90) return clearInterval(timer);
    t.bytes += 1;
    write('x');
  }, 1_000);
  socket.on('close', () => {
    t.closed = true;
    clearInterval(timer);
  });
  socket.on('error', () => undefined);
  return t;
}

/** An HTTP receiver that echoes the challenge (or trickles it: `slowHandshake`) and answers the event POSTs `slow` says to trickle with 200 and a trickled body. */
export async function trickler(opts: { slowHandshake?: boolean; slow?: (n: number) => boolean }) {
  const trickles: Trickle[] = [];
  const events: string[] = [];
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (body.type === 'verification') {
        if (!opts.slowHandshake) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: body.challenge }));
        res.writeHead(200, { 'content-type': 'application/json' });
        return trickles.push(trickle(res.socket!, '{"challenge":"', (s) => res.write(s)));
      }
      events.push(body.data?.category_id);
      if (!opts.slow?.(events.length)) return res.writeHead(200).end('{}');
      res.writeHead(200, { 'content-type': 'application/json' });
      trickles.push(trickle(res.socket!, '{', (s) => res.write(s)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return { url, trickles, events, close };
}
