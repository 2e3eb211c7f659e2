/**
 * Injected faults for resilience tests: `--faults "500=0.05,503=0.05,reset=0.02,slow=0.02"`.
 * Each request draws one outcome with the given probabilities (seeded, so runs repeat):
 *  - 500 / 503: an error answer, nothing applied;
 *  - reset: the connection is dropped; half the time before the request was applied, half the
 *    time after, in the middle of the answer (its status line arrived: a client knows it arrived);
 *  - silent: the request is applied and the connection dropped before any of the answer, as
 *    when a response is lost whole (nothing tells a client whether it arrived);
 *  - slow: the answer is delayed by up to 1.5x the request timeout; past the timeout the
 *    request ends with 503 and nothing is applied;
 *  - echo-auth: a 500 whose detail echoes the Authorization header, to prove that clients never
 *    show what a server sends back.
 */
import { Random } from './demo/random.js';

export const FAULT_KINDS = ['500', '503', 'reset', 'silent', 'slow', 'echo-auth'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultDecision = FaultKind | 'reset-after' | 'none';

export class FaultSpecError extends Error {}

export function parseFaults(spec: string): Map<FaultKind, number> {
  const out = new Map<FaultKind, number>();
  let total = 0;
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [kind, value] = part.split('=');
    if (!kind || !(FAULT_KINDS as readonly string[]).includes(kind)) {
      throw new FaultSpecError(`unknown fault ${JSON.stringify(kind)} in --faults; expected one of ${FAULT_KINDS.join(', ')}, as kind=probability`);
    }
    const p = Number(value);
    // A plain decimal only: "500=" or "500=0x1" or "500=1=2" are mistakes, not 0 or 1.
    if (value === undefined || !/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value) || part.split('=').length !== 2 || p < 0 || p > 1) {
      throw new FaultSpecError(`fault ${kind} needs a probability between 0 and 1, e.g. ${kind}=0.05`);
    }
    if (out.has(kind as FaultKind)) throw new FaultSpecError(`fault ${kind} is given twice in --faults`);
    out.set(kind as FaultKind, p);
    total += p;
  }
  // With a tolerance: 0.1 + 0.2 + 0.7 is 1.0000000000000002 in floating point.
  if (total > 1 + 1e-9) throw new FaultSpecError(`fault probabilities add up to ${Math.round(total * 1e6) / 1e6}; they must add up to at most 1`);
  return out;
}

export class FaultInjector {
  private readonly random: Random;

  constructor(
    private readonly faults: Map<FaultKind, number>,
    seed: string | number,
  ) {
    this.random = new Random(`faults:${seed}`);
  }

  get enabled(): boolean {
    return this.faults.size > 0;
  }

  decide(): FaultDecision {
    if (!this.faults.size) return 'none';
    let roll = this.random.next();
    for (const [kind, p] of this.faults) {
      if (roll < p) {
        if (kind === 'reset') return this.random.chance(0.5) ? 'reset-after' : 'reset';
        return kind;
      }
      roll -= p;
    }
    return 'none';
  }

  /** Delay of a slow answer, as a fraction (0..1.5) of the request timeout. */
  slowFraction(): number {
    return this.random.next() * 1.5;
  }
}
