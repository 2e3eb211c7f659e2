/**
 * A payee's name from a bank's text for it, for a payee an import has to create: what the bank
 * adds around the merchant's name is left out, so that "SQ *BLUE BOTTLE COFFEE" becomes
 * "Blue Bottle Coffee" and "SHELL OIL 57442" becomes "Shell Oil", never a payee per store or
 * per order. Left out:
 *  - a card processor's prefix (`SQ *`, `TST*`, `PAYPAL *`, `SP *`, `DD *`, …), the merchant
 *    following it; a point-of-sale or card prefix (`POS `, `DEBIT CARD PURCHASE `, `CHECKCARD 0412 `);
 *  - after a merchant's own `*` ("UBER *TRIP", "AMZN MKTP US*2K4LM19"), what follows: an order's
 *    or a trip's reference;
 *  - a merchant the bank names by a descriptor (merchant-names.ts, a data table with its sources:
 *    "WHOLEFDS" is Whole Foods, "AMZN Mktp" Amazon) is that merchant's name, whatever follows;
 *  - where the bank pads the name to a fixed width (three spaces or more), what follows the gap
 *    (Amex's city, an ACH's entry words); a US descriptor's city and state code at its end
 *    ("… 10234 PORTLAND OR"), from the store's number before them where there is one;
 *  - store numbers (`#552`, a number of three or more digits), reference codes (a word of letters
 *    and digits with at least two digits, `XXXX1234`), dates (`04/12`).
 *  - an ACH transfer's wording around the name: its trace after `~` ("220803~ Tran: ACHDW"), and
 *    words such as INST, XFER, ACH, PPD, WEB, DES:, ID: ("PAYPAL INST XFER 220803~ Tran: ACHDW"
 *    is PayPal).
 * A text in capitals is put in title case (words without a vowel, like CVS, stay capitals); a text
 * a person typed keeps its case; names people spell their own way are written so ("MCDONALDS" is
 * McDonald's, "PAYPAL" PayPal). When nothing would be left, the text is kept as it was (trimmed).
 */

import { MERCHANT_GROUPS, US_STATE_CODES } from './merchant-names.js';

/** Processors whose descriptor is `PREFIX*MERCHANT`: the merchant follows the star. */
const PROCESSORS = ['SQ', 'SQU', 'TST', 'PAYPAL', 'PP', 'SP', 'DD', 'IC', 'GGL', 'GOOGLE', 'CKE', 'LS', 'BT', 'WPY', 'PY', 'ZTL', 'SUMUP', 'IZ', 'FS'];

const PROCESSOR = new RegExp(`^(?:${PROCESSORS.join('|')})\\s*\\*\\s*`, 'i');

/** Words a card or terminal puts before the merchant. */
const CARD_PREFIX =
  /^(?:(?:pos|debit card|debit|visa|mastercard|mc|card|checkcard|check card|recurring)\s+(?:purchase|payment|debit|transaction)?\s*(?:\d{4}\s+)?(?:\d{2}\/\d{2}\s+)?|checkcard\s+\d{4}\s+)/i;

/** Each merchant's descriptors (merchant-names.ts), folded as a text is (`folded`), longest first. */
const DESCRIPTORS = MERCHANT_GROUPS.flatMap((g) => g.merchants.flatMap((m) => m.descriptors.map((d) => ({ d: folded(d), name: m.name })))).sort(
  (a, b) => b.d.length - a.d.length,
);

/** A store's number with the word that says so ("STORE 0031", "NO. 12"). */
const STORE_NUMBER = /\s(?:store|str|no\.?|nr\.?)\s*#?\d+\b/gi;

/** An ACH entry's trace: from a `~` or "Tran:" to the end. */
const ACH_TRACE = /\s*(?:~|\btran:|\bppd\s+id\b).*$/i;

/** Words an ACH or transfer entry puts around the name. */
const ACH_WORDS = new Set(['inst', 'xfer', 'ach', 'achdw', 'ppd', 'web', 'ccd', 'des:', 'id:', 'indn:', 'entry', 'descr:']);

