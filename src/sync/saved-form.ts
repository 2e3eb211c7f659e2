/**
 * Saved copies and feeds as they are sealed: the columnar form (columnar-codec.ts) compressed with
 * brotli. Quality 6 with a 256 kB window: quality 11 saved a few per cent more of the demo budgets
 * for many times the CPU, and both compressing and inflating run off the main thread (zlib's pool),
 * while encoding and decoding the columns run on it. The 4 MB window before took 12 MB more while a
 * 100,000-transaction copy was compressed, for 0.1 % of its size (2,344,543 bytes against
 * 2,346,451, issue 61).
 */
import { promisify } from 'node:util';
import { brotliDecompress, constants, createBrotliCompress } from 'node:zlib';
import { encodeColumnarPieces } from './columnar-codec.js';
import { decodeColumnar, decodeColumnarDeferring } from './columnar-reader.js';

export const BROTLI_QUALITY = 6;
const BROTLI_WINDOW_BITS = 18;

const decompress = promisify(brotliDecompress);

/** Inflated forms larger than this are refused (a 100,000-transaction budget is a few MB). */
const MAX_FORM_BYTES = 512 * 1024 * 1024;

/** `alone`: that field is coded referring back to no row before it (columnar-codec.ts encodeColumnar); reading must be told the same. */
export async function packValue(value: object, quality = BROTLI_QUALITY, alone?: string): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of packStream(value, quality, alone)) out.push(c as Buffer);
  return Buffer.concat(out);
}

/**
 * packValue's bytes as brotli gives them, to be sealed piece by piece (seal.ts sealStream): joined
 * first, the compressed form was held three times more while it was sealed, 7 MB beside a
 * 100,000-transaction copy's save (issue 61). The columns' pieces are compressed one after another
 * by one stream, never joined into one buffer beside them.
 */
export function packStream(value: object, quality = BROTLI_QUALITY, alone?: string): AsyncIterable<Uint8Array> {
  const pieces = encodeColumnarPieces(value, alone);
  const size = pieces.reduce((n, p) => n + p.length, 0);
  const stream = createBrotliCompress({
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
      [constants.BROTLI_PARAM_SIZE_HINT]: size,
    },
  });
  for (const p of pieces) stream.write(p);
  stream.end();
  return stream;
}

/**
 * Inflated in chunks of this size: with zlib's 16 kB, a demo copy (116 kB inflated) came back in
 * eight answers from the pool, each handled on the main thread: 0.50 ms of CPU a read, 0.33 ms in
 * one chunk (2026-11-25).
 */
const INFLATE_CHUNK_BYTES = 256 * 1024;

const inflated = (packed: Uint8Array) => decompress(packed, { maxOutputLength: MAX_FORM_BYTES, chunkSize: INFLATE_CHUNK_BYTES });

export async function unpackValue(packed: Uint8Array, alone?: string): Promise<Record<string, unknown>> {
  return decodeColumnar(await inflated(packed), alone);
}

/** The value packValue was given, its last field `key` left to be read by `rest` (columnar-reader.ts decodeColumnarDeferring; call it once). */
export async function unpackDeferring(packed: Uint8Array, key: string, alone?: string): Promise<{ value: Record<string, unknown>; rest?: () => unknown }> {
  return decodeColumnarDeferring(await inflated(packed), key, alone);
}
