/**
 * needs_attention as a checklist: each kind that found something with its count, reason and
 * first item (the overview) or examples (by what the kind is about: transactions, categories, accounts, the month), and the
 * kinds that found nothing; figures as the server wrote them in the budget's currency (compact
 * examples leave out what full detail adds: dates, ids, what a payment category holds, cleared
 * balances). Unapproved transactions open in full; a category example opens its transactions
 * this month; an account not reconciled lately opens what came since (by id, or by name in
 * compact detail: every tool takes names).
 */
import { h, show } from './dom.js';
import { drillPanel, startView, transactionRows, type ViewData } from './shell.js';

type Example = Record<string, any>;

interface Kind {
  title: string;
  clear: string;
  tone: 'danger' | 'warn' | 'info';
  /** The example's figure (a member with a formatted companion) and its second line. */
  figure: string;
  detail?(e: Example, data: ViewData): string | undefined;
}

const KINDS: Record<string, Kind> = {
  unapproved: {
    title: 'Unapproved transactions',
    clear: 'Every transaction approved',
    tone: 'warn',
    figure: 'amount',
    detail: (e, d) => (e.date ? d.date(e.date) : undefined),
  },
  uncategorized: {
    title: 'Uncategorized transactions',
    clear: 'Every transaction categorized',
    tone: 'warn',
    figure: 'amount',
    detail: (e, d) => (e.date ? d.date(e.date) : undefined),
  },
  overspent: {
    title: 'Overspent categories',
    clear: 'Nothing overspent',
    tone: 'danger',
    figure: 'overspent',
    detail: (e) => (e.type ? `${e.type} overspending` : undefined),
  },
  underfunded: { title: 'Underfunded targets', clear: 'Every target funded', tone: 'warn', figure: 'underfunded' },
  card_payment_shortfall: {
    title: 'Card payments short',
    clear: 'Card payments covered',
    tone: 'danger',
    figure: 'shortfall',
    // The card's balance is negative: what it owes is its opposite. What the payment category
    // holds is the balance owed less the shortfall (compact leaves it out).
    detail: (e, d) => `owes ${d.money(-e.balance)}, payment category holds ${d.figure(e, 'payment_available') || d.money(-e.balance - e.shortfall)}`,
  },
  upcoming_shortfall: {
    title: 'Scheduled payments an account cannot cover',
    clear: 'Scheduled payments covered',
    tone: 'danger',
    figure: 'lowest_balance',
    detail: (e, d) => `lowest on ${d.date(e.lowest_on)}`,
  },
  unreconciled: {
    title: 'Accounts not reconciled lately',
    clear: 'Accounts reconciled',
    tone: 'info',
    figure: 'cleared_balance',
    detail: (e, d) => (e.last_reconciled_on === 'never' ? 'never reconciled' : `last reconciled ${d.date(e.last_reconciled_on)}`),
  },
  price_increase: {
    title: 'Price rises',
    clear: 'No price rises',
    tone: 'warn',
    figure: 'new',
    detail: (e, d) => `was ${d.figure(e, 'old')}${e.date ? `, ${d.date(e.date)}` : ''}`,
  },
  ready_to_assign: {
    title: 'Ready to Assign',
    clear: 'Ready to Assign is zero',
    tone: 'info',
    figure: 'ready_to_assign',
    detail: (e) => (e.state === 'negative' ? 'more assigned than the budget holds' : 'money waiting for a job'),
  },
};

/** How many items a kind shows: its rows, or its first item. */
const shownOf = (item: { examples?: Example[]; first?: Record<string, string> }) => item.examples?.length ?? Object.keys(item.first ?? {}).length;

