/**
 * 2025-era calls answered with one JSON body rather than an SSE stream, when nothing can come
 * before their result. The 2025-11-25 transport lets a server answer a POSTed request either way,
 * and clients must take both; the 2026-07-28 era's 'auto' already answers so. The SDK's own
 * stateless 2025-era serving always opens a stream: the server wraps the one result in an event
 * stream, pumps it out and closes it, and the client parses it back out of the stream. For a call
 * that is all it sends, that is CPU on both sides for nothing (a hosted crowd, in turns: about 8 %
 * more calls a second, and a fifth less of its clients' CPU; bench/RESULTS.md, hosted history).
 *
 * A request keeps its stream (the SDK's serving, unchanged) when something may come before its
 * result: it asks for progress (`_meta.progressToken`), or it is a stream itself (`events/stream`,
 * `subscriptions/listen`). The server sends nothing else mid-call to a 2025-era client over HTTP:
 * no log messages, and no confirm dialog (http-sessions.ts: such clients get the preview and
 * confirm_token). Anything that is not one JSON-RPC request (a batch, a notification, a response,
 * a body not parsed or not JSON), and every 2026-07-28 request, goes to the SDK's handler as before.
 */
import type { FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import {
  isJsonContentType,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHandlerRequestOptions,
  type McpServerFactory,
} from '@modelcontextprotocol/server';

/** Methods answered with a stream meant to stay open (http-deadline.ts exempts the same from its deadline). */
const STREAMS = new Set(['events/stream', 'subscriptions/listen']);

/** Whether a parsed POST body is one JSON-RPC request whose answer is its result alone. */
export function answeredWhole(body: unknown): boolean {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const { method, id, params } = body as { method?: unknown; id?: unknown; params?: { _meta?: unknown } };
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number') || STREAMS.has(method)) return false;
  const meta = params?._meta;
  return !(meta !== null && typeof meta === 'object' && 'progressToken' in meta);
}

/**
 * `handler` with the 2025-era calls answeredWhole serves answered by a server from `factory` (the
 * handler's own) over a per-request transport that answers in JSON. `maxRequestBodySize` is the
 * handler's, so that both classify a request alike.
 */
export function withWholeAnswers(handler: FetchLikeMcpHandler, factory: McpServerFactory, maxRequestBodySize: number): FetchLikeMcpHandler {
  return {
    async fetch(request, options) {
      const body = options?.parsedBody;
      const whole =
        request.method === 'POST' &&
        isJsonContentType(request.headers.get('content-type')) &&
        answeredWhole(body) &&
        (await isLegacyRequest(request, body, { maxRequestBodySize }));
      return whole ? answerWhole(factory, request, options!) : handler.fetch(request, options);
    },
  };
}

/**
 * As the SDK's stateless 2025-era serving, but in JSON: a fresh server and transport for the
 * request, closed once it is answered or the request is aborted (the client left, or its deadline
 * passed: the answer is then no one's, and the call's work is cancelled with the server).
 * A throw is the caller's to answer (http-deadline.ts: a 500 with the request's id).
 */
async function answerWhole(factory: McpServerFactory, request: Request, options: McpHandlerRequestOptions): Promise<Response> {
  const { authInfo, parsedBody } = options;
  const server = await factory({ era: 'legacy', ...(authInfo !== undefined ? { authInfo } : {}), requestInfo: request });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  let aborted: (() => void) | undefined;
  const gone = new Promise<Response>((resolve) => {
    aborted = () => resolve(new Response(null, { status: 499 }));
    if (request.signal.aborted) aborted();
    else request.signal.addEventListener('abort', aborted, { once: true });
  });
  try {
    // A closed transport never answers: the abort is what ends the wait then.
    return await Promise.race([transport.handleRequest(request, { ...(authInfo !== undefined ? { authInfo } : {}), parsedBody }), gone]);
  } finally {
    request.signal.removeEventListener('abort', aborted!);
    closeWithoutStack(transport);
    server.close().catch(() => {});
  }
}

/**
 * Closes the request's transport. Its close has the SDK make a "Connection closed" error for the
 * calls still pending, whether any are or not (answered: none), and capturing its stack was about
 * 1.5 % of a read's CPU on a hosted instance (bench/RESULTS.md, hosted history). The error is made
 * synchronously inside close(), so it is made here with no stack; an abort it gives a call still
 * running (the client left) carries its message and code as before.
 */
export function closeWithoutStack(transport: { close(): Promise<void> }): void {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    transport.close().catch(() => {});
  } finally {
    Error.stackTraceLimit = limit;
  }
}
