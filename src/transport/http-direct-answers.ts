/**
 * The 2025-era calls answered whole (http-whole-answers.ts), served straight from node:http: the
 * JSON-RPC request goes to a server from the factory over a transport that holds only this one
 * exchange, and its answer is written as the JSON text it is. The SDK's way builds a web Request
 * from the node request, a per-request WebStandardStreamableHTTPServerTransport that checks it, and
 * a web Response that is then read back into bytes: about a fifth of a hosted read's CPU, on every
 * call (bench/RESULTS.md, hosted history).
 *
 * Only a request that every check of the SDK's would pass is served here, so nothing is answered
 * differently: a POST of one JSON-RPC request (not initialize, whose answer may carry a session
 * id: http-sessions.ts), with a JSON Content-Type, an Accept of both JSON and an event stream, an
 * MCP-Protocol-Version the SDK supports or none, that the SDK's own classifier routes to its
 * 2025-era serving, and that its own schema parses. Anything else goes the SDK's way, which
 * answers it as before (406, 415, 400 and the rest), as does every 2026-07-28 request.
 */
import type { IncomingMessage } from 'node:http';
import {
  classifyInboundRequest,
  isJsonContentType,
  isJSONRPCRequest,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
  type AuthInfo,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpServer,
  type Transport,
} from '@modelcontextprotocol/server';
import { answeredWhole, closeWithoutStack } from './http-whole-answers.js';

/** A header of the request as the web's Headers.get gives it: repeated values joined, absent null. */
export type HeaderOf = (name: string) => string | null;

export const nodeHeaderOf =
  (req: IncomingMessage): HeaderOf =>
  (name) => {
    const value = req.headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  };

/** The server for one 2025-era request: who asks (when authenticated), and its headers (the session id's claims). */
export type LegacyServerFor = (auth: AuthInfo | undefined, header: HeaderOf) => McpServer | Promise<McpServer>;

/** An answer written whole: its status and JSON text, or no body (the client left). */
export interface DirectAnswer {
  status: number;
  json?: string;
}

/** The JSON-RPC request of `parsed` when this path may serve it (see above); otherwise undefined. */
export function directRequest(req: IncomingMessage, parsed: unknown): JSONRPCRequest | undefined {
  if (req.method !== 'POST' || !answeredWhole(parsed) || (parsed as { method: string }).method === 'initialize') return undefined;
  const header = nodeHeaderOf(req);
  if (!isJsonContentType(header('content-type'))) return undefined;
  const accept = header('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const version = header('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    ...(version !== null ? { protocolVersionHeader: version } : {}),
    ...optional('mcpMethodHeader', header('mcp-method')),
    ...optional('mcpNameHeader', header('mcp-name')),
    body: parsed,
  });
  if (route.kind !== 'legacy') return undefined;
  let message: JSONRPCMessage;
  try {
    message = parseJSONRPCMessage(parsed);
  } catch {
    return undefined;
  }
  return isJSONRPCRequest(message) ? message : undefined;
}

const optional = <K extends string>(key: K, value: string | null) => (value === null ? {} : ({ [key]: value } as Record<K, string>));

/**
 * A Transport for one request: it hands the request to the server and resolves `answer` with the
 * response to it. What else the server sends during the call (a notification, a request of its
 * own) is dropped, as the SDK's JSON answers drop it: a 2025-era client over HTTP is sent nothing
 * mid-call (http-whole-answers.ts).
 */
class OneExchange implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  readonly answer: Promise<JSONRPCMessage | undefined>;
  private settle!: (message: JSONRPCMessage | undefined) => void;
  private closed = false;

  constructor(private readonly id: JSONRPCRequest['id']) {
    this.answer = new Promise((resolve) => (this.settle = resolve));
  }

  async start(): Promise<void> {}

  /**
   * What the server sends is built by the SDK's Protocol, not read from outside: its answer to the
   * request is the message with the request's id and no method (a request or notification of its
   * own has one). Not parsed again with the SDK's schemas: that read the whole result a second
   * time (about 2 % of a call's CPU on a hosted instance under a crowd, bench/RESULTS.md hosted).
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!('method' in message) && 'id' in message && message.id === this.id) this.settle(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.settle(undefined);
    this.onclose?.();
  }
}

/**
 * Answers `request` with a server from `serverFor`, closed once it has answered or the request is
 * aborted (the client left, or its deadline passed: the call's work is cancelled with the server,
 * and the answer is a 499 no one reads). A throw is the caller's to answer (a 500 with the id).
 */
export async function answerDirect(
  serverFor: LegacyServerFor,
  req: IncomingMessage & { auth?: AuthInfo },
  request: JSONRPCRequest,
  signal: AbortSignal,
): Promise<DirectAnswer> {
  const server = await serverFor(req.auth, nodeHeaderOf(req));
  const transport = new OneExchange(request.id);
  await server.connect(transport);
  const aborted = () => void closeWithoutStack(transport);
  if (signal.aborted) aborted();
  else signal.addEventListener('abort', aborted, { once: true });
  try {
    transport.onmessage?.(request, req.auth !== undefined ? { authInfo: req.auth } : undefined);
    const answer = await transport.answer;
    return answer === undefined ? { status: 499 } : { status: 200, json: JSON.stringify(answer) };
  } finally {
    signal.removeEventListener('abort', aborted);
    closeWithoutStack(transport);
    server.close().catch(() => {});
  }
}
