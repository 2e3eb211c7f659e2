/**
 * get_month as the budget screen: Ready to Assign and the month's totals, then every category
 * shown with assigned, activity and available, overspent ones marked. Figures are the answer's
 * formatted companions; a figure without one is written in the budget's currency with the format
 * the result's `_meta` carries. Compact answers name the figures as YNAB's app does (assigned,
 * available, ready_to_assign); `detail: "full"` ones as the API does (budgeted, balance,
 * to_be_budgeted). A category opens its transactions for the month.
 */
import { h, show } from './dom.js';
import { card, drillPanel, monthEnd, startView, transactionRows, type ViewData } from './shell.js';

function render(data: ViewData, root: HTMLElement): void {
  const r = data.result;
  const month = (r.month ?? {}) as Record<string, any>;
  const categories = (month.categories ?? []) as Record<string, any>[];
  const panel = drillPanel();
  // The compact name, else the API's (full detail).
  const API_NAME: Record<string, string> = { assigned: 'budgeted', available: 'balance', ready_to_assign: 'to_be_budgeted' };
  const keyIn = (c: Record<string, any>, key: string) => (key in c || !API_NAME[key] ? key : API_NAME[key]!);
  const value = (c: Record<string, any>, key: string): number | undefined => c[keyIn(c, key)];
  // A compact category row leaves out a figure that is zero.
  const figure = (c: Record<string, any>, name: string) => {
    const key = keyIn(c, name);
    return typeof c[`${key}_formatted`] === 'string' ? c[`${key}_formatted`] : data.money(typeof c[key] === 'number' ? c[key] : 0);
  };
  const below = (c: Record<string, any>) => (value(c, 'available') ?? 0) < 0;
  const overspent = categories.filter(below);
  const title = month.month ? data.date(month.month, { month: 'long', year: 'numeric' }) : 'Month';

  const name = (c: Record<string, any>) => {
    const label = [c.name, below(c) ? h('span', { class: 'badge' }, 'overspent') : null];
    if (!data.canCall('search_transactions') || !c.id || !month.month) return h('td', {}, ...label);
    const open = () =>
      panel.open(`${c.name}: ${title}`, async () =>
        transactionRows(
          data,
          await data.call('search_transactions', { category_id: c.id, since_date: month.month, until_date: monthEnd(month.month), limit: 20 }),
          'category',
        ),
      );
    return h('td', {}, h('button', { class: 'link', type: 'button', onclick: open }, c.name), label[1]);
  };

  const rta = value(month, 'ready_to_assign');
  const notes: string[] = [];
  if (r.has_more) notes.push(`${r.returned} of ${r.count} categories are shown; ask for the next page for the rest.`);
  if (r.categories_left_out) notes.push(`${r.categories_left_out} categories are left out: hidden, internal, or with every figure zero.`);

  show(
    root,
    h('h1', {}, title),
    r.budget?.name ? h('p', { class: 'sub' }, r.budget.name) : null,
    h(
      'div',
      { class: 'cards' },
      card('Ready to Assign', figure(month, 'ready_to_assign'), rta !== undefined && rta < 0 ? 'bad' : 'good'),
      card('Income', figure(month, 'income')),
      card('Assigned', figure(month, 'assigned')),
      card('Activity', figure(month, 'activity')),
      typeof month.age_of_money === 'number' ? card('Age of money', `${month.age_of_money} days`) : null,
      overspent.length ? card('Overspent', `${overspent.length} categor${overspent.length === 1 ? 'y' : 'ies'}`, 'bad') : null,
    ),
    categories.length
      ? h(
          'table',
          { class: 'categories' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'Category'),
              h('th', { class: 'num' }, 'Assigned'),
              h('th', { class: 'num' }, 'Activity'),
              h('th', { class: 'num' }, 'Available'),
            ),
          ),
          h(
            'tbody',
            {},
            ...categories.map((c) =>
              h(
                'tr',
                { class: below(c) ? 'over' : '' },
                name(c),
                h('td', { class: 'num' }, figure(c, 'assigned')),
                h('td', { class: 'num' }, figure(c, 'activity')),
                h(
                  'td',
                  { class: 'num' },
                  h('span', { class: `pill ${below(c) ? 'neg' : (value(c, 'available') ?? 0) > 0 ? 'pos' : ''}` }, figure(c, 'available')),
                ),
              ),
            ),
          ),
        )
      : h('p', { class: 'note' }, 'No categories to show.'),
    ...notes.map((n) => h('p', { class: 'note' }, n)),
    panel.el,
  );
}

startView('ynab-month', render);
