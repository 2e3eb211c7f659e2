/**
 * Budget text (payee names, memos, notes, names) is typed by people and imported from banks, and
 * may carry characters that change how text reads without being seen: line breaks (U+2028,
 * U+2029, U+0085, CR/LF) that fake the end of a line or of the data, bidi overrides and isolates
 * that reorder what is shown, zero-width and tag characters that hide text. Every such character
 * is escaped visibly (`\n`, `\u2028`, `\u202e`, `\u{e0041}`), so a memo shows exactly what it
 * holds and cannot pass for anything else.
 *
 * What is escaped: control characters (C0 and C1, tab kept), format characters (Unicode category
 * Cf: bidi controls, zero-width space and joiners, word joiner, BOM, soft hyphen, tags, …), line
 * and paragraph separators, and unpaired surrogates. Two joiners are kept where they do their job
 * and nothing else: U+200D between two emoji (👩‍💻) and U+200C between two letters of a script
 * that uses it (Persian, Indic scripts).
 *
 * `<` and `>` are escaped too (`\u003c`, `\u003e`): a payee named `</budget-data-…>` cannot
 * pass for the boundary an answer's text is wrapped in (untrusted.ts), nor for any other tag.
 *
 * `sanitize` applies this (escapeText), and the scrubber, to every string of an answer; it is
 * called where budget text enters answers (answer.ts for tools and resources, catalog.ts for
 * completions and resource lists, prompts.ts, ynab://status, tool errors), not per tool. A
 * completed account name keeps its `<` and `>` (escapeControls only): it is an argument's value,
 * which the model reads only as the prompt quotes it, escaped; but a host may paste it into a
 * prompt, so what reads as a data boundary (`</budget-data-…>`) is escaped in it too
 * (escapeBoundary), and the escaped name still resolves (names.ts compares escaped forms).
 */

const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const CONTROLS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
// Letters of scripts that need the non-joiner (Arabic, Persian, Indic, …); in Latin, Greek or
// Cyrillic text it has no job and could only hide something.
const JOINING_LETTER = /^(?![\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])[\p{L}\p{M}]$/u;
// What may sit between an emoji and a joiner: a variation selector, a skin tone.
const EMOJI_MODIFIER = /^[\uFE0F\u{1F3FB}-\u{1F3FF}]$/u;

/** The code point before `index` (skipping emoji modifiers when `skipModifiers`). */
function before(text: string, index: number, skipModifiers: boolean): string {
  let i = index;
  for (;;) {
    if (i <= 0) return '';
    const low = text.charCodeAt(i - 1);
    const start = low >= 0xdc00 && low <= 0xdfff && i >= 2 && text.charCodeAt(i - 2) >= 0xd800 && text.charCodeAt(i - 2) <= 0xdbff ? i - 2 : i - 1;
    const ch = String.fromCodePoint(text.codePointAt(start)!);
    if (skipModifiers && EMOJI_MODIFIER.test(ch)) {
      i = start;
      continue;
    }
    return ch;
  }
}

function after(text: string, index: number): string {
  const cp = text.codePointAt(index);
  return cp === undefined ? '' : String.fromCodePoint(cp);
}

function joinerAtWork(ch: string, text: string, offset: number): boolean {
  if (ch === '\u200D') return PICTOGRAPH.test(before(text, offset, true)) && PICTOGRAPH.test(after(text, offset + 1));
  if (ch === '\u200C') return JOINING_LETTER.test(before(text, offset, false)) && JOINING_LETTER.test(after(text, offset + 1));
  return false;
}

function escape(ch: string): string {
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  const cp = ch.codePointAt(0)!;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/** `text` with line and format controls escaped visibly (tab and working joiners kept). */
export function escapeControls(text: string): string {
  if (!CONTROL.test(text)) return text;
  return text.replace(CONTROLS, (ch: string, offset: number) => (ch === '\t' || joinerAtWork(ch, text, offset) ? ch : escape(ch)));
}

const MARKUP = /[<>]/g;

/** `text` with `<` and `>` as `\u003c` and `\u003e`, so that nothing in it reads as a tag. */
export function escapeMarkup(text: string): string {
  return text.replace(MARKUP, (ch) => (ch === '<' ? '\\u003c' : '\\u003e'));
}

// A tag that names the data boundary (untrusted.ts), however spaced or cased, up to its closing bracket.
const BOUNDARY_TAG = /<\s*\/?\s*budget-data[^<>]*>?/gi;

/** `text` with the brackets of anything that reads as a data boundary (`</budget-data-…>`) escaped, other `<` and `>` kept. */
export function escapeBoundary(text: string): string {
  return text.replace(BOUNDARY_TAG, (tag) => escapeMarkup(tag));
}

// Printable ASCII but `<` and `>`: text of only these has nothing escapeText escapes (most of it).
const NOTHING_TO_ESCAPE = /^[\x20-\x3b=\x3f-\x7e]*$/;

/** Budget text as answers show it: line and format controls, `<` and `>` escaped visibly. */
export function escapeText(text: string): string {
  if (NOTHING_TO_ESCAPE.test(text)) return text;
  return escapeMarkup(escapeControls(text));
}

/**
 * A JSON value with every string (object keys included) passed through `scrub` and then
 * escapeText. Returns a new value; the input is not changed. Each distinct string is cleaned once
 * per value (keys and names repeat in every row): an answer of 20 transactions and a month's
 * categories took 0.76 ms, a seventh of a hosted call's CPU (2026-11-25).
 */
export function sanitize<T>(value: T, scrub: (text: string) => string = (t) => t): T {
  const cleaned = new Map<string, string>();
  const clean = (s: string) => {
    let c = cleaned.get(s);
    if (c === undefined) cleaned.set(s, (c = escapeText(scrub(s))));
    return c;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return clean(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) out[clean(k)] = walk(o[k]);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
