/**
 * The fields of an event's payload that are money (milliunits): kept as numbers in the payload
 * (a webhook receiver computes with them), and given beside their text in the budget's currency
 * where a model reads them (the alerts tool's answer). Here, below both, so that the event types
 * (src/events/catalog.ts) and the tool that answers with them (src/writes/alerts) share one list;
 * test/events/payload-money.test.ts holds it equal to the payload schemas' money fields.
 */
export const EVENT_MONEY_FIELDS: readonly string[] = [
  'amount',
  'bill',
  'old',
  'spending',
  'spending_week_before',
  'spending_usual',
  'ready_to_assign',
  'ready_to_assign_latest',
];
