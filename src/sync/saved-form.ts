/**
 * Saved copies and feeds as they are sealed: the columnar form (columnar-codec.ts) compressed with
 * brotli. Quality 6 with a 256 kB window: quality 11 saved a few per cent more of the demo budgets
 * for many times the CPU. Large forms are compressed and inflated off the main thread (zlib's
 * pool), small ones in one step on it (COMPRESS_ONE_STEP_BYTES), while encoding and decoding the
 * columns run on it. The 4 MB window before took 12 MB more while a
 * 100,000-transaction copy was compressed, for 0.1 % of its size (2,344,543 bytes against
 * 2,346,451, issue 61).
 */
import { promisify } from 'node:util';
import { brotliCompressSync, brotliDecompress, brotliDecompressSync, constants, createBrotliCompress } from 'node:zlib';
import { encodeColumnarPieces } from './columnar-codec.js';
import { decodeColumnar, decodeColumnarDeferring } from './columnar-reader.js';

export const BROTLI_QUALITY = 6;
const BROTLI_WINDOW_BITS = 18;

const decompress = promisify(brotliDecompress);

/** Inflated forms larger than this are refused (a 100,000-transaction budget is a few MB). */
const MAX_FORM_BYTES = 512 * 1024 * 1024;

/**
 * Forms up to these sizes are compressed (encoded bytes) and inflated (packed bytes) in one step
 * on the main thread: a feed, a demo budget's copy (about 116 kB encoded, 48 kB packed). Why: zlib's
 * pool takes a turn of the event loop to hand each piece back, and under a crowd a turn of a
 * hosted instance's loop took 100-300 ms, so a write's feed, a few kB, took 80-1,300 ms to seal
 * while its request kept its admission slot (bench/RESULTS.md, hosted). In one step: 0.2-0.5 ms
 * for a feed, 3.4 ms to compress a demo copy and 0.4 ms to inflate it. Larger forms (a
 * 100,000-transaction copy: 2.3 MB packed) still go through the pool, piece by piece, so the
 * main thread is not held for tens of ms and the form is never joined (memory, issue 61).
 */
export const COMPRESS_ONE_STEP_BYTES = 128 * 1024;
export const INFLATE_ONE_STEP_BYTES = 128 * 1024;

const brotliParams = (quality: number, size: number) => ({
  [constants.BROTLI_PARAM_QUALITY]: quality,
  [constants.BROTLI_PARAM_LGWIN]: BROTLI_WINDOW_BITS,
  [constants.BROTLI_PARAM_SIZE_HINT]: size,
});

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
 * by one stream, never joined into one buffer beside them. A form of COMPRESS_ONE_STEP_BYTES at
 * most is joined and compressed at once: one piece, no turn of the loop.
 */
export function packStream(value: object, quality = BROTLI_QUALITY, alone?: string): AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  const pieces = encodeColumnarPieces(value, alone);
  const size = pieces.reduce((n, p) => n + p.length, 0);
  // A small form in one piece, without a turn of the loop (COMPRESS_ONE_STEP_BYTES).
  if (size <= COMPRESS_ONE_STEP_BYTES) return [brotliCompressSync(Buffer.concat(pieces), { params: brotliParams(quality, size) })];
  const stream = createBrotliCompress({ params: brotliParams(quality, size) });
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

const inflated = (packed: Uint8Array): Buffer | Promise<Buffer> => {
  const opts = { maxOutputLength: MAX_FORM_BYTES, chunkSize: INFLATE_CHUNK_BYTES };
  // A small form in one step, without a turn of the loop (INFLATE_ONE_STEP_BYTES).
  return packed.length <= INFLATE_ONE_STEP_BYTES ? brotliDecompressSync(packed, opts) : decompress(packed, opts);
};

export async function unpackValue(packed: Uint8Array, alone?: string): Promise<Record<string, unknown>> {
  return decodeColumnar(await inflated(packed), alone);
}

/** The value packValue was given, its last field `key` left to be read by `rest` (columnar-reader.ts decodeColumnarDeferring; call it once). */
export async function unpackDeferring(packed: Uint8Array, key: string, alone?: string): Promise<{ value: Record<string, unknown>; rest?: () => unknown }> {
  return decodeColumnarDeferring(await inflated(packed), key, alone);
}
