/**
 * Dynamic client registration (POST /oauth/register) is open to anyone, as the MCP authorization
 * specification has it, so it is limited per client address: --registration-limit registrations
 * in each --registration-window seconds (access-options.ts). Past the limit the answer is 429 with
 * Retry-After, the seconds until the window ends. The count lives in the state store, so the limit
 * holds however many instances the registrations are spread over.
 *
 * The client address is the last entry of X-Forwarded-For, the one the TLS terminator in front of
 * hosted mode appends (entries before it are the client's to write), else the connection's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StateStore } from '../storage/store.js';
import { ROUTES } from './authorization-server.js';
import type { HostedOptions } from './options.js';

/** The address a request came from, as the TLS terminator saw it. */
export function clientAddress(req: IncomingMessage): string {
  const forwarded = req.headers['x-forwarded-for'];
  const last = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').pop()?.trim();
  return last || req.socket.remoteAddress || 'unknown';
}

interface Window {
  /** Registrations counted in the window. */
  n: number;
  /** When it ends, in ms since the epoch. */
  until: number;
}

/** Answers a registration past its address's limit (429) and returns true; counts it and returns false otherwise. */
export function registrationLimit(store: StateStore, opts: HostedOptions) {
  const { registrationLimit: limit, registrationWindowS: windowS } = opts.access;
  return async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    if (url.pathname !== ROUTES.registration || req.method !== 'POST') return false;
    // Keyed by a keyed hash of the address: Redis holds no client addresses.
    const key = `hosted/registrations/${opts.dataKey.keyName(`registrations\n${clientAddress(req)}`)}`;
    const now = Date.now();
    const waitMs = await store.update(
      key,
      (bytes) => {
        const held = bytes ? (JSON.parse(Buffer.from(bytes).toString('utf8')) as Window) : undefined;
        const current = held && held.until > now ? held : { n: 0, until: now + windowS * 1000 };
        if (current.n >= limit) return { value: undefined, result: current.until - now };
        const next = Buffer.from(JSON.stringify({ n: current.n + 1, until: current.until }));
        return { value: next, result: 0 };
      },
      { ttlMs: windowS * 1000 },
    );
    if (waitMs <= 0) return false;
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(retryAfter), 'cache-control': 'no-store' });
    res.end(
      JSON.stringify({
        error: 'too_many_requests',
        error_description: `this address registered ${limit} clients in the last ${windowS} s, the most allowed; try again in ${retryAfter} s`,
      }),
    );
    return true;
  };
}
