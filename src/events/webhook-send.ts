/**
 * One webhook POST, the SEP's way (Standard Webhooks profile): signed with the subscriber's
 * `whsec_` secret (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`
 * over `id.timestamp.body`, plus `X-MCP-Subscription-Id`), and sent so that it cannot be turned
 * against the server's own network:
 *  - https only; plain http only to a loopback address, and only when the operator allows it
 *    (`allowLoopback`, for a receiver on the same machine);
 *  - the host is resolved at every delivery (never only at subscribe: DNS rebinding) and every
 *    address checked: private, loopback (unless allowed), link-local, CGNAT, multicast, reserved
 *    and unspecified ranges are refused; the connection goes to the checked address, with the
 *    host's name in the Host header and TLS SNI;
 *  - no redirect is followed (a 3xx is a failure), the answer is read up to 64 KB, and the whole
 *    exchange has a total time limit (webhook-deadline.ts), not an idle timer;
 *  - a body over 256 KiB is never sent (the SEP's delivery profile; ChatGPT's MUST): `too_large`,
 *    as a 413 would be.
 * The secret is never logged, shown, nor put in an outcome.
 */
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isSpecialUseAddress } from '../shared/addresses.js';
import { aborted, deadline, DELIVERY_DEADLINE_MS } from './webhook-deadline.js';

/** Resolves a host name to its addresses (the DNS seam: tests give their own). */
export type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;

export const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

export interface SendOptions {
  lookup?: Lookup;
  allowLoopback?: boolean;
  /** The whole exchange's time limit (default DELIVERY_DEADLINE_MS). */
  timeoutMs?: number;
  /** The 2xx answer must be read whole (the handshake's echo). */
  needAnswer?: boolean;
}

/** The SEP's delivery error categories (deliveryStatus.lastError), plus `blocked` for an address refused here. */
export type Outcome = 'ok' | 'gone' | 'too_large' | 'blocked' | 'connection_refused' | 'timeout' | 'tls_error' | 'http_4xx' | 'http_5xx';

/** An attempt's outcome, and on 2xx the answer's text. */
export type Sent = { outcome: Outcome; text?: string };

const SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** The secret's bytes; undefined when it is not `whsec_` + base64 of 24 to 64 bytes. */
export function secretBytes(secret: string): Buffer | undefined {
  const m = SECRET.exec(secret);
  if (!m) return undefined;
  const bytes = Buffer.from(m[1]!, 'base64');
  return bytes.length >= 24 && bytes.length <= 64 && bytes.toString('base64').replace(/=+$/, '') === m[1]!.replace(/=+$/, '') ? bytes : undefined;
}

export function signature(secret: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

const isLoopback = (address: string) => (isIP(address) === 4 ? address.startsWith('127.') : address === '::1');

/** The IPv4 address an IPv4-mapped IPv6 address carries, else the address. */
const unmapped = (address: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address);

/** Whether the server may connect to this address (loopback only when allowed). */
export function addressAllowed(raw: string, allowLoopback = false): boolean {
  const address = unmapped(raw);
  const family = isIP(address);
  if (!family) return false;
  if (allowLoopback && isLoopback(address)) return true;
  return !isSpecialUseAddress(address);
}

/** What is wrong with a callback URL as given (before any lookup); undefined when its form is fine. */
export function urlProblem(raw: string, allowLoopback = false): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'delivery.url is not a URL';
  }
  if (url.username || url.password) return 'delivery.url may not carry credentials';
  if (url.protocol === 'https:') return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol === 'http:' && allowLoopback && (isLoopback(host) || host === 'localhost')) return undefined;
  return `delivery.url must be https${allowLoopback ? ' (or http to a loopback address)' : ''}`;
}

/** Resolves the URL's host and picks the first address allowed; undefined when none is (or none resolves). */
export async function checkedAddress(url: URL, opts: SendOptions): Promise<{ address: string; family: number } | undefined> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const found = isIP(host) ? [{ address: host, family: isIP(host) }] : await (opts.lookup ?? systemLookup)(host).catch(() => []);
  // Every address must pass: a name that also resolves to a private address is refused whole.
  if (!found.length || !found.every((a) => addressAllowed(a.address, opts.allowLoopback))) return undefined;
  return found[0];
}

const MAX_ANSWER = 64 * 1024;
/** The largest body sent (SEP-3415's delivery profile, ChatGPT's guide). */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * POSTs `body` with `headers` to the checked address of `url`; answers the outcome and, on 2xx, the
 * answer's text. The whole exchange ends at `timeoutMs` (webhook-deadline.ts): a delivery whose 2xx
 * head came is delivered though its answer is cut there; `needAnswer` (the handshake) also needs
 * the answer whole, else it timed out.
 */
export async function post(raw: string, headers: Record<string, string>, body: string, opts: SendOptions = {}): Promise<{ outcome: Outcome; text?: string }> {
  if (urlProblem(raw, opts.allowLoopback)) return { outcome: 'blocked' };
  if (Buffer.byteLength(body) > MAX_BODY_BYTES) return { outcome: 'too_large' };
  const limit = deadline(opts.timeoutMs ?? DELIVERY_DEADLINE_MS);
  try {
    const url = new URL(raw);
    const found = await Promise.race([checkedAddress(url, opts).then((t) => ({ t })), aborted(limit.signal)]);
    if (!found) return { outcome: 'timeout' };
    if (!found.t) return { outcome: 'blocked' };
    return await exchange(url, found.t, headers, body, limit.signal, opts.needAnswer ?? false);
  } finally {
    limit.clear();
  }
}

function exchange(
  url: URL,
  target: { address: string; family: number },
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  needAnswer: boolean,
): Promise<{ outcome: Outcome; text?: string }> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let answered = false;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers },
        // Connect to the address just checked, whatever DNS says now; Host and SNI keep the name.
        lookup: (_host, options, cb) =>
          (options as { all?: boolean }).all
            ? (cb as any)(null, [{ address: target.address, family: target.family }])
            : (cb as any)(null, target.address, target.family),
        signal,
        agent: false,
      },
      (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= MAX_ANSWER) chunks.push(c);
          else res.destroy();
        });
        res.on('error', () => undefined); // the deadline's abort; 'close' tells the outcome
        res.on('close', () => {
          const cut = !res.complete && size <= MAX_ANSWER;
          if (status >= 200 && status < 300)
            resolve(cut && needAnswer ? { outcome: 'timeout' } : { outcome: 'ok', text: Buffer.concat(chunks).toString('utf8') });
          else if (status === 410) resolve({ outcome: 'gone' });
          else if (status === 413) resolve({ outcome: 'too_large' });
          else resolve({ outcome: status >= 500 ? 'http_5xx' : 'http_4xx' });
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (answered) return; // the answer's 'close' tells the outcome
      const code = e.code ?? '';
      resolve({ outcome: signal.aborted ? 'timeout' : /CERT|TLS|SSL|EPROTO/.test(code + e.message) ? 'tls_error' : 'connection_refused' });
    });
    req.end(body);
  });
}
