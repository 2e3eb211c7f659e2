/**
 * One copy of each repeated string value in a replica (replica.ts): the ids of accounts, payees
 * and categories, dates, cleared states repeat across rows, and as the parser makes them each row
 * holds its own copy; at 100,000 transactions that is a fifth of the replica's memory. Sharing
 * changes no value, only which copy of an equal string a row holds, so it may run late: a large
 * batch is shared after the answer waiting for it has gone out, a slice at a time.
 */

/** Fields of a transaction and of a split line whose values repeat across many rows. */
export { LINE_SHARED, TRANSACTION_SHARED } from '../api/repeated-fields.js';

/** Rows whose strings are shared at once; more are shared in slices this size, after the answer (see share). */
const SHARE_AT_ONCE = 10_000;

export class StringPool {
  /** One copy of each repeated string value. */
  private readonly strings = new Map<string, string>();
  /** Sharing still to do, oldest first: the rows of a large batch and how far it has got. */
  private readonly sharing: { rows: readonly object[]; fields: readonly string[]; at: number }[] = [];

  /** Makes the values of `fields` that repeat across rows one string each instead of one copy per row. */
  share(rows: readonly object[], fields: readonly string[]): void {
    if (rows.length <= SHARE_AT_ONCE) {
      for (const row of rows) this.shareStrings(row as Record<string, unknown>, fields);
      return;
    }
    // A full export (100,000 rows: about a tenth of a second) is shared after the answer waiting
    // for it has gone out, a slice at a time, so that neither that answer nor the next waits for
    // it. Sharing changes no value, only which copy of an equal string a row holds.
    this.sharing.push({ rows, fields, at: 0 });
    if (this.sharing.length === 1) setImmediate(() => this.shareSlice());
  }

  /** Shares the next slice of the oldest batch waiting, and comes back for the rest after other work. */
  private shareSlice(): void {
    const job = this.sharing[0];
    if (!job) return;
    const end = Math.min(job.rows.length, job.at + SHARE_AT_ONCE);
    for (; job.at < end; job.at++) this.shareStrings(job.rows[job.at] as Record<string, unknown>, job.fields);
    if (job.at === job.rows.length) this.sharing.shift();
    if (this.sharing.length) setImmediate(() => this.shareSlice());
  }

  private shareStrings(row: Record<string, unknown>, fields: readonly string[]): void {
    for (const f of fields) {
      const v = row[f];
      if (typeof v !== 'string') continue;
      const shared = this.strings.get(v);
      if (shared === undefined) this.strings.set(v, v);
      else row[f] = shared;
    }
  }
}
