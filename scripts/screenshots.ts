/**
 * Regenerates the pictures of the views in docs/views.md (`npm run screenshots`, after `npm run build`):
 * each view with a real answer from the sandbox's demo budget, shown by the same minimal host
 * the view tests use (Debian's Chromium, ext-apps' AppBridge), into docs/views/.
 * The demo budget follows today's date, so the pictures change as it does.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { mcpHarness } from '../test/helpers/mcp.js';
import { ViewHost } from '../test/helpers/view-host.js';
import { UI_CAPABILITIES, viewCall } from '../test/helpers/views.js';

const OUT = join(import.meta.dirname, '..', 'docs', 'views');

const SHOTS: { file: string; tool: string; input: Record<string, unknown>; theme: 'light' | 'dark'; click?: string }[] = [
  { file: 'spending', tool: 'spending_summary', input: {}, theme: 'light' },
  { file: 'spending-drill', tool: 'spending_summary', input: { top: 5 }, theme: 'light', click: 'Groceries' },
  { file: 'cash-flow', tool: 'cash_flow', input: {}, theme: 'light' },
  { file: 'cash-flow-dark', tool: 'cash_flow', input: {}, theme: 'dark' },
  { file: 'month', tool: 'get_month', input: { month: 'current' }, theme: 'light' },
  { file: 'month-dark', tool: 'get_month', input: { month: 'current' }, theme: 'dark' },
  { file: 'attention', tool: 'needs_attention', input: {}, theme: 'light' },
];

mkdirSync(OUT, { recursive: true });
const h = await mcpHarness({ clientCapabilities: UI_CAPABILITIES });
const host = await ViewHost.launch();
try {
  for (const shot of SHOTS) {
    const c = await viewCall(h, shot.tool, shot.input);
    const shown = await host.show({ ...c, theme: shot.theme, callTool: (p) => h.client.callTool(p as { name: string; arguments: Record<string, unknown> }) });
    if (shot.click) {
      await shown.view.getByRole('button', { name: shot.click, exact: true }).click();
      await shown.view.locator('.drill table').waitFor();
    }
    const file = join(OUT, `${shot.file}.png`);
    await shown.screenshot(file);
    if (shown.blocked.length || shown.errors.length) throw new Error(`${shot.file}: blocked ${shown.blocked.join(', ')}; errors ${shown.errors.join(', ')}`);
    await shown.page.close();
    process.stderr.write(`screenshots: ${file}\n`);
  }
} finally {
  await host.close();
  await h.close();
}
