/**
 * The MCP handler's web-standard face served on node:http, under a per-request deadline. A request
 * that is not answered in time gets a JSON-RPC error for its id (so the client's call fails with a
 * message instead of hanging), the work behind it is aborted through the request's signal, and
 * the server carries on. The deadline covers the whole answer: a 2025-era request that may hear
 * something before its result (http-whole-answers.ts) is answered over an SSE stream whose headers
 * go out at once, so racing only the handler's promise would not bound it; such a stream is ended
 * at the deadline with the error as its last event.
 *
 * This is the SDK's node adapter (`toNodeHandler`) and the deadline in one. The deadline used to
 * wrap the adapter's web face, which meant a second Request per call (to give it the deadline's
 * signal), an `AbortSignal.any` and a second stream around every SSE answer: a tenth of a hosted
 * instance's CPU per call (3.3-3.4 -> 3.0 ms, one user's calls one after another). Here one
 * Request is built from what was read already (the body goes parsed, webRequest), with one signal
 * that the client's leaving and the deadline both abort. An answer that is not a stream goes out
 * in one write with its length (writeWhole), not chunked.
 *
 * `subscriptions/listen` and `events/stream` are exempt: streams meant to stay open (2026-07-28
 * clients hold one to hear about tool changes, and one per push subscription of the Events
 * extension), kept alive by heartbeats.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { contextSlot } from '../shared/async-context.js';
import { answerDirect, directRequest, type DirectAnswer, type LegacyServerFor } from './http-direct-answers.js';

type RequestId = string | number | null;

/** What a request asked for, read from its JSON-RPC body; used for the error id and the log. */
export interface Exchange {
  id: RequestId;
  /** "tools/call list_accounts", "initialize", …; undefined when the body is not a JSON-RPC request. */
  rpc?: string;
  timedOut?: boolean;
  /** Hosted: its time waiting for an admission slot and out on I/O (http-admission.ts), for its log line. */
  waited?: () => { queuedMs: number; ioMs: number };
}

/** What the request being served asked for, to the server factory below the SDK (http.ts). */
const asked = contextSlot<Exchange>('exchange');

/** The tool the request being served calls (`tools/call`), when its name was read; else undefined. */
export function calledTool(): string | undefined {
  return toolIn(asked.getStore()?.rpc);
}

/** The tool of an `rpc` as inspect() names it ("tools/call list_accounts"), if it is a call. */
const toolIn = (rpc: string | undefined) => (rpc?.startsWith('tools/call ') ? rpc.slice('tools/call '.length) : undefined);

// Only names shaped like method and tool names reach the log; anything else is a client's free text.
const LOGGABLE = /^[A-Za-z0-9_./-]{1,128}$/;

/** What a POST's parsed body asks for (undefined: the body was empty or not JSON). */
function inspect(method: string, body: unknown): Exchange {
  if (method !== 'POST' || !body || typeof body !== 'object' || Array.isArray(body)) return { id: null };
  const { id, method: rpc, params } = body as { id?: unknown; method?: unknown; params?: { name?: unknown } };
  const rpcId: RequestId = typeof id === 'string' || typeof id === 'number' ? id : null;
  if (typeof rpc !== 'string' || !LOGGABLE.test(rpc)) return { id: rpcId };
  const name = rpc === 'tools/call' && typeof params?.name === 'string' && LOGGABLE.test(params.name) ? ` ${params.name}` : '';
  return { id: rpcId, rpc: `${rpc}${name}` };
}

/** The tool a POST's parsed JSON-RPC body calls (`tools/call`), when its name is one; else undefined. */
export function toolOf(body: unknown): string | undefined {
  return toolIn(inspect('POST', body).rpc);
}

function timeoutMessage(id: RequestId, ms: number) {
  return {
    jsonrpc: '2.0' as const,
    id,
    error: { code: -32000, message: `Request timed out after ${ms} ms and was cancelled; the server is still running, try again or ask for less.` },
  };
}

