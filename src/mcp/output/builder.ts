/**
 * The one output builder: turns an operation's `data` into a tool result (and resource text).
 *  - compact entities by default, `detail: "full"` for everything the API returns, `fields` to
 *    pick fields (id and name always kept);
 *  - lists paged with `limit` and an opaque cursor, with `count`, `has_more`, `next_cursor`;
 *    transaction lists also carry their total, inflow and outflow (all matching rows, exact);
 *  - a hard size cap: an answer that would be too large holds fewer items and says how to get
 *    the rest; nothing is dropped silently;
 *  - how fresh the answer is, and notices (e.g. the API's one-year default date window);
 *  - member names as the API's (`accounts`, `transaction`, `category_groups`, `budgets`, …).
 */
import { ACCOUNT_KINDS, accountKind } from '../../api/account-kinds.js';
import { formatMilliunits, sumMilliunits } from '../../api/money.js';
import { LazyList } from '../../api/read/lazy-list.js';
import type { OutputKind } from '../../api/operations/index.js';
import { VOCABULARY } from './vocabulary.js';
import { compact, compactFieldNames, debtTerms, isRecord, live, project, renamedFields, ROW_KIND, type CompactContext } from './compact.js';
import { DEFAULT_LIMIT, decodeCursor, encodeCursor, PagingError } from '../../shared/paging.js';

export interface OutputShape {
  /** The member of `data` holding the result (table name). */
  member: string;
  /** The member's name in the answer (the /budgets-era name, as the tools speak it). */
  outputMember: string;
  kind: OutputKind;
  list: boolean;
  /** For one entity holding a long list (a month's categories): page that list. */
  nestedList?: string;
  /** What the answer totals over every row (the operation's output facts). */
  totals?: 'transactions' | 'accounts';
  /** A list of months, paged newest first. */
  newestFirst?: boolean;
}

export interface OutputOptions {
  detail?: 'compact' | 'full';
  fields?: string[];
  limit?: number;
  cursor?: string;
  /** Fingerprint of the query, for cursors. */
  queryKey: string;
}

export interface OutputInput {
  shape: OutputShape;
  data: Record<string, unknown>;
  options: OutputOptions;
  ctx: CompactContext;
  /** Extra members copied through (freshness, transaction_ids, duplicate_import_ids, …). */
  extras?: Record<string, unknown>;
  notices?: string[];
  maxChars: number;
}

export class OutputTooLargeError extends Error {}

/** In a list of category groups, `fields` picks fields of the categories inside them. */
export const FIELDS_APPLY_TO: Partial<Record<OutputKind, { kind: OutputKind; member: string }>> = {
  category_group: { kind: 'category', member: 'categories' },
};

/** Milliunits, or a map of them, in the budget's currency. */
function formatted(v: unknown, ctx: CompactContext): unknown {
  if (typeof v === 'number') return formatMilliunits(v, ctx.format);
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, typeof x === 'number' ? formatMilliunits(x, ctx.format) : x]));
}

/**
 * A full entity with every money figure formatted beside it (the vocabulary's rule): the API
 * formats the figures of most answers itself, but not those inside a whole budget's export.
 */
function withFormatted(e: Record<string, unknown>, ctx: CompactContext): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  const entries = Object.entries(e);
  for (const [i, [k, v]] of entries.entries()) {
    const term = VOCABULARY[k];
    // A money figure, or a map of them by date (a loan's minimum payments).
    const fill = term?.kind === 'money' && !(`${k}_formatted` in e) && (typeof v === 'number' || (term.keys === 'dates' && isRecord(v)));
    const nested = Array.isArray(v) ? v.map((x) => (isRecord(x) ? withFormatted(x, ctx) : x)) : isRecord(v) && !term?.keys ? withFormatted(v, ctx) : v;
    if (!fill && nested === v) {
      if (out) out[k] = v;
      continue;
    }
    // Something changes: copy what came before (once), then go on copying.
    out ??= Object.fromEntries(entries.slice(0, i));
    out[k] = nested;
    if (fill) out[`${k}_formatted`] = formatted(v, ctx);
  }
  return out ?? e;
}

/** A debt account in full detail: YNAB's maps as they came, and beside them the terms in effect today, readable. */
function withDebtTerms(kind: OutputKind, e: Record<string, unknown>, ctx: CompactContext): Record<string, unknown> {
  const debt = kind === 'account' ? debtTerms(e, ctx) : null;
  return debt ? { ...e, debt } : e;
}

/**
 * One entity of an answer. Without `fields`, list items of some kinds are lean rows; with
 * `fields`, they are picked from the entity's whole compact form (so any compact field can be asked for).
 */
