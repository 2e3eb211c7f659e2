/**
 * The view's side of MCP Apps: JSON-RPC 2.0 over postMessage with the host (the parent window),
 * as the extension's specification lays it out: `ui/initialize` and `ui/notifications/initialized`,
 * the tool's input and result as notifications, host context changes, `tools/call` through the
 * host for drill-downs, and size changes so the host can fit the frame.
 *
 * Written here rather than taken from ext-apps' `App` class: that class brings the MCP client's
 * protocol layer and zod (about 650 KB minified), over twice the budget of a whole view, for the
 * handful of messages a view sends. The message types come from ext-apps (types only), and the
 * tests drive this code with ext-apps' own host side (AppBridge).
 */
import type { McpUiHostContext, McpUiInitializeResult } from '@modelcontextprotocol/ext-apps';

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

interface Message {
  jsonrpc?: string;
  id?: number | string;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string };
}

const PROTOCOL_VERSION = '2026-01-26';

export class HostBridge {
  private nextId = 1;
  private readonly pending = new Map<number | string, { resolve(value: any): void; reject(error: Error): void }>();

  constructor(private readonly handlers: BridgeHandlers) {
    window.addEventListener('message', (event) => {
      // Only the host that embeds this view speaks to it.
      if (event.source !== window.parent) return;
      this.receive(event.data as Message);
    });
  }

  /** The handshake; resolves with the host's context. */
  async connect(name: string): Promise<McpUiHostContext> {
    const init = (await this.request('ui/initialize', {
      appInfo: { name, version: '1' },
      appCapabilities: { availableDisplayModes: ['inline'] },
      protocolVersion: PROTOCOL_VERSION,
    })) as McpUiInitializeResult;
    this.notify('ui/notifications/initialized', {});
    this.reportSize();
    return init.hostContext ?? {};
  }

  /** Calls one of the server's tools through the host. */
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return this.request('tools/call', { name, arguments: args }) as Promise<ToolResult>;
  }

  private request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.post({ jsonrpc: '2.0', id, method, params });
    });
  }

  private notify(method: string, params: unknown): void {
    this.post({ jsonrpc: '2.0', method, params });
  }

  private post(message: Message): void {
    window.parent.postMessage(message, '*');
  }

  private receive(m: Message): void {
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.method === undefined && m.id !== undefined) {
      const waiting = this.pending.get(m.id);
      if (!waiting) return;
      this.pending.delete(m.id);
      if (m.error) waiting.reject(new Error(m.error.message));
      else waiting.resolve(m.result);
      return;
    }
    if (m.id !== undefined) {
      // Requests from the host: teardown and ping need nothing from a read-only view.
      const known = m.method === 'ui/resource-teardown' || m.method === 'ping';
      this.post(known ? { jsonrpc: '2.0', id: m.id, result: {} } : { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } });
      return;
    }
    const p = m.params ?? {};
    if (m.method === 'ui/notifications/tool-input') this.handlers.input(p.arguments ?? {});
    else if (m.method === 'ui/notifications/tool-result') this.handlers.result(p as ToolResult);
    else if (m.method === 'ui/notifications/tool-cancelled') this.handlers.cancelled(p.reason);
    else if (m.method === 'ui/notifications/host-context-changed') this.handlers.context(p as McpUiHostContext);
  }

  /** Tells the host the content's size whenever it changes, so the frame fits it. */
  private reportSize(): void {
    let queued = false;
    let last = '';
    const measure = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        const root = document.documentElement;
        const before = root.style.height;
        root.style.height = 'max-content';
        const height = Math.ceil(root.getBoundingClientRect().height);
        root.style.height = before;
        const width = Math.ceil(window.innerWidth);
        if (`${width}x${height}` === last) return;
        last = `${width}x${height}`;
        this.notify('ui/notifications/size-changed', { width, height });
      });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.documentElement);
    observer.observe(document.body);
  }
}
