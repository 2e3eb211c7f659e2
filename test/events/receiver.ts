/**
 * A webhook receiver on loopback for the events tests, as a Standard Webhooks consumer is: it checks
 * every POST's signature on its own (the HMAC computed here over the raw body, never by the
 * server's code) against the secrets it holds (several during a rotation: a delivery passes when any
 * `v1,` signature in the header verifies under any of them), rejects a timestamp more than 5 minutes
 * off, echoes a verification challenge, and answers what the test sets: failing (500), a redirect,
 * a failure decided per request (the fault test's 20 %), or a status of the test's (410, 413).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** A signature verified under one of the receiver's secrets, the timestamp fresh. */
  valid: boolean;
  /** What the receiver answered. */
  status: number;
}

export const whsec = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The `v1,` signature of a delivery under one secret, computed here. */
export function signatureUnder(secret: string, r: Pick<Received, 'headers' | 'body'>): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key)
    .update(`${String(r.headers['webhook-id'])}.${String(r.headers['webhook-timestamp'])}.${r.body}`)
    .digest('base64')}`;
}

/** Whether the delivery's signature header holds a signature under this secret. */
export const signedWith = (secret: string, r: Pick<Received, 'headers' | 'body'>): boolean =>
  String(r.headers['webhook-signature']).split(' ').includes(signatureUnder(secret, r));

export interface ReceiverState {
  secrets: string[];
  failing: boolean;
  redirect: string;
  /** Decides per event POST whether to answer 500 (after checking the signature). */
  fail?: (r: Received) => boolean;
  /** The status to answer an event POST with instead of 200 (410, 413), when it gives one. */
  answer?: (r: Received) => number | undefined;
}

/** `host`: the loopback address it listens on (127.0.0.1, or another of 127/8 for a host of its own). */
export async function receiver(secret: string | string[], host = '127.0.0.1') {
  const got: Received[] = [];
  const state: ReceiverState = { secrets: typeof secret === 'string' ? [secret] : [...secret], failing: false, redirect: '' };
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const fresh = Math.abs(Date.now() / 1000 - Number(req.headers['webhook-timestamp'])) < 300;
      const r: Received = { headers: req.headers, body, valid: fresh && state.secrets.some((s) => signedWith(s, { headers: req.headers, body })), status: 0 };
      got.push(r);
      const parsed = JSON.parse(body);
      if (state.redirect) r.status = 302;
      else if (!r.valid) r.status = 401;
      else if (state.failing || (!parsed.type && state.fail?.(r))) r.status = 500;
      else r.status = (!parsed.type && state.answer?.(r)) || 200;
      for (const w of waiters) w();
      if (r.status === 302) return res.writeHead(302, { location: state.redirect }).end();
      if (r.status !== 200) return res.writeHead(r.status).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(parsed.type === 'verification' ? JSON.stringify({ challenge: parsed.challenge }) : '{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const url = `http://${host}:${(server.address() as AddressInfo).port}/hook`;
  /** Event deliveries (bodies without a `type`). */
  const events = () => got.filter((g) => !JSON.parse(g.body).type);
  /** Control envelopes of one type. */
  const controls = (type: string) => got.filter((g) => JSON.parse(g.body).type === type);
  /** Resolves once `check` holds of what was received. */
  const until = (check: () => boolean) =>
    new Promise<void>((resolve) => {
      const w = () => {
        if (!check()) return;
        waiters.delete(w);
        resolve();
      };
      waiters.add(w);
      w();
    });
  return { url, got, events, controls, until, state, close: () => new Promise<void>((r) => server.close(() => r())) };
}
