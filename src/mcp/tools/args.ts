/**
 * Tool arguments, derived from the operations table: path and query parameters as they are,
 * body fields flattened out of their wrapper, and every money field offered twice, as `<field>`
 * (a decimal amount in currency units) and `<field>_milliunits` (an integer), exactly one of
 * which must be given. Converting back produces the API's request (params, query, body).
 * Schemas are strict (an unknown argument is an error) and free of anyOf/oneOf.
 */
import * as z from 'zod';
import { decimalToMilliunits, MoneyInputError } from '../../api/money.js';
import type { Operation } from '../../api/operations/index.js';
import { QUERY_PARAMS } from '../../api/query.js';
import { Uuid } from '../../api/schemas/common.js';
import { FIELD_DOCS, MONEY_DOCS } from './field-docs.js';

export class ArgumentError extends Error {}

type Def = { type?: string; innerType?: z.ZodType; element?: z.ZodType };
const def = (s: z.ZodType) => (s as unknown as { def: Def }).def;

/** What a body field became in the tool's arguments, to convert back. */
type FieldPlan =
  | { kind: 'plain'; key: string }
  | { kind: 'money'; key: string; required: boolean; nullable: boolean }
  | { kind: 'lines'; key: string; item: ObjectPlan };

interface ObjectPlan {
  fields: FieldPlan[];
}

function unwrap(s: z.ZodType): { inner: z.ZodType; optional: boolean; nullable: boolean } {
  let inner = s;
  let optional = false;
  let nullable = false;
  for (;;) {
    const t = def(inner).type;
    if (t === 'optional') optional = true;
    else if (t === 'nullable') nullable = true;
    else break;
    inner = def(inner).innerType!;
  }
  return { inner, optional, nullable };
}

const MONEY = new Set(Object.keys(MONEY_DOCS));

function describeMoney(key: string, nullable: boolean): Record<string, z.ZodType> {
  const doc = MONEY_DOCS[key]!;
  const decimal = z.number().describe(`${doc} In currency units as a decimal number (e.g. -12.34). Give this or ${key}_milliunits, not both.`);
  const milli = z.int().describe(`${doc} In milliunits, an integer (1000 = one unit; -12.34 = -12340). Give this or ${key}, not both.`);
  return {
    [key]: (nullable ? decimal.nullable() : decimal).optional(),
    [`${key}_milliunits`]: (nullable ? milli.nullable() : milli).optional(),
  };
}

/** Flattens a body object schema into tool argument fields, remembering how to convert back. */
function flatten(schema: z.ZodObject, forceOptional: boolean): { shape: Record<string, z.ZodType>; plan: ObjectPlan } {
  const shape: Record<string, z.ZodType> = {};
  const plan: ObjectPlan = { fields: [] };
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const { inner, optional, nullable } = unwrap(field);
    if (MONEY.has(key)) {
      Object.assign(shape, describeMoney(key, nullable));
      plan.fields.push({ kind: 'money', key, required: !optional && !forceOptional, nullable });
      continue;
    }
    const element = def(inner).type === 'array' ? def(inner).element! : undefined;
    if (element && def(unwrap(element).inner).type === 'object') {
      const sub = flatten(unwrap(element).inner as z.ZodObject, false);
      shape[key] = z.array(z.strictObject(sub.shape)).optional().describe(FIELD_DOCS[key] ?? key);
      plan.fields.push({ kind: 'lines', key, item: sub.plan });
      continue;
    }
    const doc = FIELD_DOCS[key === 'type' ? 'type_account' : key];
    const described = doc ? field.describe(doc) : field;
    shape[key] = forceOptional && !optional ? described.optional() : described;
    plan.fields.push({ kind: 'plain', key });
  }
  return { shape, plan };
}

/** Milliunits from a money argument pair; undefined when neither was given. */
function money(args: Record<string, unknown>, key: string, where: string, required: boolean, nullable: boolean): number | null | undefined {
  const decimal = args[key];
  const milli = args[`${key}_milliunits`];
  const label = where ? `${where}.${key}` : key;
  if (decimal !== undefined && milli !== undefined) {
    throw new ArgumentError(`give ${label} (a decimal amount) or ${label}_milliunits (an integer), not both`);
  }
  if (decimal === undefined && milli === undefined) {
    if (required) throw new ArgumentError(`${label} is required: give ${label} as a decimal amount (e.g. -12.34) or ${label}_milliunits as an integer`);
    return undefined;
  }
  if (decimal === null || milli === null) {
    if (!nullable) throw new ArgumentError(`${label} cannot be null`);
    return null;
  }
  if (milli !== undefined) return milli as number;
  try {
    return decimalToMilliunits(decimal as number);
  } catch (e) {
    if (e instanceof MoneyInputError) throw new ArgumentError(`${label}: ${e.message}`);
    throw e;
  }
}

