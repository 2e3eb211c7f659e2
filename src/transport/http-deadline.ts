/**
 * A per-request deadline around the MCP handler's web-standard face. A request that is not
 * answered in time gets a JSON-RPC error for its id (so the client's call fails with a message
 * instead of hanging), the work behind it is aborted through the request's signal, and the server
 * carries on. The deadline covers the whole answer: 2025-era requests are answered over an SSE
 * stream whose headers go out at once, so racing only the handler's promise would not bound them.
 *
 * `subscriptions/listen` and `events/stream` are exempt: streams meant to stay open (2026-07-28
 * clients hold one to hear about tool changes, and one per push subscription of the Events
 * extension), kept alive by heartbeats.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FetchLikeMcpHandler } from '@modelcontextprotocol/node';

type RequestId = string | number | null;

/** What a request asked for, read from its JSON-RPC body; used for the error id and the log. */
export interface Exchange {
  id: RequestId;
  /** "tools/call list_accounts", "initialize", …; undefined when the body is not a JSON-RPC request. */
  rpc?: string;
  timedOut?: boolean;
}

/** What the request being served asked for, to the server factory below the SDK (http.ts). */
const asked = new AsyncLocalStorage<Exchange>();

/** The tool the request being served calls (`tools/call`), when its name was read; else undefined. */
export function calledTool(): string | undefined {
  const rpc = asked.getStore()?.rpc;
  return rpc?.startsWith('tools/call ') ? rpc.slice('tools/call '.length) : undefined;
}

// Only names shaped like method and tool names reach the log; anything else is a client's free text.
const LOGGABLE = /^[A-Za-z0-9_./-]{1,128}$/;

async function inspect(request: Request, parsed: unknown): Promise<Exchange> {
  if (request.method !== 'POST') return { id: null };
  let body = parsed;
  if (body === undefined) {
    try {
      // The node adapter buffered the body into the Request, so a clone reads it from memory.
      body = JSON.parse(await request.clone().text());
    } catch {
      return { id: null };
    }
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { id: null };
  const { id, method, params } = body as { id?: unknown; method?: unknown; params?: { name?: unknown } };
  const rpcId: RequestId = typeof id === 'string' || typeof id === 'number' ? id : null;
  if (typeof method !== 'string' || !LOGGABLE.test(method)) return { id: rpcId };
  const name = method === 'tools/call' && typeof params?.name === 'string' && LOGGABLE.test(params.name) ? ` ${params.name}` : '';
  return { id: rpcId, rpc: `${method}${name}` };
}

function timeoutMessage(id: RequestId, ms: number) {
  return {
    jsonrpc: '2.0' as const,
    id,
    error: { code: -32000, message: `Request timed out after ${ms} ms and was cancelled; the server is still running, try again or ask for less.` },
  };
}

const isEventStream = (r: Response) => (r.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');

/** Passes an SSE body through until the deadline, then ends it with the timeout error as its last event. */
function streamUntil(response: Response, deadline: AbortSignal, exchange: Exchange, ms: number, done: () => void): Response {
  const reader = response.body!.getReader();
  const expired = new Promise<'expired'>((resolve) => deadline.addEventListener('abort', () => resolve('expired'), { once: true }));
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await Promise.race([reader.read(), expired]);
      // Checked first: the abort also tears the handler's stream down, which may end the read
      // before the 'expired' promise wins the race.
      if (deadline.aborted) {
        exchange.timedOut = true;
        if (exchange.id !== null) controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(timeoutMessage(exchange.id, ms))}\n\n`));
        controller.close();
        reader.cancel().catch(() => {});
        return;
      }
      if (next === 'expired' || next.done) {
        done();
        controller.close();
        return;
      }
      controller.enqueue(next.value);
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * Wraps `handler` for one request: `exchange` is filled in with what the request asked for and
 * whether it timed out, for the caller's log line.
 */
export function withDeadline(handler: FetchLikeMcpHandler, ms: number, exchange: Exchange): FetchLikeMcpHandler {
  return {
    async fetch(request, options) {
      Object.assign(exchange, await inspect(request, options?.parsedBody));
      return asked.run(exchange, () => answer(request, options));
    },
  };

  async function answer(request: Request, options: Parameters<FetchLikeMcpHandler['fetch']>[1]): Promise<Response> {
    // Streams meant to stay open: kept alive by heartbeats, ended by the client.
    if (exchange.rpc === 'subscriptions/listen' || exchange.rpc === 'events/stream') return handler.fetch(request, options);

    const deadline = new AbortController();
    // Unref'd: an open request holds the process anyway, and a stray timer must not.
    const timer = setTimeout(() => deadline.abort(), ms).unref();
    const done = () => clearTimeout(timer);
    // Aborting the forwarded request's signal is how the SDK learns to stop: it closes the
    // per-request server instance and transport. The client hanging up aborts it too.
    const forwarded = new Request(request, { signal: AbortSignal.any([request.signal, deadline.signal]) });
    const pending = handler.fetch(forwarded, options);
    const expired = new Promise<'expired'>((resolve) => deadline.signal.addEventListener('abort', () => resolve('expired'), { once: true }));
    let first: Response | 'expired';
    try {
      first = await Promise.race([pending, expired]);
    } catch (e) {
      done();
      throw e;
    }
    if (first === 'expired') {
      exchange.timedOut = true;
      // The late answer, if one still comes, is discarded.
      pending.then((late) => late.body?.cancel()).catch(() => {});
      return Response.json(timeoutMessage(exchange.id, ms), { status: 200 });
    }
    if (first.body === null || !isEventStream(first)) {
      done();
      return first;
    }
    return streamUntil(first, deadline.signal, exchange, ms, done);
  }
}
