/**
 * Growable byte buffers written and read in order: unsigned and zigzag varints, float64, UTF-8
 * strings, and bits. The pieces of the saved copies' columnar form (columnar-codec.ts).
 */

/**
 * Bytes grow in place up to this size, then in chunks of it: a column of a 100,000-transaction
 * copy doubled to 2 MB left the 1 MB before it to the collector, and the whole form copied once
 * more into one buffer, 24 MB of buffers for a 4.8 MB form (issue 61).
 */
const CHUNK = 64 * 1024;

export class ByteWriter {
  private buf = Buffer.alloc(256);
  /** Where the bytes not yet in `done` start in `buf`, and where the next goes. */
  private start = 0;
  private at = 0;
  /** Bytes before `buf`'s, in order: full chunks, and blocks of other writers taken as they are. */
  private readonly done: Uint8Array[] = [];
  length = 0;

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    if (this.done.length === 0 && this.start === 0 && this.at + n <= CHUNK) {
      let size = this.buf.length * 2;
      while (size < this.at + n) size *= 2;
      const next = Buffer.alloc(size);
      next.set(this.buf.subarray(0, this.at));
      this.buf = next;
      return;
    }
    this.seal();
    this.buf = Buffer.alloc(Math.max(CHUNK, n));
    this.start = this.at = 0;
  }

  /** Moves the bytes written into `buf` since the last seal to `done`. */
  private seal(): void {
    if (this.at > this.start) this.done.push(this.buf.subarray(this.start, this.at));
    this.start = this.at;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
    this.length++;
  }

  /** A non-negative safe integer, 7 bits a byte. */
  uint(n: number): void {
    this.room(8);
    const from = this.at;
    while (n >= 0x80) {
      this.buf[this.at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.at++] = n;
    this.length += this.at - from;
  }

  /** A safe integer of either sign (zigzag: small magnitudes take few bytes). */
  int(n: number): void {
    this.uint(n < 0 ? -n * 2 - 1 : n * 2);
  }

  float(n: number): void {
    this.room(8);
    this.buf.writeDoubleLE(n, this.at);
    this.at += 8;
    this.length += 8;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
    this.length += b.length;
  }

  /** Length-prefixed UTF-8 (the caller passes only well-formed strings), written in place. */
  string(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.uint(n);
    this.room(n);
    this.buf.write(s, this.at, n, 'utf8');
    this.at += n;
    this.length += n;
  }

  /** A length-prefixed block of another writer's bytes, taken as they are (that writer is not written to again). */
  block(w: ByteWriter): void {
    this.uint(w.length);
    if (w.length <= 256) {
      for (const p of w.pieces()) this.bytes(p);
      return;
    }
    this.seal();
    this.done.push(...w.pieces());
    this.length += w.length;
  }

  /** The bytes in order, in pieces: what view() joins. */
  pieces(): Uint8Array[] {
    const tail = this.buf.subarray(this.start, this.at);
    return tail.length ? [...this.done, tail] : [...this.done];
  }

  view(): Uint8Array {
    const pieces = this.pieces();
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, this.length);
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
