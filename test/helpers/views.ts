/**
 * The views' side of the server as a host sees it: a harness whose client announces MCP Apps,
 * and for a tool call, everything a host needs to show its view (the tool as listed, the view's
 * HTML as read, the result as returned), all through the real MCP client.
 */
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { McpHarness } from './mcp.js';

/** WCAG contrast of two rgb() colours (as the browser computes them), for the views' themes. */
export function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = c
      .match(/\d+(\.\d+)?/g)!
      .slice(0, 3)
      .map((x) => Number(x) / 255)
      .map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4)) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The capabilities a host that shows views announces. */
export const UI_CAPABILITIES = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

export interface ViewCall {
  tool: Record<string, any>;
  uri: string;
  html: string;
  mimeType: string | undefined;
  input: Record<string, unknown>;
  result: any;
}

/** Calls a tool that has a view, and reads the view, as a host would. */
export async function viewCall(h: McpHarness, name: string, input: Record<string, unknown> = {}): Promise<ViewCall> {
  const tool = (await h.client.listTools()).tools.find((t) => t.name === name) as Record<string, any> | undefined;
  if (!tool) throw new Error(`no tool ${name}`);
  const uri = tool._meta?.ui?.resourceUri as string | undefined;
  if (!uri) throw new Error(`${name} has no view for this client`);
  const read = await h.client.readResource({ uri });
  const content = read.contents[0] as { text?: string; mimeType?: string };
  const result = await h.client.callTool({ name, arguments: input });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return { tool, uri, html: content.text ?? '', mimeType: content.mimeType, input, result };
}
