/**
 * The MCP Inspector's CLI, for the tests that drive the server with it. It is not in the project's
 * install: every Inspector release wants Node 22.19 or newer, and the project supports 20.18, so a
 * plain `npm install` would warn on Node 20 (docs/dependencies.md). It has a package of its own,
 * test/inspector, which .ci/run installs. Where it is not installed, its tests skip and say once
 * per file how to get it; where the run requires every service (YNAB_MCP_REQUIRE_SERVICES=all, as
 * in .ci/run), they run and fail instead.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './cli.js';

export const INSPECTOR_INSTALL = 'npm ci --prefix test/inspector (the Inspector wants Node 22.19+, and runs on 20)';

export const INSPECTOR = join(REPO_ROOT, 'test', 'inspector', 'node_modules', '.bin', process.platform === 'win32' ? 'mcp-inspector.cmd' : 'mcp-inspector');

const required = /\ball\b/.test(process.env.YNAB_MCP_REQUIRE_SERVICES ?? '');

/** True when the Inspector's tests should skip here; says so once, with what to install. */
export function skipWithoutInspector(): boolean {
  if (existsSync(INSPECTOR)) return false;
  if (required) throw new Error(`the MCP Inspector is not installed at ${INSPECTOR}: ${INSPECTOR_INSTALL}`);
  process.stderr.write(`[inspector] skipping the MCP Inspector's tests: it is not installed. Get it with: ${INSPECTOR_INSTALL}\n`);
  return true;
}
