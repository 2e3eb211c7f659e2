/**
 * How the sandbox's answers leave it. Acknowledged means durable: before any answer is written,
 * whatever its request changed is committed to the --data file (durable.ts), and a change the disk
 * refused turns a success into a failure rather than an answer that would be lost on restart.
 * API answers are JSON written from pieces encoded once (json.ts); `cut` sends half an answer and
 * drops the connection (an injected fault).
 */
import type { ServerResponse } from 'node:http';
import type { ApiAnswer } from './api-router.js';
import type { Durability } from './durable.js';
import { ApiError } from './errors.js';
import { encodeBody } from './json.js';
import type { OAuthResponse } from './oauth.js';
import { joinsBetter, type SendBuffers } from './send-buffers.js';

export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept',
  'access-control-expose-headers': 'X-Rate-Limit, Retry-After',
  'access-control-max-age': '86400',
};

export interface Answers {
  /** `cut`: the status line, headers and half the body go out, then the connection drops (an answer lost on its way back). */
  send(res: ServerResponse, answer: ApiAnswer, extra?: Record<string, string>, cut?: boolean): void;
  sendOAuth(res: ServerResponse, r: OAuthResponse): void;
}

/** Writes the encoded pieces of an answer whose head is out. */
function writeBody(res: ServerResponse, pieces: Buffer[], length: number, cut: boolean, sendBuffers: SendBuffers): void {
  if (cut) {
    res.write(Buffer.concat(pieces, length).subarray(0, length >> 1), () => res.destroy());
    return;
  }
  if (pieces.length === 1) {
    res.end(pieces[0]);
    return;
  }
  // Many small pieces (rows encoded one by one) go out as one buffer, lent until written
  // (send-buffers.ts); larger ones (a list's days, an export's chunks) as they are, uncopied.
  if (joinsBetter(pieces.length, length)) {
    const joined = sendBuffers.join(pieces, length);
    res.once('finish', joined.release);
    res.end(joined.bytes);
    return;
  }
  res.cork();
  for (const piece of pieces) res.write(piece);
  res.uncork();
  res.end();
}

export function durableAnswers(durability: Durability | undefined, sendBuffers: SendBuffers, log: (line: string) => void): Answers {
  /** Makes every change so far durable; false (and logged) when the disk refused. */
  function commit(): boolean {
    try {
      durability?.commit();
      return true;
    } catch (e) {
      log(`sandbox: ${(e as Error).message.split('\n')[0]}: a change could not be saved; it is answered as a failure`);
      return false;
    }
  }

  return {
    send(res, answer, extra = {}, cut = false) {
      if (res.headersSent || res.destroyed) return;
      // Acknowledged means durable: whatever this request changed is on disk before it is answered.
      if (!commit() && answer.status < 300) answer = { status: 500, body: new ApiError('internal_server_error', 'the change could not be saved').body() };
      // Entities and export segments encoded once are reused (json.ts) and written as they are.
      const pieces = encodeBody(answer.body);
      const length = pieces.reduce((n, p) => n + p.length, 0);
      res.writeHead(answer.status, {
        ...CORS_HEADERS,
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(length),
        ...extra,
        ...answer.headers,
      });
      writeBody(res, pieces, length, cut, sendBuffers);
    },

    sendOAuth(res, r) {
      // Issued, rotated and revoked grants are changes too: durable before the answer.
      if (!commit() && r.status < 400)
        r = {
          status: 500,
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: JSON.stringify({ error: 'server_error', error_description: 'the grant could not be saved' }),
        };
      res.writeHead(r.status, { ...CORS_HEADERS, ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) });
      res.end(r.body);
    },
  };
}
