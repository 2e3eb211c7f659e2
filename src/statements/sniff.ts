/**
 * Which format a file is, from its first bytes: the reader to use for format 'auto', and a file
 * of a kind no reader takes (a PDF, a spreadsheet, another XML or SWIFT message) refused by its
 * kind, so that no reader's own message (a CSV parser's "Invalid Opening Quote") is ever the
 * answer for a file that is not of its format.
 */
import { refuse } from './refusal.js';
import { type ReadFormat, StatementError } from './types.js';

/** What the readers take, as a refusal lists them. */
export const SUPPORTED = 'CSV, OFX, QFX, QIF, camt.052, camt.053, camt.054 (ISO 20022), MT940 and MT942 (SWIFT)';

/** A file no reader takes: what it is ("a PDF") and its kind ("PDF 1.7"). */
export interface Unsupported {
  what: string;
  kind: string;
  advice?: string;
}

const SAVE_AS_CSV = "open it and save (or export) the statement as CSV, or download the bank's CSV, OFX or camt.053 export instead";

/** ISO 20022 messages a bank may send that are not statements, by their identifier's first two parts. */
const ISO_KINDS: Record<string, string> = {
  'pain.001': 'customer credit transfer initiation',
  'pain.002': 'payment status report',
  'pain.008': 'direct debit initiation',
  'camt.055': 'payment cancellation request',
  'camt.056': 'payment cancellation request',
  'camt.029': 'resolution of investigation',
  'camt.060': 'account reporting request',
  'camt.086': 'bank services billing statement',
  'pacs.008': 'interbank credit transfer',
};

/** Binary files: what their first bytes say they are. */
function binaryKind(head: string, content: string): Unsupported | undefined {
  if (head.startsWith('%PDF-'))
    return {
      what: 'a PDF',
      kind: `PDF ${/^%PDF-(\d\.\d)/.exec(head)?.[1] ?? 'document'}`,
      advice: "download the bank's CSV, OFX or camt.053 export of the same statement instead",
    };
  if (head.startsWith('PK\u0003\u0004')) {
    const within = content.slice(0, 65536);
    if (/xl\/(?:workbook|worksheets)/.test(within)) return { what: 'a spreadsheet', kind: 'Excel workbook (.xlsx)', advice: SAVE_AS_CSV };
    if (/opendocument\.spreadsheet/.test(within)) return { what: 'a spreadsheet', kind: 'OpenDocument spreadsheet (.ods)', advice: SAVE_AS_CSV };
    if (/word\/document/.test(within)) return { what: 'a document', kind: 'Word document (.docx)' };
    return { what: 'an archive', kind: 'ZIP archive', advice: 'unpack it and give the statement file inside' };
  }
  // The OLE2 signature D0 CF 11 E0, as UTF-8 cannot decode it (windows-1252 "ÐÏ\x11à").
  if (/^\u00D0\u00CF\u0011\u00E0/.test(head)) return { what: 'a spreadsheet', kind: 'Excel 97-2003 workbook (.xls)', advice: SAVE_AS_CSV };
  if (head.startsWith('\u001F\u008B')) return { what: 'an archive', kind: 'gzip archive', advice: 'unpack it and give the statement file inside' };
  // NUL bytes, or mostly control characters: not a text file of any kind.
  const control = head.slice(0, 1024).match(/[\u0000-\u0008\u000E-\u001A]/g)?.length ?? 0;
  if (head.includes('\u0000') || control > 16) return { what: 'a binary file', kind: 'not text' };
  return undefined;
}

/** An XML document: a camt report we read, or its kind. */
function xmlKind(head: string): ReadFormat | Unsupported {
  if (/<(?:!DOCTYPE\s+)?html[\s>]|<table[\s>]/i.test(head))
    return { what: 'an HTML page', kind: 'HTML (some banks\' "Excel" downloads are HTML tables)', advice: SAVE_AS_CSV };
  if (/urn:schemas-microsoft-com:office:spreadsheet|progid="Excel\.Sheet"/i.test(head))
    return { what: 'a spreadsheet', kind: 'Excel 2003 XML spreadsheet', advice: SAVE_AS_CSV };
  const iso = /urn:iso:std:iso:20022:tech:xsd:([a-z]{4})\.(\d{3})\.\d{3}\.\d{2}/.exec(head);
  // A namespace written short ("camt.053.001.02" alone) still names the message.
  const id = iso ? `${iso[1]}.${iso[2]}` : /\bcamt\.05[234]\b/.exec(head)?.[0];
  if (id === 'camt.052' || /<(?:\w+:)?BkToCstmrAcctRpt[\s>]/.test(head)) return 'camt052';
  if (id === 'camt.053' || /<(?:\w+:)?BkToCstmrStmt[\s>]/.test(head)) return 'camt053';
  if (id === 'camt.054' || /<(?:\w+:)?BkToCstmrDbtCdtNtfctn[\s>]/.test(head)) return 'camt054';
  if (iso) return { what: 'an XML file', kind: `ISO 20022 ${iso[0].slice(iso[0].lastIndexOf(':') + 1)}${ISO_KINDS[id!] ? ` (${ISO_KINDS[id!]})` : ''}` };
  const root = /<([A-Za-z_][\w.:-]*)[\s>/]/.exec(head.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ''))?.[1];
  return { what: 'an XML file', kind: root ? `<${root}>` : 'unknown' };
}

