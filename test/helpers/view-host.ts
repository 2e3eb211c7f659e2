/**
 * A minimal MCP Apps host in a real browser, for the view tests and `npm run screenshots`:
 * Debian's Chromium (never a downloaded browser) driven by playwright-core, a host page that
 * plays the host side of the bridge with ext-apps' own AppBridge, and the view in a sandboxed
 * iframe under the specification's default content-security policy. The host hands the view a
 * real tool result; the view's tool calls (drill-downs) go through the bridge to a function
 * the test gives, which calls the server with a real MCP client. Every request the page makes
 * other than the host page and the view is refused and recorded, so a view that reaches for the
 * network is caught.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium, type BrowserContext, type FrameLocator, type Page } from 'playwright-core';
import { chromiumPath } from './services.js';

/** /usr/bin/chromium (Debian's package), or YNAB_MCP_CHROMIUM. */
export const CHROMIUM = chromiumPath();
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** What the specification tells hosts to use when a view declares no content-security policy. */
export const DEFAULT_VIEW_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

const ORIGIN = 'http://host.test';

/** The host page's script: ext-apps' AppBridge on a postMessage transport to the iframe. */
const HOST_ENTRY = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
window.startHost = async ({ tool, input, result, theme, width }) => {
  const iframe = document.getElementById('view');
  const bridge = new AppBridge(null, { name: 'ynab-mcp-test-host', version: '1' }, { serverTools: {} }, {
    hostContext: { theme, locale: 'en-US', timeZone: 'UTC', displayMode: 'inline', availableDisplayModes: ['inline'], toolInfo: { tool }, containerDimensions: { width, maxHeight: 6000 }, platform: 'web' },
  });
  bridge.oncalltool = (params) => window.hostCallTool(params);
  bridge.onsizechange = ({ height }) => { if (height) iframe.style.height = height + 'px'; };
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  // Listening before the view loads: its first message is ui/initialize.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.src = '${ORIGIN}/view';
  await initialized;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result);
};
`;

let hostScript: Promise<string> | undefined;

function hostJs(): Promise<string> {
  hostScript ??= build({
    stdin: { contents: HOST_ENTRY, resolveDir: join(import.meta.dirname, '..', '..'), loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  }).then((r) => r.outputFiles[0]!.text);
  return hostScript;
}

export interface ShowOptions {
  /** The view's HTML, as resources/read gave it. */
  html: string;
  /** The tool definition, as tools/list gave it. */
  tool: Record<string, unknown>;
  input: Record<string, unknown>;
  /** The tool result, as tools/call gave it. */
  result: unknown;
  theme: 'light' | 'dark';
  /** Answers the view's tools/call requests. */
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  width?: number;
}

export interface ShownView {
  page: Page;
  view: FrameLocator;
  /** Requests the page tried beyond the host page and the view (all refused). */
  blocked: string[];
  /** Messages the page printed to its console as errors. */
  errors: string[];
  /** A PNG of the view as the host shows it (the page grown to the view's height, so all of it is painted). */
  screenshot(path: string): Promise<void>;
}

export class ViewHost {
  private constructor(
    private readonly context: BrowserContext,
    private readonly profile: string,
  ) {}

  /** Chromium with a fresh profile. */
  static async launch(): Promise<ViewHost> {
    const profile = mkdtempSync(join(tmpdir(), 'ynab-mcp-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
      headless: true,
      viewport: { width: 900, height: 700 },
    });
    return new ViewHost(context, profile);
  }

  async show(o: ShowOptions): Promise<ShownView> {
    const page = await this.context.newPage();
    const width = o.width ?? 860;
    await page.emulateMedia({ colorScheme: o.theme });
    const blocked: string[] = [];
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(e.message));
    const js = await hostJs();
    const background = o.theme === 'dark' ? '#18181b' : '#ffffff';
    await page.route('**/*', async (route) => {
      const url = route.request().url();
      if (url === `${ORIGIN}/`) {
        return route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><html><body style="margin:0;background:${background}"><iframe id="view" sandbox="allow-scripts" title="view" style="border:0;display:block;width:${width}px;height:100px"></iframe><script>${js.replace(/<\/script/gi, '<\\/script')}</script></body></html>`,
        });
      }
      if (url === `${ORIGIN}/view`) return route.fulfill({ contentType: 'text/html', headers: { 'content-security-policy': DEFAULT_VIEW_CSP }, body: o.html });
      blocked.push(url);
      return route.abort();
    });
    await page.exposeFunction('hostCallTool', (params: { name: string; arguments?: Record<string, unknown> }) => o.callTool(params));
    await page.goto(`${ORIGIN}/`);
    await page.evaluate((args) => (globalThis as any).startHost(args), { tool: o.tool, input: o.input, result: o.result, theme: o.theme, width });
    const view = page.frameLocator('#view');
    await view.locator('h1').first().waitFor();
    const screenshot = async (path: string) => {
      // The frame takes the height the view reports (ui/notifications/size-changed).
      const height = await page.locator('#view').evaluate((el: any) => Math.ceil(el.getBoundingClientRect().height));
      await page.setViewportSize({ width: width + 40, height: Math.max(height, 100) });
      await page.locator('#view').screenshot({ path, animations: 'disabled' });
    };
    return { page, view, blocked, errors, screenshot };
  }

  async close(): Promise<void> {
    await this.context.close();
    rmSync(this.profile, { recursive: true, force: true });
  }
}
