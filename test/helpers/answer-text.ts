/**
 * Reads the text form of an answer (a tool's text mirror, a resource's contents) back into the
 * structured content it stands for: plain JSON, or JSON inside a per-answer budget-data boundary
 * after the data notice, which structured content carries as `data_notice` (see
 * src/mcp/output/untrusted.ts). Fails when the boundary is malformed or the notice is not said
 * exactly once.
 */
import { USER_DATA_NOTICE } from '../../src/mcp/output/untrusted.js';

const BOUNDARY = /^([\s\S]*?)<(budget-data-[0-9a-f]{12})>\n([\s\S]*)\n<\/\2>$/;

export interface AnswerText {
  /** What the text says before the boundary; undefined for plain JSON. */
  preamble?: string;
  /** The JSON inside (or the whole text). */
  inner: Record<string, any>;
  /** The structured content this text stands for. */
  structured: Record<string, any>;
}

export function readAnswerText(text: string): AnswerText {
  if (text.startsWith('{')) return { inner: JSON.parse(text), structured: JSON.parse(text) };
  const m = BOUNDARY.exec(text);
  if (!m) throw new Error(`not JSON and not inside a data boundary: ${text.slice(0, 120)}`);
  const [, preamble, , json] = m;
  if (preamble!.split(USER_DATA_NOTICE).length !== 2) throw new Error(`the data notice is not said exactly once before the boundary: ${preamble}`);
  const inner = JSON.parse(json!);
  if ('data_notice' in inner) throw new Error('the notice is said twice: data_notice inside the boundary too');
  return { preamble, inner, structured: { ...inner, data_notice: USER_DATA_NOTICE } };
}
