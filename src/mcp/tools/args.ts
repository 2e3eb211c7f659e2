/**
 * Tool arguments, derived from the operations table: path and query parameters as they are,
 * body fields flattened out of their wrapper, and every money field offered twice, as `<field>`
 * (a decimal amount in currency units) and `<field>_milliunits` (an integer), exactly one of
 * which must be given. Ids of budgets, accounts, categories, category groups and payees are
 * plain strings here: each takes an id or an exact name, turned into the id before the call
 * (../resolve.ts). Converting back produces the API's request (params, query, body).
 * Schemas are strict (an unknown argument is an error) and free of oneOf/allOf (a nullable field is the one anyOf, src/mcp/tools/schema.ts).
 */
import * as z from 'zod';
import type { Operation } from '../../api/operations/index.js';
import { QUERY_PARAMS } from '../../api/query.js';
import { namedKindOf } from '../resolve/names.js';
import { ArgumentError, checkDateRange } from '../../shared/argument-error.js';
import { guardedString, MONTH_ARG, NameOrId, BUDGET_ARG, PAGING, signedAmount } from '../../shared/arg-schemas.js';
import { moneyArg } from '../../shared/money-args.js';
import { ENUM_DOCS, FIELD_DOCS, MILLIUNITS_DOC, MONEY_DOCS, UPDATE_DOCS } from '../../shared/field-docs.js';

type Def = { type?: string; innerType?: z.ZodType; element?: z.ZodType };
const def = (s: z.ZodType) => (s as unknown as { def: Def }).def;

/** What a body field became in the tool's arguments, to convert back. */
type FieldPlan =
  { kind: 'plain'; key: string } | { kind: 'money'; key: string; required: boolean; nullable: boolean } | { kind: 'lines'; key: string; item: ObjectPlan };

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

/** `nested`: inside split lines, where the parent's fields already said what each one means. */
function describeMoney(key: string, nullable: boolean, nested: boolean): Record<string, z.ZodType> {
  // A transaction's amount has a sign: text given for it is answered with the signed forms.
  const number = key === 'amount' ? signedAmount() : z.number();
  const decimal = nested ? number : number.describe(MONEY_DOCS[key]!);
  const milli = nested ? z.int() : z.int().describe(MILLIUNITS_DOC);
  return {
    [key]: (nullable ? decimal.nullable() : decimal).optional(),
    [`${key}_milliunits`]: (nullable ? milli.nullable() : milli).optional(),
  };
}

/** A field's schema as a tool argument: ids of named things take names too. */
function argumentSchema(key: string, field: z.ZodType, optional: boolean, nullable: boolean): z.ZodType {
  if (!namedKindOf(key)) return field;
  const base = nullable ? NameOrId.nullable() : NameOrId;
  return optional ? base.optional() : base;
}

/** The body fields that are enums (a body's `type` is an account's). */
const BODY_ENUM_DOCS: Record<string, string> = {
  cleared: ENUM_DOCS.cleared,
  flag_color: ENUM_DOCS.flag_color,
  frequency: ENUM_DOCS.frequency,
  goal_frequency: ENUM_DOCS.goal_frequency,
  type: ENUM_DOCS.account_type,
};

/**
 * Flattens a body object schema into tool argument fields, remembering how to convert back.
 * `nested` (split lines): fields carry no description, the parent's says what each means.
 * `creating`: a create's fields, where what null clears is not said.
 */
function flatten(schema: z.ZodObject, forceOptional: boolean, creating: boolean, nested = false): { shape: Record<string, z.ZodType>; plan: ObjectPlan } {
  const shape: Record<string, z.ZodType> = {};
  const plan: ObjectPlan = { fields: [] };
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const { inner, optional, nullable } = unwrap(field);
    if (MONEY.has(key)) {
      Object.assign(shape, describeMoney(key, nullable, nested));
      plan.fields.push({ kind: 'money', key, required: !optional && !forceOptional, nullable });
      continue;
    }
    const element = def(inner).type === 'array' ? def(inner).element! : undefined;
    if (element && def(unwrap(element).inner).type === 'object') {
      const sub = flatten(unwrap(element).inner as z.ZodObject, false, creating, true);
      const lines = z.array(z.strictObject(sub.shape)).optional();
      shape[key] = FIELD_DOCS[key] ? lines.describe(FIELD_DOCS[key]) : lines;
      plan.fields.push({ kind: 'lines', key, item: sub.plan });
      continue;
    }
    const arg = argumentSchema(key, field, optional, nullable);
    // An enum names its values wherever it is, split lines too (issue 58 item 9).
    const doc = BODY_ENUM_DOCS[key] ?? (nested ? undefined : (FIELD_DOCS[key] ?? (creating ? undefined : UPDATE_DOCS[key])));
    const described = doc ? arg.describe(doc) : arg;
    shape[key] = forceOptional && !optional ? described.optional() : described;
    plan.fields.push({ kind: 'plain', key });
  }
  return { shape, plan };
}

function toBody(plan: ObjectPlan, args: Record<string, unknown>, where: string, digits: number | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of plan.fields) {
    if (f.kind === 'money') {
      const v = moneyArg(args, f.key, { where, required: f.required, nullable: f.nullable, digits });
      if (v !== undefined) out[f.key] = v;
    } else if (f.kind === 'lines') {
      const lines = args[f.key] as Record<string, unknown>[] | undefined;
      if (lines !== undefined) out[f.key] = lines.map((line, i) => toBody(f.item, line, `${where ? `${where}.` : ''}${f.key}[${i}]`, digits));
    } else if (args[f.key] !== undefined) {
      out[f.key] = args[f.key];
    }
  }
  return out;
}

