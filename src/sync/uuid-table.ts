/**
 * The UUIDs of a saved copy's columnar form: each written once, as bytes, when first met; after
 * that by index, or by how many UUIDs back it was met when that is smaller (a transfer's other
 * side, met a row before). A random (version 4) UUID has 6 fixed bits: 122 bits are kept.
 */
import { BitReader, BitWriter, ByteReader, ByteWriter, CorruptError } from './byte-stream.js';
import { T } from './columnar-tags.js';
import { StringIndex } from './string-index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A UUID in the canonical lowercase form, the only one written as bytes (others stay strings, so read back as written). */
export const isUuid = (s: string): boolean => s.length === 36 && UUID.test(s);

/** Each byte's two hex digits as character codes: byte b's at 2b and 2b + 1. */
const HEX_CODES = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  const hex = i.toString(16).padStart(2, '0');
  HEX_CODES[2 * i] = hex.charCodeAt(0);
  HEX_CODES[2 * i + 1] = hex.charCodeAt(1);
}
/** Where each byte's two hex digits are in the text form. */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

const nibble = (c: number) => (c <= 57 ? c - 48 : c - 87); // '0'-'9', 'a'-'f'
const byteAt = (s: string, i: number) => (nibble(s.charCodeAt(AT[i]!)) << 4) | nibble(s.charCodeAt(AT[i]! + 1));

/** The text form is written here, its dashes in place, then made a string in one piece. */
const TEXT = Buffer.alloc(36, '-');

/**
 * The text form of the 16 bytes at `o`, as one flat string. Joined with `+` from its 20 pieces,
 * V8 kept each UUID as a tree of about 14 string pieces (cons strings, 32 bytes each): 800 kB of
 * a demo copy's 1.27 MB in memory, each piece copied by the collector while young, and 1.1 us a
 * UUID against 0.1 us (2026-11-25).
 */
function textOf(b: Uint8Array, o = 0): string {
  for (let i = 0; i < 16; i++) {
    const c = b[o + i]! << 1;
    const at = AT[i]!;
    TEXT[at] = HEX_CODES[c]!;
    TEXT[at + 1] = HEX_CODES[c + 1]!;
  }
  return TEXT.toString('latin1', 0, 36);
}

export class UuidWriter {
  readonly index = new StringIndex();
  private readonly bytes = new ByteWriter();
  private readonly bits = new BitWriter();

  /** Writes the tag of `v` to `tags`, and its index or bytes. */
  write(tags: ByteWriter, nums: ByteWriter, v: string): void {
    const at = this.index.get(v);
    if (at !== undefined) {
      const back = this.index.size - 1 - at;
      tags.byte(back < at ? T.UuidBack : T.UuidRef);
      nums.uint(Math.min(back, at));
      return;
    }
    this.index.add(v);
    const [b6, b8] = [byteAt(v, 6), byteAt(v, 8)];
    // Version 4, variant 10: the 10 bits left of bytes 6 and 8 go with the bits, the other 14 bytes whole.
    const random = b6 >> 4 === 4 && b8 >> 6 === 2;
    tags.byte(random ? T.UuidNew4 : T.UuidNew);
    for (let i = 0; i < 16; i++) if (!random || (i !== 6 && i !== 8)) this.bytes.byte(byteAt(v, i));
    if (random) this.bits.write(((b6 & 0x0f) << 6) | (b8 & 0x3f), 10);
  }

  writeTo(out: ByteWriter): void {
    out.uint(this.index.size);
    out.block(this.bytes);
    out.block(this.bits.finish());
  }
}

export class UuidReader {
  private readonly seen: string[] = [];
  /** The index of the UUID read last, and whether it was met there for the first time. */
  last = -1;
  lastNew = false;
  private count = 0;
  private bytes = new ByteReader(Buffer.alloc(0));
  private bits = new BitReader(this.bytes);
  private readonly whole = new Uint8Array(16);

  /** Reads what writeTo wrote (after the tables that use it). */
  readFrom(r: ByteReader): void {
    this.count = r.uint();
    this.bytes = r.block();
    this.bits = new BitReader(r.block());
  }

  read(tag: number, nums: ByteReader): string {
    if (tag === T.UuidRef || tag === T.UuidBack) {
      const n = nums.uint();
      const at = tag === T.UuidRef ? n : this.seen.length - 1 - n;
      const v = this.seen[at];
      if (v === undefined) throw new CorruptError('a reference in the saved form points past what was read');
      this.last = at;
      this.lastNew = false;
      return v;
    }
    let v: string;
    const src = this.bytes.buf;
    if (tag === T.UuidNew) v = textOf(src, this.bytes.skip(16));
    else {
      const at = this.bytes.skip(14);
      const low = this.bits.read(10);
      const b = this.whole;
      for (let i = 0; i < 6; i++) b[i] = src[at + i]!;
      b[6] = 0x40 | (low >> 6);
      b[7] = src[at + 6]!;
      b[8] = 0x80 | (low & 0x3f);
      for (let i = 9; i < 16; i++) b[i] = src[at + i - 2]!;
      v = textOf(b);
    }
    this.last = this.seen.push(v) - 1;
    this.lastNew = true;
    return v;
  }

  /** Whether every UUID written was read, and nothing else. */
  get complete(): boolean {
    return this.seen.length === this.count && this.bytes.done;
  }
}
