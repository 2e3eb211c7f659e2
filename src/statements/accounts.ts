/** A file's accounts as messages list them (no parser loads with this: the tools' modules import it at start). */
import type { ParsedStatement } from './types.js';

export function describeAccount(s: ParsedStatement): string {
  const a = s.account;
  const what = a?.number ? `number ${a.number}` : a?.name ? JSON.stringify(a.name) : 'unnamed';
  return `${what} (${a?.type ?? 'account'}, line ${a?.line ?? '?'}, ${s.rows.length} row${s.rows.length === 1 ? '' : 's'})`;
}
