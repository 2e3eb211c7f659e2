/** Comparing texts people typed: folding case and accents away, and how far apart two texts are. */

/** Accent- and case-insensitive form, for finding candidates and for search. */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Edit distance (insertions, deletions, substitutions) between two texts. */
export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length]!;
}

/**
 * How far apart two names may be, as edit distance over the longer one's length, and still be a
 * plausible slip ("Dinning Out" → "Dining Out" is 1/11, "Grocery" → "Groceries" 3/9; "Dentist" is
 * far from "Dinning Out"): beyond it a name is no help as a suggestion, it only pads the list.
 */
export const NEAR_DISTANCE = 0.4;

/** Edit distance over the longer length: 0 the same, 1 nothing alike. */
const relative = (a: string, b: string) => distance(a, b) / Math.max(a.length, b.length, 1);

/**
 * The entries plausibly meant by a typed name, best first, at most `n` (3): a name that starts
 * with it, has a word that does, or contains it (or is contained in it), then names within
 * NEAR_DISTANCE of it (whole, or one of its words). None when nothing is that close.
 */
export function closest<T extends { name: string }>(entries: readonly T[], typed: string, n = 3): T[] {
  const q = foldText(typed.trim());
  if (!q) return [];
  const score = (e: T): number => {
    const label = foldText(e.name);
    if (label.startsWith(q)) return 0;
    const words = label.split(/[\s\-:/&(),.]+/).filter(Boolean);
    if (words.some((w) => w.startsWith(q))) return 1;
    if (label.includes(q) || (label.length > 2 && q.includes(label))) return 2;
    return 3 + Math.min(relative(label, q), ...words.map((w) => relative(w, q)));
  };
  return entries
    .map((e, i) => ({ e, i, s: score(e) }))
    .filter((x) => x.s <= 3 + NEAR_DISTANCE)
    .sort((a, b) => a.s - b.s || a.i - b.i)
    .slice(0, n)
    .map((x) => x.e);
}

/** A name as letters and digits only, case and accents folded: "Trader Joe's" and "trader joes" read alike. */
const compact = (name: string) => foldText(name).replace(/[^\p{L}\p{N}]+/gu, '');

/** A name's words, case and accents folded: "Trader Joe's" → trader, joe, s. */
const wordsOf = (name: string) =>
  foldText(name)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/**
 * Whether a typed name is a near miss of another: not the same name (case aside) but the same once
 * case, accents, spacing and punctuation are set aside, or one typing slip apart in a word of
 * three letters or more. Names whose numbers or one-letter words differ ("Shop 1", "Shop 2";
 * "Unit A", "Unit B") are not near: they name two things.
 */
export function nearName(typed: string, name: string): boolean {
  if (typed.trim().toLowerCase() === name.trim().toLowerCase()) return false;
  const a = compact(typed);
  const b = compact(name);
  if (!a || !b) return false;
  if (a === b) return true;
  if (Math.min(a.length, b.length) < 4 || a.replace(/\D/g, '') !== b.replace(/\D/g, '')) return false;
  const [x, y] = [wordsOf(typed), wordsOf(name)];
  const differ = [...x.filter((w) => !y.includes(w)), ...y.filter((w) => !x.includes(w))];
  return differ.every((w) => w.length >= 3) && distance(a, b) <= 1;
}

/**
 * Where the words of a name start: at 0 and after each run of characters matching `between`
 * (by default anything but a letter or digit). The name given as it is (fold it first to match
 * folded text).
 */
export function wordStarts(name: string, between: RegExp = /[^\p{L}\p{N}]+/gu): number[] {
  return [0, ...[...name.matchAll(between)].map((m) => m.index + m[0].length)];
}

/**
 * Whether one name extends or abbreviates the other, as people lengthen or shorten a payee's
 * name: each word of the one with fewer words starts the word in the same place of the other
 * ("Costco" and "Costco Wholesale", "Trader J" and "Trader Joe's"). Not when their numbers differ
 * ("Shop 1", "Shop 12"), nor when the shorter has under 4 letters ("Bar", "Bart's").
 */
export function extendsName(typed: string, name: string): boolean {
  if (typed.trim().toLowerCase() === name.trim().toLowerCase()) return false;
  const [a, b] = [wordsOf(typed), wordsOf(name)];
  if (a.join('').replace(/\D/g, '') !== b.join('').replace(/\D/g, '')) return false;
  const starts = (s: string[], l: string[]) => s.length <= l.length && s.join('').length >= 4 && s.every((w, i) => l[i]!.startsWith(w));
  return starts(a, b) || starts(b, a);
}
