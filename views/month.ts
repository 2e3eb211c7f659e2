/**
 * get_month as the budget screen: Ready to Assign and the month's totals, then every category
 * shown with assigned, activity and available, overspent ones marked. Compact answers give a
 * category's figures in milliunits only; they are written in the budget's currency with the
 * format the result's `_meta` carries (formatted companions, when the call asked for them, are
 * used as they are). A category opens its transactions for the month.
 */
import { h, show } from './dom.js';
import { card, drillPanel, monthEnd, startView, transactionRows, type ViewData } from './shell.js';

function render(data: ViewData, root: HTMLElement): void {
  const r = data.result;
  const month = (r.month ?? {}) as Record<string, any>;
  const categories = (month.categories ?? []) as Record<string, any>[];
  const panel = drillPanel();
  const figure = (c: Record<string, any>, key: string) =>
    typeof c[`${key}_formatted`] === 'string' ? c[`${key}_formatted`] : typeof c[key] === 'number' ? data.money(c[key]) : '';
  const overspent = categories.filter((c) => typeof c.balance === 'number' && c.balance < 0);
  const title = month.month ? data.date(month.month, { month: 'long', year: 'numeric' }) : 'Month';

  const name = (c: Record<string, any>) => {
    const label = [c.name, c.balance < 0 ? h('span', { class: 'badge' }, 'overspent') : null];
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

  const rta = month.to_be_budgeted as number | undefined;
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
      card('Ready to Assign', month.to_be_budgeted_formatted ?? (rta !== undefined ? data.money(rta) : ''), rta !== undefined && rta < 0 ? 'bad' : 'good'),
      card('Income', figure(month, 'income')),
      card('Assigned', figure(month, 'budgeted')),
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
                { class: c.balance < 0 ? 'over' : '' },
                name(c),
                h('td', { class: 'num' }, figure(c, 'budgeted')),
                h('td', { class: 'num' }, figure(c, 'activity')),
                h('td', { class: 'num' }, h('span', { class: `pill ${c.balance < 0 ? 'neg' : c.balance > 0 ? 'pos' : ''}` }, figure(c, 'balance'))),
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
