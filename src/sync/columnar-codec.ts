/**
 * The saved copies' columnar form: any JSON-like value (a replica snapshot, a feed) as columns of
 * bytes, then brotli. gzip'd JSON of the demo budgets was 127 kB a user in Redis, most of it
 * transactions' ids as 36-character text and each row's field names again. Here:
 * - arrays of objects are tables: one column per field, each row's field names once as a shape;
 * - canonical UUIDs are 16 bytes, once each: every other occurrence (an account, payee or category
 *   a transaction names, a transfer's other side) is an index into the UUIDs met so far;
 * - other strings are written once per column and then by index; dates are days since the
 *   previous date in their column; integers are varints (amounts divided by 10 or 1000 when they can be).
 * Reading gives back the same value: the same keys in the same order, the same numbers and text
 * (JSON.stringify of both is equal); values JSON would drop (undefined in an object) are dropped.
 * Nested tables and objects are read as their rows come, in the order they were written, which is
 * also the order UUIDs were first met, so the UUID table is never indexed ahead.
 */
import { ByteReader, ByteWriter, CorruptError, isUuid } from './byte-stream.js';

const enum T {
  Null,
  False,
  True,
  Int,
  Int10,
  Int1000,
  Float,
  UuidNew,
  UuidRef,
  Date,
  StrNew,
  StrRef,
  Json,
  Table,
  Object,
}

const DAY = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Days since 1970 of a `YYYY-MM-DD` that reads back as itself, else undefined. */
function dayOf(s: string): number | undefined {
  if (s.length !== 10 || !DATE.test(s)) return undefined;
  const day = Date.UTC(+s.slice(0, 4), +s.slice(5, 7) - 1, +s.slice(8, 10)) / DAY;
  return Number.isInteger(day) && dateOf(day) === s ? day : undefined;
}
const dateOf = (day: number): string => new Date(day * DAY).toISOString().slice(0, 10);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** The keys JSON.stringify would write, in its order. */
function keysOf(row: Record<string, unknown>): string[] {
  return Object.keys(row).filter((k) => {
    const t = typeof row[k];
    return t !== 'undefined' && t !== 'function' && t !== 'symbol';
  });
}

class UuidTable {
  readonly index = new Map<string, number>();
  readonly bytes = new ByteWriter();
}

class ColumnWriter {
  readonly tags = new ByteWriter();
  readonly nums = new ByteWriter();
  readonly bytes = new ByteWriter();
  private readonly strings = new Map<string, number>();
  private lastDay = 0;
  child?: TableWriter;

  constructor(private readonly uuids: UuidTable) {}

  write(v: unknown): void {
    if (v === null) this.tags.byte(T.Null);
    else if (v === false) this.tags.byte(T.False);
    else if (v === true) this.tags.byte(T.True);
    else if (typeof v === 'number') this.number(v);
    else if (typeof v === 'string') this.string(v);
    else if (Array.isArray(v) && v.every(isPlainObject) && v.length === Object.keys(v).length) {
      this.tags.byte(T.Table);
      this.nums.uint(v.length);
      for (const row of v) (this.child ??= new TableWriter(this.uuids)).row(row);
    } else if (isPlainObject(v)) {
      this.tags.byte(T.Object);
      (this.child ??= new TableWriter(this.uuids)).row(v);
    } else this.json(v);
  }

  private number(v: number): void {
    if (!Number.isSafeInteger(v) || Object.is(v, -0)) {
      if (!Number.isFinite(v)) return this.json(v); // as JSON writes it: null
      this.tags.byte(T.Float);
      this.bytes.float(v);
    } else if (v % 1000 === 0 && v !== 0) {
      this.tags.byte(T.Int1000);
      this.nums.int(v / 1000);
    } else if (v % 10 === 0 && v !== 0) {
      this.tags.byte(T.Int10);
      this.nums.int(v / 10);
    } else {
      this.tags.byte(T.Int);
      this.nums.int(v);
    }
  }

  private string(v: string): void {
    if (isUuid(v)) {
      const at = this.uuids.index.get(v);
      if (at !== undefined) {
        this.tags.byte(T.UuidRef);
        this.nums.uint(at);
      } else {
        this.tags.byte(T.UuidNew);
        this.uuids.index.set(v, this.uuids.index.size);
        this.uuids.bytes.uuid(v);
      }
      return;
    }
    const day = dayOf(v);
    if (day !== undefined) {
      this.tags.byte(T.Date);
      this.nums.int(day - this.lastDay);
      this.lastDay = day;
      return;
    }
    const at = this.strings.get(v);
    if (at !== undefined) {
      this.tags.byte(T.StrRef);
      this.nums.uint(at);
    } else if (LONE_SURROGATE.test(v)) {
      this.json(v); // text UTF-8 cannot hold as is goes as JSON, which escapes it
    } else {
      this.tags.byte(T.StrNew);
      this.strings.set(v, this.strings.size);
      this.bytes.string(v);
    }
  }

  private json(v: unknown): void {
    this.tags.byte(T.Json);
    this.bytes.string(JSON.stringify(v) ?? 'null');
  }
}

class TableWriter {
  private readonly shapes = new Map<string, number>();
  private readonly shapeList: string[][] = [];
  private readonly shapeIds = new ByteWriter();
  private readonly columns = new Map<string, ColumnWriter>();

  constructor(private readonly uuids: UuidTable) {}

