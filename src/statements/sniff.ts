/** Which format a file is, from its first bytes, for format 'auto'. */
import type { StatementFormat } from './types.js';

export function sniffFormat(content: string): StatementFormat {
  const head = content.slice(0, 4096).replace(/^\uFEFF/, '');
  if (/OFXHEADER|<OFX>/i.test(head)) return /<INTU\.|INTU\.BID/i.test(content.slice(0, 65536)) ? 'qfx' : 'ofx';
  if (/<Document\b/.test(head) && /camt\.05[34]/.test(head)) return 'camt053';
  if (/^\s*!(?:Type:|Account|Option:)/i.test(head.slice(0, 200))) return 'qif';
  return 'csv';
}