function render(kind: OutputKind, e: Record<string, unknown>, o: OutputOptions, ctx: CompactContext, item = false): Record<string, unknown> {
  if (!o.fields?.length) return o.detail === 'full' ? withFormatted(withDebtTerms(kind, e, ctx), ctx) : compact((item && ROW_KIND[kind]) || kind, e, ctx);
  const nested = FIELDS_APPLY_TO[kind];
  const base = o.detail === 'full' ? withFormatted(e, ctx) : compact(kind, nested ? { ...e, categories: [] } : e, ctx);
  const inner = nested ? e[nested.member] : undefined;
  if (nested && Array.isArray(inner)) {
    const items = live(inner).map((x) => (o.detail === 'full' ? withFormatted(x, ctx) : compact(nested.kind, x, ctx)));
    return { ...project(base, []), [nested.member]: items.map((x) => project(x, o.fields!)) };
  }
  return project(base, o.fields);
}

function checkFields(kind: OutputKind, o: OutputOptions, sample: Record<string, unknown> | undefined): void {
  if (!o.fields?.length) return;
  const nested = FIELDS_APPLY_TO[kind];
  const inner = nested ? sample?.[nested.member] : undefined;
  const nestedSample: unknown = Array.isArray(inner) ? inner[0] : undefined;
  const known = new Set(o.detail === 'full' && sample ? Object.keys(isRecord(nestedSample) ? nestedSample : sample) : compactFieldNames(nested?.kind ?? kind));
  const unknown = o.fields.filter((f) => !known.has(f));
  if (unknown.length) {
    // YNAB's own name of a field called otherwise here (budgeted is assigned): said, not left to guess.
    const renamed = renamedFields(nested?.kind ?? kind);
    const ours = unknown.filter((f) => renamed[f] && known.has(renamed[f])).map((f) => `YNAB's ${JSON.stringify(f)} is ${JSON.stringify(renamed[f])} here`);
    throw new PagingError(
      `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => JSON.stringify(f)).join(', ')}${ours.length ? ` (${ours.join('; ')})` : ''}; available${o.detail === 'full' ? '' : ' in compact detail'}: ${[...known].join(', ')}`,
    );
  }
}

function totals(items: Record<string, unknown>[], ctx: CompactContext): Record<string, unknown> {
  // Over every row of the list, not only the page shown: summed without arrays of the amounts.
  let inflow = 0;
  let outflow = 0;
  for (const t of items) {
    const a = t.amount as number;
    if (a > 0) inflow += a;
    else if (a < 0) outflow += a;
  }
  if (!Number.isSafeInteger(inflow) || !Number.isSafeInteger(outflow)) throw new RangeError('sum of amounts left the safe integer range');
  return { ...money('total', inflow + outflow, ctx), ...money('inflow', inflow, ctx), ...money('outflow', outflow, ctx) };
}

/** A money figure of an answer: its milliunits under its name, and beside them the same formatted. */
function money(name: string, milliunits: number, ctx: CompactContext): Record<string, number | string> {
  return { [name]: milliunits, [`${name}_formatted`]: formatMilliunits(milliunits, ctx.format) };
}

/**
 * A list of accounts' balances by kind, and the net worth: every open account, whatever page is
 * shown, so that "what do we have in cash" and "what is our net worth" need no arithmetic.
 */
function accountTotals(items: Record<string, unknown>[], ctx: CompactContext): Record<string, unknown> {
  const open = items.filter((a) => !a.closed && !a.deleted);
  const out: Record<string, unknown> = { count: open.length };
  for (const kind of ACCOUNT_KINDS) {
    const of = open.filter((a) => accountKind(String(a.type)) === kind);
    if (!of.length) continue;
    out[kind] = { count: of.length, ...money('balance', sumMilliunits(of.map((a) => a.balance as number)), ctx) };
  }
  return {
    ...out,
    ...money('net_worth', sumMilliunits(open.map((a) => a.balance as number)), ctx),
    closed_accounts_left_out: items.length - open.length,
  };
}

/** Kinds whose compact rows leave out zero figures (compact.ts's lean rows). */
const LEAN_KINDS: ReadonlySet<OutputKind> = new Set(['category', 'category_group']);

/**
 * The builder's rule for zeros: a money field that is not zero on some row of the answer is kept
 * at zero on every row (a payment category holding $0.00 still says so), for lean rows, which
 * otherwise leave zeros out. The keys are the API's, looked for in the rows and the lists inside them.
 */
function nonZeroKeys(rows: readonly Record<string, unknown>[]): Set<string> {
  const keys = new Set<string>();
  const walk = (e: Record<string, unknown>) => {
    // for-in, not Object.entries: a month's categories are about 40 fields each, walked every answer.
    for (const k in e) {
      const v = e[k];
      if (typeof v === 'number' && v !== 0) keys.add(k);
      else if (Array.isArray(v)) for (const x of v) if (isRecord(x)) walk(x);
    }
  };
  for (const r of rows) walk(r);
  return keys;
}

