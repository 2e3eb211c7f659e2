/**
 * Paging of list answers: `limit` items from an opaque `cursor`, which is bound to the query it
 * came from (the same tool and the same other arguments), so that a cursor is never applied to a
 * different list by mistake.
 */
import { createHash } from 'node:crypto';

export class PagingError extends Error {}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

/** A short fingerprint of a query: the tool and every argument except limit and cursor. */
export function queryKey(tool: string, args: Record<string, unknown>): string {
  const { limit: _l, cursor: _c, ...rest } = args;
  const canonical = JSON.stringify([
    tool,
    Object.keys(rest)
      .sort()
      .map((k) => [k, rest[k]]),
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 12);
}

export function encodeCursor(offset: number, key: string): string {
  return Buffer.from(JSON.stringify({ o: offset, q: key })).toString('base64url');
}

/** The offset a cursor continues from; throws when it is malformed or belongs to another query. */
export function decodeCursor(cursor: string | undefined, key: string): number {
  if (cursor === undefined) return 0;
  let parsed: { o?: unknown; q?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown; q?: unknown };
  } catch {
    throw new PagingError('cursor is not one this server gave out; pass the next_cursor of a previous answer, or leave it out to start from the beginning');
  }
  if (typeof parsed?.o !== 'number' || !Number.isInteger(parsed.o) || parsed.o < 0 || typeof parsed.q !== 'string') {
    throw new PagingError('cursor is not one this server gave out; pass the next_cursor of a previous answer, or leave it out to start from the beginning');
  }
  if (parsed.q !== key) {
    throw new PagingError(
      'cursor belongs to a different query (another tool or other arguments); repeat the same arguments with it, or leave it out to start over',
    );
  }
  return parsed.o;
}
