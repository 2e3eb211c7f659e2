/**
 * The metrics of an instance under a crowd (issue 61): its warm-up before /readyz turns ready
 * (warm-up.ts), the requests that kept their admission slot past its longest hold
 * (src/transport/http-admission.ts) and what the admission is doing, and the waits on Redis (round trips: observe.ts counts them).
 * Their names are read by the hosted bench and docs/capacity.md: keep them.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { AdmissionState } from '../transport/http-admission.js';

/** The warm-up's steps (warm-up.ts), the only values of the `step` label. */
export const WARM_UP_STEPS = new Set(['code', 'redis', 'users', 'answers', 'mcp']);

export function loadMetrics(registry: Registry) {
  const registers = [registry];
  return {
    warmUpSeconds: new Gauge({
      name: 'ynab_mcp_warmup_seconds',
      help: "Time from the process's start to the end of its warm-up, when /readyz turned ready (absent until then)",
      registers,
    }),
    warmUpSteps: new Gauge<'step' | 'outcome'>({
      name: 'ynab_mcp_warmup_step_seconds',
      help: 'Time of each step of the warm-up (code, redis, users, answers, mcp), by outcome (ok, failed)',
      labelNames: ['step', 'outcome'],
      registers,
    }),
    turnsExpired: new Counter({
      name: 'ynab_mcp_admission_expired_total',
      help: 'MCP requests that held their slot (--concurrent-requests) past 1 s at a stretch and passed it on for good: a dialog, or a wait that does not hand the slot on',
      registers,
    }),
    redisTrips: new Counter({
      name: 'ynab_mcp_redis_round_trips_total',
      help: "Waits on Redis: commands sent while no other command of the same MCP request (or of the instance's background work) awaited its answer; commands sent together count once",
      registers,
    }),
  };
}

/**
 * What the admission is doing at each scrape (beside ynab_mcp_requests_waiting). At rest, no
 * request is in the loop or computing: a count that stays above 0 with nothing served is places
 * or slots lost, and a line that stands still (ynab_mcp_admission_stalled_seconds) an instance that
 * has stopped serving; /readyz says so too (readiness.ts).
 */
export function admissionGauges(registers: Registry[], admission: () => AdmissionState | undefined): void {
  new Gauge({
    name: 'ynab_mcp_requests_in_loop',
    help: 'MCP requests holding a place in the loop (--requests-in-loop): computing, waiting for a slot, or waiting on Redis',
    registers,
    collect() {
      this.set(admission()?.inLoop ?? 0);
    },
  });
  new Gauge({
    name: 'ynab_mcp_requests_computing',
    help: 'MCP requests holding a slot (--concurrent-requests): computing',
    registers,
    collect() {
      this.set(admission()?.computing ?? 0);
    },
  });
  new Gauge({
    name: 'ynab_mcp_admission_stalled_seconds',
    help: 'How long MCP requests have waited for their turn with none let in (0 while the line moves or is empty)',
    registers,
    collect() {
      this.set((admission()?.stalledMs ?? 0) / 1000);
    },
  });
}
