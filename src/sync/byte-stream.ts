/**
 * Growable byte buffers written and read in order: unsigned and zigzag varints, float64, UTF-8
 * strings, and bits. The pieces of the saved copies' columnar form (columnar-codec.ts).
 */

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
  constructor(readonly buf: Buffer) {}

  private need(n: number): void {
    if (this.at + n > this.buf.length) throw new CorruptError('the saved form ends early');
  }

  byte(): number {
    const b = this.buf[this.at];
    if (b === undefined) throw new CorruptError('the saved form ends early');
    this.at++;
    return b;
  }

  uint(): number {
    // Most numbers are one byte: read without the loop (reading copies is on the hosted tail).
    const first = this.buf[this.at];
    if (first !== undefined && first < 0x80) {
      this.at++;
      return first;
    }
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

  /** Skips `n` bytes, returning where they start in `buf`. */
  skip(n: number): number {
    this.need(n);
    this.at += n;
    return this.at - n;
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

/** Values of a fixed width in bits, packed (the 10 bits of a random UUID that are not in its whole bytes). */
export class BitWriter {
  readonly out = new ByteWriter();
  private acc = 0;
  private n = 0;

  write(v: number, width: number): void {
    for (let i = width - 1; i >= 0; i--) {
      this.acc = (this.acc << 1) | ((v >> i) & 1);
      if (++this.n === 8) {
        this.out.byte(this.acc);
        this.acc = 0;
        this.n = 0;
      }
    }
  }

  /** The bytes, the last one padded with zeros. */
  finish(): ByteWriter {
    if (this.n) this.out.byte(this.acc << (8 - this.n));
    this.acc = 0;
    this.n = 0;
    return this.out;
  }
}

export class BitReader {
  private acc = 0;
  private n = 0;
  constructor(private readonly bytes: ByteReader) {}

  read(width: number): number {
    let v = 0;
    for (let i = 0; i < width; i++) {
      if (this.n === 0) {
        this.acc = this.bytes.byte();
        this.n = 8;
      }
      this.n--;
      v = (v << 1) | ((this.acc >> this.n) & 1);
    }
    return v;
  }

  get done(): boolean {
    return this.bytes.done;
  }
}
