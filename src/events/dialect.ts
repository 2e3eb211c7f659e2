/**
 * The three documented ways of speaking Events, which differ in their error codes and in the
 * control envelopes a webhook subscriber takes (docs/alerts.md, "Dialects"; which session speaks
 * which is decided in src/mcp/events/events-dialect.ts):
 *  - `sep`: SEP-3415 (`extensions["io.modelcontextprotocol/events"]`, 2026-07-28): NotFound -32023
 *    … CallbackEndpointError -32027; `gap`, `terminated` and `verification` envelopes;
 *  - `sketch`: the working group's design sketch before it (top-level `capabilities.events`, any
 *    protocol era): -32011 … -32015; the same three envelopes;
 *  - `chatgpt`: OpenAI's "MCP events" guide: the sketch's codes, and only the `verification`
 *    envelope ("gap and terminated are not supported").
 */
export type Dialect = 'sep' | 'sketch' | 'chatgpt';

/** The extension's errors by name; the code a session gets is its dialect's. */
export type EventsError = 'notFound' | 'forbidden' | 'exhausted' | 'unsupported' | 'callback';

const SEP: Record<EventsError, number> = { notFound: -32023, forbidden: -32024, exhausted: -32025, unsupported: -32026, callback: -32027 };
const SKETCH: Record<EventsError, number> = { notFound: -32011, forbidden: -32012, exhausted: -32013, unsupported: -32014, callback: -32015 };

export const codesOf = (dialect: Dialect): Record<EventsError, number> => (dialect === 'sep' ? SEP : SKETCH);

/** The SEP's code as this dialect numbers it (InvalidParams and the rest of JSON-RPC's are shared). */
export function codeIn(dialect: Dialect, sepCode: number): number {
  const name = (Object.keys(SEP) as EventsError[]).find((k) => SEP[k] === sepCode);
  return name ? codesOf(dialect)[name] : sepCode;
}

/** Whether a webhook subscriber of this dialect takes the `gap` and `terminated` envelopes. */
export const takesControlEnvelopes = (dialect: Dialect | undefined): boolean => dialect !== 'chatgpt';
