/**
 * What a release declares about itself: server.json, the official MCP Registry's entry, is what
 * `npm run manifest` writes and valid against the registry's published schema (vendored in
 * test/fixtures/mcp-registry/, its source named there); it names the npm package, the stdio
 * transport and the environment variables a host passes (the bundle's settings, which the server
 * reads); package.json, package-lock.json, server.json and manifest.json carry one semver version,
 * and CHANGELOG.md has its entry.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { SERVER_SCHEMA, serverJson } from '../../scripts/server-json.js';
import { ENVIRONMENT_HELP } from '../../src/commands/server-setup.js';
import { REPO_ROOT } from '../helpers/cli.js';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const json = (path: string) => JSON.parse(read(path));
const FIXTURE = 'test/fixtures/mcp-registry';

// ajv-formats is CommonJS: its plugin is module.exports and, as NodeNext types it, .default too.
const addFormats = addFormatsModule.default;
const schema = json(`${FIXTURE}/server.schema.json`);
/** The registry's schema (draft-07), with its formats (uri) checked. */
function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(schema);
}
const errorsOf = (doc: unknown) => {
  const validate = validator();
  return validate(doc) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`);
};

describe('server.json', () => {
  const server = json('server.json');
  const pkg = json('package.json');

  it('is what npm run manifest writes (from package.json and the bundle settings)', () => {
    expect(server).toEqual(serverJson());
  });

  it("is valid against the registry's published schema, vendored unchanged", () => {
    const table = read(`${FIXTURE}/README.md`);
    const digest = createHash('sha256')
      .update(readFileSync(join(REPO_ROOT, FIXTURE, 'server.schema.json')))
      .digest('hex');
    expect(table).toContain(digest);
    expect(schema.$id).toBe(SERVER_SCHEMA);
    expect(server.$schema).toBe(SERVER_SCHEMA);
    expect(errorsOf(server)).toEqual([]);
  });

  it('the schema check refuses what the registry refuses', () => {
    expect(errorsOf({ ...server, name: 'ynab-mcp' }).join('\n')).toMatch(/\/name must match pattern/);
    expect(errorsOf({ ...server, description: 'x'.repeat(101) }).join('\n')).toMatch(/\/description must NOT have more than 100 characters/);
    const latest = { ...server, packages: [{ ...server.packages[0], version: 'latest' }] };
    expect(errorsOf(latest).join('\n')).toMatch(/\/packages\/0\/version must NOT be valid/);
  });

  it('names the npm package, its version and the stdio transport; the name is the package.json mcpName the registry checks', () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.packages).toHaveLength(1);
    expect(server.packages[0]).toMatchObject({
      registryType: 'npm',
      registryBaseUrl: 'https://registry.npmjs.org',
      identifier: 'ynab-mcp',
      version: pkg.version,
      transport: { type: 'stdio' },
    });
    expect(pkg.name).toBe('ynab-mcp');
  });

  it('lists the environment variables the bundle passes from its settings, each one the server reads', () => {
    const bundleEnv = json('manifest.json').server.mcp_config.env as Record<string, string>;
    const fromSettings = Object.keys(bundleEnv).filter((k) => bundleEnv[k]!.startsWith('${user_config.'));
    const vars = server.packages[0].environmentVariables as { name: string; isSecret?: boolean; isRequired: boolean }[];
    expect(vars.map((v) => v.name).sort()).toEqual(fromSettings.sort());
    expect(vars.map((v) => v.name)).toEqual(expect.arrayContaining(['YNAB_ACCESS_TOKEN', 'YNAB_MCP_SANDBOX']));
    // The demo needs no token, so nothing is required; the token is a secret.
    expect(vars.filter((v) => v.isRequired)).toEqual([]);
    expect(vars.filter((v) => v.isSecret).map((v) => v.name)).toEqual(['YNAB_ACCESS_TOKEN']);
    for (const v of vars) expect(ENVIRONMENT_HELP, v.name).toMatch(new RegExp(`\\b${v.name}\\b`));
  });
});

describe('the version', () => {
  it('is one semver version in package.json, package-lock.json, server.json and manifest.json', () => {
    const version = json('package.json').version as string;
    expect(semver.valid(version)).toBe(version);
    const lock = json('package-lock.json');
    const server = json('server.json');
    expect([lock.version, lock.packages[''].version, server.version, server.packages[0].version, json('manifest.json').version]).toEqual(
      Array(5).fill(version),
    );
  });

  it('has its entry in CHANGELOG.md (Keep a Changelog), dated, above every older one', () => {
    const version = json('package.json').version as string;
    const changelog = read('CHANGELOG.md');
    expect(changelog).toMatch(/keepachangelog\.com/);
    expect(changelog).toMatch(/semver\.org/);
    const entries = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({ version: m[1]!, date: m[2] }));
    const released = entries.filter((e) => e.version !== 'Unreleased');
    expect(released[0]).toMatchObject({ version, date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    for (const e of released) expect(semver.valid(e.version), e.version).toBe(e.version);
    expect(changelog).toContain(`[${version}]: `);
  });
});
