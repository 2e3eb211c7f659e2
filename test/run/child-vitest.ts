/**
 * Runs vitest in a child process, as `npm test` would on another machine: the environment is
 * given whole (nothing of this run's vitest worker leaks in, nor the switches that make services
 * mandatory, unless the caller sets them), and the JSON report is read back with stderr.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ChildRun {
  code: number | null;
  stderr: string;
  report: {
    success: boolean;
    numTotalTests: number;
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    testResults: { name: string; status: string; message: string; assertionResults: { status: string; failureMessages: string[] }[] }[];
  };
}

/** process.env without what a vitest worker sets and without the services switches. */
export function cleanEnv(over: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^VITEST/.test(k) || k === 'TEST' || k === 'YNAB_MCP_REQUIRE_SERVICES' || k === 'YNAB_MCP_KEYCHAIN_TEST' || k === 'NODE_OPTIONS') continue;
    env[k] = v;
  }
  return { ...env, ...over };
}

export async function runVitest(root: string, files: string[], env: NodeJS.ProcessEnv): Promise<ChildRun> {
  const out = mkdtempSync(join(tmpdir(), 'ynab-mcp-child-vitest-'));
  try {
    const args = [
      join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      ...files,
      '--maxWorkers=1',
      '--reporter=json',
      `--outputFile=${join(out, 'report.json')}`,
    ];
    const proc = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => proc.once('close', (c) => resolve(c)));
    let report: ChildRun['report'];
    try {
      report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    } catch {
      throw new Error(`vitest wrote no report (exit ${code}):\n${stderr}`);
    }
    return { code, stderr, report };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
