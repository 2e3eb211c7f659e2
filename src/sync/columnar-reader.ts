/**
 * Reads the saved copies' columnar form (written by columnar-codec.ts) back to the value it was
 * made from. Anything that is not such a form, or is cut short, is a CorruptError, never a value
 * that is partly right: every reference is checked against what was read, and every byte is used.
 */
import { ByteReader, CorruptError } from './byte-stream.js';
import { CONTEXT, dateOf, expectedBalance, rowOrder, T } from './columnar-tags.js';
import { UuidReader } from './uuid-table.js';

/** Dates by day, made once for every copy read (`new Date().toISOString()` was a tenth of reading one). */
const DATES = new Map<number, string>();

/**
 * Makes the rows of a shape: an object literal with its keys in order, compiled once per shape
 * (the keys quoted by JSON.stringify), which V8 builds several times faster than objects given
 * their keys one by one. A shape with a key named __proto__ is built one key at a time, as an own
 * property (as JSON.parse makes it), since in a literal that key would set the prototype.
 */
function maker(keys: readonly string[]): (v: unknown[]) => Record<string, unknown> {
  if (keys.includes('__proto__')) {
    return (values) => {
      const row: Record<string, unknown> = {};
      keys.forEach((k, i) => Object.defineProperty(row, k, { value: values[i], enumerable: true, writable: true, configurable: true }));
      return row;
    };
  }
  return new Function('v', `return {${keys.map((k, i) => `${JSON.stringify(k)}: v[${i}]`).join(', ')}};`) as (v: unknown[]) => Record<string, unknown>;
}

/** What all the tables of one value share: its UUIDs, and the last row read with each id. */
class Shared {
  readonly uuids = new UuidReader();
  /** The last row read with each id, by the id's index in the UUID table. */
  readonly rows: (Record<string, unknown> | undefined)[] = [];
}

class ColumnReader {
  private readonly strings: string[] = [];
  private lastDay = 0;
  constructor(
    private readonly tags: ByteReader,
    private readonly nums: ByteReader,
    private readonly bytes: ByteReader,
    private readonly child: TableReader | undefined,
    private readonly shared: Shared,
  ) {}

  /** The next value; `ref`: the row's reference (see rowOrder), and `key` this column's name. */
  next(ref?: Record<string, unknown>, key?: string): unknown {
    const tag = this.tags.byte();
    if (tag >= T.Same) return this.after(tag, ref, key);
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
      case T.UuidNew:
      case T.UuidNew4:
      case T.UuidRef:
      case T.UuidBack:
        return this.shared.uuids.read(tag, this.nums);
      case T.Date: {
        this.lastDay += this.nums.int();
        let date = DATES.get(this.lastDay);
        if (date === undefined) {
          if (DATES.size > 100_000) DATES.clear();
          DATES.set(this.lastDay, (date = dateOf(this.lastDay)));
        }
        return date;
      }
      case T.StrNew: {
        const s = this.bytes.string();
        this.strings.push(s);
        return s;
      }
      case T.StrRef: {
        const s = this.strings[this.nums.uint()];
        if (s === undefined) throw new CorruptError('a reference in the saved form points past what was read');
        return s;
      }
      case T.Json:
        return JSON.parse(this.bytes.string());
      case T.Table: {
        const rows: unknown[] = [];
        for (let n = this.nums.uint(); n > 0; n--) rows.push(this.nested().row());
        return rows;
      }
      case T.Object:
        return this.nested().row();
      default:
        throw new CorruptError(`unknown tag ${tag} in the saved form`);
    }
  }

  /** A value coded against the reference row's. */
  private after(tag: number, ref: Record<string, unknown> | undefined, key: string | undefined): unknown {
    if (!ref || key === undefined || !Object.hasOwn(ref, key)) throw new CorruptError('a value in the saved form refers to a row it does not have');
    const was = ref[key];
    if (tag === T.Same) return was;
    if (typeof was !== 'number' || tag > T.Delta1000) throw new CorruptError(`unknown tag ${tag} in the saved form`);
    return was + this.nums.int() * (tag === T.Delta ? 1 : tag === T.Delta10 ? 10 : 1000);
  }

  private nested(): TableReader {
    if (!this.child) throw new CorruptError('a nested table is missing from the saved form');
    return this.child;
  }

  get done(): boolean {
    return this.tags.done && this.nums.done && this.bytes.done;
  }
}