/** Names as their owners write them, by their letters folded (a bank's capitals lose the apostrophe and the capitals inside). */
const SPELLED: Record<string, string> = {
  paypal: 'PayPal',
  mcdonalds: "McDonald's",
  ebay: 'eBay',
  youtube: 'YouTube',
  dunkin: "Dunkin'",
  chickfila: 'Chick-fil-A',
  '7eleven': '7-Eleven',
  traderjoes: "Trader Joe's",
  lowes: "Lowe's",
  kohls: "Kohl's",
  macys: "Macy's",
  wendys: "Wendy's",
  applebees: "Applebee's",
  samsclub: "Sam's Club",
  bjs: "BJ's",
  doordash: 'DoorDash',
  jetblue: 'JetBlue',
  iherb: 'iHerb',
};
/** A text's letters and digits, lower case, one space between words: what descriptors are compared on. */
function folded(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * The merchant a bank's text or a payee's name names by a known descriptor (merchant-names.ts),
 * after a card's or processor's prefix: "WHOLEFDS PDX 10234 PORTLAND OR" and "Whole Foods Market"
 * are both Whole Foods. Undefined for a merchant the table does not hold.
 */
export function knownMerchant(text: string): string | undefined {
  const f = folded(text.replace(/\s+/g, ' ').trim().replace(ACH_TRACE, '').replace(CARD_PREFIX, '').replace(PROCESSOR, ''));
  return DESCRIPTORS.find((x) => f === x.d || f.startsWith(`${x.d} `))?.name;
}

/**
 * Where a card descriptor's location starts: a US one ends in the city and the state's code
 * ("WHOLEFDS PDX 10234 PORTLAND OR"), after the store's number where there is one. Undefined
 * when the text does not end so, or nothing of the name would be left.
 */
function locationAt(words: readonly string[]): number | undefined {
  const n = words.length;
  if (n < 3 || !US_STATE_CODES.has(words[n - 1]!)) return undefined;
  // The store's number before the city: the name is what precedes it.
  for (let i = n - 3; i >= 1; i--) if (/^#?\d{3,}$/.test(words[i]!)) return i;
  return n - 2;
}

const letters = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A name with its owner's spelling: the whole name, else word by word (and two words run together). */
function spelled(name: string): string {
  const whole = SPELLED[letters(name)];
  if (whole) return whole;
  const words = name.split(' ');
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const two = i + 1 < words.length ? SPELLED[letters(words[i]! + words[i + 1]!)] : undefined;
    if (two) {
      out.push(two);
      i++;
    } else out.push(SPELLED[letters(words[i]!)] ?? words[i]!);
  }
  return out.join(' ');
}

/** Store numbers, reference codes and dates: words that name no merchant. */
function noise(word: string): boolean {
  if (ACH_WORDS.has(word.toLowerCase())) return true;
  if (/^#\S*$/.test(word)) return true;
  if (/^\d{3,}$/.test(word)) return true;
  if (/^\d{1,2}\/\d{1,2}(?:\/\d{2,4})?$/.test(word)) return true;
  // A word of letters and digits mixed, with two digits at least: an order or card reference.
  if (/^[a-z0-9*x-]+$/i.test(word) && /\d.*\d/.test(word) && /[a-z*]/i.test(word)) return true;
  return false;
}

const VOWEL = /[aeiouyäöüéèáàíóú]/i;

/** A text in capitals in title case; words without a vowel (CVS, DB) and short ones with a dot stay as they are. */
function titleCase(text: string): string {
  if (/\p{Ll}/u.test(text)) return text;
  return text.replace(/\p{L}[\p{L}'’]*/gu, (w) => (VOWEL.test(w) ? w[0]! + w.slice(1).toLowerCase() : w));
}

/** The payee's name in a bank's text (see the header). */
export function cleanPayeeName(bankText: string): string {
  const known = knownMerchant(bankText);
  if (known) return known;
  // A bank pads the name to a fixed width before the city (Amex: "PRUNE               NEW YORK").
  const padded = /^(.*?[a-z].*?[a-z].*?[a-z].*?)\s{3,}\S/i.exec(bankText.trim());
  const whole = bankText.replace(/\s+/g, ' ').trim();
  const raw = padded ? padded[1]!.replace(/\s+/g, ' ').trim() : whole;
  const located = raw.split(' ');
  const at = locationAt(located);
  let text = (at === undefined ? raw : located.slice(0, at).join(' '))
    .replace(ACH_TRACE, '')
    .replace(CARD_PREFIX, '')
    .replace(PROCESSOR, '')
    .replace(STORE_NUMBER, ' ');
  // A merchant's own star: what follows is a reference ("UBER *TRIP HELP.UBER").
  const star = text.indexOf('*');
  if (star > 0) text = text.slice(0, star);
  const words: string[] = [];
  for (const w of text.replace(/\*/g, ' ').split(' ')) {
    if (!w || noise(w)) continue;
    // A lone "S" after a word is an apostrophe the bank dropped ("TRADER JOE S").
    if (/^s$/i.test(w) && words.length) words[words.length - 1] += `'${w}`;
    else words.push(w);
  }
  const named = spelled(titleCase(words.join(' ')).replace(/[\s\-–,.:/]+$/u, ''));
  return named || whole;
}
