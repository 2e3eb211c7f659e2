/**
 * Where a request to the sandbox goes: CORS preflight, the body read (refused past 10 MB), then
 * the API below /v1 (api-request.ts) or an OAuth endpoint (oauth.ts), else 404. Whatever throws
 * becomes an API error answer, never a crash; --verbose logs one line per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CORS_HEADERS, type Answers } from './answers.js';
import { errorAnswer } from './api-router.js';
import { ApiError } from './errors.js';
import { oauthParams, type OAuthServer } from './oauth.js';

const MAX_BODY_BYTES = 10 * 1024 * 1024;

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export interface RequestRoutes {
  api: (req: IncomingMessage, res: ServerResponse, url: URL, body: string) => Promise<void>;
  oauth: OAuthServer;
  answers: Answers;
  verbose: boolean | undefined;
  log: (line: string) => void;
}

export function routeRequests(routes: RequestRoutes) {
  const { oauth, log } = routes;
  const { send, sendOAuth } = routes.answers;

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    try {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS_HEADERS);
        res.end();
        return;
      }
      let body: string;
      try {
        body = await readBody(req);
      } catch (e) {
        if (!(e instanceof BodyTooLarge)) throw e;
        send(
          res,
          { status: 400, body: new ApiError('bad_request', `the request body is too large (limit ${MAX_BODY_BYTES / 1024 / 1024} MB)`).body() },
          { connection: 'close' },
        );
        return;
      }
      if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) await routes.api(req, res, url, body);
      else if (url.pathname === '/oauth/authorize' && req.method === 'GET') sendOAuth(res, oauth.authorize(url.searchParams));
      else if (url.pathname === '/oauth/token' && req.method === 'POST') sendOAuth(res, oauth.token(oauthParams(req, url, body)));
      else if (url.pathname === '/oauth/revoke' && req.method === 'POST') sendOAuth(res, oauth.revoke(oauthParams(req, url, body)));
      else send(res, { status: 404, body: new ApiError('not_found', `no such endpoint: ${req.method} ${url.pathname}`).body() });
    } catch (e) {
      send(res, errorAnswer(e, log));
    } finally {
      if (routes.verbose) log(`sandbox: ${req.method} ${url.pathname} -> ${res.statusCode} (${Date.now() - started} ms)`);
    }
  };
}
