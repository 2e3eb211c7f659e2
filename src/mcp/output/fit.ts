/**
 * A page that fits: a paged answer (one that says how many rows it `returned`) over the size
 * limit is made again with fewer rows, the largest page that fits, and says how to get the rest
 * (its cursor, or how many are left), so no answer fails for its size. The API tools' lists do the
 * same in the output builder; this serves the insights and the undo journal's list, which page
 * their own rows.
 */
import { OutputTooLargeError } from './builder.js';

type Body = Record<string, unknown>;

/** `make(limit)`: the answer with at most `limit` rows (undefined: the tool's own page size). */
export async function fitPage(make: (limit?: number) => Body | Promise<Body>, maxChars: number): Promise<{ body: Body; notice?: string }> {
  const first = await make();
  const asked = first.returned;
  const size = (b: Body) => JSON.stringify(b).length;
  if (size(first) <= maxChars || typeof asked !== 'number' || asked < 2) return { body: first };
  // The largest page that fits, by bisection over the row count (each try is computed from the
  // budget's copy or the journal: no request is made).
  let lo = 0;
  let hi = asked - 1;
  let best: Body | undefined;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const b = await make(mid);
    if (size(b) <= maxChars) {
      lo = mid;
      best = b;
    } else hi = mid - 1;
  }
  if (!best && lo > 0) best = await make(lo);
  if (!best) throw new OutputTooLargeError(`a single row is over the answer limit of ${maxChars} characters; ask for compact detail`);
  const rest =
    typeof best.next_cursor === 'string'
      ? `the rest: call again with cursor ${JSON.stringify(best.next_cursor)}`
      : `${String(best.more ?? 'the rest')} more not listed`;
  return { body: best, notice: `Only ${lo} of the ${asked} requested items fit in one answer (size limit); ${rest}.` };
}
