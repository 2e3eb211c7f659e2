/**
 * MCP Apps (`io.modelcontextprotocol/ui`) on this server: the view resources and the tools that
 * point at them, registered with the ext-apps helpers, and shown only to clients that announce
 * the extension.
 *
 * Clients announce it in their capabilities, and those arrive per request in the 2026-07-28 era
 * (the request's `_meta` envelope; over HTTP each request even gets its own server instance)
 * and once, at `initialize`, in the 2025 era. So the decision is made per request, where lists
 * are answered: a client without the extension gets exactly the lists it always got (the view
 * tools without `_meta.ui`, no `ui://` resources), and reading a `ui://` resource is "not found"
 * for it. Tool results carry what a view needs beside the result (view-meta.ts) only for
 * clients with the extension.
 *
 * A 2025-era client over HTTP is served statelessly: the instance answering its tools/list never
 * saw its initialize. What it announced there comes back with its signed session id
 * (../http-sessions.ts), handed to the instance as `declared`.
 */
import { getUiCapability, registerAppResource, registerAppTool, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import {
  CLIENT_CAPABILITIES_META_KEY,
  ResourceNotFoundError,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type JSONRPCRequest,
  type ListResourcesResult,
  type ListToolsResult,
  type McpServer,
  type RegisteredTool,
  type ServerContext,
  type StandardSchemaWithJSON,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import { viewHtml } from './html.js';
import { viewOf, viewUri, VIEWS } from './table.js';

const UI_SCHEME = 'ui://ynab/';

/** What a 2025-era client declared: at this instance's initialize, or at one its session id vouches for. */
export type Declared = () => ClientCapabilities | undefined;

/** Whether the client sending this request shows MCP Apps views (it announces the extension with the HTML profile). */
export function showsViews(declared: Declared, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  // 2026-07-28: each request declares the client's capabilities; 2025 era: initialize did.
  const caps = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? declared();
  return getUiCapability(caps)?.mimeTypes?.includes(RESOURCE_MIME_TYPE) === true;
}

interface ToolConfig {
  title: string;
  description: string;
  inputSchema: StandardSchemaWithJSON;
  outputSchema: StandardSchemaWithJSON;
  annotations: ToolAnnotations;
}

/** A tool's handler; a held write may answer with the client's dialog (inputRequired) instead of a result. */
type ToolHandler = (args: unknown, ctx: ServerContext) => Promise<CallToolResult | InputRequiredResult>;

/** Registers a tool, pointing at its view (ext-apps' registerAppTool) when it has one. */
export function registerTool(server: McpServer, name: string, config: ToolConfig, cb: ToolHandler): RegisteredTool {
  const view = viewOf(name);
  if (!view) return server.registerTool(name, config, cb);
  return registerAppTool(server, name, { ...config, _meta: { ui: { resourceUri: viewUri(view) } } }, cb);
}

/** The views of the offered tools as `ui://ynab/<view>` resources, and the per-request gate. Call after the tools and other resources are registered. */
export function registerViews(server: McpServer, offered: readonly { name: string }[], declared: Declared): void {
  const views = VIEWS.filter((v) => offered.some((t) => t.name === v.tool));
  if (!views.length) return;
  for (const view of views) {
    const uri = viewUri(view);
    registerAppResource(server, view.title, uri, { description: view.description, _meta: { ui: { prefersBorder: true } } }, async (_uri, ctx) => {
      if (!showsViews(declared, ctx)) throw new ResourceNotFoundError(uri);
      // The default content-security policy (no network, inline script and style only) is
      // what the views need: no `csp` is declared.
      return { contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: await viewHtml(view.name), _meta: { ui: { prefersBorder: true } } }] };
    });
  }
  const shows = (ctx: ServerContext) => showsViews(declared, ctx);
  gateList(server, 'tools/list', shows, (result: ListToolsResult) => ({ ...result, tools: result.tools.map(withoutViewMeta) }));
  gateList(server, 'resources/list', shows, (result: ListResourcesResult) => ({
    ...result,
    resources: result.resources.filter((r) => !r.uri.startsWith(UI_SCHEME)),
  }));
}

/** A tool as clients without the extension know it: no view metadata. */
function withoutViewMeta<T extends { _meta?: Record<string, unknown> }>(tool: T): T {
  if (!tool._meta || !('ui' in tool._meta || RESOURCE_URI_META_KEY in tool._meta)) return tool;
  const { ui: _ui, [RESOURCE_URI_META_KEY]: _legacy, ...rest } = tool._meta;
  const { _meta: _drop, ...bare } = tool;
  return (Object.keys(rest).length ? { ...bare, _meta: rest } : bare) as T;
}

type StoredHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<unknown>;

/**
 * Answers a list method with the SDK's own answer, narrowed for clients without the extension.
 * The SDK offers no public way to wrap the handler McpServer installs, so it is taken through
 * the protocol's handler accessor (protected, meant for role classes); a test pins that it
 * exists, so an SDK update that moves it fails loudly rather than showing views to everyone.
 */
function gateList<R>(server: McpServer, method: 'tools/list' | 'resources/list', shows: (ctx: ServerContext) => boolean, narrow: (result: R) => R): void {
  const protocol = server.server as unknown as { _getRequestHandler(method: string): StoredHandler | undefined };
  const sdkHandler = protocol._getRequestHandler(method);
  if (!sdkHandler) throw new Error(`ynab-mcp: no ${method} handler to gate for MCP Apps views (has the MCP SDK changed?)`);
  server.server.removeRequestHandler(method);
  server.server.setRequestHandler(method, async (request, ctx) => {
    const result = (await sdkHandler(request as unknown as JSONRPCRequest, ctx)) as R;
    return (shows(ctx) ? result : narrow(result)) as never;
  });
}
