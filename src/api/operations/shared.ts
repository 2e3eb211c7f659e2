/** Pieces several operation declarations share. */

/** The filters every transaction list accepts. */
export const TXN_FILTERS = ['since_date', 'until_date', 'type', 'last_knowledge_of_server'] as const;

/** Said by every tool whose answer holds amounts. */
export const MONEY_NOTE = 'Money: milliunits (1000 = 1 unit) and formatted.';
