import { describe, expect, it } from 'vitest';
import { formatNextSlot, formatUtcMinute, formatWait } from '../../src/quota/format.js';
import { parseRateLimitHeader } from '../../src/api/client/rate-limit-header.js';

const NOW = Date.UTC(2026, 10, 22, 13, 53, 0);

describe('formatNextSlot', () => {
  it('gives the UTC minute and the wait', () => {
    expect(formatNextSlot(new Date(Date.UTC(2026, 10, 22, 14, 5, 0)), NOW)).toBe('next request possible at 2026-11-22 14:05 UTC (in 12 minutes)');
  });

  it('rounds up, so the announced minute is never too early', () => {
    const at = new Date(Date.UTC(2026, 10, 22, 14, 5, 10));
    expect(formatNextSlot(at, new Date(NOW), 'read')).toBe('next read possible at 2026-11-22 14:06 UTC (in 13 minutes)');
    expect(formatUtcMinute(new Date(Date.UTC(2026, 11, 31, 23, 59, 1)))).toBe('2027-01-01 00:00');
  });

  it('says "now" for a past instant and uses singular and hours', () => {
    expect(formatNextSlot(new Date(NOW - 1), NOW)).toBe('next request possible now');
    expect(formatWait(1)).toBe('1 minute');
    expect(formatWait(60_000)).toBe('1 minute');
    expect(formatWait(60 * 60_000)).toBe('60 minutes');
    expect(formatWait(119 * 60_000 + 1)).toBe('2 hours');
    expect(formatWait(125 * 60_000)).toBe('2 hours 5 minutes');
  });
});

describe('parseRateLimitHeader', () => {
  it('reads "used/limit"', () => {
    expect(parseRateLimitHeader('36/200')).toEqual({ used: 36, limit: 200 });
    expect(parseRateLimitHeader(' 0 / 200 ')).toEqual({ used: 0, limit: 200 });
  });

  it('ignores anything else', () => {
    for (const bad of [null, undefined, '', '36', '36/0', '-1/200', '1.5/200', 'a/b', '36/200/1']) {
      expect(parseRateLimitHeader(bad)).toBeNull();
    }
  });
});
