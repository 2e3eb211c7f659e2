/**
 * How each client people use opens a conversation with a server (issue 59 item 4), as its source
 * records it: the first request's method, protocol version, capabilities and clientInfo, and who
 * speaks for the client in the replay: its recorded messages sent as they are ('raw'), or the
 * client's own code (the MCP Inspector's CLI, the AI SDK's client, the MCP SDK's client).
 * test/mcp/openings.test.ts replays every row and checks the first request on the wire against it.
 */

export type Driver = 'raw' | 'inspector' | 'ai-sdk' | 'sdk';

export interface Opening {
  client: string;
  /** Where the opening is recorded. */
  source: string;
  transport: 'stdio' | 'http';
  driver: Driver;
  method: 'initialize' | 'server/discover';
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  clientInfo: Record<string, unknown>;
  /**
   * Claude Code's fallback: the server/discover it sent first, answered -32601 (Method not
   * found), on the same pipe before the initialize. Our server answers Claude Code's discover, and
   * refuses with -32601 only a discover without the 2026-07-28 `_meta` claim (the SDK reads a
   * request without it as 2025-era, where server/discover is no method), so the replay sends that.
   */
  refusedFirst?: 'server/discover';
  /** Where the client reads the Events declaration: ChatGPT at the top level, SEP-3415 under extensions. */
  events?: 'top-level' | 'extension';
}

const CLAUDE_CODE = {
  capabilities: { roots: { listChanged: true }, elicitation: {} },
  clientInfo: {
    name: 'claude-code',
    title: 'Claude Code',
    version: '2.1.317',
    description: "Anthropic's agentic coding tool",
    websiteUrl: 'https://claude.com/claude-code',
  },
};

// The presa trace of 2026-11-03 (cljdoc.org/d/io.github.joshrotenberg/presa/0.1.1/doc/
// what-claude-code-and-codex-send-as-mcp-clients; ../shared/reference/landscape-2026-11e.md §0.9,
// §4.8) gives each client's method and version. Claude Code's capabilities and clientInfo are as
// a probe server captured them from 2.1.221 (file index id 63432390686); Codex's are its source
// (codex-rs core mcp_connection_manager.rs: elicitation {}, clientInfo codex-mcp-client, title Codex).
export const OPENINGS: readonly Opening[] = [
  {
    client: 'Claude Code 2.1.317',
    source: 'presa trace 2026-11-03',
    transport: 'stdio',
    driver: 'raw',
    method: 'server/discover',
    protocolVersion: '2026-07-28',
    ...CLAUDE_CODE,
  },
  {
    client: 'Claude Code 2.1.317, its fallback after -32601',
    source: 'presa trace 2026-11-03',
    transport: 'stdio',
    driver: 'raw',
    method: 'initialize',
    protocolVersion: '2025-11-25',
    refusedFirst: 'server/discover',
    ...CLAUDE_CODE,
  },
  {
    client: 'Codex CLI 0.165.0',
    source: 'presa trace 2026-11-03; codex-rs mcp_connection_manager.rs',
    transport: 'stdio',
    driver: 'raw',
    method: 'initialize',
    protocolVersion: '2025-06-18',
    capabilities: { elicitation: {} },
    clientInfo: { name: 'codex-mcp-client', title: 'Codex', version: '0.165.0' },
  },
  {
    client: 'a ChatGPT-style client',
    source: 'MCPJam\'s chatgpt@2026-09-30 profile (OpenAI\'s "MCP events" guide); landscape-2026-11e.md addendum',
    transport: 'http',
    driver: 'raw',
    method: 'server/discover',
    protocolVersion: '2026-07-28',
    capabilities: {},
    clientInfo: { name: 'openai-mcp', version: '1.0.0' },
    events: 'top-level',
  },
  {
    client: "the MCP Inspector's CLI 2.12.0",
    source: 'its client, read off the wire',
    transport: 'stdio',
    driver: 'inspector',
    method: 'initialize',
    protocolVersion: '2025-11-25',
    capabilities: { roots: { listChanged: true }, extensions: { 'io.modelcontextprotocol/skills': {}, 'io.modelcontextprotocol/tasks': {} } },
    clientInfo: { name: 'inspector-cli', version: '2.12.0' },
  },
  {
    client: "the AI SDK's client (@ai-sdk/mcp 1.0.102)",
    source: "its DefaultMCPClient.init (LATEST_PROTOCOL_VERSION, clientName 'ai-sdk-mcp-client')",
    transport: 'stdio',
    driver: 'ai-sdk',
    method: 'initialize',
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'ai-sdk-mcp-client', version: '1.0.0' },
  },
  {
    client: 'a 2026-07-28 client with Events (SEP-3415)',
    source: '@modelcontextprotocol/client 2.4 negotiating (versionNegotiation auto): server/discover in a process of its own, then the conversation in another',
    transport: 'stdio',
    driver: 'sdk',
    method: 'server/discover',
    protocolVersion: '2026-07-28',
    capabilities: { extensions: { 'io.modelcontextprotocol/events': {} } },
    clientInfo: { name: 'sep-events-client', version: '1.0.0' },
    events: 'extension',
  },
];
