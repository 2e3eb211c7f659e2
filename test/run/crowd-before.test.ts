/**
 * The crowd bench's diagnostics (bench/hosted-crowd.ts): BENCH_CROWD_BEFORE, a crowd before the one
 * measured, <users>x<calls> within the crowd's own users and calls; BENCH_CROWD_ROLL, how many of
 * the three instances to restart one at a time (1-3). Anything else stops the bench naming the
 * variable and what it takes.
 */
import { describe, expect, it } from 'vitest';
import { crowdBefore, crowdRoll } from '../../bench/hosted-crowd.js';

describe('BENCH_CROWD_BEFORE', () => {
  it('is no crowd before when unset or empty', () => {
    expect(crowdBefore(undefined)).toBeUndefined();
    expect(crowdBefore('')).toBeUndefined();
  });

  it('reads users x calls', () => {
    expect(crowdBefore('100x20')).toEqual({ users: 100, calls: 20 });
    expect(crowdBefore('3x20')).toEqual({ users: 3, calls: 20 });
    expect(crowdBefore('100x3')).toEqual({ users: 100, calls: 3 });
  });

  it.each(['100', 'x20', '0x20', '101x20', '100x0', '100x21', '10 x 20', '1.5x2', '-1x2'])('refuses %j, naming the variable and the form', (value) => {
    expect(() => crowdBefore(value)).toThrow(
      `BENCH_CROWD_BEFORE=${JSON.stringify(value)} is not <users>x<calls> with 1-100 users and 1-20 calls (e.g. 100x20)`,
    );
  });
});

describe('BENCH_CROWD_ROLL', () => {
  it('is no rolling restart when unset or empty', () => {
    expect(crowdRoll(undefined)).toBeUndefined();
    expect(crowdRoll('')).toBeUndefined();
  });

  it('reads how many of the three instances', () => {
    expect(crowdRoll('1')).toBe(1);
    expect(crowdRoll('3')).toBe(3);
  });

  it.each(['0', '4', 'all', '1.0', ' 1'])('refuses %j, naming the variable and the range', (value) => {
    expect(() => crowdRoll(value)).toThrow(`BENCH_CROWD_ROLL=${JSON.stringify(value)} is not how many of the 3 instances to restart one at a time (1-3)`);
  });
});
