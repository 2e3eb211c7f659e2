/**
 * Whether a decrypted replica is one this version can answer from: every entity is checked
 * against the same schemas the API's answers are held to (src/api/schemas), not just a few
 * fields, because a replica that decrypts but is not the expected shape (a file from another
 * version, a bug, a key reused elsewhere) would otherwise answer wrongly or crash later, far from
 * the cause. The check reads and never transforms: the replica keeps exactly what was saved.
 *
 * A copy this build saved is not checked again: persist.ts seals it with the fingerprint of these
 * schemas (snapshotShape) in its header and associated data, so only code holding the key and
 * the same schemas can have written it, from the replica it answers from itself. Checking every
 * entity was half the cost of reading a copy, which hosted instances do for every user they meet.
 * What that gives up: a copy this build made wrong (its replica wrong, so its own answers too) is
 * no longer caught when read again; when answering from it throws, it is dropped and the budget
 * fetched whole (saved-copies.ts drop, manager.ts dropBroken).
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { CurrencyFormat, DateFormat, IsoDate, IsoDateTime, Knowledge } from '../api/schemas/common.js';
import * as E from '../api/schemas/entities.js';
import type { ReplicaSnapshot } from './replica.js';

const Summary = z.object({
  id: z.string().min(1),
  name: z.string(),
  last_modified_on: IsoDateTime.nullable(),
  first_month: IsoDate.nullable(),
  last_month: IsoDate.nullable(),
  date_format: DateFormat.nullable(),
  currency_format: CurrencyFormat.nullable(),
});

const Snapshot = z.object({
  summary: Summary,
  knowledge: Knowledge,
  syncedAt: z.number().int().nonnegative(),
  accounts: z.array(E.AccountBase),
  payees: z.array(E.Payee),
  payee_locations: z.array(E.PayeeLocation),
  category_groups: z.array(E.CategoryGroup),
  categories: z.array(E.CategoryBase),
  months: z.array(E.MonthDetailBase),
  transactions: z.array(E.TransactionSummaryBase),
  subtransactions: z.array(E.SubTransactionBase),
  scheduled_transactions: z.array(E.ScheduledTransactionSummaryBase),
  scheduled_subtransactions: z.array(E.ScheduledSubTransactionBase),
});

let shape: string | undefined;

/** A fingerprint of the shape checked here (a hash of its JSON Schema): it changes when the schemas do. */
export function snapshotShape(): string {
  shape ??= createHash('sha256')
    .update(JSON.stringify(z.toJSONSchema(Snapshot, { unrepresentable: 'any', io: 'input' })))
    .digest('hex')
    .slice(0, 16);
  return shape;
}

/** A clock difference tolerated between whoever saved a replica and this process (hosted instances). */
export const CLOCK_SKEW_MS = 60_000;

/**
 * Why `data` cannot be used as the replica of `budgetId` at `now`, or null when it can. Names the
 * first problem (a path into the document), never the budget's content. `ofThisShape`: sealed by
 * this build (see the header), so only its budget and sync time are checked.
 */
export function snapshotProblem(data: unknown, budgetId: string, now: number, ofThisShape = false): string | null {
  const parsed = ofThisShape ? { success: true as const } : Snapshot.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `unexpected content at ${issue?.path.length ? issue.path.join('.') : 'the top'}`;
  }
  const s = data as ReplicaSnapshot;
  if (s.summary.id !== budgetId) return 'it is the copy of another budget';
  if (s.syncedAt > now + CLOCK_SKEW_MS) return `its sync time ${new Date(s.syncedAt).toISOString()} is in the future`;
  return null;
}
