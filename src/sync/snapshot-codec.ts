/**
 * A replica snapshot to gzip'd JSON and back, a piece at a time. At 100,000 transactions the JSON
 * is about 60 MB; writing it as one JSON.stringify string (and reading it back as one string)
 * briefly doubled the server's memory after every sync. Here each entity is stringified on its
 * own into the gzip stream, and reading parses the gunzipped text as it comes (json-stream.ts).
 * The bytes are the same JSON as before, so files written by either version read with the other.
 * A copy of up to 16 MB of text (the demo budgets' are 1.5 MB) is read in one piece instead:
 * inflated off the main thread and given to JSON.parse, about twice as fast as the piecewise
 * parser, which hosted instances noticed in their tail (each reads every user's copy).
 */
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { promisify } from 'node:util';
import { createGunzip, createGzip, gunzip } from 'node:zlib';
import { JsonStreamParser } from '../api/json-stream.js';
import type { ReplicaSnapshot } from './replica.js';

/** Roughly how much JSON text is gathered before it is handed to gzip. */
const PIECE = 64 * 1024;

/** The snapshot's JSON, in pieces of about 64 kB (same text as JSON.stringify(snapshot)). */
export function* snapshotJson(snapshot: ReplicaSnapshot): Generator<string> {
  let piece = '{';
  let first = true;
  // A piece is handed on before a value that would take it past PIECE, so a piece is at most
  // PIECE long unless one value alone is longer.
  function* add(text: string): Generator<string> {
    if (piece.length && piece.length + text.length > PIECE) {
      yield piece;
      piece = '';
    }
    piece += text;
  }
  for (const [key, value] of Object.entries(snapshot)) {
    if (value === undefined) continue;
    yield* add(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (!Array.isArray(value)) {
      yield* add(JSON.stringify(value));
      continue;
    }
    yield* add('[');
    // JSON.stringify writes undefined and functions in arrays as null.
    for (let i = 0; i < value.length; i++) yield* add((i ? ',' : '') + (JSON.stringify(value[i]) ?? 'null'));
    yield* add(']');
  }
  yield `${piece}}`;
}

/** gzip'd JSON of the snapshot as a stream of compressed chunks, never holding the whole text. */
export function gzipSnapshot(snapshot: ReplicaSnapshot): Readable {
  return Readable.from(snapshotJson(snapshot)).pipe(createGzip());
}

/** Text up to this size is read in one piece (see the header). */
export const ONE_PIECE_BYTES = 16 * 1024 * 1024;

const inflate = promisify(gunzip);

/** The inflated size gzip's trailer states (modulo 4 GB: checked again while inflating). */
function statedSize(gz: Buffer): number {
  return gz.length >= 18 ? gz.readUInt32LE(gz.length - 4) : Number.POSITIVE_INFINITY;
}

/** Parses gzip'd JSON: in one piece when small (`onePiece` bytes of text at most), else as it is inflated. */
export async function gunzipJson(gz: Buffer, onePiece = ONE_PIECE_BYTES): Promise<unknown> {
  if (statedSize(gz) <= onePiece) {
    try {
      return JSON.parse((await inflate(gz, { maxOutputLength: onePiece })).toString('utf8'));
    } catch (e) {
      // A trailer that understated the size: read it piecewise after all.
      if ((e as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw e;
    }
  }
  return streamJson(gz);
}

/** Parses gzip'd JSON as it is inflated, never holding the whole text. */
async function streamJson(gz: Buffer): Promise<unknown> {
  const gunzip = createGunzip();
  const decoder = new StringDecoder('utf8');
  const parser = new JsonStreamParser();
  gunzip.end(gz);
  for await (const chunk of gunzip) parser.write(decoder.write(chunk as Buffer));
  parser.write(decoder.end());
  return parser.end();
}
