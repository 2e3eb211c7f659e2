/**
 * The loopback redirect target of an OAuth sign-in: an HTTP server on 127.0.0.1 that takes exactly
 * one callback on /callback and answers the browser with the outcome.
 *
 *  - "query" (authorization code grant): GET /callback?code=…&state=… is handed to `handle`.
 *  - "fragment" (implicit grant): the token is in the URL fragment, which browsers never send, so
 *    GET /callback serves a relay page whose script POSTs the fragment's fields to /callback
 *    (same origin); that POST is handed to `handle`. An error the service put in the query is
 *    handed over directly.
 *
 * The browser's request is held open until `handle` has finished (exchange, check, store), so the
 * page says whether the sign-in worked, not merely that something arrived. After the first
 * callback every other one is refused: a sign-in is used once.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PAGE_HEADERS, relayPage, relayPageCsp, resultPage } from './callback-page.js';

export const CALLBACK_PATH = '/callback';
export const LOOPBACK_HOST = '127.0.0.1';

export interface Outcome {
  ok: boolean;
  /** For the browser page and the terminal. Never contains a secret. */
  message: string;
}

export interface LoopbackOptions {
  /** 0 = a free port (tests); a real OAuth application needs the port registered in its redirect URI. */
  port: number;
  mode: 'query' | 'fragment';
  handle: (params: URLSearchParams) => Promise<Outcome>;
}

export interface Loopback {
  redirectUri: string;
  /** The outcome of the one callback, once the browser has been answered. */
  done: Promise<Outcome>;
  close(): Promise<void>;
}

export class LoopbackError extends Error {}

const MAX_BODY_BYTES = 16 * 1024;

function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  return new Promise((resolve, reject) => {
    let body = '';
    let size = 0;
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      size += Buffer.byteLength(chunk);
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
        return;
      }
      body += chunk;
    });
    req.on('end', () => resolve(new URLSearchParams(body)));
    req.on('error', reject);
  });
}

export async function startLoopback(opts: LoopbackOptions): Promise<Loopback> {
  let settle!: (o: Outcome) => void;
  const done = new Promise<Outcome>((resolve) => (settle = resolve));
  let taken = false;

  /** Runs the one sign-in; every later callback is told it came too late. */
  const take = async (params: URLSearchParams): Promise<Outcome | null> => {
    if (taken) return null;
    taken = true;
    try {
      return await opts.handle(params);
    } catch (e) {
      return { ok: false, message: (e as Error).message || 'the sign-in failed' };
    }
  };

  const send = (res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, { ...PAGE_HEADERS, 'content-type': `${type}; charset=utf-8`, ...extra });
    res.end(body);
  };

  const answer = async (res: ServerResponse, params: URLSearchParams, asPage: boolean) => {
    const outcome = await take(params);
    if (outcome === null) {
      const late = 'This sign-in was already handled; start "ynab-mcp login" again to sign in anew.';
      if (asPage) send(res, 409, 'text/html', resultPage(false, late));
      else send(res, 409, 'text/plain', late);
      return;
    }
    const status = outcome.ok ? 200 : 400;
    // Settle only after the browser has the answer: the caller closes the server next.
    res.on('finish', () => settle(outcome));
    res.on('close', () => settle(outcome));
    if (asPage) send(res, status, 'text/html', resultPage(outcome.ok, outcome.message));
    else send(res, status, 'text/plain', outcome.message);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${LOOPBACK_HOST}`);
    if (url.pathname !== CALLBACK_PATH) return send(res, 404, 'text/plain', 'Not found.');
    if (req.method === 'GET') {
      if (opts.mode === 'query' || url.searchParams.has('error')) return void answer(res, url.searchParams, true);
      const nonce = randomBytes(16).toString('base64');
      return send(res, 200, 'text/html', relayPage(nonce), { 'content-security-policy': relayPageCsp(nonce) });
    }
    if (req.method === 'POST' && opts.mode === 'fragment') {
      const type = req.headers['content-type'] ?? '';
      if (!type.startsWith('application/x-www-form-urlencoded')) return send(res, 415, 'text/plain', 'Expected form data.');
      readForm(req).then(
        (params) => (params === null ? send(res, 413, 'text/plain', 'Too large.') : answer(res, params, false)),
        () => res.destroy(),
      );
      return;
    }
    send(res, 405, 'text/plain', 'Method not allowed.', { allow: opts.mode === 'fragment' ? 'GET, POST' : 'GET' });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      const hint =
        e.code === 'EADDRINUSE' ? `; another program uses it. Pass --port with another port (registered as a redirect URI of the OAuth application)` : '';
      reject(new LoopbackError(`could not listen on ${LOOPBACK_HOST}:${opts.port} for the OAuth redirect (${e.code ?? e.message})${hint}`));
    });
    server.listen(opts.port, LOOPBACK_HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    redirectUri: `http://${LOOPBACK_HOST}:${port}${CALLBACK_PATH}`,
    done,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