/** The id an error answer may echo: a request's (a method and an id), else null. As the SDK's adapter. */
function echoableId(body: unknown): RequestId {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const { method, id } = body as { method?: unknown; id?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : null;
}

const isEventStream = (r: Response) => (r.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');

/**
 * The request as the web face takes it: its headers, `signal`, and the body. A body parsed here
 * already goes to the handler as `parsedBody` alone, as from behind a body parser: nothing reads
 * the Request's copy of it (the SDK, session ids and listen alerts all take the parsed one), and
 * building a body stream for every call was half of building the Request. A body that is not JSON
 * goes as it came, for the SDK to read and answer with its parse error.
 */
function webRequest(req: IncomingMessage, body: Buffer, parsed: unknown, signal: AbortSignal): Request {
  const method = (req.method ?? 'GET').toUpperCase();
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const raw = parsed === undefined && method !== 'GET' && method !== 'HEAD' && body.length > 0;
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
    method,
    headers,
    signal,
    ...(raw ? { body: body.toString('utf8') } : {}),
  });
}

/** A timer that aborts the request when it fires, and says so. */
class Deadline {
  fired = false;
  readonly expired: Promise<'expired'>;
  private timer: NodeJS.Timeout | undefined;

  constructor(ms: number, abort: AbortController) {
    this.expired = new Promise((resolve) => {
      // Unref'd: an open request holds the process anyway, and a stray timer must not.
      this.timer = setTimeout(() => {
        this.fired = true;
        resolve('expired');
        abort.abort();
      }, ms).unref();
    });
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

export interface Answering {
  handler: FetchLikeMcpHandler;
  /** The server for a 2025-era call answered whole without the web face, when it qualifies (http-direct-answers.ts). */
  direct?: LegacyServerFor;
  /** How long an answer may take, whole. */
  ms: number;
  /** Filled in with what the request asked for and whether it timed out, for the caller's log line. */
  exchange: Exchange;
  onerror?: (e: Error) => void;
}

/**
 * Answers `req` (its body read already: `body`, and `parsed` when it is JSON) with the handler,
 * under the deadline. `req.auth` is passed on as the handler's `authInfo`, as by the SDK's adapter.
 */
export async function answerWithin(
  a: Answering,
  req: IncomingMessage & { auth?: AuthInfo },
  res: ServerResponse,
  body: Buffer,
  parsed: unknown,
): Promise<void> {
  const { exchange } = a;
  Object.assign(exchange, inspect((req.method ?? 'GET').toUpperCase(), parsed));
  let finished = false;
  const abort = new AbortController();
  // The client hanging up aborts the request too: the SDK closes the per-request server.
  const client = { gone: res.destroyed };
  res.on('close', () => {
    if (finished) return;
    client.gone = true;
    abort.abort();
  });
  if (client.gone) abort.abort();
  // Streams meant to stay open: kept alive by heartbeats, ended by the client.
  const open = exchange.rpc === 'subscriptions/listen' || exchange.rpc === 'events/stream';
  const deadline = open ? undefined : new Deadline(a.ms, abort);

  // A call served straight from node:http (`direct`) is answered with a DirectAnswer, its timeout and
  // its failure too: that path never touches the global Response, whose first use loads Node's
  // fetch (about 40 ms, once per process, paid by a restarted instance's first wave of calls).
  let response: Response | DirectAnswer | 'expired';
  let direct = false;
  try {
    const options = { ...(req.auth !== undefined ? { authInfo: req.auth } : {}), ...(parsed !== undefined ? { parsedBody: parsed } : {}) };
    const request = a.direct ? directRequest(req, parsed) : undefined;
    direct = request !== undefined;
    const pending: Promise<Response | DirectAnswer> = asked.run(exchange, () =>
      request ? answerDirect(a.direct!, req, request, abort.signal) : a.handler.fetch(webRequest(req, body, parsed, abort.signal), options),
    );
    response = deadline ? await Promise.race([pending, deadline.expired]) : await pending;
    if (response === 'expired') {
      // The late answer, if one still comes, is discarded.
      if (!direct) pending.then((late) => (late as Response).body?.cancel()).catch(() => {});
      exchange.timedOut = true;
      response = jsonAnswer(direct, timeoutMessage(exchange.id, a.ms), 200);
    }
  } catch (e) {
    deadline?.clear();
    try {
      a.onerror?.(e instanceof Error ? e : new Error(String(e)));
    } catch {
      // An observer's failure is not the request's.
    }
    response = jsonAnswer(direct, { jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: echoableId(parsed) }, 500);
  }
  if (direct) {
    deadline?.clear();
    return writeDirect(res, response as DirectAnswer, () => (finished = true));
  }
  response = response as Response;
  // Only an SSE answer is bound by the deadline once it has come: the rest is here whole.
  const stream = response.body !== null && isEventStream(response);
  const bound = deadline && stream ? deadline : undefined;
  if (!bound) deadline?.clear();
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  if (!stream) return writeWhole(res, response, headers, () => (finished = true));
  res.writeHead(response.status, headers);
  if (response.body !== null && (await pump(response.body, res, client, abort.signal, bound)) === 'expired') {
    exchange.timedOut = true;
    if (exchange.id !== null && !res.destroyed) res.write(`event: message\ndata: ${JSON.stringify(timeoutMessage(exchange.id, a.ms))}\n\n`);
  }
  bound?.clear();
  finished = true;
  res.end();
}

/**
 * An answer that is not a stream (a JSON body, an error, a 202), written whole with its length in
 * one write: piped as it came, it went out chunked, its end a second write to the socket and a
 * second segment for the client (or the load balancer) to wake up for.
 */
async function writeWhole(res: ServerResponse, response: Response, headers: Record<string, string>, finish: () => void): Promise<void> {
  // A body that fails to read (the handler's stream torn down) ends the answer with nothing more, as piping it did.
  const bytes =
    response.body === null
      ? undefined
      : await response.arrayBuffer().then(
          (b) => Buffer.from(b),
          () => undefined,
        );
  if (bytes) headers['content-length'] = String(bytes.length);
  finish();
  res.writeHead(response.status, headers);
  res.end(bytes);
}

/** A JSON answer: a DirectAnswer on the direct path, else a Response (the same bytes and headers, once written). */
function jsonAnswer(direct: boolean, body: unknown, status: number): Response | DirectAnswer {
  return direct ? { status, json: JSON.stringify(body) } : Response.json(body, { status });
}

/** An answer served straight from node:http (http-direct-answers.ts), written as writeWhole writes the same answer's Response. */
function writeDirect(res: ServerResponse, answer: DirectAnswer, finish: () => void): void {
  const bytes = answer.json === undefined ? undefined : Buffer.from(answer.json, 'utf8');
  finish();
  res.writeHead(answer.status, bytes ? { 'content-type': 'application/json', 'content-length': String(bytes.length) } : {});
  res.end(bytes);
}

/**
 * Writes `body` to `res`, honouring backpressure, until it ends, the client leaves, or `deadline`
 * fires. `aborted` is the request's signal: the client's leaving or the deadline.
 */
async function pump(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  client: { gone: boolean },
  aborted: AbortSignal,
  deadline: Deadline | undefined,
): Promise<'done' | 'expired'> {
  const reader = body.getReader();
  try {
    for (;;) {
      const next = deadline ? await Promise.race([reader.read(), deadline.expired]) : await reader.read();
      // Checked first: the abort also tears the handler's stream down, which may end the read
      // before the 'expired' promise wins the race.
      if (deadline?.fired) {
        reader.cancel().catch(() => {});
        return 'expired';
      }
      if (next === 'expired' || next.done || client.gone) break;
      if (!res.write(next.value)) await drained(res, aborted);
    }
  } catch {
    // The stream failed or was torn down (the client left): what was written stands.
  }
  reader.cancel().catch(() => {});
  return 'done';
}

/** Resolves once `res` can take more, or the request was aborted (the client left, or its deadline passed). */
function drained(res: ServerResponse, aborted: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      aborted.removeEventListener('abort', done);
      resolve();
    };
    res.once('drain', done);
    aborted.addEventListener('abort', done, { once: true });
    if (aborted.aborted) done();
  });
}
