/**
 * A statement file's bytes as text, in the charset the file itself declares: an OFX 1 header's
 * ENCODING and CHARSET (`ENCODING:USASCII` `CHARSET:1252`, `CHARSET:ISO-8859-1`, `ENCODING:UTF-8`),
 * an XML declaration's encoding (OFX 2, camt), else UTF-8, else Windows-1252 (what banks that do
 * not say still write). Bytes that are valid UTF-8 with characters beyond ASCII are UTF-8 whatever
 * a header says: banks label UTF-8 files 1252, and Windows-1252 text is almost never valid UTF-8.
 */

/**
 * Windows-1252's bytes 0x80–0x9F (€ ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – — ˜ ™ š › œ ž Ÿ; 0x81, 0x8D,
 * 0x8F, 0x90 and 0x9D are unassigned). Node 20's TextDecoder takes 'windows-1252' (and every
 * Latin-1 label, which WHATWG maps to it) as ISO-8859-1 and gives these bytes as C1 control
 * characters, so "€" and "—" are lost; Node 22 and later decode them right. Mapping what is left
 * of U+0080–U+009F after decoding fixes the first and changes nothing in the second.
 */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** WHATWG labels that all mean Windows-1252 (the decoder with Node 20's fault). */
const LATIN1_LABELS = new Set(['windows-1252', 'cp1252', 'iso-8859-1', 'iso8859-1', 'latin1', 'l1', 'us-ascii', 'ascii', 'x-cp1252', 'ibm819', 'cp819']);

function windows1252(bytes: Uint8Array): string {
  return new TextDecoder('windows-1252').decode(bytes).replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
}

/**
 * The TextDecoder label a file's own declaration names, if any. OFX 1's CHARSET is a code page
 * number (1252, 1250, …) or an ISO name (ISO-8859-1, 8859-1); OFX 1.02 writes Latin-1 as
 * "ISO-8859-1", which WHATWG (and browsers) read as Windows-1252: bytes 0x80–0x9F are never C1
 * controls in a statement.
 */
function declared(head: string): { label: string; said: string } | undefined {
  const xml = /<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head);
  if (xml) return { label: xml[1]!.toLowerCase(), said: `the XML declaration's encoding="${xml[1]}"` };
  if (/^\s*OFXHEADER\s*:/i.test(head) || /\nENCODING\s*:/i.test(head)) {
    const enc = /^\s*ENCODING\s*:\s*([\w-]+)/im.exec(head)?.[1];
    if (enc && /^UTF-?8$/i.test(enc)) return { label: 'utf-8', said: `the OFX header's ENCODING:${enc}` };
    const cs = /^\s*CHARSET\s*:\s*([\w-]+)/im.exec(head)?.[1];
    if (!cs || /^NONE$/i.test(cs)) return undefined;
    const label = /^\d{3,4}$/.test(cs) ? `windows-${cs}` : /^(?:ISO-?)?8859-(\d+)$/i.test(cs) ? `iso-8859-${/(\d+)$/.exec(cs)![1]}` : cs.toLowerCase();
    return { label, said: `the OFX header's CHARSET:${cs}` };
  }
  return undefined;
}

function decoderFor(label: string): ((bytes: Uint8Array) => string) | undefined {
  if (LATIN1_LABELS.has(label)) return windows1252;
  try {
    const d = new TextDecoder(label);
    if (d.encoding === 'windows-1252') return windows1252;
    return (bytes) => d.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The file as text, and what was decided where it is worth saying (for the preview's decisions). */
export function decodeStatement(bytes: Uint8Array): { text: string; decision?: string } {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes), decision: 'read as UTF-16 (its byte order mark)' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes), decision: 'read as UTF-16 (its byte order mark)' };
  let utf8: string | undefined;
  try {
    utf8 = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    utf8 = undefined;
  }
  // The declaration is ASCII in every charset a statement is written in.
  const head = new TextDecoder('windows-1252').decode(bytes.subarray(0, 2048));
  const decl = declared(head);
  const beyondAscii = bytes.some((b) => b > 0x7f);
  if (utf8 !== undefined && (beyondAscii || !decl)) {
    const odd = decl && beyondAscii && decl.label !== 'utf-8' && decl.label !== 'utf8';
    return { text: utf8, ...(odd ? { decision: `read as UTF-8, though ${decl.said} says otherwise: its bytes are valid UTF-8` } : {}) };
  }
  const utf8Label = decl !== undefined && /^utf-?8$/.test(decl.label);
  const decode = decl && !utf8Label ? decoderFor(decl.label) : undefined;
  if (decl && decode) return { text: decode(bytes), ...(beyondAscii ? { decision: `read as ${decl.label}, as ${decl.said} says` } : {}) };
  if (utf8 !== undefined) return { text: utf8 };
  const why = !decl
    ? 'it is not UTF-8 and names no charset'
    : utf8Label
      ? `${decl.said}, but its bytes are not UTF-8`
      : `${decl.said} is no charset known here`;
  return { text: windows1252(bytes), decision: `read as windows-1252: ${why}` };
}
