/**
 * What every view shares: the bridge lifecycle (waiting for the result, an error result, a
 * cancelled call), the host's theme, money in the budget's currency, dates in the host's locale,
 * and the drill-down panel that shows rows fetched through the host.
 */
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { formatMilliunits, USD_FORMAT } from '../src/api/money.js';
import type { CurrencyFormat } from '../src/api/schemas/common.js';
import { VIEW_META_KEY, type ViewMeta } from '../src/mcp/views/table.js';
import { HostBridge, type ToolResult } from './bridge.js';
import { h, show } from './dom.js';

export interface ViewData {
  /** The tool result's structured content. */
  result: Record<string, any>;
  /** The arguments the tool was called with. */
  input: Record<string, unknown>;
  /** The budget the result is about (for drill-down calls). */
  budgetId?: string;
  locale: string;
  /** Milliunits in the budget's currency (without a symbol when the host passed no format). */
  money(milliunits: number): string;
  /**
   * A figure of an answer (`name` in milliunits, `name_formatted`): the server's formatted text
   * when the answer carries it, else the milliunits written in the budget's currency (answers that
   * still say `name_milliunits` are read too); '' when the answer has neither.
   */
  figure(o: Record<string, any> | undefined, name: string): string;
  /** Whole units in the budget's currency, for chart axes. */
  wholeMoney(milliunits: number): string;
  /** A date (YYYY-MM-DD) in the host's locale. */
  date(iso: string, style?: Intl.DateTimeFormatOptions): string;
  /** Whether the server offers this tool for drill-downs. */
  canCall(tool: string): boolean;
  /** Calls a server tool through the host; an error result becomes an Error with its message. */
  call(tool: string, args: Record<string, unknown>): Promise<Record<string, any>>;
}

/** Without the budget's format, figures are written like it but without a symbol rather than in a wrong currency. */
const PLAIN: CurrencyFormat = { ...USD_FORMAT, iso_code: '', currency_symbol: '', display_symbol: false };

function applyContext(context: McpUiHostContext): void {
  const root = document.documentElement;
  if (context.theme) {
    root.dataset.theme = context.theme;
    root.style.colorScheme = context.theme;
  }
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (name.startsWith('--') && typeof value === 'string' && value) root.style.setProperty(name, value);
  }
  // Host fonts (styles.css.fonts) are not loaded: they come from the network, which the views'
  // content-security policy keeps closed; --font-sans falls back to the system's fonts.
}

const errorText = (r: ToolResult) => r.content?.find((c) => c.type === 'text')?.text ?? 'The tool answered with an error.';

export function startView(name: string, render: (data: ViewData, root: HTMLElement) => void): void {
  const root = document.getElementById('app')!;
  let context: McpUiHostContext = {};
  let input: Record<string, unknown> = {};
  const bridge = new HostBridge({
    input: (args) => (input = args),
    context: (changed) => {
      context = { ...context, ...changed };
      applyContext(context);
    },
    cancelled: (reason) => show(root, h('p', { class: 'note' }, `The call was cancelled${reason ? `: ${reason}` : '.'}`)),
    result: (r) => {
      if (r.isError) return show(root, h('p', { class: 'error', role: 'alert' }, errorText(r)));
      if (!r.structuredContent) return show(root, h('p', { class: 'note' }, 'This answer has nothing to show here.'));
      const meta = (r._meta?.[VIEW_META_KEY] ?? { tools: [] }) as ViewMeta;
      const format = (meta.currency_format as CurrencyFormat | undefined) ?? PLAIN;
      const locale = context.locale ?? navigator.language ?? 'en-US';
      const result = r.structuredContent as Record<string, any>;
      const budgetId = meta.budget_id ?? result.budget?.id ?? (input.budget_id as string | undefined);
      render(
        {
          result,
          input,
          budgetId,
          locale,
          money: (m) => formatMilliunits(m, format),
          figure: (o, key) =>
            typeof o?.[`${key}_formatted`] === 'string'
              ? o[`${key}_formatted`]
              : typeof o?.[key] === 'number'
                ? formatMilliunits(o[key], format)
                : typeof o?.[`${key}_milliunits`] === 'number'
                  ? formatMilliunits(o[`${key}_milliunits`], format)
                  : '',
          wholeMoney: (m) => formatMilliunits(m, { ...format, decimal_digits: 0 }),
          date: (iso, style = { month: 'short', day: 'numeric', year: 'numeric' }) =>
            new Intl.DateTimeFormat(locale, { ...style, timeZone: 'UTC' }).format(new Date(`${iso.slice(0, 10)}T00:00:00Z`)),
          canCall: (tool) => meta.tools.includes(tool),
          call: async (tool, args) => {
            const res = await bridge.callTool(tool, { ...(budgetId ? { budget_id: budgetId } : {}), ...args });
            if (res.isError) throw new Error(errorText(res));
            return (res.structuredContent ?? {}) as Record<string, any>;
          },
        },
        root,
      );
    },
  });
  show(root, h('p', { class: 'note' }, 'Waiting for the answer…'));
  bridge
    .connect(name)
    .then((ctx) => {
      context = ctx;
      applyContext(ctx);
    })
    .catch((e: Error) => show(root, h('p', { class: 'error', role: 'alert' }, `Could not connect to the host: ${e.message}`)));
}

