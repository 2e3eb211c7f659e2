/**
 * A budget export file read into its budget object: the whole answer of `GET /budgets/{id}` (or
 * `GET /plans/{id}`), its `data` object, or its `data.budget` alone. A file that is not one of
 * these is refused with what is wrong and where, before anything is served.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/**
 * The largest export file loaded, in bytes. An export of 100,000 transactions is about 60 MB as
 * YNAB sends it (pretty-printed, about 120 MB); past 256 MiB the JSON text alone no longer fits
 * a string Node can parse comfortably, and no real budget is near it.
 */
export const EXPORT_MAX_BYTES = 256 * 1024 * 1024;

/** An export that cannot be loaded: the message says what is wrong and where. */
export class ExportError extends Error {}

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The file's text, refused past `maxBytes` before it is read. */
function readText(file: string, maxBytes: number): string {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (e) {
    throw new ExportError(`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (size > maxBytes) {
    throw new ExportError(`${file}: ${size.toLocaleString('en-US')} bytes is larger than the ${maxBytes.toLocaleString('en-US')}-byte cap on a budget export`);
  }
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buf, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    return buf.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
}

/** Line and column of a character offset, for a parse error a person can find. */
function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) ((line += 1), (last = i));
  return `line ${line}, column ${offset - last}`;
}

function parse(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const at = /position (\d+)/.exec(message);
    // The parser stops at the end of the text: the file was cut short (a partial download, a full disk).
    const atEnd = at !== null && Number(at[1]) >= text.trimEnd().length;
    if (atEnd || /end of JSON input|Unterminated string/i.test(message) || text.trim() === '') {
      throw new ExportError(
        `${file}: the JSON is truncated: it ends at byte ${Buffer.byteLength(text).toLocaleString('en-US')} (${lineAndColumn(text, text.length)}) before the export does`,
      );
    }
    const where = at ? ` at ${lineAndColumn(text, Number(at[1]))}` : '';
    throw new ExportError(`${file}: not JSON${where}: ${message}`);
  }
}

/** Which of the accepted shapes `root` is, and its budget object. */
function budgetOf(file: string, root: unknown): { budget: Json; knowledge: number | null } {
  const expected = 'expected the JSON of GET /budgets/{id}: {"data":{"budget":{…},"server_knowledge":N}}, its data object, or data.budget alone';
  if (!isObject(root)) throw new ExportError(`${file}: the top level is ${Array.isArray(root) ? 'a list' : typeof root}; ${expected}`);
  const data = isObject(root.data) ? root.data : root;
  const knowledge = typeof data.server_knowledge === 'number' ? data.server_knowledge : null;
  const inner = data.budget ?? data.plan;
  if (isObject(inner)) return { budget: inner, knowledge };
  if (Array.isArray(data.budgets) || Array.isArray(data.plans)) {
    throw new ExportError(`${file}: this is the list of budgets (GET /budgets), not one budget's export; ${expected}`);
  }
  if (typeof data.id === 'string' && Array.isArray(data.accounts) && Array.isArray(data.transactions)) return { budget: data, knowledge };
  const keys = Object.keys(data).slice(0, 8).join(', ') || 'none';
  throw new ExportError(`${file}: another shape (top-level keys: ${keys}); ${expected}`);
}

/** Reads an export file: its budget object and the server knowledge it was taken at, if it says. */
export function readExport(file: string, maxBytes = EXPORT_MAX_BYTES): { budget: Json; knowledge: number | null } {
  return budgetOf(file, parse(file, readText(file, maxBytes)));
}