export interface BuiltOutput {
  structured: Record<string, unknown>;
  /** The structured answer as JSON. */
  readonly text: string;
}

export function buildOutput(input: OutputInput): BuiltOutput {
  const { shape, data, options: o, ctx } = input;
  const value = data[shape.member];
  const notices = [...(input.notices ?? [])];
  const base: Record<string, unknown> = {};

  if (!shape.list && !shape.nestedList) {
    if (isRecord(value)) checkFields(shape.kind, o, value);
    const entity = isRecord(value) ? render(shape.kind, value, o, ctx) : value;
    const structured = { [shape.outputMember]: entity, ...input.extras, ...(notices.length ? { notices } : {}) };
    const text = JSON.stringify(structured);
    if (text.length > input.maxChars) {
      throw new OutputTooLargeError(
        `the answer is ${text.length} characters, over the limit of ${input.maxChars}; ask for detail "compact" or specific fields, or use the list tools for its parts`,
      );
    }
    return { structured, text };
  }

  // The list to page: the value itself, or a list inside one entity (a month's categories).
  const parent = shape.nestedList && isRecord(value) ? value : undefined;
  const list = shape.nestedList ? parent?.[shape.nestedList] : value;
  // A lazy list is counted and totalled from its rows; only the items shown are built (once).
  const lazy = list instanceof LazyList ? list : undefined;
  const rows = live(lazy ? lazy.rows : Array.isArray(list) ? list : []);
  const all = shape.newestFirst ? rows.sort((x, y) => String(y.month).localeCompare(String(x.month))) : rows;
  const shown = new Map<number, Record<string, unknown>>();
  const item = (i: number): Record<string, unknown> => {
    if (!lazy) return all[i]!;
    let v = shown.get(i);
    if (!v) shown.set(i, (v = lazy.build(all[i] as never) as Record<string, unknown>));
    return v;
  };
  checkFields(shape.nestedList ? 'category' : shape.kind, o, all.length ? item(0) : undefined);
  const offset = decodeCursor(o.cursor, o.queryKey);
  const limit = o.limit ?? DEFAULT_LIMIT;
  const itemKind: OutputKind = shape.nestedList ? 'category' : shape.kind;
  if (shape.totals === 'transactions') Object.assign(base, totals(all, ctx));
  if (shape.totals === 'accounts') base.totals = accountTotals(all, ctx);

  const assemble = (n: number) => {
    const end = Math.min(offset + n, all.length);
    const page: Record<string, unknown>[] = [];
    const rows: Record<string, unknown>[] = [];
    for (let i = offset; i < end; i++) rows.push(item(i));
    const rowCtx = LEAN_KINDS.has(itemKind) ? { ...ctx, keepZero: nonZeroKeys(rows) } : ctx;
    for (const row of rows) page.push(render(itemKind, row, o, rowCtx, true));
    const more = end < all.length;
    const listValue = parent
      ? { ...(o.detail === 'full' ? parent : compact(shape.kind, { ...parent, categories: [] }, ctx)), [shape.nestedList!]: page }
      : page;
    const structured: Record<string, unknown> = {
      [shape.outputMember]: listValue,
      count: all.length,
      returned: page.length,
      has_more: more,
      ...(more ? { next_cursor: encodeCursor(end, o.queryKey) } : {}),
      ...base,
      ...input.extras,
    };
    return { structured, more, end };
  };

  let n = Math.min(limit, Math.max(0, all.length - offset));
  let built = assemble(n);
  if (JSON.stringify({ ...built.structured, notices }).length > input.maxChars) {
    // Largest page that fits, by bisection over the item count.
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (JSON.stringify(assemble(mid).structured).length + 400 <= input.maxChars) lo = mid;
      else hi = mid - 1;
    }
    if (lo === 0) {
      throw new OutputTooLargeError(`a single item is over the answer limit of ${input.maxChars} characters; ask for specific fields`);
    }
    n = lo;
    built = assemble(n);
    notices.push(
      `Only ${n} of the ${Math.min(limit, all.length - offset)} requested items fit in one answer (size limit). The rest: call again with cursor ${JSON.stringify(built.structured.next_cursor)}, or ask for fewer fields.`,
    );
  }
  const structured = notices.length ? { ...built.structured, notices } : built.structured;
  // Written out only when asked for: a tool's answer is sanitized first and written from that.
  return {
    structured,
    get text() {
      return JSON.stringify(structured);
    },
  };
}
