/**
 * server.json, the entry of the official MCP Registry (registry.modelcontextprotocol.io), made from
 * package.json and the MCPB manifest's settings, so the npm package's environment variables are
 * declared once: each variable the bundle's mcp_config passes from a setting is one the registry
 * tells a host to pass, with that setting's title, description, default and secrecy. Written with
 * manifest.json by `npm run manifest`; test/install/server-json.test.ts validates it against the
 * registry's published schema (test/fixtures/mcp-registry/).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { manifest } from './manifest.js';

const root = join(import.meta.dirname, '..');

/** The registry's schema this file follows (the version vendored in test/fixtures/mcp-registry/). */
export const SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

interface Setting {
  type: 'string' | 'boolean';
  title: string;
  description: string;
  default?: string | boolean;
  sensitive?: boolean;
}

export function serverJson(): Record<string, unknown> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string; mcpName: string; homepage: string };
  const m = manifest() as { server: { mcp_config: { env: Record<string, string> } }; user_config: Record<string, Setting> };
  const environmentVariables = Object.entries(m.server.mcp_config.env).flatMap(([name, value]) => {
    const key = /^\$\{user_config\.(\w+)\}$/.exec(value)?.[1];
    // A constant (YNAB_MCP_BUNDLE) says the server runs from the bundle: not for an npm install.
    if (key === undefined) return [];
    const s = m.user_config[key]!;
    return [
      {
        name,
        description: `${s.title} — ${s.description}`,
        isRequired: false,
        ...(s.sensitive ? { isSecret: true } : {}),
        format: s.type,
        ...(s.default !== undefined ? { default: String(s.default) } : {}),
      },
    ];
  });
  return {
    $schema: SERVER_SCHEMA,
    name: pkg.mcpName,
    title: 'YNAB',
    description: 'YNAB budgets for AI assistants: every v1 API operation, insights, safe writes, a local sandbox.',
    version: pkg.version,
    websiteUrl: pkg.homepage,
    packages: [
      {
        registryType: 'npm',
        registryBaseUrl: 'https://registry.npmjs.org',
        identifier: pkg.name,
        version: pkg.version,
        runtimeHint: 'npx',
        // `serve` over stdio is the command's default: `npx -y ynab-mcp` needs no argument.
        transport: { type: 'stdio' },
        environmentVariables,
      },
    ],
  };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(join(root, 'server.json'), `${JSON.stringify(serverJson(), null, 2)}\n`);
}
