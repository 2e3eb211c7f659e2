/**
 * Growable byte buffers written and read in order: unsigned and zigzag varints, float64, UTF-8
 * strings and 16-byte UUIDs. The pieces of the saved copies' columnar form (columnar-codec.ts).
 */

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export class ByteWriter {
  private buf = new Uint8Array(256);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.length++] = b;
  }

  /** A non-negative safe integer, 7 bits a byte. */
  uint(n: number): void {
    this.room(8);
    while (n >= 0x80) {
      this.buf[this.length++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.length++] = n;
  }

  /** A safe integer of either sign (zigzag: small magnitudes take few bytes). */
  int(n: number): void {
    this.uint(n < 0 ? -n * 2 - 1 : n * 2);
  }

  float(n: number): void {
    this.room(8);
    new DataView(this.buf.buffer).setFloat64(this.length, n, true);
    this.length += 8;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }

  /** Length-prefixed UTF-8 (the caller passes only well-formed strings). */
  string(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.uint(b.length);
    this.bytes(b);
  }

  /** A canonical lowercase UUID (see isUuid) as its 16 bytes. */
  uuid(s: string): void {
    this.room(16);
    for (let i = 0; i < 36; i += 2) {
      if (s.charCodeAt(i) === 45) i++; // '-'
      this.buf[this.length++] = Number.parseInt(s.slice(i, i + 2), 16);
    }
  }

  /** A length-prefixed block of another writer's bytes. */
  block(w: ByteWriter): void {
    this.uint(w.length);
    this.bytes(w.view());
  }

  view(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

export class CorruptError extends Error {
  override readonly name = 'CorruptError';
}

export class ByteReader {
  at = 0;
  constructor(private readonly buf: Buffer) {}

  private need(n: number): void {
    if (this.at + n > this.buf.length) throw new CorruptError('the saved form ends early');
  }

  byte(): number {
    this.need(1);
    return this.buf[this.at++]!;
  }

  uint(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
      if (scale > 2 ** 56) throw new CorruptError('a number in the saved form is too long');
    }
  }

  int(): number {
    const z = this.uint();
    return z % 2 ? -(z + 1) / 2 : z / 2;
  }

  float(): number {
    this.need(8);
    const v = this.buf.readDoubleLE(this.at);
    this.at += 8;
    return v;
  }

  string(): string {
    const n = this.uint();
    this.need(n);
    const s = this.buf.toString('utf8', this.at, this.at + n);
    this.at += n;
    return s;
  }

  uuid(): string {
    this.need(16);
    const b = this.buf;
    const h = (i: number) => HEX[b[this.at + i]!]!;
    const s = `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
    this.at += 16;
    return s;
  }

  /** A length-prefixed block, as a reader of its own. */
  block(): ByteReader {
    const n = this.uint();
    this.need(n);
    const r = new ByteReader(this.buf.subarray(this.at, this.at + n));
    this.at += n;
    return r;
  }

  get done(): boolean {
    return this.at >= this.buf.length;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A UUID in the canonical lowercase form, the only one written as 16 bytes (others stay strings, so read back as written). */
export const isUuid = (s: string): boolean => s.length === 36 && UUID.test(s);
