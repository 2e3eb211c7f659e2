/**
 * The one rounding of computed amounts (api/money.ts): milliunits to the currency's minor unit,
 * half away from zero as YNAB shows amounts and a lender rounds interest, without rounding twice.
 * Expectations written out by hand.
 */
import { describe, expect, it } from 'vitest';
import { isWholeMinor, minorDigits, minorStep, roundToMinor, toMinorUnit, USD_FORMAT } from '../../src/api/money.js';

describe('rounding to the minor unit', () => {
  it("rounds milliunits to cents half away from zero (the issue's median 1,619,135 → $1,619.14)", () => {
    expect(toMinorUnit(1_619_135, USD_FORMAT)).toBe(1_619_140);
    expect(toMinorUnit(1_619_134, USD_FORMAT)).toBe(1_619_130);
    expect(toMinorUnit(-1_619_135, USD_FORMAT)).toBe(-1_619_140);
    expect(toMinorUnit(-4, USD_FORMAT)).toBe(0);
    expect(Object.is(toMinorUnit(-4, USD_FORMAT), -0)).toBe(false);
  });

  it('divides without rounding twice: an average of 3 and a month of interest', () => {
    // 100.005 / 3 = 33.335 → $33.34.
    expect(roundToMinor(100_005, 3, USD_FORMAT)).toBe(33_340);
    // $19,040.81 at 4.5% a year: 19,040,810 × 4,500 / 1,200,000 = 71,403.0375 milliunits → $71.40.
    expect(roundToMinor(19_040_810n * 4_500n, 1_200_000n, 2)).toBe(71_400);
    // 0.0049 rounded to milliunits first would be 0.005 and then 0.01; in one step it is 0.00.
    expect(roundToMinor(49, 10_000, 2)).toBe(0);
    expect(roundToMinor(-7, -2, 2)).toBe(0);
    expect(() => roundToMinor(1, 0, 2)).toThrow(RangeError);
  });

  it('follows the currency: yen have no minor unit, dinars three digits, unknown formats cents', () => {
    expect(minorDigits(null)).toBe(2);
    expect(minorDigits({ decimal_digits: 0 })).toBe(0);
    expect(minorStep(0)).toBe(1000);
    expect(toMinorUnit(1_500, 0)).toBe(2_000);
    expect(toMinorUnit(1_499, 0)).toBe(1_000);
    expect(toMinorUnit(1_499, 3)).toBe(1_499);
    expect([isWholeMinor(1_619_140, USD_FORMAT), isWholeMinor(1_619_135, USD_FORMAT), isWholeMinor(2_000, 0), isWholeMinor(2_500, 0)]).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });
});
