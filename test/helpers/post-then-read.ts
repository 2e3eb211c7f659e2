/**
 * A client that reads the answer only once it has sent its whole request, as simple clients do:
 * it gets an early answer (a 413) only if the server read the rest of the body before closing.
 * Used by the body limit tests of the MCP endpoint, local and hosted.
 */
import { connect as netConnect } from 'node:net';

/**
 * POSTs `body` over a raw socket kept paused until all of it is written, then reads the answer:
 * "<status> <the JSON-RPC error's message>", or "no answer: <why>". Chunked: the body goes as
 * 64 KiB chunks, with no length declared.
 */
export function postThenRead(url: string, headers: Record<string, string>, body: Buffer, chunked = false): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = netConnect({ host: u.hostname, port: Number(u.port) });
    socket.pause();
    let text = '';
    socket.on('error', (e) => resolve(`no answer: ${e.message}${text ? `, after ${JSON.stringify(text.slice(0, 40))}` : ''}`));
    const head = [`POST ${u.pathname} HTTP/1.1`, `Host: ${u.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'Connection: close'];
    head.push(chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`);
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    const framed: Buffer[] = [];
    for (let at = 0; chunked && at < body.length; at += 64 * 1024) {
      const piece = body.subarray(at, at + 64 * 1024);
      framed.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
    }
    socket.write(chunked ? Buffer.concat([...framed, Buffer.from('0\r\n\r\n')]) : body, () => {
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (text += c));
      socket.on('end', () => {
        const answer = text.slice(text.indexOf('\r\n\r\n') + 4);
        let message = answer;
        try {
          message = (JSON.parse(answer) as { error: { message: string } }).error.message;
        } catch {
          // Not a JSON-RPC error: the answer as it came.
        }
        resolve(`${/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]} ${message}`);
      });
      socket.resume();
    });
  });
}
