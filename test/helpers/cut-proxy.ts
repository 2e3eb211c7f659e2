/**
 * A small HTTP proxy between a stack and the sandbox that can cut the answer of a chosen request:
 *  - `before`: the request is read in full and the connection dropped; it never reaches the
 *    service (the client has sent it, so it cannot know that);
 *  - `after`: the request is forwarded, the service answers (the change is applied), and the
 *    connection is dropped after the answer's status line and headers, in the middle of its body
 *    (the client knows it arrived, but not what it made);
 *  - `silent`: the same, but the connection is dropped before any of the answer is passed on
 *    (nothing proves to the client that the request arrived).
 *  - `refuse`: the request never reaches the service and is answered with an API error (a
 *    definite refusal, e.g. 400), for failures that are not in doubt.
 * Everything else is forwarded unchanged. `hold` runs before a cut request goes anywhere (to make
 * another process's request come first); `meanwhile` runs after the service answered a request cut
 * `after` (to create something elsewhere while the answer is lost).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CutRule {
  method: string;
  path: RegExp;
  /** Which matching request to cut, counting from when the rule was armed: 1 = the next one. */
  nth?: number;
  when: 'before' | 'after' | 'silent' | 'refuse';
  /** For `refuse`: the status and detail of the error answered. */
  refuse?: { status: number; detail: string };
  hold?: () => Promise<void>;
  meanwhile?: () => Promise<void>;
}

interface Armed extends CutRule {
  seen: number;
  done: () => void;
}

export interface CutProxy {
  /** The base URL to give a stack (…/v1). */
  baseUrl: string;
  /** Arms a rule; the promise resolves once the chosen request was cut. */
  cut(rule: CutRule): Promise<void>;
  /** Resolves when `count` answers to matching requests have been passed on since the proxy started. */
  answered(method: string, path: RegExp, count: number): Promise<void>;
  /** How many answers to matching requests have been passed on so far. */
  count(method: string, path: RegExp): number;
  /** Requests cut so far. */
  readonly cuts: { method: string; path: string; when: CutRule['when'] }[];
  close(): Promise<void>;
}

export interface CutProxyOptions {
  /** Response headers not passed on (e.g. `x-rate-limit`, which the real service no longer sends). */
  dropHeaders?: string[];
  /** Every answer passed on is held this long first (a slow service: requests overlap). */
  answerDelayMs?: number;
  /** Told when each request arrives and when its answer is passed on (ms timestamps), for ordering checks. */
  onTraffic?: (event: { kind: 'arrived' | 'answered'; method: string; path: string; at: number }) => void;
}

export async function cutProxy(targetBaseUrl: string, opts: CutProxyOptions = {}): Promise<CutProxy> {
  const dropped = new Set((opts.dropHeaders ?? []).map((h) => h.toLowerCase()));
  const target = new URL(targetBaseUrl);
  const rules: Armed[] = [];
  const cuts: CutProxy['cuts'] = [];
  const passed: { method: string; path: string }[] = [];
  const watchers: { method: string; path: RegExp; count: number; done: () => void }[] = [];

  const notify = () => {
    for (const w of [...watchers]) {
      if (passed.filter((p) => p.method === w.method && w.path.test(p.path)).length >= w.count) {
        watchers.splice(watchers.indexOf(w), 1);
        w.done();
      }
    }
  };

  const forward = async (req: IncomingMessage, body: Buffer) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v;
    const res = await fetch(new URL(req.url!, target.origin), { method: req.method, headers, body: body.length ? body : undefined });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const path = new URL(req.url!, 'http://x').pathname;
        opts.onTraffic?.({ kind: 'arrived', method: req.method!, path, at: Date.now() });
        const rule = rules.find((r) => r.method === req.method && r.path.test(path) && ++r.seen === (r.nth ?? 1));
        if (rule) rules.splice(rules.indexOf(rule), 1);
        try {
          if (rule) await rule.hold?.();
          if (rule?.when === 'refuse') {
            const { status, detail } = rule.refuse ?? { status: 400, detail: 'refused by the test proxy' };
            const payload = Buffer.from(JSON.stringify({ error: { id: String(status), name: status === 409 ? 'conflict' : 'bad_request', detail } }));
            cuts.push({ method: req.method!, path, when: 'refuse' });
            res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(payload.length) });
            res.end(payload);
            rule.done();
            return;
          }
          if (rule?.when === 'before') {
            cuts.push({ method: req.method!, path, when: 'before' });
            req.socket.destroy();
            rule.done();
            return;
          }
          const answer = await forward(req, body);
          if (rule) {
            await rule.meanwhile?.();
            cuts.push({ method: req.method!, path, when: rule.when });
            if (rule.when === 'after') {
              // The status line and headers (with the full length), half the body, then nothing.
              res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': String(answer.body.length) });
              res.write(answer.body.subarray(0, answer.body.length >> 1));
              await new Promise((r) => setTimeout(r, 20));
            }
            req.socket.destroy();
            rule.done();
            return;
          }
          if (opts.answerDelayMs) await new Promise((r) => setTimeout(r, opts.answerDelayMs));
          const out: Record<string, string> = {};
          answer.headers.forEach((v, k) => {
            if (k !== 'content-encoding' && k !== 'transfer-encoding' && k !== 'content-length' && k !== 'connection' && !dropped.has(k)) out[k] = v;
          });
          res.writeHead(answer.status, { ...out, 'content-length': String(answer.body.length) });
          res.end(answer.body);
          passed.push({ method: req.method!, path });
          opts.onTraffic?.({ kind: 'answered', method: req.method!, path, at: Date.now() });
          notify();
        } catch {
          req.socket.destroy();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`,
    cuts,
    cut(rule) {
      return new Promise<void>((done) => rules.push({ ...rule, seen: 0, done }));
    },
    count: (method, path) => passed.filter((p) => p.method === method && path.test(p.path)).length,
    answered(method, path, count) {
      return new Promise<void>((done) => {
        watchers.push({ method, path, count, done });
        notify();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
