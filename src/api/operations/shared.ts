/** Pieces several operation declarations share. */

/** The filters every transaction list accepts. */
export const TXN_FILTERS = ['since_date', 'until_date', 'type', 'last_knowledge_of_server'] as const;

/** The transaction lists of the /budgets era (1.76): no until_date, and since_date has no default. */
export const LEGACY_TXN_LIST = { query: ['since_date', 'type', 'last_knowledge_of_server'], sinceDateDefault: false } as const;

/** Said by every tool whose answer holds amounts. */
export const MONEY_NOTE = 'In milliunits.';
