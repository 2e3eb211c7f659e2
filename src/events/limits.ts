/**
 * The Events extension's numbers that the protocol side needs when the server starts (events/list
 * and the methods' schemas), apart from the service, so that registering the methods loads no
 * detection code (test/mcp/cold-start.test.ts).
 */

/** Default and largest page of a poll. */
export const DEFAULT_MAX_EVENTS = 50;
export const MAX_EVENTS = 200;
