/**
 * What the view tests in a real browser share: a harness whose client announces MCP Apps, the
 * host page in Chromium, the demo budget's money as it writes it, and a folder for screenshots.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatMilliunits } from '../../src/api/money.js';
import { mcpHarness, ok, type McpHarness } from './mcp.js';
import { missingMessage } from './services.js';
import { CHROMIUM, ViewHost } from './view-host.js';
import { UI_CAPABILITIES } from './views.js';

export interface ViewSuite {
  h: McpHarness;
  host: ViewHost;
  /** Milliunits as the demo budget writes them (its own currency format, from its settings). */
  money: (milliunits: number) => string;
  shots: string;
}

/** Opens the suite (in a file's beforeAll); `shotsPrefix` names the screenshot folder. */
export async function openViewSuite(shotsPrefix: string): Promise<ViewSuite> {
  // Reached without Chromium only when the run requires it (the file's tag skips it otherwise).
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: ${missingMessage('chromium')}`);
  const h = await mcpHarness({ clientCapabilities: UI_CAPABILITIES });
  const format = ok(await h.call('get_budget_settings')).settings.currency_format;
  const host = await ViewHost.launch();
  return { h, host, money: (m) => formatMilliunits(m, format), shots: mkdtempSync(join(tmpdir(), shotsPrefix)) };
}

/** Closes what openViewSuite opened, whatever of it was opened. */
export async function closeViewSuite(suite: Partial<ViewSuite>): Promise<void> {
  await suite.host?.close();
  await suite.h?.close();
  if (suite.shots) rmSync(suite.shots, { recursive: true, force: true });
}
