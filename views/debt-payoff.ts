/**
 * debt_payoff as a chart: what is owed month by month under each strategy (minimums only, then
 * avalanche and snowball), one line each, and the debts as a table of payoff months and
 * interest. The compact answer has no monthly balances (they would not fit its 2 KB): the view
 * asks the same tool for them once, with the same arguments in full detail, and draws the chart
 * when they come; the table is drawn from the answer it was given at once.
 */
import { lineChart } from './chart.js';
import { h, show } from './dom.js';
import { card, startView, type ViewData } from './shell.js';

const STRATEGIES: Record<string, { label: string; color: string }> = {
  as_is: { label: 'Minimums only', color: 'var(--spending)' },
  avalanche: { label: 'Avalanche', color: 'var(--income)' },
  snowball: { label: 'Snowball', color: 'var(--worth)' },
};

/** At most this many points per line (a 30-year mortgage is 360 months), each labelled with its month without overlapping. */
const POINTS = 9;

/** The chart of a full answer's schedule, sampled to whole steps of months (the last month always kept). */
function chart(data: ViewData, full: Record<string, any>): Node {
  const s = full.schedule as { months: string[]; owed: Record<string, number[] | string[]> } | undefined;
  if (!s?.months.length) return h('p', { class: 'note' }, 'Nothing is owed.');
  const step = Math.max(1, Math.ceil(s.months.length / POINTS));
  const picks: number[] = [];
  for (let k = 0; k < s.months.length; k += step) picks.push(k);
  if (picks.at(-1) !== s.months.length - 1) picks.push(s.months.length - 1);
  const plans = Object.keys(s.owed).filter((p) => STRATEGIES[p]);
  return lineChart({
    months: picks.map((k) => `${s.months[k]}-01`),
    series: plans.map((p) => {
      const values = picks.map((k) => (s.owed[p]![k] as number | undefined) ?? 0);
      return { name: STRATEGIES[p]!.label, color: STRATEGIES[p]!.color, values, labels: values.map((v) => data.money(v)) };
    }),
    axis: data.wholeMoney,
    monthLabel: (m) => m.slice(0, 7),
    partial: false,
    fromZero: true,
    title: `Owed at each month's end, ${s.months[0]} to ${s.months.at(-1)}`,
  });
}

function render(data: ViewData, root: HTMLElement): void {
  const r = data.result;
  const debts = (r.debts ?? []) as Record<string, any>[];
  const plans = (r.plans ?? []) as Record<string, any>[];
  if (!debts.length) {
    show(root, h('h1', {}, 'Debt payoff'), h('p', { class: 'note' }, 'No debts with an interest rate to plan.'));
    return;
  }
  const names = plans.map((p) => p.strategy as string);
  const slot = h('div', { class: 'chart-slot' }, h('p', { class: 'note' }, 'Loading the monthly balances…'));
  const month = (m: string | null | undefined) => (m ? data.date(`${m}-01`, { month: 'short', year: 'numeric' }) : 'not within 50 years');
  show(
    root,
    h('h1', {}, 'Debt payoff'),
    h('p', { class: 'sub' }, [r.budget?.name, `as of ${data.date(r.as_of)}`].filter(Boolean).join(' · ')),
    h(
      'div',
      { class: 'cards' },
      ...plans.map((p) => card(`${STRATEGIES[p.strategy]?.label ?? p.strategy}: debt-free`, `${month(p.debt_free)} · ${data.figure(p, 'interest')} interest`)),
    ),
    h(
      'div',
      { class: 'legend' },
      ...names.map((p) => h('span', {}, h('i', { style: `background:${STRATEGIES[p]?.color ?? 'var(--fg)'}` }), STRATEGIES[p]?.label ?? p)),
    ),
    slot,
    h(
      'table',
      { class: 'rows' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Debt'), h('th', {}, 'Rate'), ...names.map((p) => h('th', { class: 'num' }, `${STRATEGIES[p]?.label ?? p}`)))),
      h(
        'tbody',
        {},
        ...debts.map((d) =>
          h(
            'tr',
            {},
            h('td', {}, d.name),
            h('td', {}, d.interest_rate ?? ''),
            ...names.map((p) => h('td', { class: 'num' }, `${month(d.payoff?.[p])} · ${d.interest_formatted?.[p] ?? data.money(d.interest?.[p] ?? 0)}`)),
          ),
        ),
      ),
    ),
    ...((r.assumptions ?? []) as string[]).map((a) => h('p', { class: 'note' }, a)),
  );
  // The monthly balances: in this answer when it is a full one, else from the same call in full detail.
  const full = r.schedule ? Promise.resolve(r) : data.call('debt_payoff', { ...data.input, detail: 'full' });
  full.then(
    (answer) => slot.replaceChildren(chart(data, answer)),
    (e: unknown) => slot.replaceChildren(h('p', { class: 'note' }, `The monthly balances could not be loaded: ${e instanceof Error ? e.message : String(e)}`)),
  );
}

startView('ynab-debt-payoff', render);
