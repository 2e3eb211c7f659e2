/**
 * The order test files start in: longest first, so that on two workers no long file starts last
 * and runs alone at the end (one file of 10,000 fuzzed calls takes a fifth of the run). vitest's
 * own sequencer does this only with the durations of an earlier run on this machine; on a fresh
 * clone (CI) it starts files by size, which put the longest near the end. Here a file's duration
 * is the larger of vitest's cached one (if any) and the estimate below (measured 2026-11-23 on a
 * 2-core machine; seconds, only their order matters); ties keep vitest's order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ESTIMATES_S: Record<string, number> = {
  'test/resilience/fuzz.test.ts': 113,
  'test/writes/statement-roundtrip.test.ts': 80,
  'test/cli/first-run-errors.test.ts': 80,
  'test/cli/commands.test.ts': 80,
  'test/resilience/exactly-once.test.ts': 71,
  'test/install/package.test.ts': 65,
  'test/run/layering.test.ts': 65,
  'test/writes/statement-faults.test.ts': 63,
  'test/install/inspector.test.ts': 59,
  'test/mcp/openings.test.ts': 60,
  'test/run/services.test.ts': 59,
  'test/statements/generator.test.ts': 54,
  'test/insights/targets-month.test.ts': 52,
  'test/cli/serve-lan.test.ts': 45,
  'test/sync/replica-equality.test.ts': 45,
  'test/sandbox/cli.test.ts': 41,
  'test/insights/answer-size.test.ts': 46,
  'test/hosted/cluster.test.ts': 34,
  'test/sandbox/persistence.test.ts': 30,
  'test/auth/login-personal.test.ts': 30,
  'test/resilience/secrets-cli.test.ts': 30,
  'test/views/render.test.ts': 29,
  'test/writes/faults.test.ts': 29,
  'test/storage/state-dir-cli.test.ts': 28,
  'test/hosted/refresh.test.ts': 27,
  'test/install/readme-commands.test.ts': 28,
  'test/resilience/secrets.test.ts': 25,
  'test/mcp/definitions-budget.test.ts': 24,
  'test/views/registration.test.ts': 24,
  'test/hosted/instances.test.ts': 22,
  'test/writes/apply-rules-effect.test.ts': 48,
  'test/writes/undo-stays.test.ts': 40,
  'test/writes/reconcile-candidates.test.ts': 34,
  'test/writes/statement-start.test.ts': 26,
  'test/insights/forecast-savings.test.ts': 20,
  'test/insights/recurring-none.test.ts': 15,
  'test/quota/processes.test.ts': 22,
  'test/hosted/drain.test.ts': 21,
  'test/resilience/retries.test.ts': 21,
  'test/run/self-contained.test.ts': 21,
  'test/cli/first-run.test.ts': 20,
  'test/insights/suggest-holdout.test.ts': 19,
  'test/mcp/tools-input.test.ts': 18,
  'test/quota/cold-start.test.ts': 18,
  'test/sandbox/faults.test.ts': 18,
  'test/resilience/exactly-once-identity.test.ts': 17,
  'test/sandbox/indexes.test.ts': 17,
};

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const byVitest = await super.sort(files);
    const root = this.ctx.config.root;
    const duration = (spec: TestSpecification): number => {
      const path = spec.moduleId
        .slice(root.length)
        .replace(/^[/\\]+/, '')
        .replaceAll('\\', '/');
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      // The larger: a run of a few tests (-t) caches a file as short as that run was.
      return Math.max((cached?.duration ?? 0) / 1000, ESTIMATES_S[path] ?? 0);
    };
    const rank = new Map(byVitest.map((spec, i) => [spec, i]));
    return [...byVitest].sort((a, b) => duration(b) - duration(a) || rank.get(a)! - rank.get(b)!);
  }
}