function toBody(plan: ObjectPlan, args: Record<string, unknown>, where: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of plan.fields) {
    if (f.kind === 'money') {
      const v = money(args, f.key, where, f.required, f.nullable);
      if (v !== undefined) out[f.key] = v;
    } else if (f.kind === 'lines') {
      const lines = args[f.key] as Record<string, unknown>[] | undefined;
      if (lines !== undefined) out[f.key] = lines.map((line, i) => toBody(f.item, line, `${where ? `${where}.` : ''}${f.key}[${i}]`));
    } else if (args[f.key] !== undefined) {
      out[f.key] = args[f.key];
    }
  }
  return out;
}

const MONTH = z.string().regex(/^(current|\d{4}-(0[1-9]|1[0-2])-01)$/, { message: 'must be "current" or the first day of a month as YYYY-MM-01' });

function pathParam(name: string): z.ZodType {
  const doc = FIELD_DOCS[name] ?? name;
  if (name === 'month') return MONTH.describe(doc);
  // Transaction ids are not always UUIDs in the API; other ids are.
  if (name === 'transaction_id') return z.string().min(1).max(100).describe(doc);
  return Uuid.describe(doc);
}

export interface ToolArgs {
  shape: Record<string, z.ZodType>;
  /** Builds the API request from validated tool arguments. */
  toCall(args: Record<string, unknown>, defaultBudget: string): { params: Record<string, string>; query: Record<string, unknown>; body?: unknown };
}

/** How a body wrapper is presented: its one member flattened, or an array member kept as a list. */
function bodyArgs(op: Operation): { shape: Record<string, z.ZodType>; toBody: (args: Record<string, unknown>) => unknown } | undefined {
  if (!op.body || !op.bodyMembers?.length) return undefined;
  const wrapper = op.body as z.ZodObject;
  if (op.id === 'createTransaction' || op.id === 'updateTransactions') {
    // Both take a list: `transactions` (one or many), always sent as the list form so that
    // duplicate import ids are reported per transaction rather than failing the whole call.
    const item = unwrap(def(unwrap((wrapper.shape as Record<string, z.ZodType>).transactions!).inner).element!).inner as z.ZodObject;
    const { shape, plan } = flatten(item, false);
    const doc = op.id === 'createTransaction' ? 'The transactions to create (one or more, up to 100).' : 'The transactions to update, each with id or import_id and the fields to change (up to 100).';
    return {
      shape: { transactions: z.array(z.strictObject(shape)).min(1).max(100).describe(doc) },
      toBody: (args) => ({ transactions: (args.transactions as Record<string, unknown>[]).map((t, i) => toBody(plan, t, `transactions[${i}]`)) }),
    };
  }
  const member = op.bodyMembers[0]!;
  const inner = unwrap((wrapper.shape as Record<string, z.ZodType>)[member]!).inner as z.ZodObject;
  // PUT of a transaction changes only the fields given; every field is optional there.
  const { shape, plan } = flatten(inner, op.id === 'updateTransaction');
  return { shape, toBody: (args) => ({ [member]: toBody(plan, args, '') }) };
}

export function toolArgs(op: Operation): ToolArgs {
  const shape: Record<string, z.ZodType> = {};
  if (op.scope === 'budget') shape.budget_id = z.string().min(1).max(100).optional().describe(FIELD_DOCS.budget_id!);
  for (const p of op.params) shape[p] = pathParam(p);
  for (const q of op.query) {
    if (q === 'last_knowledge_of_server') continue; // deltas are the server's business, not the assistant's
    shape[q] = (QUERY_PARAMS[q].schema as z.ZodType).optional().describe(FIELD_DOCS[q] ?? QUERY_PARAMS[q].description);
  }
  const body = bodyArgs(op);
  if (body) for (const [k, v] of Object.entries(body.shape)) if (!(k in shape)) shape[k] = v;
  return {
    shape,
    toCall(args, defaultBudget) {
      const params: Record<string, string> = {};
      if (op.scope === 'budget') params.budget_id = (args.budget_id as string | undefined) ?? defaultBudget;
      for (const p of op.params) params[p] = args[p] as string;
      const query: Record<string, unknown> = {};
      for (const q of op.query) if (args[q] !== undefined) query[q] = args[q];
      return { params, query, body: body?.toBody(args) };
    },
  };
}
