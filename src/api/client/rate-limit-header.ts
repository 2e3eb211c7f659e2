/**
 * Reading the `X-Rate-Limit: X/LIMIT` response header, where X is the number of requests
 * the server has counted for the token in the current rolling hour. The header is absent
 * on 429 answers and may be absent elsewhere; anything malformed is ignored (null) rather
 * than trusted, because a bad value would corrupt the shared ledger.
 */

export interface RateLimitHeader {
  used: number;
  limit: number;
}

const HEADER_RE = /^\s*(\d{1,9})\s*\/\s*(\d{1,9})\s*$/;

export function parseRateLimitHeader(value: string | null | undefined): RateLimitHeader | null {
  if (value == null) return null;
  const m = HEADER_RE.exec(value);
  if (!m) return null;
  const used = Number(m[1]);
  const limit = Number(m[2]);
  if (limit < 1) return null;
  return { used, limit };
}
