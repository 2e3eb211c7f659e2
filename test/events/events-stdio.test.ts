/**
 * Events over stdio, the real CLI (`--sandbox`): both declarations, the top-level
 * `capabilities.events` and `extensions["io.modelcontextprotocol/events"]`, read from the raw bytes
 * the process wrote (the official client drops capability keys it does not know): in the
 * `initialize` result of a 2025-era client and in the `server/discover` result at 2026-07-28; each
 * then lists and polls, and is answered in its own codes (the sketch's -32011, SEP-3415's -32023).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';
import { request } from './helpers.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-events-stdio-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const env = () => ({
  PATH: process.env.PATH,
  HOME: join(root, 'home'),
  YNAB_MCP_STATE_DIR: join(root, 'state'),
  YNAB_MCP_CONFIG_DIR: join(root, 'config'),
});

/** The capabilities in the first result that has some, as the process wrote it. */
const capabilitiesIn = (stdout: string): any =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((m) => m.result?.capabilities)?.result.capabilities;

describe('Events over stdio', () => {
  for (const era of ['2025-era', '2026-07-28'] as const)
    it(`declares both shapes to a ${era} client, which lists and polls`, async () => {
      const { client, transport } = await cliMcp(['--sandbox'], env(), era === '2026-07-28' ? { versionNegotiation: { mode: 'auto' } } : {});
      try {
        expect(transport.stdout).toContain(era === '2026-07-28' ? '"supportedVersions"' : '"protocolVersion"');
        const caps = capabilitiesIn(transport.stdout);
        expect(caps.events).toEqual({});
        expect(caps.extensions['io.modelcontextprotocol/events']).toEqual({});
        const list = await request(client, 'events/list');
        expect(list.events.map((e: any) => e.name)).toContain('category.overspent');
        const start = await request(client, 'events/poll', { name: 'category.overspent', arguments: {}, cursor: null });
        expect(start).toMatchObject({ events: [], truncated: false });
        expect(typeof start.cursor).toBe('string');
        await expect(request(client, 'events/poll', { name: 'nope.nothing', cursor: null })).rejects.toMatchObject({
          code: era === '2026-07-28' ? -32023 : -32011,
        });
      } finally {
        await client.close();
        await transport.close();
      }
    }, 60_000);
});
