/**
 * Writes manifest.json, the MCPB bundle manifest for desktop hosts, from the tool definitions and
 * package.json, so that the bundle's tool list can never drift from the server's
 * (`npm run manifest`; a test fails when the committed file differs).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_DEFINITIONS } from '../src/mcp/tools/definitions.js';
import { CALL_API_DESCRIPTION } from '../src/mcp/tools/call-api.js';
import { CALL_API, REHEARSAL_ONLY } from '../src/mcp/tools/toolsets.js';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  description: string;
  homepage: string;
  license: string;
  keywords: string[];
};

/**
 * Platforms the bundle serves. pack-mcpb.ts ships the keychain binaries of their usual
 * architectures (KEYCHAIN_PLATFORMS); on any other (a musl Linux, say) the keychain module does not
 * load and the server falls back to the token setting and a 0600 key file.
 */
export const PLATFORMS = ['darwin', 'win32', 'linux'] as const;
export const KEYCHAIN_PLATFORMS = ['darwin-arm64', 'darwin-x64', 'win32-x64-msvc', 'win32-arm64-msvc', 'linux-x64-gnu', 'linux-arm64-gnu'] as const;

export function manifest(): Record<string, unknown> {
  return {
    manifest_version: '0.3',
    name: 'ynab-mcp',
    display_name: 'YNAB',
    version: pkg.version,
    description: 'Read and work with YNAB budgets: accounts, categories, months, payees, transactions.',
    long_description: pkg.description,
    author: { name: 'ynab-mcp contributors' },
    homepage: pkg.homepage,
    license: pkg.license,
    icon: 'assets/icon.png',
    // The server sends budget data only to YNAB's API, whose policy applies.
    privacy_policies: ['https://www.ynab.com/privacy-policy'],
    server: {
      type: 'node',
      entry_point: 'dist/cli.js',
      mcp_config: {
        command: 'node',
        args: ['${__dirname}/dist/cli.js', 'serve'],
        env: {
          YNAB_ACCESS_TOKEN: '${user_config.access_token}',
          YNAB_BUDGET_ID: '${user_config.budget_id}',
          YNAB_READ_ONLY: '${user_config.read_only}',
          YNAB_MCP_WRITES: '${user_config.writes}',
          YNAB_MCP_SANDBOX: '${user_config.demo}',
          // Tells the server it runs from the bundle: with no token, it names these settings.
          YNAB_MCP_BUNDLE: '1',
        },
      },
    },
    // No setting is required: "Try the demo budgets" serves a local sandbox, so the bundle can be
    // tried before making a token (the server asks for one at the first call when neither is set).
    user_config: {
      demo: {
        type: 'boolean',
        title: 'Try the demo budgets',
        description: 'Serve two demo budgets from a local sandbox instead of your account: no token needed, nothing sent to YNAB.',
        default: false,
        required: false,
      },
      access_token: {
        type: 'string',
        title: 'YNAB personal access token',
        description: 'From YNAB: Account Settings → Developer Settings → New Token. Not needed for the demo budgets.',
        sensitive: true,
        required: false,
      },
      budget_id: {
        type: 'string',
        title: 'Budget',
        description: 'The budget tools use when none is named: a budget id, or "last-used".',
        default: 'last-used',
        required: false,
      },
      read_only: {
        type: 'boolean',
        title: 'Read-only',
        description: 'Offer no tools that change the budget.',
        default: false,
        required: false,
      },
      writes: {
        type: 'string',
        title: 'Confirm writes',
        description: 'direct: deletes, bulk and split edits and undo show a preview to confirm first; confirm: every change does; off: read-only.',
        default: 'direct',
        required: false,
      },
    },
    // call_api too: the bundle serves the default list, which lists it (src/mcp/tools/call-api.ts).
    tools: [
      ...TOOL_DEFINITIONS.filter((t) => !REHEARSAL_ONLY.has(t.name)).map((t) => ({ name: t.name, description: t.description })),
      { name: CALL_API, description: CALL_API_DESCRIPTION() },
    ],
    keywords: pkg.keywords,
    compatibility: { platforms: [...PLATFORMS], runtimes: { node: '>=20.18.1' } },
  };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(join(root, 'manifest.json'), `${JSON.stringify(manifest(), null, 2)}\n`);
}
