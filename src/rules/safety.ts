/**
 * Keeping a rule's regular expression from running away. JavaScript's regex engine backtracks,
 * so a pattern like `(a+)+$` can take exponential time on a short text, and the server would
 * hang on every transaction it checks. Three bounds, all applied when a rule is set or imported:
 *  - a star-height check (safe-regex2: no repetition inside a repetition, at most 6
 *    repetitions), which refuses the classic exponential shapes before they ever run;
 *  - no backreferences (they make matching itself hard) and a short pattern;
 *  - a timed probe: the pattern is run on texts built to make it backtrack, at the longest text
 *    the matcher ever gives it (MAX_SUBJECT; match.ts cuts longer ones), and refused when that
 *    takes more than PROBE_MS. The star-height check is the rule; the probe catches what it
 *    misses (polynomial shapes such as `\w*\w*\w*\w*x`).
 * safe-regex2 loads on the first pattern checked, not when the server starts.
 */
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { ArgumentError } from '../shared/argument-error.js';

/** Longest pattern accepted. */
export const MAX_PATTERN = 200;
/** Longest text a rule's pattern is ever run on (bank texts are far shorter). */
export const MAX_SUBJECT = 256;
/** A pattern that takes longer than this on one probe text is refused. */
const PROBE_MS = 25;
/** Repetitions a pattern may hold (safe-regex2's count of `*`, `+`, `?`, `{}`). */
const MAX_REPETITIONS = 6;

type SafeRegex = (re: string, opts?: { limit?: number }) => boolean;
let safeRegex: SafeRegex | undefined;
function starHeightSafe(pattern: string): boolean {
  safeRegex ??= createRequire(import.meta.url)('safe-regex2') as SafeRegex;
  return safeRegex(pattern, { limit: MAX_REPETITIONS });
}

/** The flags every rule pattern is compiled with: case folded, as every rule's text is. */
export const PATTERN_FLAGS = 'i';

/** The first group that is repeated and holds a repetition itself (`(a+)+`), to name in a refusal. */
export function runawayPart(pattern: string): string | undefined {
  const opens: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '(') opens.push(i);
    else if (c === ')' && opens.length) {
      const start = opens.pop()!;
      const next = pattern[i + 1];
      const inner = pattern.slice(start + 1, i);
      if ((next === '*' || next === '+' || next === '{') && /(^|[^\\])[*+{]|[^\\(]\?/.test(inner)) {
        return pattern.slice(start, i + 2);
      }
    }
  }
  return undefined;
}

/**
 * Texts that make a backtracking pattern work hardest: runs of what the pattern itself is made
 * of, then a character it cannot end on; shortest first, doubling up to MAX_SUBJECT, so a
 * polynomial pattern is caught on a short text before a long one could take seconds.
 */
function probeTexts(pattern: string): string[] {
  const literals = pattern.replace(/\\[a-zA-Z]|[^0-9A-Za-z ]/g, '') || 'a';
  const units = ['a', '1', ' ', literals, literals.slice(0, 1)];
  const texts: string[] = [];
  for (let n = 16; n <= MAX_SUBJECT; n *= 2) {
    for (const unit of units) {
      const run = unit.repeat(Math.ceil(n / unit.length)).slice(0, n - 1);
      texts.push(`${run}!`, `${run}\u0000`);
    }
  }
  return texts;
}

/** Refuses (ArgumentError) a rule pattern that is not a valid regular expression or could run away. */
export function checkPattern(value: string): void {
  if (value.length === 0) throw new ArgumentError('the text pattern is empty; give the bank text or a regular expression to match');
  if (value.length > MAX_PATTERN) {
    throw new ArgumentError(`the regular expression is ${value.length} characters; at most ${MAX_PATTERN} are accepted`);
  }
  let re: RegExp;
  try {
    re = new RegExp(value, PATTERN_FLAGS);
  } catch (e) {
    throw new ArgumentError(
      `${JSON.stringify(value)} is not a valid regular expression (${(e as Error).message}); use kind "contains" or "prefix" for plain text`,
    );
  }
  const backref = /\\[1-9]|\\k</.exec(value);
  if (backref) {
    throw new ArgumentError(
      `the regular expression ${JSON.stringify(value)} uses a backreference (${backref[0]}), which rules do not accept: it can make matching run away`,
    );
  }
  if (!starHeightSafe(value)) {
    const part = runawayPart(value);
    throw new ArgumentError(
      `the regular expression ${JSON.stringify(value)} could run away: ${part ? `${JSON.stringify(part)} repeats a repetition` : 'it nests repetitions or has more than 6'}` +
        ` and can take exponential time on a bank text; write it without a repeated group around a repetition (e.g. "a+" for "(a+)+")`,
    );
  }
  const timed = (text: string): number => {
    const start = performance.now();
    re.test(text);
    return performance.now() - start;
  };
  for (const text of probeTexts(value)) {
    // A busy machine can pause any run; a slow probe is run once more and the faster time counts.
    const first = timed(text);
    const ms = first > PROBE_MS ? Math.min(first, timed(text)) : first;
    if (ms > PROBE_MS) {
      throw new ArgumentError(
        `the regular expression ${JSON.stringify(value)} took ${Math.round(ms)} ms on one ${text.length}-character text, over the ${PROBE_MS} ms it may take; simplify its repetitions`,
      );
    }
  }
}
