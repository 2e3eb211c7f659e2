/**
 * A loopback webhook receiver that answers the verification challenge a subscription needs and
 * counts the events it is sent (and hands each event's body to `heard`), for the tests and benches
 * that measure how often and how soon budgets are synced rather than what each delivery says
 * (test/events/receiver.ts verifies every signature).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingReceiver {
  url: string;
  events: { n: number };
  close(): Promise<void>;
}

export async function countingReceiver(heard: (body: any) => void = () => {}): Promise<CountingReceiver> {
  const events = { n: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (body.type === 'verification') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: body.challenge }));
      events.n += 1;
      heard(body);
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    events,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
