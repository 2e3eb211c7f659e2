/**
 * The metrics of an instance under a crowd (issue 61): its warm-up before /readyz turns ready
 * (warm-up.ts), the requests that kept their admission slot past its longest hold
 * (src/transport/http-admission.ts), and the waits on Redis (round trips: observe.ts counts them).
 * Their names are read by the hosted bench and docs/capacity.md: keep them.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

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
