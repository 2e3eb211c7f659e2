/**
 * Reads the saved copies' columnar form (written by columnar-codec.ts) back to the value it was
 * made from. Anything that is not such a form, or is cut short, is a CorruptError, never a value
 * that is partly right: every reference is checked against what was read, and every byte is used.
 */
import { ByteReader, CorruptError } from './byte-stream.js';
import { CONTEXT, dateOf, rowOrder, T } from './columnar-tags.js';
import { UuidReader } from './uuid-table.js';

/** Dates by day, made once for every copy read (`new Date().toISOString()` was a tenth of reading one). */
const DATES = new Map<number, string>();

/**
 * Makes the rows of a shape: an object literal with its keys in order, compiled once per shape
 * (the keys quoted by JSON.stringify), which V8 builds several times faster than objects given
 * their keys one by one. A shape with a key named __proto__ is built one key at a time, as an own
 * property (as JSON.parse makes it), since in a literal that key would set the prototype.
 */
function compileMaker(keys: readonly string[]): (v: unknown[]) => Record<string, unknown> {
  if (keys.includes('__proto__')) {
    return (values) => {
      const row: Record<string, unknown> = {};
      keys.forEach((k, i) => Object.defineProperty(row, k, { value: values[i], enumerable: true, writable: true, configurable: true }));
      return row;
    };
  }
  return new Function('v', `return {${keys.map((k, i) => `${JSON.stringify(k)}: v[${i}]`).join(', ')}};`) as (v: unknown[]) => Record<string, unknown>;
}

/**
 * Makers by shape, for every copy read: the same shapes come back in every copy (a transaction's
 * keys), and a maker compiled anew for each read starts cold in V8 each time (its feedback is its
 * own), where one kept is optimized once. Bounded: forgotten whole past MAKERS_MAX shapes.
 */
const MAKERS = new Map<string, (v: unknown[]) => Record<string, unknown>>();
const MAKERS_MAX = 2_000;

function maker(keys: readonly string[]): (v: unknown[]) => Record<string, unknown> {
  const name = keys.join('\u0000');
  let make = MAKERS.get(name);
  if (!make) {
    if (MAKERS.size >= MAKERS_MAX) MAKERS.clear();
    MAKERS.set(name, (make = compileMaker(keys)));
  }
  return make;
}

/**
 * A row as a reference for later rows: its shape and its values in the shape's key order. Later
 * rows read their reference's values by index (see Shape.from) rather than by key from the row
 * object, which V8 would look up by name for every value (the reader's hottest path).
 */
interface RowRef {
  shape: Shape;
  values: unknown[];
}

/** What all the tables of one value share: its UUIDs, and the last row read with each id. */
class Shared {
  readonly uuids = new UuidReader();
  /** The last row read with each id, by the id's index in the UUID table. */
  readonly rows: (RowRef | undefined)[] = [];
}

/** The keys of a kind of row and what reading one needs, worked out once per shape. */
class Shape {
  readonly order: number[];
  readonly make: (v: unknown[]) => Record<string, unknown>;
  /** Where `balance`, the CONTEXT key and an `id` first are (-1: not in this shape). */
  readonly balanceAt: number;
  readonly contextAt: number;
  readonly idFirst: boolean;
  /** Where `budgeted` and `activity` are when both come before `balance` (its expected value needs them). */
  private readonly budgetedAt: number;
  private readonly activityAt: number;
  /** For each shape a reference row may have: where each of this shape's keys is in it (-1: not there). */
  private readonly maps = new Map<Shape, Int32Array>();

  constructor(
    readonly keys: readonly string[],
    readonly columns: ColumnReader[],
  ) {
    this.order = rowOrder(keys);
    this.make = maker(keys);
    this.balanceAt = keys.indexOf('balance');
    this.contextAt = keys.indexOf(CONTEXT);
    this.idFirst = keys[0] === 'id';
    const [b, a] = [keys.indexOf('budgeted'), keys.indexOf('activity')];
    const usable = this.balanceAt >= 0 && b >= 0 && a >= 0 && b <= this.balanceAt && a <= this.balanceAt;
    [this.budgetedAt, this.activityAt] = usable ? [b, a] : [-1, -1];
  }

  /** Where each of this shape's keys is in a row of shape `ref`. */
  from(ref: Shape): Int32Array {
    let map = this.maps.get(ref);
    if (!map) {
      map = Int32Array.from(this.keys, (k) => ref.keys.indexOf(k));
      this.maps.set(ref, map);
    }
    return map;
  }

  /** The balance expected from the row's values so far and its reference's (columnar-tags.ts expectedBalance). */
  expectedBalance(values: unknown[], ref: RowRef | undefined): number | undefined {
    if (this.budgetedAt < 0) return undefined;
    const budgeted = values[this.budgetedAt];
    const activity = values[this.activityAt];
    if (!Number.isSafeInteger(budgeted) || !Number.isSafeInteger(activity)) return undefined;
    const at = ref ? ref.shape.balanceAt : -1;
    const before = at >= 0 ? ref!.values[at] : undefined;
    const carried = Number.isSafeInteger(before) ? Math.max(before as number, 0) : 0;
    return carried + (budgeted as number) + (activity as number);
  }
}

class ColumnReader {
  private readonly strings: string[] = [];
  private lastDay = 0;
  constructor(
    private readonly tags: ByteReader,
    private readonly nums: ByteReader,
    private readonly bytes: ByteReader,
    readonly child: TableReader | undefined,
    private readonly shared: Shared,
  ) {}

  /** The next value of a row without a reference for it. */
  next(): unknown {
    const tag = this.tags.byte();
    if (tag >= T.Same) throw new CorruptError('a value in the saved form refers to a row it does not have');
    return this.value(tag);
  }

