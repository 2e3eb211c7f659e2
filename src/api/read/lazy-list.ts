/**
 * A list answer whose items are built only when shown. A year of transactions can be tens of
 * thousands of rows, of which a tool shows one page: the rows (with the amount and deleted flag
 * that counts and totals need) are selected at once, and each row's full answer is built when it
 * is shown. Only callers that ask for it get one (the tools' output builder); anything that
 * serializes it gets the full list.
 */
export interface ListRow {
  amount: number;
  deleted: boolean;
}

export class LazyList<R extends ListRow = ListRow, T = unknown> {
  constructor(
    /** The rows, in the answer's order. */
    readonly rows: readonly R[],
    /** The full answer of one row. */
    readonly build: (row: R) => T,
  ) {}

  get length(): number {
    return this.rows.length;
  }

  /** Every item, built (what the list is when nothing lazy is wanted). */
  toArray(): T[] {
    return this.rows.map((r) => this.build(r));
  }

  toJSON(): T[] {
    return this.toArray();
  }
}