  row(row: Record<string, unknown>): void {
    const keys = keysOf(row);
    const name = keys.join('\u0000');
    let shape = this.shapes.get(name);
    if (shape === undefined) {
      this.shapes.set(name, (shape = this.shapeList.length));
      this.shapeList.push(keys);
    }
    this.shapeIds.uint(shape);
    for (const k of keys) {
      let col = this.columns.get(k);
      if (!col) this.columns.set(k, (col = new ColumnWriter(this.uuids)));
      col.write(row[k]);
    }
  }

  /** Shapes, then each column's tags, numbers and bytes, then its nested table. */
  writeTo(out: ByteWriter): void {
    out.uint(this.shapeList.length);
    for (const keys of this.shapeList) {
      out.uint(keys.length);
      for (const k of keys) out.string(k);
    }
    out.block(this.shapeIds);
    out.uint(this.columns.size);
    for (const [name, col] of this.columns) {
      out.string(name);
      out.block(col.tags);
      out.block(col.nums);
      out.block(col.bytes);
      out.byte(col.child ? 1 : 0);
      col.child?.writeTo(out);
    }
  }
}

/** The columnar form of `value` (an object), uncompressed. */
export function encodeColumnar(value: object): Uint8Array {
  if (!isPlainObject(value)) throw new TypeError('only an object is saved in columns');
  const uuids = new UuidTable();
  const top = new TableWriter(uuids);
  top.row(value);
  const out = new ByteWriter();
  top.writeTo(out);
  out.uint(uuids.index.size);
  out.block(uuids.bytes);
  return out.view();
}

class UuidReader {
  readonly seen: string[] = [];
  /** Set once the tables are read: the UUIDs are written after them. */
  bytes = new ByteReader(Buffer.alloc(0));
}

class ColumnReader {
  private readonly strings: string[] = [];
  private lastDay = 0;
  constructor(
    private readonly tags: ByteReader,
    private readonly nums: ByteReader,
    private readonly bytes: ByteReader,
    private readonly child: TableReader | undefined,
    private readonly uuids: UuidReader,
  ) {}

  next(): unknown {
    const tag = this.tags.byte();
    switch (tag) {
      case T.Null:
        return null;
      case T.False:
        return false;
      case T.True:
        return true;
      case T.Int:
        return this.nums.int();
      case T.Int10:
        return this.nums.int() * 10;
      case T.Int1000:
        return this.nums.int() * 1000;
      case T.Float:
        return this.bytes.float();
      case T.UuidNew: {
        const id = this.uuids.bytes.uuid();
        this.uuids.seen.push(id);
        return id;
      }
      case T.UuidRef:
        return this.known(this.uuids.seen, this.nums.uint());
      case T.Date:
        this.lastDay += this.nums.int();
        return dateOf(this.lastDay);
      case T.StrNew: {
        const s = this.bytes.string();
        this.strings.push(s);
        return s;
      }
      case T.StrRef:
        return this.known(this.strings, this.nums.uint());
      case T.Json:
        return JSON.parse(this.bytes.string());
      case T.Table: {
        const n = this.nums.uint();
        const rows: unknown[] = [];
        for (let i = 0; i < n; i++) rows.push(this.nested().row());
        return rows;
      }
      case T.Object:
        return this.nested().row();
      default:
        throw new CorruptError(`unknown tag ${tag} in the saved form`);
    }
  }

  private known(list: string[], at: number): string {
    const v = list[at];
    if (v === undefined) throw new CorruptError('a reference in the saved form points past what was read');
    return v;
  }

  private nested(): TableReader {
    if (!this.child) throw new CorruptError('a nested table is missing from the saved form');
    return this.child;
  }
}

class TableReader {
  private readonly shapes: string[][] = [];
  private readonly shapeIds: ByteReader;
  private readonly columns = new Map<string, ColumnReader>();

  constructor(r: ByteReader, uuids: UuidReader) {
    for (let n = r.uint(); n > 0; n--) {
      const keys: string[] = [];
      for (let k = r.uint(); k > 0; k--) keys.push(r.string());
      this.shapes.push(keys);
    }
    this.shapeIds = r.block();
    for (let n = r.uint(); n > 0; n--) {
      const name = r.string();
      const [tags, nums, bytes] = [r.block(), r.block(), r.block()];
      const child = r.byte() ? new TableReader(r, uuids) : undefined;
      this.columns.set(name, new ColumnReader(tags, nums, bytes, child, uuids));
    }
  }

  row(): Record<string, unknown> {
    const keys = this.shapes[this.shapeIds.uint()];
    if (!keys) throw new CorruptError('a row of the saved form has an unknown shape');
    const row: Record<string, unknown> = {};
    for (const k of keys) {
      const col = this.columns.get(k);
      if (!col) throw new CorruptError(`the column ${JSON.stringify(k)} is missing from the saved form`);
      const v = col.next();
      // As JSON.parse makes it: an own property, even one named __proto__.
      if (k === '__proto__') Object.defineProperty(row, k, { value: v, enumerable: true, writable: true, configurable: true });
      else row[k] = v;
    }
    return row;
  }
}

/** The value encodeColumnar was given; a CorruptError when the bytes are not such a form. */
export function decodeColumnar(bytes: Uint8Array): Record<string, unknown> {
  const r = new ByteReader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const uuids = new UuidReader();
  const top = new TableReader(r, uuids);
  const count = r.uint();
  uuids.bytes = r.block();
  if (!r.done) throw new CorruptError('the saved form has bytes past its end');
  const value = top.row();
  if (uuids.seen.length !== count || !uuids.bytes.done) throw new CorruptError('the saved form holds other UUIDs than it uses');
  return value;
}
