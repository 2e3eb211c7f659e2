/**
 * forecast as a line: the chosen accounts' balance from today, day by day where the answer has
 * days (the first 60) and at each month's end after, the first day an account goes below zero
 * marked, the headline figures as cards, and the months as a table. The points come from a full
 * answer's rows: a compact answer gives its balances as text only, so the view asks the same
 * question in full detail.
 */
import { lineChart } from './chart.js';
import { h, show } from './dom.js';
import { card, monthEnd, startView, type ViewData } from './shell.js';

interface Point {
  date: string;
  balance: number;
}

/** The month ends and days of a full answer, as dated points. */
function points(r: Record<string, any>): { months: Point[]; days: Point[] } {
  const months: Point[] = (r.months ?? []).map((m: Record<string, any>) => ({ date: monthEnd(m.month), balance: m.end }));
  const days: Point[] = (r.days ?? []).map((d: Record<string, any>) => ({ date: d.date, balance: d.balance }));
  // The horizon's last month ends at its last day, not the month's.
  if (months.length && r.until < months.at(-1)!.date) months.at(-1)!.date = r.until;
  return { months, days };
}

function render(data: ViewData, root: HTMLElement): void {
  if (Array.isArray(data.result.months)) return draw(data, root, data.result);
  // A compact answer: the same call in full detail gives the balances as numbers.
  show(root, h('h1', {}, 'Forecast'), h('p', { class: 'note' }, 'Loading the balances…'));
  data.call('forecast', { ...data.input, detail: 'full' }).then(
    (full) => draw(data, root, full),
    (e: unknown) =>
      show(root, h('h1', {}, 'Forecast'), h('p', { class: 'note' }, `The balances could not be loaded: ${e instanceof Error ? e.message : String(e)}`)),
  );
}

function draw(data: ViewData, root: HTMLElement, r: Record<string, any>): void {
  const { months, days } = points(r);
  if (!months.length) {
    show(root, h('h1', {}, 'Forecast'), h('p', { class: 'note' }, 'Nothing to show.'));
    return;
  }
  // Today, each day with a change, then the month ends after the last day.
  const lastDay = days.at(-1)?.date ?? '';
  const line: Point[] = [{ date: '', balance: r.balance_today }, ...days, ...months.filter((m) => m.date > lastDay)];
  const below = r.below_zero as Record<string, any> | null;
  const markAt = below
    ? Math.max(
        0,
        line.findIndex((p) => p.date >= below.date),
      )
    : -1;
  const label = (d: string) => (d === '' ? 'today' : data.date(d, { month: 'short', day: 'numeric' }));
  // A tick for today and for the first point of each month, far enough from the last tick not
  // to overlap (points are evenly spaced across about 540 px of chart).
  const ticks = new Set<number>([0]);
  let lastTick = 0;
  let lastMonth = months[0]!.date.slice(0, 7);
  line.forEach((p, i) => {
    if (i === 0 || p.date.slice(0, 7) === lastMonth) return;
    lastMonth = p.date.slice(0, 7);
    if (((i - lastTick) * 540) / Math.max(1, line.length - 1) < 38) return;
    ticks.add(i);
    lastTick = i;
  });
  const tick = (d: string, i: number) => (i === 0 ? 'today' : ticks.has(i) ? data.date(d, { month: 'short' }) : '');
  const chart = lineChart({
    months: line.map((p) => p.date),
    series: [{ name: 'Balance', color: 'var(--worth)', values: line.map((p) => p.balance), labels: line.map((p) => data.money(p.balance)) }],
    axis: data.wholeMoney,
    monthLabel: label,
    tick,
    partial: false,
    fromZero: true,
    title: `Balance ahead, through ${data.date(r.until)}`,
    ...(below ? { mark: { index: markAt, label: `${below.account_name} below zero, ${data.date(below.date)}` } } : {}),
  });
  const income = r.next_income as Record<string, any> | null;
  show(
    root,
    h('h1', {}, 'Forecast'),
    h('p', { class: 'sub' }, [r.budget?.name, (r.accounts ?? []).join(', '), `through ${data.date(r.until)}`].filter(Boolean).join(' · ')),
    h(
      'div',
      { class: 'cards' },
      card('Today', data.figure(r, 'balance_today')),
      card(`Lowest, ${data.date(r.lowest.date)}`, data.figure(r.lowest, 'balance'), r.lowest.balance < 0 ? 'bad' : ''),
      card('Below zero', below ? `${below.account_name}, ${data.date(below.date)}` : 'Not before the end', below ? 'bad' : 'good'),
      card(
        income ? `Until ${income.payee_name ?? 'income'}, ${data.date(income.date)}` : 'Next income',
        income ? data.figure(income, 'available_until_then') : 'None ahead',
        income && income.available_until_then < 0 ? 'bad' : '',
      ),
    ),
    h('div', { class: 'legend' }, h('span', {}, h('i', { style: 'background:var(--worth)' }), 'balance of the chosen accounts')),
    chart,
    h(
      'table',
      { class: 'months' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Month end'), h('th', { class: 'num' }, 'Balance'))),
      h(
        'tbody',
        {},
        ...months.map((m) => h('tr', {}, h('td', {}, data.date(m.date)), h('td', { class: `num ${m.balance < 0 ? 'neg' : ''}` }, data.money(m.balance)))),
      ),
    ),
  );
}

startView('ynab-forecast', render);
