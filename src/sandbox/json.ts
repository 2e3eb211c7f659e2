/**
 * Answer bodies as JSON, with entities serialized once:
 *  - an answer object sent unchanged many times (a transaction's detail) is marked `reusable`:
 *    its encoded JSON is made the first time it is sent, kept with it, and written as it is;
 *  - a big list (a full export's transactions) can be given as `JsonSegments`, runs of elements
 *    already encoded (a month of transactions each), written to the socket as they are.
 * So a large list or a full export is mostly ready bytes instead of a fresh JSON.stringify (which,
 * for a 60 MB export, costs more than building it). Reusable objects must never change once marked.
 */

const encoded = new WeakMap<object, Buffer | null>();

/** Marks an answer object whose JSON text may be kept and reused. */
export function reusable<T extends object>(value: T): T {
  if (!encoded.has(value)) encoded.set(value, null);
  return value;
}

/**
 * The kept encoding of a reusable object, made on first use, with a comma before it: an element
 * after the first of a list goes out as one piece, the first as the same bytes past the comma.
 */
function encodedOf(value: object, afterComma: boolean): Buffer {
  let bytes = encoded.get(value);
  if (!bytes) encoded.set(value, (bytes = Buffer.from(`,${JSON.stringify(value)}`)));
  return afterComma ? bytes : bytes.subarray(1);
}

/** The elements of a JSON array, as runs of encoded elements (each run comma-separated within, never empty). */
export class JsonSegments {
  constructor(readonly runs: readonly Buffer[]) {}
}

/** Encodes elements as one run (null for none). */
export function encodeRun(elements: readonly unknown[]): Buffer | null {
  if (!elements.length) return null;
  const text = JSON.stringify(elements);
  return Buffer.from(text.slice(1, -1));
}

const COMMA = Buffer.from(',');

/**
 * The encoded body, in pieces to write in order. The envelope and its first levels are walked
 * (where lists of reusable entities and segments sit: `data.transactions`, `data.plan.transactions`);
 * deeper values are stringified whole. The bytes equal JSON.stringify's.
 */
export function encodeBody(value: unknown): Buffer[] {
  const out: Buffer[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push(text === ',' ? COMMA : Buffer.from(text));
    text = '';
  };
  const bytes = (b: Buffer) => {
    flush();
    out.push(b);
  };
  const walk = (v: unknown, depth: number): void => {
    if (v instanceof JsonSegments) {
      text += '[';
      v.runs.forEach((run, i) => {
        if (i) text += ',';
        bytes(run);
      });
      text += ']';
      return;
    }
    if (v !== null && typeof v === 'object' && encoded.has(v)) return bytes(encodedOf(v, false));
    if (v === null || typeof v !== 'object' || depth > 3) {
      text += JSON.stringify(v) ?? 'null';
      return;
    }
    if (Array.isArray(v)) {
      text += '[';
      for (let i = 0; i < v.length; i++) {
        const item = v[i] === undefined ? null : v[i];
        if (i && item !== null && typeof item === 'object' && encoded.has(item)) bytes(encodedOf(item, true));
        else {
          if (i) text += ',';
          walk(item, 4);
        }
      }
      text += ']';
      return;
    }
    text += '{';
    let first = true;
    for (const [key, child] of Object.entries(v)) {
      if (child === undefined || typeof child === 'function') continue;
      text += `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      walk(child, depth + 1);
    }
    text += '}';
  };
  walk(value, 0);
  flush();
  return out;
}
