/**
 * What an insight computation is given and what it answers, and the row that declares it as a
 * tool (the table is src/mcp/tools/insights.ts). Declared here, below the protocol layer, so each
 * computation (one file each in this folder) types its arguments from its own input schema.
 */
import type * as z from 'zod';
import type { CurrencyFormat } from '../../api/schemas/common.js';
import type { Rule } from '../../rules/types.js';
import type { ReconciledAt } from '../../sync/reconciled.js';
import type { Money } from './format.js';
import type { BudgetView } from './view.js';

/** What a compute function gets: the budget as YNAB counts it, today (UTC), money formatting. */
export interface InsightContext {
  view: BudgetView;
  today: string;
  money: Money;
  format: CurrencyFormat | null;
  /** Decimal digits of the budget's currency (amount arguments may not have more). */
  digits?: number;
  /** Fingerprint of the call's arguments, for cursors. */
  queryKey: string;
  /** The budget's house rules, for an insight that reads them (`rules: true`). */
  rules?: readonly Rule[];
  /** When this server reconciled each account (ISO date-time by account id), for an insight that reads it (`reconciled: true`). */
  reconciled?: ReconciledAt;
  /** Bytes the protocol layer adds beside the answer (needs_attention's alerts): a compact answer leaves room for them. */
  room?: number;
}

export interface InsightResult {
  structured: Record<string, unknown>;
  notices?: string[];
}

/** An insight's arguments, as a schema's members: each a zod schema. */
export type InsightShape = Record<string, z.ZodType>;

/** The arguments a compute function is called with: the type its input schema parses to. */
export type InsightArgs<S extends InsightShape> = z.infer<z.ZodObject<S>>;

export interface InsightSpec<S extends InsightShape = InsightShape> {
  name: string;
  title: string;
  description: string;
  /** The arguments (budget_id is added to every insight by the tool definition). */
  input: S;
  /** The members of the answer. */
  output: Record<string, z.ZodType>;
  /** Reads the budget's house rules (they are loaded into its context). */
  rules?: true;
  /** Reads when this server reconciled each account (loaded into its context): YNAB's API cannot set last_reconciled_at. */
  reconciled?: true;
  /** Its answer carries the alerts fired since the asking client last asked (issue 59 item 2; added by the protocol layer). */
  alerts?: true;
  /**
   * Method syntax on purpose: the table holds rows of different inputs, and a method's parameter
   * is compared both ways, so each row fits `InsightSpec` without a cast. Each compute declares
   * its arguments as its own input's type (src/insights/<name>.ts); the table pairs the two
   * (test/insights/modules.test.ts checks it) and the caller passes arguments already validated
   * against that input. A promise where the computation loads on the tool's first call (a
   * planning tool: the start of a server does not pay for it).
   */
  compute(ctx: InsightContext, args: InsightArgs<S>): InsightResult | Promise<InsightResult>;
}
