/**
 * The view's side of MCP Apps, through ext-apps' own `App`: the `ui/initialize` handshake, the
 * tool's input and result, cancellation and host context changes, `tools/call` through the host
 * for drill-downs, and size changes so the host can fit the frame (App's auto-resize).
 *
 * `App` is the MCP client's protocol layer plus zod; bundled plainly it is 664 KB, over twice a
 * view's 300 KB. scripts/view-bundling.ts keeps it at about 245 KB without changing what it runs:
 * ext-apps' files get the zod members they use instead of zod's whole namespace (which drags in
 * every locale), and the SDK's packages are bundled as free of side effects, so that the client
 * parts a view never reaches (Client, OAuth, validators) are left out. The render tests drive
 * this with ext-apps' host side (AppBridge) in Chromium.
 */
import { App, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';

/** What a tool result looks like to a view. */
export interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export interface BridgeHandlers {
  input(args: Record<string, unknown>): void;
  result(result: ToolResult): void;
  cancelled(reason: string | undefined): void;
  context(context: McpUiHostContext): void;
}

export class HostBridge {
  private app: App | undefined;

  constructor(private readonly handlers: BridgeHandlers) {}

  /** The handshake; resolves with the host's context. */
  async connect(name: string): Promise<McpUiHostContext> {
    const app = new App({ name, version: '1' }, { availableDisplayModes: ['inline'] });
    // Set before connecting: the host sends the input and result as soon as the view is initialized.
    app.ontoolinput = (p) => this.handlers.input((p.arguments ?? {}) as Record<string, unknown>);
    app.ontoolresult = (r) => this.handlers.result(r as ToolResult);
    app.ontoolcancelled = (p) => this.handlers.cancelled(p.reason);
    app.onhostcontextchanged = (c) => this.handlers.context(c);
    this.app = app;
    await app.connect();
    return app.getHostContext() ?? {};
  }

  /** Calls one of the server's tools through the host. */
  async callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (!this.app) throw new Error('not connected to the host');
    return (await this.app.callServerTool({ name, arguments: args })) as ToolResult;
  }
}