/** A figure with its label, as the cards above each view show them. */
export function card(label: string, value: string, tone: '' | 'good' | 'bad' = ''): HTMLElement {
  return h('div', { class: `card ${tone}`.trim() }, h('div', { class: 'label' }, label), h('div', { class: 'value' }, value));
}

/** The last day of a month given as YYYY-MM-01. */
export function monthEnd(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/**
 * The drill-down panel: one per view, under the chart. Opening it shows "Loading…", then what
 * `load` builds, or the error; a second open replaces the first. Focus moves to its heading.
 */
export function drillPanel(): { el: HTMLElement; open(title: string, load: () => Promise<Node>): Promise<void> } {
  const el = h('section', { class: 'drill', 'aria-live': 'polite', hidden: true });
  let generation = 0;
  return {
    el,
    async open(title, load) {
      const mine = ++generation;
      const heading = h('h2', { tabindex: '-1' }, title);
      const close = h('button', { class: 'close', type: 'button', 'aria-label': 'Close', onclick: () => ((el.hidden = true), el.replaceChildren()) }, '×');
      const body = h('div', { class: 'drill-body' }, h('p', { class: 'note' }, 'Loading…'));
      el.hidden = false;
      show(el, h('header', {}, heading, close), body);
      heading.focus();
      try {
        const content = await load();
        if (mine === generation) show(body, content);
      } catch (e) {
        if (mine === generation) show(body, h('p', { class: 'error', role: 'alert' }, (e as Error).message));
      }
    },
  };
}

/** Rows of a search_transactions answer: date, payee, category, account, amount; the count and total of every match. */
export function transactionRows(data: ViewData, answer: Record<string, any>, hide: 'category' | 'account' | 'payee' | null = null): Node {
  const rows = (answer.transactions ?? []) as Record<string, any>[];
  if (!rows.length) return h('p', { class: 'note' }, 'No transactions.');
  const cols = (['payee', 'category', 'account'] as const).filter((c) => c !== hide);
  const table = h(
    'table',
    { class: 'rows' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Date'), ...cols.map((c) => h('th', {}, c[0]!.toUpperCase() + c.slice(1))), h('th', { class: 'num' }, 'Amount'))),
    h(
      'tbody',
      {},
      ...rows.map((t) =>
        h(
          'tr',
          {},
          h('td', { class: 'date' }, data.date(t.date, { month: 'short', day: 'numeric' })),
          ...cols.map((c) =>
            h(
              'td',
              {},
              t[`${c}_name`] ?? '',
              c === 'payee' && (t.memo || t.transaction_id)
                ? h('small', {}, [t.transaction_id ? 'split line' : '', t.memo ?? ''].filter(Boolean).join(' · '))
                : null,
            ),
          ),
          h('td', { class: `num ${(t.amount ?? t.amount_milliunits) < 0 ? 'out' : 'in'}` }, data.figure(t, 'amount')),
        ),
      ),
    ),
  );
  const count = answer.count as number;
  // Split transactions match by their lines, each listed (and counted) on its own.
  const split = rows.some((t) => t.transaction_id) ? ' (split transactions by their lines)' : '';
  const summary = `${count} transaction${count === 1 ? '' : 's'}${split}, total ${data.figure(answer, 'total')}${count > rows.length ? `; the newest ${rows.length} are shown` : ''}.`;
  return h('div', {}, table, h('p', { class: 'note' }, summary));
}