class TableReader {
  private readonly shapes: { keys: string[]; order: number[]; columns: ColumnReader[]; balanceAt: number; make: (v: unknown[]) => Record<string, unknown> }[] =
    [];
  private readonly shapeIds: ByteReader;
  private readonly columns = new Map<string, ColumnReader>();
  /** The last row of this table with each CONTEXT value. */
  private readonly likes = new Map<string, Record<string, unknown>>();

  constructor(
    r: ByteReader,
    private readonly shared: Shared,
  ) {
    const shapes: string[][] = [];
    for (let n = r.uint(); n > 0; n--) {
      const keys: string[] = [];
      for (let k = r.uint(); k > 0; k--) keys.push(r.string());
      shapes.push(keys);
    }
    this.shapeIds = r.block();
    for (let n = r.uint(); n > 0; n--) {
      const name = r.string();
      const [tags, nums, bytes] = [r.block(), r.block(), r.block()];
      const child = r.byte() ? new TableReader(r, shared) : undefined;
      this.columns.set(name, new ColumnReader(tags, nums, bytes, child, shared));
    }
    for (const keys of shapes) {
      const columns = keys.map((k) => this.columns.get(k)!);
      if (columns.some((c) => !c)) throw new CorruptError('a column is missing from the saved form');
      this.shapes.push({ keys, order: rowOrder(keys), columns, balanceAt: keys.indexOf('balance'), make: maker(keys) });
    }
  }

  row(): Record<string, unknown> {
    const shape = this.shapes[this.shapeIds.uint()];
    if (!shape) throw new CorruptError('a row of the saved form has an unknown shape');
    const { keys, order, columns, balanceAt } = shape;
    const values: unknown[] = new Array(keys.length).fill(null);
    let ref: Record<string, unknown> | undefined;
    let idAt = -1;
    this.shared.uuids.last = -1;
    for (let n = 0; n < order.length; n++) {
      const i = order[n]!;
      const k = keys[i]!;
      // Only the balance column is coded against an expected value (columnar-tags.ts expectedBalance).
      const expected = i === balanceAt ? expectedBalance(keys, i, (x) => values[keys.indexOf(x)], ref) : undefined;
      const col = columns[i]!;
      const v = (values[i] = expected !== undefined ? col.next({ [k]: expected }, k) : ref && i > 0 ? col.next(ref, k) : col.next());
      if (i === 0 && k === 'id' && typeof v === 'string' && this.shared.uuids.last >= 0) {
        idAt = this.shared.uuids.last; // the id was a UUID
        if (!this.shared.uuids.lastNew) ref = this.shared.rows[idAt];
      }
      if (k === CONTEXT && typeof v === 'string') ref ??= this.likes.get(v);
    }
    const row = shape.make(values);
    if (idAt >= 0) this.shared.rows[idAt] = row;
    if (typeof row[CONTEXT] === 'string') this.likes.set(row[CONTEXT], row);
    return row;
  }

  get done(): boolean {
    return this.shapeIds.done && [...this.columns.values()].every((c) => c.done);
  }
}

/** The value encodeColumnar was given; a CorruptError when the bytes are not such a form. */
export function decodeColumnar(bytes: Uint8Array): Record<string, unknown> {
  const r = new ByteReader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const shared = new Shared();
  const top = new TableReader(r, shared);
  shared.uuids.readFrom(r);
  if (!r.done) throw new CorruptError('the saved form has bytes past its end');
  const value = top.row();
  if (!shared.uuids.complete || !top.done) throw new CorruptError('the saved form holds more than its value');
  return value;
}
