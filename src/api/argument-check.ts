/**
 * Arguments that cannot go on the wire as they are, refused before any request with an error
 * that names the argument:
 *  - text with an unpaired UTF-16 surrogate (a lone half of an emoji, say): it has no UTF-8 form,
 *    so it can be neither URL-encoded (encodeURIComponent throws) nor stored by the service;
 *  - a path parameter that is empty, "." or "..": URL normalization would turn
 *    `/budgets/../user` into another endpoint.
 * Anything else is sent as given, URL-encoded in paths: ids are not checked for their shape here,
 * because an id may also be a name that the service (or the layer above) resolves.
 * Every call is checked by the service, the one entry point for operations (reads it answers
 * without a request too), so every tool and resource meets the same check; path parameters are
 * checked again where paths are built (paths.ts), for the client's own requests. A call is
 * checked once: the write pipeline checks an API write's call before it plans it (nothing is
 * previewed that could not be sent), and the service then takes that call as checked.
 */
import { InvalidArgumentError } from './client/errors.js';
import type { Operation } from './operations/index.js';

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unpaired(text: string): string | undefined {
  const m = UNPAIRED_SURROGATE.exec(text);
  return m ? `U+${m[0].charCodeAt(0).toString(16).toUpperCase()}` : undefined;
}

/** JSON.stringify writes an unpaired surrogate as a visible \udxxx escape. */
const shown = (value: string) => (value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}…` : JSON.stringify(value));

function checkText(argument: string, value: string): void {
  const bad = unpaired(value);
  if (bad) {
    throw new InvalidArgumentError(
      argument,
      `${argument} ${shown(value)} contains an unpaired surrogate (${bad}), half of a character that is not valid text; send the whole character or remove it`,
    );
  }
}

/** Checks one path parameter (an id, a month, "last-used"). */
export function checkPathParam(argument: string, value: string): void {
  checkText(argument, value);
  if (value === '') throw new InvalidArgumentError(argument, `${argument} is empty; give an id`);
  if (value === '.' || value === '..') {
    throw new InvalidArgumentError(argument, `${argument} ${shown(value)} is not an id: "." and ".." would change the address of the request`);
  }
}

function walk(value: unknown, where: string): void {
  if (typeof value === 'string') return checkText(where, value);
  if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${where}[${i}]`));
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      checkText(where ? `${where} (a field name)` : 'a field name', k);
      walk(v, where ? `${where}.${k}` : k);
    }
  }
}

/**
 * Checks every value of a request: path parameters, query values and the body. Body fields are
 * named as the tools name them: without the one-member wrapper (`memo`, not `transaction.memo`),
 * lists by index (`transactions[1].id`).
 */
export function checkCallArguments(op: Operation, args: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown }): void {
  if (checked.has(args)) return;
  walkCall(op, args);
  checked.add(args);
}

/** Calls already checked, by identity (a call is not changed once built). */
const checked = new WeakSet<object>();

function walkCall(op: Operation, args: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown }): void {
  for (const [name, value] of Object.entries(args.params ?? {})) if (typeof value === 'string') checkPathParam(name, value);
  for (const [name, value] of Object.entries(args.query ?? {})) walk(value, name);
  const body = args.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return;
  const members = Object.keys(body);
  // `transactions` is a list the tools take as it is; other wrappers hold the tool's fields.
  if (members.length === 1 && members[0] !== 'transactions' && op.bodyMembers?.includes(members[0]!)) walk(body[members[0]!], '');
  else walk(body, '');
}
