/**
 * `--from FILE`: a budget export (the JSON of `GET /budgets/{id}`) loaded as a sandbox budget. The
 * file is read and checked (read-export.ts, check-export.ts; a refusal throws ExportError and
 * nothing is served), turned into the sandbox's records (to-records.ts), and the sandbox's own
 * arithmetic checked against YNAB's figures (compare-figures.ts), which stay the ones served.
 * The rehearsal of a real budget loads its export the same way, from the answer in memory.
 */
import { formatMilliunits } from '../../api/money.js';
import { computeOwn } from '../store/derived.js';
import type { BudgetRec } from '../store/records.js';
import { checkExport } from './check-export.js';
import { compareFigures, type Disagreement, type FiguresReport, type Tally } from './compare-figures.js';
import { EXPORT_MAX_BYTES, readExport, type Json } from './read-export.js';
import { toRecords } from './to-records.js';

export { EXPORT_MAX_BYTES, ExportError } from './read-export.js';

export interface LoadedExport {
  budget: BudgetRec;
  /** What was odd but loadable (an id "", a transfer without its other side). */
  notes: string[];
  report: FiguresReport;
}

/** A budget object already read (the rehearsal's answer, or a file's): checked, loaded, compared. */
export function loadBudgetObject(where: string, raw: Json, knowledge: number | null, now: Date): LoadedExport {
  const checked = checkExport(where, raw);
  const { budget, notes } = toRecords(checked, knowledge ?? 1, now);
  const { figures, report } = compareFigures(checked, budget, computeOwn(budget, now));
  budget.export_figures = figures;
  return { budget, notes, report };
}

export function loadExport(file: string, opts: { now: Date; maxBytes?: number }): LoadedExport {
  const { budget, knowledge } = readExport(file, opts.maxBytes ?? EXPORT_MAX_BYTES);
  return loadBudgetObject(file, budget, knowledge, opts.now);
}

const tally = (t: Tally, what: string) => `${t.agreed} of ${t.compared} ${what}`;

function disagreementLine(d: Disagreement, b: BudgetRec): string {
  const money = (v: number | null) =>
    v === null
      ? 'none'
      : d.field.startsWith('goal_percentage') || d.field.includes('months') || d.field === 'age_of_money'
        ? String(v)
        : formatMilliunits(v, b.currency_format);
  const where = d.month === null ? `account "${d.name}"` : d.id === null ? d.month.slice(0, 7) : `${d.month.slice(0, 7)} "${d.name}"`;
  return `${where} ${d.field}: the export says ${money(d.export)}, the sandbox computes ${money(d.sandbox)}`;
}

/** What the load says on stderr: what was loaded, how much the sandbox reproduces, and each difference. */
export function loadLines(file: string, loaded: LoadedExport, limit = 40): string[] {
  const { budget: b, report: r } = loaded;
  const live = [...b.transactions.values()].filter((t) => !t.deleted).length;
  const lines = [
    `sandbox: loaded "${b.name}" (${b.id}) from ${file}: ${b.accounts.size} accounts, ${live} transactions, ${Object.keys(b.export_figures?.months ?? {}).length} months`,
    `sandbox: the sandbox's own arithmetic reproduces ${tally(r.categoryMonths, 'category-month figures')}, ${tally(r.months, 'month totals')}, ${tally(r.goals, 'target figures')} and ${tally(r.accounts, 'account balances')}; the export's figures are served`,
  ];
  // Figures first, targets after: a target's fields differ wherever its figures do.
  const ordered = [...r.disagreements].sort((x, y) => Number(x.field.startsWith('goal_')) - Number(y.field.startsWith('goal_')));
  for (const d of ordered.slice(0, limit)) lines.push(`sandbox: differs: ${disagreementLine(d, b)}`);
  if (r.disagreements.length > limit) lines.push(`sandbox: … and ${r.disagreements.length - limit} more differences`);
  for (const n of [...r.notes, ...loaded.notes]) lines.push(`sandbox: note: ${n}`);
  return lines;
}
