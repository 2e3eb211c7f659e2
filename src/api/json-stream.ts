/**
 * Parses JSON text as it arrives, in pieces, into the same value JSON.parse gives, so that a large
 * answer never exists as one string: a budget export at 100,000 transactions is about 60 MB of
 * text, and holding it (and the buffers it came in) besides the parsed budget roughly doubled the
 * server's memory. Only the outer skeleton (objects that are not inside an array) is parsed here;
 * the elements of arrays (transactions, months) are handed to JSON.parse, which keeps parsing
 * native-fast and strict:
 *  - in bulk: the elements up to the last `},{` of the text at hand are parsed as one array. That
 *    cut is only valid between two elements of this array; anywhere else (inside a string, or
 *    between the elements of a nested array) the bulk text is not valid JSON, JSON.parse says so,
 *    and the careful way is taken past that point;
 *  - carefully: one element, whose end is found by scanning (strings and nesting tracked).
 *
 * Used for API answers (client/transport.ts) and saved replicas (sync/persist.ts).
 */

type Frame =
  | { kind: 'object'; value: Record<string, unknown>; key: string; expect: 'key' | 'colon' | 'value' | 'comma'; first: boolean }
  | { kind: 'array'; value: unknown[]; expect: 'value' | 'comma'; first: boolean };

/** A container being scanned for its end, resumable across pieces. */
interface Capture {
  depth: number;
  inString: boolean;
  /** Where scanning continues, as an index into the buffer. */
  at: number;
}

const WS = new Set([0x20, 0x0a, 0x0d, 0x09]);
/** Characters that end a number or a literal (true, false, null). */
const DELIM = new Set([0x2c, 0x5d, 0x7d, 0x20, 0x0a, 0x0d, 0x09]);

function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  // JSON.parse makes "__proto__" an own property; plain assignment would set the prototype.
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

export interface ParserOptions {
  /**
   * Fields of an array's objects whose equal string values become one string, as they are parsed:
   * each row's copy of an account's id, say, then dies young instead of being kept until the copy
   * shares them (a 100,000-transaction export held 20 MB of such copies: issue 61). No value
   * changes, only which copy of an equal string a row holds.
   */
  share?: ReadonlySet<string>;
}

export class JsonStreamParser {
  /** One copy of each value of a shared field met so far (ParserOptions.share). */
  private readonly strings: Map<string, string> | undefined;

  constructor(private readonly opts: ParserOptions = {}) {
    this.strings = opts.share?.size ? new Map() : undefined;
  }

  /** An array's element, its shared fields' strings made one copy each. */
  private shareIn(item: unknown): void {
    if (!this.strings || item === null || typeof item !== 'object' || Array.isArray(item)) return;
    const row = item as Record<string, unknown>;
    for (const f of this.opts.share!) {
      const v = row[f];
      if (typeof v !== 'string') continue;
      const kept = this.strings.get(v);
      if (kept === undefined) this.strings.set(v, v);
      else row[f] = kept;
    }
  }

  private buf = '';
  private pos = 0;
  /** Characters consumed before `buf` starts, for error positions. */
  private offset = 0;
  private readonly stack: Frame[] = [];
  private capture: Capture | undefined;
  private root: unknown;
  private done = false;
  /** Absolute position before which bulk parsing failed once: elements there are scanned carefully. */
  private carefulUntil = 0;

  /** Feeds the next piece of text; throws a SyntaxError as soon as the text cannot be JSON. */
  write(piece: string): void {
    if (!piece) return;
    if (this.pos > 0) {
      this.offset += this.pos;
      if (this.capture) this.capture.at -= this.pos;
      this.buf = this.buf.slice(this.pos);
      this.pos = 0;
    }
    this.buf += piece;
    this.run(false);
  }

  /** Ends the input and returns the value; throws a SyntaxError when the text was incomplete. */
  end(): unknown {
    this.run(true);
    this.skipWhitespace();
    if (!this.done || this.stack.length || this.capture) throw new SyntaxError('Unexpected end of JSON input');
    if (this.pos < this.buf.length) this.fail('Unexpected non-whitespace character after JSON');
    return this.root;
  }

  private fail(message: string): never {
    throw new SyntaxError(`${message} at position ${this.offset + this.pos}`);
  }

  private skipWhitespace(): void {
    const b = this.buf;
    let p = this.pos;
    while (p < b.length && WS.has(b.charCodeAt(p))) p++;
    this.pos = p;
  }

