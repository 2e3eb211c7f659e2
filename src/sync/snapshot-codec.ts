/**
 * A replica snapshot to gzip'd JSON and back, a piece at a time. At 100,000 transactions the JSON
 * is about 60 MB; writing it as one JSON.stringify string (and reading it back as one string)
 * briefly doubled the server's memory after every sync. Here each entity is stringified on its
 * own into the gzip stream, and reading parses the gunzipped text as it comes (json-stream.ts).
 * The bytes are the same JSON as before, so files written by either version read with the other.
 */
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip } from 'node:zlib';
import { JsonStreamParser } from '../api/json-stream.js';
import type { ReplicaSnapshot } from './replica.js';

/** Roughly how much JSON text is gathered before it is handed to gzip. */
const PIECE = 64 * 1024;

/** The snapshot's JSON, in pieces of about 64 kB (same text as JSON.stringify(snapshot)). */
export function* snapshotJson(snapshot: ReplicaSnapshot): Generator<string> {
  let piece = '';
  let first = true;
  piece += '{';
  for (const [key, value] of Object.entries(snapshot)) {
    if (value === undefined) continue;
    piece += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (!Array.isArray(value)) {
      piece += JSON.stringify(value);
      continue;
    }
    piece += '[';
    for (let i = 0; i < value.length; i++) {
      // JSON.stringify writes undefined and functions in arrays as null.
      piece += (i ? ',' : '') + (JSON.stringify(value[i]) ?? 'null');
      if (piece.length >= PIECE) {
        yield piece;
        piece = '';
      }
    }
    piece += ']';
  }
  yield `${piece}}`;
}

/** gzip'd JSON of the snapshot as a stream of compressed chunks, never holding the whole text. */
export function gzipSnapshot(snapshot: ReplicaSnapshot): Readable {
  return Readable.from(snapshotJson(snapshot)).pipe(createGzip());
}

/** Parses gzip'd JSON as it is inflated, never holding the whole text. */
export async function gunzipJson(gz: Buffer): Promise<unknown> {
  const gunzip = createGunzip();
  const decoder = new StringDecoder('utf8');
  const parser = new JsonStreamParser();
  gunzip.end(gz);
  for await (const chunk of gunzip) parser.write(decoder.write(chunk as Buffer));
  parser.write(decoder.end());
  return parser.end();
}
