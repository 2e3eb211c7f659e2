/**
 * The task tools' handlers (transfer.ts, move-money.ts, bulk.ts, split.ts, undo-task.ts), each
 * typed from the zod schema of its arguments, and what they share: the amount they take, the
 * account an argument names.
 */
import * as z from 'zod';
import type * as E from '../../api/schemas/entities.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { MILLIUNITS_DOC } from '../../shared/field-docs.js';
import { requiredMoney } from '../../shared/money-args.js';
import { signedAmount } from '../../shared/arg-schemas.js';
import type { BudgetReplica } from '../../sync/replica.js';
import type { PlanContext, WritePlan } from './pipeline.js';

/** A task tool's plan: applied, it answers with structured content. */
export type TaskPlan = WritePlan<Record<string, unknown>>;

type Args<I extends z.ZodRawShape> = z.infer<z.ZodObject<I>>;

/** A task tool's handler that writes, as the pipeline runs it (task-run.ts). */
export interface WriteTask {
  input: z.ZodRawShape;
  /** Computes from YNAB's figures (a month's assignments): its plan reads the budget as it is now. */
  needsNow: boolean;
  plan(ctx: PlanContext, args: Record<string, unknown>): Promise<TaskPlan>;
}

/** A task tool's handler that reads. */
export interface ReadTask {
  input: z.ZodRawShape;
  /** Reads the budget as a held write's preview does (within a second), not within the staleness bound. */
  needsNow?: boolean;
  read(ctx: PlanContext, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export type Task = WriteTask | ReadTask;

/**
 * A task that writes: its handler takes the arguments as its schema types them. They come
 * checked against the tool's schema, names replaced by ids; parsed here once more, so that the
 * type is the schema's, not asserted.
 */
export function taskWrite<I extends z.ZodRawShape>(spec: {
  input: I;
  /** Computes from YNAB's figures (a month's assignments): its plan reads the budget as it is now. */
  needsNow?: boolean;
  plan: (ctx: PlanContext, args: Args<I>) => Promise<TaskPlan>;
}): WriteTask {
  const schema = z.object(spec.input);
  return { input: spec.input, needsNow: spec.needsNow === true, plan: (ctx, args) => spec.plan(ctx, schema.parse(args)) };
}

/** A task that only reads (the undo journal's list). */
export function taskRead<I extends z.ZodRawShape>(spec: {
  input: I;
  needsNow?: boolean;
  read: (ctx: PlanContext, args: Args<I>) => Promise<Record<string, unknown>>;
}): ReadTask {
  const schema = z.object(spec.input);
  return { input: spec.input, ...(spec.needsNow ? { needsNow: true } : {}), read: (ctx, args) => spec.read(ctx, schema.parse(args)) };
}

/** An amount a task takes: decimal, or milliunits (shared/money-args.ts reads the pair); `signed`: it has a sign (a split's total), which an amount given as text is answered with. */
export const moneyPair = (doc: string, signed = false) => ({
  amount: (signed ? signedAmount() : z.number()).optional().describe(doc),
  amount_milliunits: z.int().optional().describe(MILLIUNITS_DOC),
});

export function positive(args: Record<string, unknown>, digits: number | undefined): number {
  const m = requiredMoney(args, 'amount', { digits });
  if (m <= 0) throw new ArgumentError(`amount must be above zero (the direction is given by from and to), got ${m / 1000}`);
  return m;
}

/**
 * The account an argument names. A closed one is taken, as YNAB takes it (the plan's notices say
 * it is closed: ./checks.ts).
 */
export function accountOf(r: BudgetReplica, id: string, label: string): E.AccountBase {
  const a = r.accounts.get(id);
  if (!a || a.deleted) throw new ArgumentError(`${label} ${id}: no such account in the budget ${JSON.stringify(r.summary.name)}`);
  return a;
}