  private run(final: boolean): void {
    for (;;) {
      if (this.capture) {
        if (!this.scanCapture()) return;
        continue;
      }
      this.skipWhitespace();
      if (this.pos >= this.buf.length) return;
      const top = this.stack[this.stack.length - 1];
      if (!top) {
        if (this.done) this.fail('Unexpected non-whitespace character after JSON');
        if (!this.value(final, false)) return;
        continue;
      }
      const c = this.buf.charCodeAt(this.pos);
      if (top.kind === 'object') {
        switch (top.expect) {
          case 'key':
            if (c === 0x7d && top.first) {
              this.pos++;
              this.close();
            } else if (c === 0x22) {
              const end = this.stringEnd(this.pos);
              if (end < 0) return;
              top.key = JSON.parse(this.buf.slice(this.pos, end)) as string;
              this.pos = end;
              top.expect = 'colon';
            } else this.fail('Expected a property name');
            break;
          case 'colon':
            if (c !== 0x3a) this.fail("Expected ':' after a property name");
            this.pos++;
            top.expect = 'value';
            break;
          case 'value':
            if (!this.value(final, false)) return;
            break;
          case 'comma':
            this.pos++;
            if (c === 0x2c) {
              top.expect = 'key';
              top.first = false;
            } else if (c === 0x7d) this.close();
            else {
              this.pos--;
              this.fail("Expected ',' or '}' after a property value");
            }
        }
      } else if (top.expect === 'value') {
        if (c === 0x5d && top.first) {
          this.pos++;
          this.close();
        } else if (c === 0x7b && this.bulk(top)) {
          continue;
        } else if (!this.value(final, true)) return;
      } else {
        this.pos++;
        if (c === 0x2c) {
          top.expect = 'value';
          top.first = false;
        } else if (c === 0x5d) this.close();
        else {
          this.pos--;
          this.fail("Expected ',' or ']' after an array element");
        }
      }
    }
  }

  /** Reads one value at pos; false when it is not complete yet. Containers in arrays are captured whole. */
  private value(final: boolean, inArray: boolean): boolean {
    const c = this.buf.charCodeAt(this.pos);
    if (c === 0x7b || c === 0x5b) {
      if (inArray) {
        this.capture = { depth: 0, inString: false, at: this.pos };
        return true;
      }
      this.pos++;
      this.stack.push(
        c === 0x7b ? { kind: 'object', value: {}, key: '', expect: 'key', first: true } : { kind: 'array', value: [], expect: 'value', first: true },
      );
      return true;
    }
    let end: number;
    if (c === 0x22) {
      end = this.stringEnd(this.pos);
      if (end < 0) return false;
    } else {
      end = this.pos;
      while (end < this.buf.length && !DELIM.has(this.buf.charCodeAt(end))) end++;
      if (end === this.buf.length && !final) return false;
      if (end === this.pos) this.fail(`Unexpected character ${JSON.stringify(this.buf[this.pos])}`);
    }
    let v: unknown;
    try {
      v = JSON.parse(this.buf.slice(this.pos, end));
    } catch {
      this.fail(`Invalid value ${JSON.stringify(this.buf.slice(this.pos, Math.min(end, this.pos + 40)))}`);
    }
    this.pos = end;
    this.emit(v);
    return true;
  }

  /** Parses the elements up to the last `},{` at hand in one go; false when that is not possible here. */
  private bulk(array: Extract<Frame, { kind: 'array' }>): boolean {
    const cut = this.buf.lastIndexOf('},{');
    if (cut <= this.pos || this.offset + cut < this.carefulUntil) return false;
    let items: unknown[];
    try {
      items = JSON.parse(`[${this.buf.slice(this.pos, cut + 1)}]`) as unknown[];
    } catch {
      this.carefulUntil = this.offset + cut + 1;
      return false;
    }
    for (const item of items) {
      this.shareIn(item);
      array.value.push(item);
    }
    array.expect = 'comma';
    array.first = false;
    this.pos = cut + 1;
    return true;
  }

  /** The index just past the string starting at `start`, or -1 when its end has not arrived. */
  private stringEnd(start: number): number {
    const b = this.buf;
    let from = start + 1;
    for (;;) {
      const q = b.indexOf('"', from);
      if (q < 0) return -1;
      let slashes = 0;
      for (let i = q - 1; i > start && b.charCodeAt(i) === 0x5c; i--) slashes++;
      if (slashes % 2 === 0) return q + 1;
      from = q + 1;
    }
  }

  /** Scans the captured container for its end; parses it when found. False when more text is needed. */
  private scanCapture(): boolean {
    const cap = this.capture!;
    const b = this.buf;
    let i = cap.at;
    while (i < b.length) {
      if (cap.inString) {
        const q = b.indexOf('"', i);
        if (q < 0) {
          i = b.length;
          break;
        }
        let slashes = 0;
        for (let k = q - 1; k >= this.pos && b.charCodeAt(k) === 0x5c; k--) slashes++;
        i = q + 1;
        if (slashes % 2 === 0) cap.inString = false;
        continue;
      }
      const c = b.charCodeAt(i++);
      if (c === 0x22) cap.inString = true;
      else if (c === 0x7b || c === 0x5b) cap.depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (--cap.depth === 0) {
          let v: unknown;
          try {
            v = JSON.parse(b.slice(this.pos, i));
          } catch (e) {
            this.fail(`Invalid array element (${(e as Error).message})`);
          }
          this.capture = undefined;
          this.pos = i;
          this.shareIn(v);
          this.emit(v);
          return true;
        }
      }
    }
    cap.at = i;
    return false;
  }

  private close(): void {
    const frame = this.stack.pop()!;
    this.emit(frame.value);
  }

  private emit(value: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      this.root = value;
      this.done = true;
    } else if (top.kind === 'object') {
      setMember(top.value, top.key, value);
      top.expect = 'comma';
    } else {
      top.value.push(value);
      top.expect = 'comma';
    }
  }
}

/** Parses JSON from pieces of text (e.g. a decoded response stream). */
export async function parseJsonPieces(pieces: AsyncIterable<string> | Iterable<string>): Promise<unknown> {
  const parser = new JsonStreamParser();
  for await (const piece of pieces) parser.write(piece);
  return parser.end();
}
