/**
 * HTTP methods at the MCP endpoint. Both protocol eras the server speaks send every message as a
 * POST: 2026-07-28 clients listen for changes through a POST (subscriptions/listen), and 2025-era
 * clients are served statelessly, so the session operations of that era (GET for a stream, DELETE
 * to end a session) have nothing to act on; their signed session ids (http-sessions.ts) are never
 * withdrawn, and 405 to DELETE is how the specification lets such a server say so. Every other
 * method is answered 405 with
 * `Allow: POST`, before the bearer token is looked at (the answer depends on nothing else):
 *  - methods node parses reach the request handler (`refuseMethod`);
 *  - TRACE, TRACK and CONNECT would otherwise fail further in: the Fetch API the SDK adapter
 *    builds on refuses to construct such a request (a 500), node hands CONNECT to a 'connect'
 *    listener (without one it drops the socket) and its parser refuses methods it does not know
 *    (a bare 400). `answerUnservedMethods` answers those at the socket.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export const ALLOWED_METHODS = 'POST';

export function methodServed(method: string | undefined): boolean {
  return method === 'POST';
}

function body(method: string | undefined): string {
  const what = method ? `${method} is` : 'this method is';
  return JSON.stringify({
    jsonrpc: '2.0',
    error: { code: -32000, message: `Method not allowed: ${what} not served here; MCP messages are sent with POST` },
    id: null,
  });
}

export function refuseMethod(req: IncomingMessage, res: ServerResponse): void {
  // node leaves the body out of an answer to HEAD by itself.
  res.writeHead(405, { 'content-type': 'application/json', allow: ALLOWED_METHODS });
  res.end(body(req.method));
}

function rawRefusal(socket: Duplex, method: string | undefined): void {
  const text = body(method);
  if (!socket.writable) return void socket.destroy();
  // Closed once the answer is flushed, whether or not the client closes its side.
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\nAllow: ${ALLOWED_METHODS}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    () => socket.destroy(),
  );
}

// node's own answers to the other client errors, as it sends them when nobody listens.
const CANNED: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n',
  ERR_HTTP_REQUEST_TIMEOUT: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
};
const BAD_REQUEST = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';

/**
 * Answers methods that never reach the request handler with 405. A 'clientError' listener
 * replaces node's default answer for every client error, so the others get node's own answers.
 */
export function answerUnservedMethods(server: Server): void {
  server.on('connect', (req: IncomingMessage, socket: Duplex) => rawRefusal(socket, req.method));
  server.on('clientError', (err: NodeJS.ErrnoException & { bytesParsed?: number; rawPacket?: Buffer }, socket: Duplex) => {
    if (err.code === 'HPE_INVALID_METHOD') {
      const method = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}(?= )/.exec(err.rawPacket?.toString('latin1') ?? '')?.[0];
      return rawRefusal(socket, method);
    }
    // As node does: answer only when no response to this socket has started.
    const s = socket as Duplex & { _httpMessage?: { _headerSent?: boolean } | null };
    if (s.writable && !s._httpMessage?._headerSent) s.write(CANNED[err.code ?? ''] ?? BAD_REQUEST);
    s.destroy(err);
  });
}
