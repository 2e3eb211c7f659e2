/**
 * A number written as text ("12,50", "€12.50", "1.234,56", "-$5"), read the way a person meant
 * it, to say how to give it: a tool's amount is a JSON number with a decimal point, never a
 * string. Only for error messages; the value is never taken from the text.
 */

/**
 * The numbers the text may mean, as JSON numbers' text: one when it is clear, two when it is not
 * ("1,234": 1234 or 1.234), none when it is not a number.
 */
export function numberFromText(text: string): string[] {
  let t = text.trim().replace(/[\s\u00a0\u202f']/g, '');
  let negative = false;
  if (/^\(.*\)$/.test(t)) [negative, t] = [true, t.slice(1, -1)];
  if (/^[-\u2212]/.test(t)) [negative, t] = [true, t.slice(1)];
  // A currency sign or code before or after the figure, and a sign after a leading symbol ($-5).
  t = t.replace(/^(\p{Sc}|[A-Za-z]{3})/u, '').replace(/(\p{Sc}|[A-Za-z]{3})$/u, '');
  if (/^[-\u2212]/.test(t)) [negative, t] = [true, t.slice(1)];
  if (!/^\d[\d.,]*$/.test(t) || /[.,]$/.test(t)) return [];
  const points = decimalPoints(t);
  return points.map((point) => {
    const [whole, fraction] = point === undefined ? [t.replace(/[.,]/g, ''), ''] : [t.slice(0, point).replace(/[.,]/g, ''), t.slice(point + 1)];
    return `${negative ? '-' : ''}${whole.replace(/^0+(?=\d)/, '')}${fraction ? `.${fraction}` : ''}`;
  });
}

/**
 * Where the decimal separator may be: the last of both kinds when both are used, none when one
 * kind repeats (it groups thousands), a lone one; but a lone one followed by exactly three digits
 * ("1,234") may group thousands too, so both readings.
 */
function decimalPoints(t: string): (number | undefined)[] {
  const dots = t.split('.').length - 1;
  const commas = t.split(',').length - 1;
  if (dots && commas) return [Math.max(t.lastIndexOf('.'), t.lastIndexOf(','))];
  if (dots + commas !== 1) return [undefined];
  const at = Math.max(t.indexOf('.'), t.indexOf(','));
  return t.length - at - 1 === 3 ? [undefined, at] : [at];
}

/**
 * What to say of text given where a number goes, how to write it: "give 12.50 as a number, not
 * the text \"12,50\"". `integer`: the field takes whole numbers only (milliunits).
 */
export function numberTextHint(input: unknown, integer: boolean): string | undefined {
  if (typeof input !== 'string') return undefined;
  const text = quoted(input);
  const figures = numberFromText(input).filter((f) => !integer || !f.includes('.'));
  if (!figures.length) return `must be ${integer ? 'an integer' : 'a number'}, not the text ${text}`;
  const how = figures.length > 1 ? `${figures.join(' or ')}, whichever it means,` : figures[0];
  const changed = figures.length > 1 || figures[0] !== input.trim();
  return `give ${how} as a number, not the text ${text}${changed ? ' (a decimal point; no quotes, currency sign or thousands separator)' : ''}`;
}

/**
 * The same for an amount that has a sign (a transaction's), with the signed forms in the user's
 * own figure: "give -12.50 or 12.50 as a number, not the text \"12,50\": a purchase is -12.50; an
 * income or refund is 12.50". Text alone carries no sign a model can be trusted to have meant, and
 * "give 12.50" turned a purchase into an inflow (issue 57).
 */
export function signedAmountHint(input: unknown): string | undefined {
  if (typeof input !== 'string') return undefined;
  const text = quoted(input);
  const figures = numberFromText(input);
  if (!figures.length) return `must be a number, not the text ${text}: a purchase is negative (-12.50); an income or refund is positive (12.50)`;
  const sizes = figures.map((f) => f.replace(/^-/, ''));
  const how = figures.length > 1 ? `${figures.join(' or ')}, whichever it means,` : figures[0]!.startsWith('-') ? figures[0] : `-${sizes[0]} or ${sizes[0]}`;
  const changed = figures.length > 1 || figures[0] !== input.trim();
  const signs = `a purchase is ${sizes.map((n) => `-${n}`).join(' or ')}; an income or refund is ${sizes.join(' or ')}`;
  return `give ${how} as a number, not the text ${text}: ${signs}${changed ? ' (a decimal point; no quotes, currency sign or thousands separator)' : ''}`;
}

/** Text given back in a message, cut to what identifies it. */
export function quoted(text: string, max = 40): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
