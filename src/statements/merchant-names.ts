/**
 * Data, not code: the merchants a bank's text names by a descriptor that is not their name
 * ("WHOLEFDS" is Whole Foods, "AMZN Mktp" Amazon), and the US state codes a card descriptor ends
 * with after the city. payee-text.ts reads these tables; nothing here is a rule of its own.
 *
 * No maintained npm package holds such a list (searched 2026-11: the registry's names with
 * merchant, descriptor, payee; `merchant-category` and `merchant-category-code` are MCC code
 * lists, not names), so it is kept here, each group with where its descriptors were seen. A
 * descriptor is compared with the start of a bank's text, letters and digits only, case aside:
 * "amzn mktp" matches "AMZN Mktp US*2K4LM19" and "AMZN MKTP ES". Add a merchant where a real
 * statement shows its descriptor, naming the file or the issue that did.
 */

export interface MerchantGroup {
  /** Where these descriptors were seen on real statements. */
  source: string;
  merchants: readonly { name: string; descriptors: readonly string[] }[];
}

export const MERCHANT_GROUPS: readonly MerchantGroup[] = [
  {
    source:
      'real bank files in ../shared/bank-files: beangulp/2013-12-03.bofa.ofx (Amex: "WHOLEFDS HOU 10236 02124201320", "AMAZON.COM          AMZN.COM/BI"), csv2ofx/ingesp.csv ("AMZN Mktp ES"); issue 57 (a Chase checking export: "WHOLEFDS PDX 10234 PORTLAND OR" for Whole Foods Market); the Amazon descriptors payee-text.ts knew before this table (mktplace, marketplace, digital, prime)',
    merchants: [
      { name: 'Whole Foods', descriptors: ['wholefds', 'whole foods'] },
      { name: 'Amazon', descriptors: ['amzn', 'amazon com', 'amazon mktp', 'amazon mktplace', 'amazon marketplace', 'amazon digital', 'amazon prime'] },
    ],
  },
  {
    source: 'beangulp/2013-12-03.bofa.ofx ("SPOTIFY USA         28770130901", memo "WWW.SPOTIFY.COM"; "T-MOBILE RECURNG PMTT-MOBILE")',
    merchants: [
      { name: 'Spotify', descriptors: ['spotify usa', 'spotify com', 'www spotify com'] },
      { name: 'T-Mobile', descriptors: ['t mobile'] },
    ],
  },
];

/**
 * The USPS's two-letter codes of the states, DC and the territories (USPS Publication 28,
 * Appendix B): the last word of a US card descriptor, after the city ("PORTLAND OR").
 */
export const US_STATE_CODES: ReadonlySet<string> = new Set(
  'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR VI GU AS MP'.split(
    ' ',
  ),
);
