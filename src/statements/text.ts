/** Text as it leaves a statement file: cells cleaned of control characters, offsets turned into lines. */

/**
 * Control and format characters (C0/C1, U+2028/U+2029 line and paragraph separators, zero-width
 * and bidirectional overrides, a stray BOM) would break lines or hide text where a payee is shown:
 * each becomes a space, runs of white space become one.
 */
const HIDDEN = /[\p{Cc}\u2028\u2029\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/gu;

export function cleanText(text: string): string {
  return text.replace(HIDDEN, ' ').replace(/\s+/g, ' ').trim();
}

/** A cleaned cell, or undefined when nothing is left. */
export function optionalText(text: string | undefined | null): string | undefined {
  if (text === undefined || text === null) return undefined;
  const clean = cleanText(String(text));
  return clean === '' ? undefined : clean;
}

/** Line starts of a text, so an offset becomes a 1-based line by binary search. */
export function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** How many lines a text has (a final line break does not start another). */
export function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
