/**
 * The one shape of a refusal: where (the line, and the element where the format has elements),
 * what was found, what was expected, and the argument that would fix it where one exists
 * (`columns`, `date_format`, `format`). An assistant reads the message to decide its next call,
 * so every reader says the same four things in the same order.
 */
import { type RefusalParts, StatementError } from './types.js';

/** How a found value is quoted: short, on one line. */
export function shown(value: string | undefined | null, max = 40): string {
  const v = String(value ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  if (v === '') return 'nothing';
  return JSON.stringify(v.length > max ? `${v.slice(0, max)}…` : v);
}

/** "line 12, <CdtDbtInd>: found "X"; expected CRDT or DBIT; fix: …" */
export function refusalMessage(p: RefusalParts): string {
  const where = [p.line !== undefined ? `line ${p.line}` : undefined, p.element ? `<${p.element}>` : undefined].filter(Boolean).join(', ');
  return `${where || 'the file'}: found ${p.found}; expected ${p.expected}${p.fix ? `; to fix it, ${p.fix}` : ''}`;
}

export function refuse(p: RefusalParts): StatementError {
  return new StatementError(refusalMessage(p), p);
}
