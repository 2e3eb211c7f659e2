/**
 * The "no regression" summary of bench/RESULTS.md (bench/regression.ts): each held figure read from
 * its section's latest block, its value before taken from the history the summary keeps, and a
 * value measured again by the same run not counted twice.
 */
import { describe, expect, it } from 'vitest';
import { regressionBlocks } from '../../bench/regression.js';

const session = (requests: number, measured: string) =>
  [
    '<!-- section:session -->',
    '## 100-intent session against the peer',
    '',
    `Measured ${measured} UTC at abc123def456, 20 s (\`npm run bench -- session\`).`,
    '',
    `- requests in the session, ours: **${requests}** (target ≤ 3: ${requests <= 3 ? 'met' : '**not met**'})`,
    '- bytes to the model, ours / peer: **224,375 / 1,351,671 = 0.17×** (target ≤ 0.50×: met)',
    '<!-- /section:session -->',
    '',
  ].join('\n');

const hosted = (figure: string) =>
  ['<!-- section:hosted -->', 'Measured 2026-11-26 09:00 UTC at 0123456789ab, 400 s.', '', figure, '<!-- /section:hosted -->', ''].join('\n');

const rowOf = (summary: string, label: string) => summary.split('\n').find((l) => l.startsWith(`| ${label} |`));

describe('the no-regression summary', () => {
  it('reads each figure from its section, and keeps the value before from its own history', () => {
    const first = regressionBlocks(new Map([['session', session(3, '2026-11-26 05:19')]]));
    expect(rowOf(first.summary, 'requests in the 100-intent session')).toBe(
      '| requests in the 100-intent session | session | ≤ 3 | **3** | met | 2026-11-26 05:19 UTC at abc123def456 |  |  |',
    );
    // The same block read again adds nothing to the history.
    const again = regressionBlocks(
      new Map([
        ['session', session(3, '2026-11-26 05:19')],
        ['regression-history', first.history],
      ]),
    );
    expect(again.history).toBe(first.history);
    // A new run of the section: the value before is the previous run's.
    const next = regressionBlocks(
      new Map([
        ['session', session(4, '2026-11-26 09:10')],
        ['regression-history', again.history],
      ]),
    );
    expect(rowOf(next.summary, 'requests in the 100-intent session')).toBe(
      '| requests in the 100-intent session | session | ≤ 3 | **4** | not met | 2026-11-26 09:10 UTC at abc123def456 | 3 | 2026-11-26 05:19 UTC at abc123def456 |',
    );
    expect(next.history.split('\n').filter((l) => l.includes('requests in the 100-intent session'))).toHaveLength(2);
  });

  it("finds the crowd's p99 under its name before issue 61 and under its name since, and leaves out figures no section has", () => {
    const before = regressionBlocks(
      new Map([['hosted', hosted('- p99 at 100 users x 20 calls at once, one Redis: **794 ms** (target <= 1000 ms, 0 errors: met)')]]),
    );
    expect(rowOf(before.summary, 'hosted crowd p99, 100 x 20 at once, one Redis')).toContain('| **794 ms** | met |');
    expect(rowOf(before.summary, 'requests in the 100-intent session')).toBeUndefined();
    // A run of the section that left the figure out (HOSTED_CROWD_ONLY=1 has no 20 x 50 load) shows its last value still.
    const partial = regressionBlocks(
      new Map([
        ['hosted', hosted('- p99 at 20 users x 50 calls, one Redis: **399 ms** (target <= 500 ms (before: 1146 ms): met)')],
        ['regression-history', before.history],
      ]),
    );
    expect(rowOf(partial.summary, 'hosted crowd p99, 100 x 20 at once, one Redis')).toContain('| **794 ms** | not in the latest run |');
    const after = regressionBlocks(
      new Map([
        [
          'hosted',
          hosted(
            '- crowd-only p99s at 100 users x 20 calls, one Redis: generator cold / warmed: **912 ms, 950 ms, 1003 ms / 880 ms, 901 ms, 940 ms** (target <= 1000 ms in every run, 0 errors: **not met**)',
          ),
        ],
        ['regression-history', before.history],
      ]),
    );
    expect(rowOf(after.summary, 'hosted crowd p99, 100 x 20 at once, one Redis')).toBe(
      '| hosted crowd p99, 100 x 20 at once, one Redis | hosted | ≤ 1 s in every run | **912 ms, 950 ms, 1003 ms / 880 ms, 901 ms, 940 ms** | not met | 2026-11-26 09:00 UTC at 0123456789ab | 794 ms | 2026-11-26 09:00 UTC at 0123456789ab |',
    );
  });

  it('keeps the crowd behind each balancer apart: the round-robin row never reads the least-outstanding figure', () => {
    const both = regressionBlocks(
      new Map([
        [
          'hosted',
          hosted(
            [
              '- crowd-only p99s at 100 users x 20 calls, one Redis, balancer least-outstanding: generator cold / warmed: **610 ms / 640 ms** (target <= 1000 ms in every run, 0 errors: met)',
              '- crowd-only p99s at 100 users x 20 calls, one Redis: generator cold / warmed: **984 ms / 1022 ms** (target <= 1000 ms in every run, 0 errors: **not met**)',
            ].join('\n'),
          ),
        ],
      ]),
    );
    expect(rowOf(both.summary, 'hosted crowd p99, 100 x 20 at once, one Redis')).toContain('| **984 ms / 1022 ms** | not met |');
    expect(rowOf(both.summary, 'hosted crowd p99, 100 x 20 at once, one Redis, least-outstanding balancer')).toContain('| **610 ms / 640 ms** | met |');
  });
});
