/**
 * The saved copies' columnar form: any JSON-like value (a replica snapshot, a feed) as columns of
 * bytes, then brotli. gzip'd JSON of the demo budgets was 127 kB a user in Redis, most of it
 * transactions' ids as 36-character text and each row's field names again. Here:
 * - arrays of objects are tables: one column per field, each row's field names once as a shape;
 * - canonical UUIDs are bytes, once each: every other occurrence (an account, payee or category
 *   a transaction names, a transfer's other side) is an index into the UUIDs met so far (uuid-table.ts);
 * - a row is coded against a reference row where it has one (columnar-tags.ts rowOrder): a value
 *   equal to the reference's is a tag alone, an integer near it a small difference;
 * - other strings are written once per column and then by index; dates are days since the
 *   previous date in their column; integers are varints (amounts divided by 10 or 1000 when they can be).
 * Reading gives back the same value: the same keys in the same order, the same numbers and text
 * (JSON.stringify of both is equal); values JSON would drop (undefined in an object) are dropped.
 * Nested tables and objects are read as their rows come, in the order they were written, which is
 * also the order UUIDs were first met, so the UUID table is never indexed ahead. The reader is
 * columnar-reader.ts.
 */
import { ByteWriter } from './byte-stream.js';
import { CONTEXT, dayOf, expectedBalance, rowId, rowOrder, T } from './columnar-tags.js';
import { StringIndex } from './string-index.js';
import { isUuid, UuidWriter } from './uuid-table.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** The keys JSON.stringify would write, in its order. */
function keysOf(row: Record<string, unknown>): string[] {
  const keys = Object.keys(row);
  const kept = (k: string) => {
    const t = typeof row[k];
    return t !== 'undefined' && t !== 'function' && t !== 'symbol';
  };
  return keys.every(kept) ? keys : keys.filter(kept);
}

/** What all the tables of one value share: its UUIDs, and the last row written with each id. */
class Shared {
  readonly uuids = new UuidWriter();
  /** The last row written with each id (a UUID), by the id's index in the UUID table. */
  readonly rows: (Record<string, unknown> | undefined)[] = [];
}

const isInt = (v: unknown): v is number => Number.isSafeInteger(v) && !Object.is(v, -0);

/** An integer as a tag (scaled down by 1000 or 10 when it divides) and a zigzag varint. */
function scaled(tags: ByteWriter, nums: ByteWriter, tag: typeof T.Int | typeof T.Delta, v: number): void {
  const [t, n] = v % 1000 === 0 && v !== 0 ? [tag + 2, v / 1000] : v % 10 === 0 && v !== 0 ? [tag + 1, v / 10] : [tag, v];
  tags.byte(t);
  nums.int(n);
}

/** `YYYY-MM-DD`: no other string is a date (dayOf). */
const DATE_LENGTH = 10;

class ColumnWriter {
  readonly tags = new ByteWriter();
  readonly nums = new ByteWriter();
  readonly bytes = new ByteWriter();
  private readonly strings = new StringIndex();
  private lastDay = 0;
  /**
   * Strings of a date's length already found to be a date (their day) or not (undefined). Only
   * those: a map of every memo and import id held every one while a copy was saved (issue 61).
   */
  private readonly days = new Map<string, number | undefined>();
  child?: TableWriter;

  constructor(private readonly shared: Shared) {}

  write(v: unknown): void {
    if (v === null) this.tags.byte(T.Null);
    else if (v === false) this.tags.byte(T.False);
    else if (v === true) this.tags.byte(T.True);
    else if (typeof v === 'number') this.number(v);
    else if (typeof v === 'string') this.string(v);
    else if (Array.isArray(v) && v.every(isPlainObject) && v.length === Object.keys(v).length) {
      this.tags.byte(T.Table);
      this.nums.uint(v.length);
      for (const row of v) (this.child ??= new TableWriter(this.shared)).row(row);
    } else if (isPlainObject(v)) {
      this.tags.byte(T.Object);
      (this.child ??= new TableWriter(this.shared)).row(v);
    } else this.json(v);
  }

  /** `v` given the value its row's reference had here (null and booleans as they are: a column of them costs nothing). */
  writeAfter(v: unknown, was: unknown): void {
    if (v === null || typeof v === 'boolean') this.write(v);
    else if (Object.is(v, was) && typeof v !== 'object') this.tags.byte(T.Same);
    else if (isInt(v) && isInt(was) && Number.isSafeInteger(v - was) && Math.abs(v - was) < Math.abs(v)) scaled(this.tags, this.nums, T.Delta, v - was);
    else this.write(v);
  }

  private number(v: number): void {
    if (isInt(v)) return scaled(this.tags, this.nums, T.Int, v);
    if (!Number.isFinite(v)) return this.json(v); // as JSON writes it: null
    this.tags.byte(T.Float);
    this.bytes.float(v);
  }

