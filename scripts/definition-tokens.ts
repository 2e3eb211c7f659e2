/**
 * What the tool definitions cost a host at the start of every conversation, in bytes and in
 * tokens (issue 59 item 3): the default list, `core` and `--toolsets all`, through a real MCP
 * client, with the server's instructions counted apart. Tokens are counted with gpt-tokenizer (a
 * maintained BPE tokenizer, o200k_base, the encoding of OpenAI's current models; no host publishes
 * its own count of tool definitions, so this is an estimate of the same order, docs/dependencies).
 * Prints the rows of bench/RESULTS.md's table. `npx tsx scripts/definition-tokens.ts`
 */
import { bytes, listed } from '../test/helpers/tools-list.js';
import { mcpConfig } from '../src/mcp/state/config.js';
import { buildServer } from '../src/mcp/server.js';
import { ServerState } from '../src/mcp/state/state.js';

// A devDependency, loaded by name at run time (GPT_TOKENIZER may name the module's file instead).
const tokenizer: string = process.env.GPT_TOKENIZER ?? 'gpt-tokenizer';
const { countTokens } = (await import(tokenizer)) as { countTokens(text: string): number };

function instructions(toolsets?: string): string {
  const state = new ServerState(mcpConfig({ toolsets }, {}), async () => {
    throw new Error('listing must not connect');
  });
  return (buildServer(state).server as unknown as { _instructions: string })._instructions;
}

console.log('| selection | tools | tools/list bytes | tools/list tokens | instructions bytes | instructions tokens |');
console.log('|---|---|---|---|---|---|');
for (const [label, toolsets] of [
  ['default', undefined],
  ['core', 'core'],
  ['all', 'all'],
] as const) {
  const tools = await listed(toolsets);
  const text = JSON.stringify(tools);
  const said = instructions(toolsets);
  console.log(`| ${label} | ${tools.length} | ${bytes(tools)} | ${countTokens(text)} | ${Buffer.byteLength(said)} | ${countTokens(said)} |`);
}
