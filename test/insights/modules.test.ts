/**
 * Where the insights live (issue 25): each is computed in its own file of src/insights, beside
 * the input schema its compute function is typed from; src/mcp/tools/insights.ts only declares
 * them as tools (a table of rows, no computation); and no insight handler takes loosely typed
 * arguments (`Record<string, any>`, `any`, or a cast of its arguments).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as z from 'zod';
import * as cashFlowFile from '../../src/insights/cash-flow/cash-flow.js';
import * as forecastFile from '../../src/insights/forecast/forecast.js';
import * as recurringFile from '../../src/insights/recurring/recurring.js';
import * as debtPayoffFile from '../../src/insights/debt/debt-payoff.js';
import * as needsAttentionFile from '../../src/insights/attention/needs-attention.js';
import * as reviewTransactionsFile from '../../src/insights/review/review-transactions.js';
import * as searchTransactionsFile from '../../src/insights/spending/search-transactions.js';
import * as spendingSummaryFile from '../../src/insights/spending/spending-summary.js';
import * as targetsSummaryFile from '../../src/insights/targets/targets-summary.js';
import * as upcomingFile from '../../src/insights/forecast/upcoming.js';
import * as creditCardsFile from '../../src/insights/cards/credit-cards.js';
import { INSIGHT_TOOLS } from '../../src/mcp/tools/definitions.js';
import { REPO_ROOT } from '../helpers/cli.js';

/** Each insight's file, by tool name: the file is the name in kebab case. */
const FILES: Record<string, Record<string, unknown>> = {
  'spending-summary': spendingSummaryFile,
  'search-transactions': searchTransactionsFile,
  'needs-attention': needsAttentionFile,
  'cash-flow': cashFlowFile,
  'debt-payoff': debtPayoffFile,
  upcoming: upcomingFile,
  'review-transactions': reviewTransactionsFile,
  forecast: forecastFile,
  recurring: recurringFile,
  'targets-summary': targetsSummaryFile,
  'credit-cards': creditCardsFile,
};

const camel = (name: string) => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

/** What a source file holds, as the TypeScript parser sees it. */
function nodes(path: string, keep: (n: ts.Node, source: ts.SourceFile) => boolean): string[] {
  const source = ts.createSourceFile(path, read(path), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (keep(n, source)) found.push(`${path}:${source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1} ${n.getText(source).slice(0, 60)}`);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

const isFunction = (n: ts.Node) => ts.isFunctionDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isMethodDeclaration(n);
describe('insight computations', () => {
  it('are one file each in src/insights: the tool computes with the function and takes the input declared there', () => {
    expect(INSIGHT_TOOLS.map((t) => t.name.replaceAll('_', '-')).sort()).toEqual(Object.keys(FILES).sort());
    const inDir = readdirSync(join(REPO_ROOT, 'src/insights'), { recursive: true, encoding: 'utf8' }).map((f) => basename(f));
    for (const tool of INSIGHT_TOOLS) {
      const file = tool.name.replaceAll('_', '-');
      expect(inDir).toContain(`${file}.ts`);
      const mod = FILES[file]!;
      expect(tool.compute, tool.name).toBe(mod[camel(tool.name)]);
      const input = mod[`${tool.name.toUpperCase()}_INPUT`] as Record<string, z.ZodType>;
      expect(Object.keys(tool.input.shape), tool.name).toEqual(['budget_id', ...Object.keys(input)]);
      for (const [k, schema] of Object.entries(input)) expect(tool.input.shape[k], `${tool.name}.${k}`).toBe(schema);
    }
  });

  it('src/mcp/tools/insights.ts is a table only: no function in it', () => {
    expect(nodes('src/mcp/tools/insights.ts', isFunction)).toEqual([]);
  });

  it('take their arguments typed from their input schema: no Record<string, any>, any or cast in src/insights or the table', () => {
    const inDir = readdirSync(join(REPO_ROOT, 'src/insights'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const files = ['src/mcp/tools/insights.ts', ...inDir.map((f) => `src/insights/${f}`)];
    const loose = files.flatMap((f) => nodes(f, (n) => n.kind === ts.SyntaxKind.AnyKeyword));
    const casts = files.flatMap((f) => nodes(f, (n, s) => (ts.isAsExpression(n) && n.type.getText(s) !== 'const') || ts.isTypeAssertionExpression(n)));
    expect(loose).toEqual([]);
    expect(casts).toEqual([]);
    // And to the compiler (tsc --noEmit -p . checks these): each compute's arguments are its input's parsed type.
    expectTypeOf(spendingSummaryFile.spendingSummary).parameter(1).toEqualTypeOf<z.infer<z.ZodObject<typeof spendingSummaryFile.SPENDING_SUMMARY_INPUT>>>();
    expectTypeOf(searchTransactionsFile.searchTransactions)
      .parameter(1)
      .toEqualTypeOf<z.infer<z.ZodObject<typeof searchTransactionsFile.SEARCH_TRANSACTIONS_INPUT>>>();
    expectTypeOf(needsAttentionFile.needsAttention).parameter(1).toEqualTypeOf<z.infer<z.ZodObject<typeof needsAttentionFile.NEEDS_ATTENTION_INPUT>>>();
    expectTypeOf(cashFlowFile.cashFlow).parameter(1).toEqualTypeOf<z.infer<z.ZodObject<typeof cashFlowFile.CASH_FLOW_INPUT>>>();
    expectTypeOf(upcomingFile.upcoming).parameter(1).toEqualTypeOf<z.infer<z.ZodObject<typeof upcomingFile.UPCOMING_INPUT>>>();
    expectTypeOf(creditCardsFile.creditCards).parameter(1).toEqualTypeOf<z.infer<z.ZodObject<typeof creditCardsFile.CREDIT_CARDS_INPUT>>>();
    expectTypeOf(cashFlowFile.cashFlow).parameter(1).not.toBeAny();
  });
});