/** A SWIFT MT message: the type from its application header ({2:O940…}), else from the fields it holds. */
function swiftKind(head: string): ReadFormat | Unsupported | undefined {
  const typed = /\{2:[IO](\d{3})/.exec(head)?.[1];
  const fields = (re: RegExp) => re.test(head);
  const isSwift = typed !== undefined || (fields(/^:20:/m) && fields(/^:(?:25|28C?|61|60[FM]|13D):/m));
  if (!isSwift) return undefined;
  const type = typed ?? (fields(/^:(?:60[FM]|62[FM]):/m) ? '940' : fields(/^:(?:13D|34F):/m) ? '942' : undefined);
  // MT950 is MT940 between banks: the same fields, without :86:.
  if (type === '940' || type === '950') return 'mt940';
  if (type === '942') return 'mt942';
  return { what: 'a SWIFT file', kind: type ? `MT${type}` : 'an MT message without a statement (:60F:/:62F:) or interim report (:13D:)' };
}

/** Fixed-width bank formats that would otherwise be taken for a one-column CSV. */
function fixedWidthKind(head: string): Unsupported | undefined {
  const lines = head.split(/\r?\n|\r/).filter((l) => l.trim() !== '');
  const first = lines[0] ?? '';
  if (/^01,/.test(first) && lines.some((l) => /^(?:02|03|16),/.test(l))) return { what: 'a BAI2 file', kind: 'BAI2 cash management report' };
  if (/^0{5}/.test(first) && first.length >= 120 && lines.some((l) => /^[12]\d/.test(l)))
    return { what: 'a CODA file', kind: 'CODA (Belgian coded statement)' };
  if (/^11\d{8}/.test(first) && lines.some((l) => /^22 {4}\d{4}/.test(l))) return { what: 'a Norma 43 file', kind: 'AEB Norma 43 (Spanish bank statement)' };
  return undefined;
}

/** The format of a text file, or what it is when no reader takes it. */
export function sniff(content: string): ReadFormat | Unsupported {
  const head = content.slice(0, 4096).replace(/^\uFEFF/, '');
  const binary = binaryKind(head, content);
  if (binary) return binary;
  if (/OFXHEADER|<OFX>/i.test(head)) return /<INTU\.|INTU\.BID/i.test(content.slice(0, 65536)) ? 'qfx' : 'ofx';
  const text = head.trimStart();
  if (text.startsWith('<')) return xmlKind(text);
  if (/^\s*!(?:Type:|Account|Option:|Clear:)/i.test(text.slice(0, 200))) return 'qif';
  const swift = swiftKind(text);
  if (swift) return swift;
  if (/^[[{]\s*["{[\]]/.test(text)) return { what: 'a JSON file', kind: 'JSON' };
  return fixedWidthKind(text) ?? 'csv';
}

/** The refusal of a file no reader takes. */
export function unsupported(u: Unsupported): StatementError {
  return refuse({
    line: 1,
    found: `${u.what} of kind ${u.kind}, which is not supported`,
    expected: `a statement file; supported: ${SUPPORTED}`,
    fix: u.advice ?? 'export the statement from the bank as one of those (its CSV, OFX or camt.053 download)',
  });
}

/** How a format is named in a message. */
const NAMES: Record<ReadFormat, string> = {
  csv: 'a CSV',
  ofx: 'an OFX',
  qfx: 'a QFX',
  qif: 'a QIF',
  camt052: 'a camt.052',
  camt053: 'a camt.053',
  camt054: 'a camt.054',
  mt940: 'an MT940',
  mt942: 'an MT942',
};

/** The reader's format family: a file sniffed as one member may be read by the other's reader. */
const family = (f: ReadFormat): string => (f.startsWith('camt') ? 'camt' : f.startsWith('mt9') ? 'swift' : f === 'qfx' ? 'ofx' : f);

/**
 * The format to read a file as: the sniffed one for 'auto'. A named format is taken unless the file
 * is plainly something else (a PDF whatever it is called; an OFX given as CSV), which is refused
 * naming what the file is and the `format` that reads it.
 */
export function decideFormat(content: string, given: 'auto' | ReadFormat | undefined): ReadFormat {
  const found = sniff(content);
  if (typeof found !== 'string') {
    if (!given || given === 'auto' || given === 'csv') throw unsupported(found);
    if (found.what !== 'an XML file' && found.what !== 'a SWIFT file') throw unsupported(found);
    return given;
  }
  if (!given || given === 'auto') return found;
  if (found !== 'csv' && family(found) !== family(given)) {
    throw refuse({
      line: 1,
      found: `${NAMES[found]} file`,
      expected: `${NAMES[given].replace(/^an? /, '')}, as format says`,
      fix: `give format "auto" (or "${found}")`,
    });
  }
  // camt and SWIFT readers are told the exact message type; an OFX named QFX stays as named.
  return found !== 'csv' && (family(given) === 'camt' || family(given) === 'swift') ? found : given;
}

/** Kept for callers that want the sniffed format alone: throws for a file no reader takes. */
export function sniffFormat(content: string): ReadFormat {
  const found = sniff(content);
  if (typeof found !== 'string') throw unsupported(found);
  return found;
}
