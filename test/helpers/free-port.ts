import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

/**
 * A loopback port nothing listens on, for a child that is told its port (a CLI's --port, a
 * redis-server). Picked below the kernel's ephemeral range (/proc/sys/net/ipv4/ip_local_port_range,
 * 32768-60999 by default), not by binding port 0: a port from that range, once released, may be
 * handed to any outgoing connection of the parallel test files before the child binds it (CI failed
 * so with EADDRINUSE). The span stops at 22000 so that a Redis Cluster node's bus port (its port +
 * 10000) stays below the ephemeral range too, and apart from the ports picked here.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 12_000 + randomInt(10_000);
    if (await canListen(port)) return port;
  }
  return listenOn(0);
}

function canListen(port: number): Promise<boolean> {
  return listenOn(port).then(
    () => true,
    () => false,
  );
}

function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      const { port: bound } = srv.address() as { port: number };
      srv.close(() => resolve(bound));
    });
  });
}
