/**
 * spending_summary as bars: one row per group (category, group, payee, account or month), this
 * period's net against the previous period's, in the budget's currency (the answer's formatted
 * text). A row whose transactions can be listed
 * opens them (search_transactions over the same period and filters) in the drill-down panel,
 * naming the row by its id when the answer has one, else by its name (every tool takes names).
 */
import { h, show } from './dom.js';
import { card, drillPanel, monthEnd, startView, transactionRows, type ViewData } from './shell.js';

const BY: Record<string, { title: string; filter?: string; hide?: 'category' | 'account' | 'payee' }> = {
  category: { title: 'Spending by category', filter: 'category_id', hide: 'category' },
  category_group: { title: 'Spending by category group' },
  payee: { title: 'Spending by payee', filter: 'payee_id', hide: 'payee' },
  account: { title: 'Spending by account', filter: 'account_id', hide: 'account' },
  month: { title: 'Spending by month' },
};

/** The filters of the original call that narrow what was summed (a drill-down keeps them). */
const SCOPE = ['account_id', 'category_id', 'payee_id', 'include_off_budget'];

function render(data: ViewData, root: HTMLElement): void {
  const r = data.result;
  const by = BY[r.group_by as string] ?? { title: 'Spending' };
  const period = r.period as { since: string; until: string };
  const previous = r.previous_period as { since: string; until: string };
  const rows = (r.rows ?? []) as Record<string, any>[];
  const panel = drillPanel();
  const scale = Math.max(1, ...rows.flatMap((x) => [Math.abs(x.net), Math.abs(x.previous_net ?? 0)]));
  const width = (m: number) => `${Math.max(0.5, (Math.abs(m) / scale) * 100).toFixed(2)}%`;
  const scope = Object.fromEntries(SCOPE.filter((k) => data.input[k] !== undefined).map((k) => [k, data.input[k]]));

  // A row with `id: null` (no payee, no category) has nothing to open; compact rows of entities
  // carry no id and go by name (tools take names).
  const drillArgs = (row: Record<string, any>): Record<string, unknown> | undefined => {
    const key = ('id' in row ? row.id : row.name) as string | null | undefined;
    if (!data.canCall('search_transactions') || !key || row.groups) return undefined;
    if (r.group_by === 'month') {
      const since = key > period.since ? key : period.since;
      const end = monthEnd(key);
      return { ...scope, spending_only: true, since_date: since, until_date: end < period.until ? end : period.until };
    }
    // spending_only: the lines the bar counts (no transfers, income or starting balances), so the list adds up to it.
    return by.filter ? { ...scope, spending_only: true, [by.filter]: key, since_date: period.since, until_date: period.until } : undefined;
  };

  const rowName = (row: Record<string, any>) => {
    const label = row.groups
      ? `${row.name} (${row.groups})`
      : r.group_by === 'month'
        ? data.date(row.id ?? row.name, { month: 'long', year: 'numeric' })
        : row.name;
    const args = drillArgs(row);
    if (!args) return h('div', { class: 'name' }, label);
    const open = () =>
      panel.open(`${label}: transactions`, async () => transactionRows(data, await data.call('search_transactions', { ...args, limit: 20 }), by.hide ?? null));
    return h('div', { class: 'name' }, h('button', { class: 'link', type: 'button', onclick: open }, label));
  };

  const bars = h('div', { class: 'bars' });
  for (const row of rows) {
    const inflow = row.net > 0;
    bars.append(
      rowName(row),
      h(
        'div',
        { class: 'track', 'aria-hidden': 'true' },
        h('div', { class: `bar ${inflow ? 'inflow' : 'now'}`, style: `width:${width(row.net)}` }),
        h('div', { class: 'bar before', style: `width:${width(row.previous_net ?? 0)}` }),
      ),
      h(
        'div',
        { class: 'num' },
        data.figure(row, 'net'),
        h('small', {}, `before: ${data.figure(row, 'previous_net')}`),
        row.assigned !== undefined ? h('small', {}, `assigned: ${data.figure(row, 'assigned')}`) : null,
      ),
    );
  }

  const t = r.totals as Record<string, any>;
  // Compact totals leave outflow and inflow out when the money went one way: the net is all of it.
  const net = t.net as number;
  const outflow = t.outflow === undefined ? data.money(Math.min(0, net)) : data.figure(t, 'outflow');
  const inflow = t.inflow === undefined ? data.money(Math.max(0, net)) : data.figure(t, 'inflow');
  show(
    root,
    h('h1', {}, by.title),
    h(
      'p',
      { class: 'sub' },
      [r.budget?.name, `${data.date(period.since)} – ${data.date(period.until)}`, `compared with ${data.date(previous.since)} – ${data.date(previous.until)}`]
        .filter(Boolean)
        .join(' · '),
    ),
    h(
      'div',
      { class: 'cards' },
      card('Net this period', data.figure(t, 'net')),
      card('Previous period', data.figure(t, 'previous_net')),
      card('Outflow · inflow', `${outflow} · ${inflow}`),
      card('Transactions', String(t.count)),
    ),
    h(
      'div',
      { class: 'legend' },
      h('span', {}, h('i', { style: 'background:var(--now)' }), 'this period'),
      h('span', {}, h('i', { style: 'background:var(--before)' }), 'previous period'),
      h('span', {}, h('i', { style: 'background:var(--income)' }), 'more in than out'),
    ),
    rows.length ? bars : h('p', { class: 'note' }, 'No spending in this period.'),
    panel.el,
  );
}

startView('ynab-spending', render);