  private string(v: string): void {
    if (v.length === 36 && (this.shared.uuids.index.has(v) || isUuid(v))) return this.shared.uuids.write(this.tags, this.nums, v);
    let day = v.length === DATE_LENGTH ? this.days.get(v) : undefined;
    if (v.length === DATE_LENGTH && day === undefined && !this.days.has(v)) this.days.set(v, (day = dayOf(v)));
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
      this.strings.add(v);
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
  private readonly shapeList: { keys: string[]; order: number[]; balance: boolean }[] = [];
  private lastShape = 0;
  private readonly shapeIds = new ByteWriter();
  private readonly columns = new Map<string, ColumnWriter>();
  /** The last row of this table with each CONTEXT value. */
  private readonly likes = new Map<string, Record<string, unknown>>();

  constructor(private readonly shared: Shared) {}

  /** The shape of a row with these keys: most often the previous row's. */
  private shapeOf(keys: string[]): number {
    const last = this.shapeList[this.lastShape];
    if (last && last.keys.length === keys.length && last.keys.every((k, i) => k === keys[i])) return this.lastShape;
    const name = keys.join('\u0000');
    let shape = this.shapes.get(name);
    if (shape === undefined) {
      this.shapes.set(name, (shape = this.shapeList.length));
      this.shapeList.push({ keys, order: rowOrder(keys), balance: keys.includes('balance') });
    }
    return (this.lastShape = shape);
  }

  /**
   * The previous row's keys when `row` has the very same, read in place: a new array of keys for
   * each of 100,000 rows was part of the 20 MB the encoding held while it ran (issue 61).
   */
  private lastKeys(row: Record<string, unknown>): string[] | undefined {
    const keys = this.shapeList[this.lastShape]?.keys;
    if (!keys) return undefined;
    let i = 0;
    for (const k in row) {
      const t = typeof row[k];
      if (keys[i++] !== k || t === 'undefined' || t === 'function' || t === 'symbol' || !Object.hasOwn(row, k)) return undefined;
    }
    return i === keys.length ? keys : undefined;
  }

  /** `alone`: a field of this row whose value is written referring back to no row before it (encodeColumnar). */
  row(row: Record<string, unknown>, alone?: string): void {
    const same = this.lastKeys(row);
    const keys = same ?? keysOf(row);
    const shape = same ? this.lastShape : this.shapeOf(keys);
    this.shapeIds.uint(shape);
    const id = rowId(keys, row);
    const known = id === undefined || !isUuid(id) ? undefined : this.shared.uuids.index.get(id);
    let ref = known === undefined ? undefined : this.shared.rows[known];
    const { order, balance } = this.shapeList[shape]!;
    for (const i of order) {
      const k = keys[i]!;
      let col = this.columns.get(k);
      if (!col) this.columns.set(k, (col = new ColumnWriter(this.shared)));
      if (k === alone) this.shared.rows.length = 0;
      const expected = balance ? expectedBalance(keys, i, (x) => row[x], ref) : undefined;
      if (expected !== undefined) col.writeAfter(row[k], expected);
      else if (ref && i > 0 && Object.hasOwn(ref, k)) col.writeAfter(row[k], ref[k]);
      else col.write(row[k]);
      if (k === CONTEXT && typeof row[k] === 'string') ref ??= this.likes.get(row[k]);
    }
    if (id !== undefined && isUuid(id)) this.shared.rows[this.shared.uuids.index.get(id)!] = row;
    if (typeof row[CONTEXT] === 'string') this.likes.set(row[CONTEXT], row);
  }

  /** Shapes, then each column's tags, numbers and bytes, then its nested table. */
  writeTo(out: ByteWriter): void {
    out.uint(this.shapeList.length);
    for (const { keys } of this.shapeList) {
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

/**
 * The columnar form of `value` (an object), uncompressed. `alone`: the rows of that field of
 * `value` are coded against no row before it (as if none had the same id), only against rows of
 * its own; UUIDs are still written once. Reading it later (columnar-reader.ts
 * decodeColumnarDeferring) then needs nothing the rows before it were read against, where
 * otherwise the reader holds every row's values until then. The reader must be told the same.
 */
export function encodeColumnar(value: object, alone?: string): Uint8Array {
  return Buffer.concat(encodeColumnarPieces(value, alone));
}

/** encodeColumnar's bytes in the pieces the columns hold them in, never joined: compressed one after another (saved-form.ts). */
export function encodeColumnarPieces(value: object, alone?: string): Uint8Array[] {
  if (!isPlainObject(value)) throw new TypeError('only an object is saved in columns');
  const shared = new Shared();
  const top = new TableWriter(shared);
  top.row(value, alone);
  const out = new ByteWriter();
  top.writeTo(out);
  shared.uuids.writeTo(out);
  return out.pieces();
}