  /** The next value of a row whose reference had `was` here (`has`: it has this key). */
  nextAfter(was: unknown, has: boolean): unknown {
    const tag = this.tags.byte();
    if (tag < T.Same) return this.value(tag);
    if (!has) throw new CorruptError('a value in the saved form refers to a row it does not have');
    if (tag === T.Same) return was;
    if (typeof was !== 'number' || tag > T.Delta1000) throw new CorruptError(`unknown tag ${tag} in the saved form`);
    return was + this.nums.int() * (tag === T.Delta ? 1 : tag === T.Delta10 ? 10 : 1000);
  }

  private value(tag: number): unknown {
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

  private nested(): TableReader {
    if (!this.child) throw new CorruptError('a nested table is missing from the saved form');
    return this.child;
  }

  get done(): boolean {
    return this.tags.done && this.nums.done && this.bytes.done;
  }
}

class TableReader {
  private readonly shapes: Shape[] = [];
  private readonly shapeIds: ByteReader;
  private readonly columns = new Map<string, ColumnReader>();
  /** The last row of this table with each CONTEXT value. */
  private readonly likes = new Map<string, RowRef>();
  /** The column of the field row(defer) left unread. */
  deferred: ColumnReader | undefined;

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
      this.shapes.push(new Shape(keys, columns));
    }
  }

  /**
   * The next row. `defer`: when that field is the last one read and is read without a reference,
   * it is left unread (undefined in the row) and its column kept in `deferred` (decodeColumnarDeferring).
   */
  row(defer?: string, alone?: string): Record<string, unknown> {
    const shape = this.shapes[this.shapeIds.uint()];
    if (!shape) throw new CorruptError('a row of the saved form has an unknown shape');
    const { order, columns, balanceAt, contextAt } = shape;
    const values: unknown[] = new Array(order.length);
    const uuids = this.shared.uuids;
    let ref: RowRef | undefined;
    let map: Int32Array | undefined;
    let idAt = -1;
    uuids.last = -1;
    for (let n = 0; n < order.length; n++) {
      const i = order[n]!;
      const col = columns[i]!;
      // Only the balance column is coded against an expected value (columnar-tags.ts expectedBalance).
      const expected = i === balanceAt ? shape.expectedBalance(values, ref) : undefined;
      let v: unknown;
      // As the writer: the rows read so far are no reference for this field's (encodeColumnar `alone`).
      if (alone !== undefined && shape.keys[i] === alone) this.shared.rows.length = 0;
      if (defer !== undefined && n === order.length - 1 && expected === undefined && !(ref && i > 0) && shape.keys[i] === defer) {
        this.deferred = col;
        continue;
      }
      if (expected !== undefined) v = col.nextAfter(expected, true);
      else if (ref && i > 0) {
        const j = (map ??= shape.from(ref.shape))[i]!;
        v = col.nextAfter(j >= 0 ? ref.values[j] : undefined, j >= 0);
      } else v = col.next();
      values[i] = v;
      if (i === 0 && shape.idFirst && typeof v === 'string' && uuids.last >= 0) {
        idAt = uuids.last; // the id was a UUID
        if (!uuids.lastNew) ref = this.shared.rows[idAt];
      }
      if (i === contextAt && typeof v === 'string' && !ref) ref = this.likes.get(v);
    }
    const self: RowRef = { shape, values };
    if (idAt >= 0) this.shared.rows[idAt] = self;
    if (contextAt >= 0 && typeof values[contextAt] === 'string') this.likes.set(values[contextAt] as string, self);
    return shape.make(values);
  }

  get done(): boolean {
    return this.shapeIds.done && [...this.columns.values()].every((c) => c.done);
  }

  /** Forgets this table's and its nested tables' last rows by CONTEXT value (for tables no row is read from again). */
  forgetLikes(): void {
    this.likes.clear();
    for (const c of this.columns.values()) c.child?.forgetLikes();
  }
}

/** The value encodeColumnar was given (with the same `alone`); a CorruptError when the bytes are not such a form. */
export function decodeColumnar(bytes: Uint8Array, alone?: string): Record<string, unknown> {
  const { value, rest } = decodeColumnarDeferring(bytes, undefined, alone);
  if (rest) throw new Error('unreachable: nothing was deferred');
  return value;
}

/**
 * The value encodeColumnar was given, with its field `key` left to be read when asked for (`rest`),
 * when it is the value's last field: a replica's months, which only answers about a month read
 * (a third of reading a demo copy). Read later, it reads what it would have read now: the fields
 * before it were read in the order they were written, and nothing else reads this form after
 * them. The form is checked whole only then: `rest` throws the CorruptError a whole read would
 * have, and until it is called the form is held, and so are the values of every row read before
 * it, which its rows may refer back to, unless it was written `alone` (encodeColumnar): then
 * only the UUIDs met before it are (a demo copy read so, its value included: 579 kB held against
 * 1,076 kB; test/sync/months-later.test.ts).
 */
export function decodeColumnarDeferring(bytes: Uint8Array, key?: string, alone?: string): { value: Record<string, unknown>; rest?: () => unknown } {
  const r = new ByteReader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const shared = new Shared();
  const top = new TableReader(r, shared);
  shared.uuids.readFrom(r);
  if (!r.done) throw new CorruptError('the saved form has bytes past its end');
  const value = top.row(key, alone);
  const whole = () => {
    if (!shared.uuids.complete || !top.done) throw new CorruptError('the saved form holds more than its value');
  };
  const column = top.deferred;
  if (!column) {
    whole();
    return { value };
  }
  // The tables read so far are not read again: the rows their next rows would have been coded against go.
  top.forgetLikes();
  return {
    value,
    rest: () => {
      const v = column.next();
      whole();
      return v;
    },
  };
}