function render(data: ViewData, root: HTMLElement): void {
  const r = data.result;
  // The overview names each kind's first item as `first: { name: text }`; full detail and one kind give `examples`.
  const found = (r.attention ?? []) as { kind: string; count: number; reason?: string; examples?: Example[]; first?: Record<string, string> }[];
  const clear = (r.clear ?? []) as string[];
  const panel = drillPanel();
  const search = data.canCall('search_transactions');
  const monthStart = `${String(r.as_of ?? '').slice(0, 7)}-01`;

  /** What an example opens, if anything. */
  const opens = (kind: string, e: Example): (() => void) | undefined => {
    const key = e.id ?? e.name;
    if (!search || !key) return undefined;
    if (kind === 'overspent' || kind === 'underfunded') {
      return () =>
        panel.open(`${e.name}: this month`, async () =>
          transactionRows(data, await data.call('search_transactions', { category_id: key, since_date: monthStart, limit: 20 }), 'category'),
        );
    }
    if (kind === 'unreconciled') {
      const since = e.last_reconciled_on !== 'never' ? { since_date: e.last_reconciled_on } : {};
      return () =>
        panel.open(`${e.name}: since it was last reconciled`, async () =>
          transactionRows(data, await data.call('search_transactions', { account_id: key, ...since, limit: 20 }), 'account'),
        );
    }
    return undefined;
  };

  const card = (item: (typeof found)[number]) => {
    const k = KINDS[item.kind] ?? { title: item.kind, clear: item.kind, tone: 'info' as const, figure: '' };
    const showAll =
      item.kind === 'unapproved' && search
        ? h(
            'button',
            {
              class: 'link',
              type: 'button',
              onclick: () =>
                panel.open('Unapproved transactions', async () =>
                  transactionRows(data, await data.call('search_transactions', { approved: false, limit: 50 })),
                ),
            },
            `Show all ${item.count}`,
          )
        : null;
    return h(
      'li',
      { class: `kind ${k.tone}` },
      h('header', {}, h('span', { class: 'count' }, String(item.count)), h('h2', {}, k.title), showAll),
      item.reason ? h('p', { class: 'note' }, item.reason) : null,
      h(
        'ul',
        {},
        ...Object.entries(item.first ?? {}).map(([name, text]) => {
          // A category opens by name (every tool takes names); an account's first says its date in its text.
          const open = item.kind === 'unreconciled' ? undefined : opens(item.kind, { name });
          return h(
            'li',
            {},
            h('span', {}, open ? h('button', { class: 'link', type: 'button', onclick: open }, name) : name),
            h('span', { class: 'num' }, text),
          );
        }),
        ...(item.examples ?? []).map((e) => {
          const label = e.payee_name ?? e.name ?? (e.month ? data.date(e.month, { month: 'long', year: 'numeric' }) : '');
          const open = opens(item.kind, e);
          return h(
            'li',
            {},
            h(
              'span',
              {},
              open ? h('button', { class: 'link', type: 'button', onclick: open }, label) : label,
              k.detail ? h('small', {}, k.detail(e, data) ?? '') : null,
            ),
            // A negative balance is the problem; a negative transaction amount is only spending.
            h('span', { class: `num ${k.figure !== 'amount' && (e[k.figure] ?? 0) < 0 ? 'neg' : ''}` }, data.figure(e, k.figure)),
          );
        }),
      ),
      shownOf(item) < item.count ? h('p', { class: 'note' }, `${item.count - shownOf(item)} more not shown.`) : null,
    );
  };

  show(
    root,
    h('h1', {}, 'Needs attention'),
    h('p', { class: 'sub' }, [r.budget?.name, r.as_of ? `as of ${data.date(r.as_of)}` : null].filter(Boolean).join(' · ')),
    found.length ? h('ul', { class: 'kinds' }, ...found.map(card)) : h('p', { class: 'clear' }, 'Nothing needs attention.'),
    clear.length ? h('p', { class: 'clear' }, clear.map((c) => `✓ ${KINDS[c]?.clear ?? c}`).join('   ')) : null,
    panel.el,
  );
}

startView('ynab-attention', render);