/** An id that is a UUID in the API (checked, not advertised: the argument's name says what it is). */
const UUID_ARG = z
  .string()
  .refine((v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v), { message: 'must be an id as the list tools give it (a UUID)' });

function pathParam(name: string): z.ZodType {
  const doc = FIELD_DOCS[name];
  if (name === 'month') return MONTH_ARG.describe(doc!);
  // A named thing's id (account, category, payee): what it takes is in the instructions; FIELD_DOCS
  // describe it as a transaction's field (payee_id: a transfer payee makes a transfer), not as a path.
  if (namedKindOf(name)) return NameOrId;
  // Transaction ids are not always UUIDs in the API; other ids are. Their names say what they are.
  if (name === 'transaction_id') return guardedString(100);
  return UUID_ARG;
}

/** What converting arguments needs to know about the budget. */
export interface CallContext {
  /** The budget id (or alias) to use when the arguments name none. */
  budget: string;
  /** Decimal digits of the budget's currency: a decimal amount may not have more. */
  decimalDigits?: number;
}

/** A body's tool arguments, and how to turn them back into the body. */
interface BodyShape {
  shape: Record<string, z.ZodType>;
  toBody(args: Record<string, unknown>, digits: number | undefined): unknown;
}

const FIELDS = z.array(guardedString(64)).refine((v) => v.length <= 50, { message: 'must hold at most 50 items' });

/**
 * The arguments an API tool may take besides its operation's own: how the answer is shown (detail,
 * fields, include_all, limit, cursor), allow_duplicate, allow_new_payee and allow_inflow. Which of them a tool takes follows from
 * its row's facts (definitions.ts).
 */
export const CONTROLS = {
  detail: z.enum(['compact', 'full']).optional().describe(ENUM_DOCS.detail),
  fields: FIELDS.optional(),
  include_all: z.boolean().optional().describe(FIELD_DOCS.include_all!),
  ...PAGING,
  allow_duplicate: z.boolean().optional(),
  allow_new_payee: z.boolean().optional(),
  allow_inflow: z.boolean().optional(),
};

/**
 * What an API tool's arguments are known to hold, typed from their schemas: budget_id, the
 * controls, and the date window of transaction lists; the rest (path, query and body fields) come
 * from the operations table at run time.
 */
const API_TOOL_ARGS = z.looseObject({
  budget_id: z.string().optional(),
  since_date: QUERY_PARAMS.since_date.schema.optional(),
  until_date: QUERY_PARAMS.until_date.schema.optional(),
  ...CONTROLS,
});

/** An API tool's arguments: the controls and budget_id as their schemas type them, and the operation's own fields. */
export type ApiToolArgs = z.infer<typeof API_TOOL_ARGS>;

/** Types arguments the tool's input schema has validated (its schemas include these, so this cannot fail on them). */
export function apiToolArgs(args: Record<string, unknown>): ApiToolArgs {
  return API_TOOL_ARGS.parse(args);
}

export interface ToolArgs {
  shape: Record<string, z.ZodType>;
  /** Builds the API request from validated tool arguments (names already turned into ids). */
  toCall(args: ApiToolArgs, ctx: CallContext): { params: Record<string, string>; query: Record<string, unknown>; body?: unknown };
}

/** How a body wrapper is presented (the row's bodyArgs): its one member flattened, or a list member kept as a list. */
function bodyArgs(op: Operation): BodyShape | undefined {
  if (!op.body || !op.bodyMembers?.length) return undefined;
  const wrapper = op.body as z.ZodObject;
  const members = wrapper.shape as Record<string, z.ZodType>;
  const how = op.bodyArgs;
  const creating = op.method === 'POST';
  if (how?.kind === 'list') {
    const item = unwrap(def(unwrap(members[how.member]!).inner).element!).inner as z.ZodObject;
    const { shape, plan } = flatten(item, false, creating);
    return {
      shape: { [how.member]: z.array(z.strictObject(shape)).min(1).max(100).describe(how.doc) },
      toBody: (args, digits) => ({
        [how.member]: (args[how.member] as Record<string, unknown>[]).map((t, i) => ({
          ...how.defaults,
          ...toBody(plan, t, `${how.member}[${i}]`, digits),
        })),
      }),
    };
  }
  const member = op.bodyMembers[0]!;
  const inner = unwrap(members[member]!).inner as z.ZodObject;
  const { shape, plan } = flatten(inner, how?.kind === 'partial', creating);
  return { shape, toBody: (args, digits) => ({ [member]: toBody(plan, args, '', digits) }) };
}

export function toolArgs(op: Operation): ToolArgs {
  const shape: Record<string, z.ZodType> = {};
  if (op.scope === 'budget') shape.budget_id = BUDGET_ARG;
  for (const p of op.params) shape[p] = pathParam(p);
  for (const q of op.query) {
    if (q === 'last_knowledge_of_server') continue; // deltas are the server's business, not the assistant's
    const param = (QUERY_PARAMS[q].schema as z.ZodType).optional();
    shape[q] = FIELD_DOCS[q] ? param.describe(FIELD_DOCS[q]) : param;
  }
  const body = bodyArgs(op);
  if (body) for (const [k, v] of Object.entries(body.shape)) if (!(k in shape)) shape[k] = v;
  return {
    shape,
    toCall(args, ctx) {
      checkDateRange(args);
      const params: Record<string, string> = {};
      if (op.scope === 'budget') params.budget_id = args.budget_id ?? ctx.budget;
      for (const p of op.params) params[p] = args[p] as string;
      const query: Record<string, unknown> = {};
      for (const q of op.query) if (args[q] !== undefined) query[q] = args[q];
      return { params, query, body: body?.toBody(args, ctx.decimalDigits) };
    },
  };
}
