/**
 * What a budget export must hold before the sandbox serves it, each refusal saying what is wrong
 * and where (the list and the entry's index and id): the collections, the currency's format
 * (every amount is shown in it), every transaction's and scheduled transaction's account, and the
 * transaction of every split line. Whatever else is odd but loadable is noted by the loader.
 */
import { CurrencyFormat } from '../../api/schemas/common.js';
import { isIsoDate } from '../../api/dates.js';
import { ExportError, isObject, type Json } from './read-export.js';

const REQUIRED = ['accounts', 'payees', 'category_groups', 'categories', 'months', 'transactions'] as const;
const OPTIONAL = ['payee_locations', 'subtransactions', 'scheduled_transactions', 'scheduled_subtransactions'] as const;

/** The checked export, its lists as lists of objects. */
export type CheckedExport = Json & Record<(typeof REQUIRED)[number] | (typeof OPTIONAL)[number], Json[]> & { id: string; name: string };

function entryName(list: string, i: number, e: Json): string {
  return `${list}[${i}]${typeof e.id === 'string' ? ` (id ${e.id})` : ''}`;
}

function checkList(file: string, budget: Json, list: string, required: boolean): Json[] {
  const value = budget[list];
  if (value === undefined && !required) return [];
  if (!Array.isArray(value)) throw new ExportError(`${file}: budget.${list} ${value === undefined ? 'is missing' : 'is not a list'}; a budget export holds it`);
  // A month is known by its month, every other entry by its id.
  const key = list === 'months' ? 'month' : 'id';
  value.forEach((e, i) => {
    if (!isObject(e) || typeof e[key] !== 'string' || e[key] === '') throw new ExportError(`${file}: budget.${list}[${i}] is not an entry with a ${key}`);
  });
  return value as Json[];
}

function checkCurrency(file: string, budget: Json): void {
  const format = budget.currency_format;
  if (format === undefined || format === null) {
    throw new ExportError(
      `${file}: budget.currency_format is ${format === null ? 'null' : 'missing'}: the budget's currency has no format, and every amount is shown in it (iso_code, decimal_digits, decimal_separator, symbol_first, group_separator, currency_symbol, display_symbol, example_format)`,
    );
  }
  const parsed = CurrencyFormat.safeParse(format);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ExportError(`${file}: budget.currency_format.${issue.path.join('.')}: ${issue.message}: the currency's format is incomplete`);
  }
}

/** Dated, integer-amount entries whose account is one of the export's. */
function checkOwned(file: string, list: string, entries: Json[], accounts: Set<string>, dateField: string): void {
  entries.forEach((e, i) => {
    const where = `${file}: budget.${entryName(list, i, e)}`;
    if (e.deleted === true) return;
    if (typeof e.account_id !== 'string' || !accounts.has(e.account_id)) {
      throw new ExportError(`${where}: its account ${JSON.stringify(e.account_id ?? null)} is not among the export's ${accounts.size} accounts`);
    }
    if (typeof e[dateField] !== 'string' || !isIsoDate(e[dateField] as string))
      throw new ExportError(`${where}: ${dateField} ${JSON.stringify(e[dateField])} is not a date YYYY-MM-DD`);
    if (!Number.isSafeInteger(e.amount)) throw new ExportError(`${where}: amount ${JSON.stringify(e.amount)} is not a whole number of milliunits`);
  });
}

function checkLines(file: string, list: string, lines: Json[], parentField: string, parents: Set<string>): void {
  lines.forEach((x, i) => {
    if (x.deleted === true) return;
    if (typeof x[parentField] !== 'string' || !parents.has(x[parentField] as string)) {
      throw new ExportError(
        `${file}: budget.${entryName(list, i, x)}: its ${parentField} ${JSON.stringify(x[parentField] ?? null)} is not among the export's transactions`,
      );
    }
    if (!Number.isSafeInteger(x.amount))
      throw new ExportError(`${file}: budget.${entryName(list, i, x)}: amount ${JSON.stringify(x.amount)} is not a whole number of milliunits`);
  });
}

export function checkExport(file: string, budget: Json): CheckedExport {
  if (typeof budget.id !== 'string' || typeof budget.name !== 'string') throw new ExportError(`${file}: the budget has no id or name`);
  checkCurrency(file, budget);
  const lists: Record<string, Json[]> = {};
  for (const list of REQUIRED) lists[list] = checkList(file, budget, list, true);
  for (const list of OPTIONAL) lists[list] = checkList(file, budget, list, false);
  const accounts = new Set(lists.accounts!.filter((a) => a.deleted !== true).map((a) => a.id as string));
  checkOwned(file, 'transactions', lists.transactions!, accounts, 'date');
  checkOwned(file, 'scheduled_transactions', lists.scheduled_transactions!, accounts, 'date_first');
  checkLines(file, 'subtransactions', lists.subtransactions!, 'transaction_id', new Set(lists.transactions!.map((t) => t.id as string)));
  checkLines(
    file,
    'scheduled_subtransactions',
    lists.scheduled_subtransactions!,
    'scheduled_transaction_id',
    new Set(lists.scheduled_transactions!.map((t) => t.id as string)),
  );
  lists.months!.forEach((m, i) => {
    if (typeof m.month !== 'string' || !isIsoDate(m.month))
      throw new ExportError(`${file}: budget.months[${i}]: month ${JSON.stringify(m.month)} is not a date YYYY-MM-01`);
    if (m.categories !== undefined && !Array.isArray(m.categories)) throw new ExportError(`${file}: budget.months[${i}] (${m.month}).categories is not a list`);
  });
  return { ...budget, ...lists } as CheckedExport;
}
