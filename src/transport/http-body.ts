/**
 * The body of a request to the MCP endpoint, read here under the size limit before the MCP
 * handler sees it (http-requests.ts, http-deadline.ts). A body over the limit, declared (Content-Length) or
 * streamed (chunked), gets its 413 at once, and what the client is still sending is read and
 * thrown away, up to DISCARD_BYTES or DISCARD_MS, before the connection closes. Closing while the
 * client is still sending makes its side see a reset, and most clients then report a cut
 * connection (no status at all) instead of the 413 already on its way; the SDK's node adapter's own limit
 * did exactly that (it stops reading, answers, and closes), in two runs of three.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What is read and thrown away after a 413 at most; past it the connection is cut. */
export const DISCARD_BYTES = 64 * 1024 * 1024;
/** How long a 413's connection waits at most for the rest of the body. */
export const DISCARD_MS = 5_000;

export function tooLargeMessage(maxBytes: number): string {
  return `Payload Too Large: Request body must not exceed ${maxBytes} bytes`;
}

/**
 * Answers 413 now (the answer is complete: its length is declared), then reads what still comes
 * and ends the response, which closes the connection, once the body has ended or the bound is
 * reached: the answer is flushed before the close, and the close finds nothing left unread.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse, maxBytes: number): void {
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: tooLargeMessage(maxBytes) }, id: null });
  res.writeHead(413, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), connection: 'close' });
  res.write(text);
  let discarded = 0;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    req.off('data', discard);
    res.end();
  };
  const discard = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_BYTES) end();
  };
  const timer = setTimeout(end, DISCARD_MS);
  timer.unref();
  req.on('data', discard);
  req.once('end', end);
  req.once('close', end);
  if (req.readableEnded) end();
}

/** The request's body, read whole, or undefined once this answered (413) or the client went away. */
export function readBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<Buffer | undefined> {
  if (Number(req.headers['content-length']) > maxBytes) {
    refuseTooLarge(req, res, maxBytes);
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const settle = (result: Buffer | undefined) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      req.off('error', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= maxBytes) return void chunks.push(chunk);
      chunks.length = 0;
      settle(undefined);
      refuseTooLarge(req, res, maxBytes);
    };
    const onEnd = () => settle(Buffer.concat(chunks));
    // Gone before the body ended: nobody to answer.
    const onClose = () => {
      settle(undefined);
      res.destroy();
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('close', onClose);
    req.once('error', onClose);
  });
}

/**
 * The body as JSON, parsed once here for every layer that looks into it (the deadline's log name,
 * listen streams' alerts, session ids) and for the SDK (its `parsedBody`), each of which read and
 * parsed a copy of the request of its own before (three copies and three parses a call); or
 * undefined when the body is empty or not JSON, which the SDK then reads and answers as before.
 */
export function jsonBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
