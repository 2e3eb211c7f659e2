/**
 * cash_flow as trend lines: income and spending per month on one chart, net worth on its own
 * (its scale dwarfs the monthly flows), and the months as a table, in the budget's currency
 * (compact months leave the net, income minus spending, to the reader: it is computed here, in
 * integer milliunits). A month opens where its money went
 * (spending_summary for that month).
 */
import { lineChart } from './chart.js';
import { h, show } from './dom.js';
import { card, drillPanel, startView, type ViewData } from './shell.js';

/** Where a month's money went: spending_summary's rows for it, as the drill-down of a month. */
async function whereItWent(data: ViewData, month: string): Promise<HTMLElement> {
  const s = await data.call('spending_summary', { month, top: 8 });
  const rows = (s.rows ?? []) as Record<string, any>[];
  if (!rows.length) return h('p', { class: 'note' }, 'No spending this month.');
  return h(
    'table',
    { class: 'rows' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Category'), h('th', { class: 'num' }, 'Net'), h('th', { class: 'num' }, 'Month before'))),
    h(
      'tbody',
      {},
      ...rows.map((row) =>
        h(
          'tr',
          {},
          h('td', {}, row.groups ? `${row.name} (${row.groups})` : row.name),
          h('td', { class: 'num' }, data.figure(row, 'net')),
          h('td', { class: 'num' }, data.figure(row, 'previous_net')),
        ),
      ),
    ),
  );
}

/** The complete months, then the current one (answered apart, so rates and totals leave it out). */
function monthsOf(r: Record<string, any>): Record<string, any>[] {
  // Compact answers give the months as names and their figures as columns (by_month): rows again.
  const c = r.by_month as Record<string, any[]> | undefined;
  const rows = ((r.months ?? []) as any[]).map((m, i) =>
    typeof m === 'string'
      ? {
          month: m,
          income: c?.income?.[i],
          income_formatted: c?.income_formatted?.[i],
          spending: c?.spending?.[i],
          spending_formatted: c?.spending_formatted?.[i],
          ...(r.by_month?.partial_month === m ? { partial: true } : {}),
        }
      : m,
  ) as Record<string, any>[];
  return [...rows, ...(r.current_month ? [{ ...r.current_month, partial: true }] : [])];
}

function render(data: ViewData, root: HTMLElement): void {
  const r = data.result;
  const months = monthsOf(r);
  // Compact answers give net worth's change (health) rather than each month's.
  const byMonth = months.some((m) => m.net_worth !== undefined);
  const health = (r.health ?? {}) as Record<string, any>;
  const panel = drillPanel();
  if (!months.length) {
    show(root, h('h1', {}, 'Cash flow'), h('p', { class: 'note' }, 'No months to show.'));
    return;
  }
  const partial = months.at(-1)!.partial === true;
  const names = months.map((m) => m.month as string);
  const short = (m: string) => data.date(m, { month: 'short' }) + (m.endsWith('-01-01') || m === names[0] ? ` ${m.slice(0, 4)}` : '');
  const long = (m: string) => data.date(m, { month: 'long', year: 'numeric' });
  const span = `${long(names[0]!)} – ${long(names.at(-1)!)}${partial ? ' (this month so far)' : ''}`;
  const pick = (key: string) => ({ values: months.map((m) => m[key] as number), labels: months.map((m) => data.figure(m, key)) });
  // The net, where the answer leaves it out (compact): income minus spending.
  const net = (o: Record<string, any>) => (o.net ?? o.income - o.spending) as number;
  const netFigure = (o: Record<string, any>) => (typeof o.net_formatted === 'string' ? o.net_formatted : data.money(net(o)));

  const flows = lineChart({
    months: names,
    series: [
      { name: 'Income', color: 'var(--income)', ...pick('income') },
      { name: 'Spending', color: 'var(--spending)', ...pick('spending') },
    ],
    axis: data.wholeMoney,
    monthLabel: short,
    partial,
    fromZero: true,
    title: `Income and spending, ${span}`,
  });
  const worth = byMonth
    ? lineChart({
        months: names,
        series: [{ name: 'Net worth', color: 'var(--worth)', ...pick('net_worth') }],
        axis: data.wholeMoney,
        monthLabel: short,
        partial,
        fromZero: false,
        title: `Net worth at month end, ${span}`,
      })
    : null;

  const monthCell = (m: Record<string, any>) => {
    const label = long(m.month) + (m.partial ? ' (so far)' : '');
    if (!data.canCall('spending_summary')) return h('td', {}, label);
    const open = () => panel.open(`${long(m.month)}: where the money went`, () => whereItWent(data, m.month));
    return h('td', {}, h('button', { class: 'link', type: 'button', onclick: open }, label));
  };

  const t = r.totals as Record<string, any>;
  show(
    root,
    h('h1', {}, 'Cash flow'),
    h('p', { class: 'sub' }, [r.budget?.name, span].filter(Boolean).join(' · ')),
    h(
      'div',
      { class: 'cards' },
      card('Income', data.figure(t, 'income')),
      card('Spending', data.figure(t, 'spending')),
      card('Net', netFigure(t), net(t) < 0 ? 'bad' : 'good'),
      byMonth ? card('Net worth now', data.figure(months.at(-1), 'net_worth')) : card('Net worth change', data.figure(health, 'net_worth_change')),
    ),
    h(
      'div',
      { class: 'legend' },
      h('span', {}, h('i', { style: 'background:var(--income)' }), 'income'),
      h('span', {}, h('i', { style: 'background:var(--spending)' }), 'spending'),
    ),
    flows,
    ...(worth ? [h('div', { class: 'legend' }, h('span', {}, h('i', { style: 'background:var(--worth)' }), 'net worth at month end')), worth] : []),
    h(
      'table',
      { class: 'months' },
      h(
        'thead',
        {},
        h('tr', {}, h('th', {}, 'Month'), ...['Income', 'Spending', 'Net', ...(byMonth ? ['Net worth'] : [])].map((c) => h('th', { class: 'num' }, c))),
      ),
      h(
        'tbody',
        {},
        ...months.map((m) =>
          h(
            'tr',
            {},
            monthCell(m),
            h('td', { class: 'num' }, data.figure(m, 'income')),
            h('td', { class: 'num' }, data.figure(m, 'spending')),
            h('td', { class: `num ${net(m) < 0 ? 'neg' : ''}` }, netFigure(m)),
            ...(byMonth ? [h('td', { class: 'num' }, data.figure(m, 'net_worth'))] : []),
          ),
        ),
      ),
    ),
    panel.el,
  );
}

startView('ynab-cash-flow', render);
