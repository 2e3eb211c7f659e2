/**
 * The 100-intent session of the session bench (bench/session-intents.ts, the same calls), asked in
 * order in one stdio session of a default-configured `ynab-mcp serve` through the real MCP client
 * against the bench's demo budget: every intent is a tool of the default list and answers (no tool
 * error), and the whole session costs at most 3 requests to YNAB, counted at the sandbox (issue 59
 * item 3). The bytes against the peer are the bench's figure (`npm run bench -- session`), since
 * the peer is installed from npm only there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_INTENTS } from '../../bench/session-intents.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/app.js';
import { cliMcp } from '../helpers/cli-mcp.js';

let sb: RunningSandbox;
let dir: string;
const requests: string[] = [];

beforeAll(async () => {
  sb = await startSandbox({ seed: 'bench', verbose: true, log: (line) => void (line.startsWith('sandbox: ') && requests.push(line)) });
  dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-session-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the 100-intent session on the default tools', () => {
  it('answers every intent, in one session of at most 3 requests', async () => {
    expect(SESSION_INTENTS).toHaveLength(100);
    const { client } = await cliMcp(['serve', '--base-url', sb.baseUrl], {
      PATH: process.env.PATH,
      HOME: dir,
      YNAB_ACCESS_TOKEN: sb.accessToken,
      YNAB_MCP_STATE_DIR: dir,
      YNAB_MCP_CONFIG_DIR: dir,
      YNAB_MCP_KEYCHAIN: 'off',
    });
    try {
      const listed = new Set((await client.listTools()).tools.map((t) => t.name));
      const failed: string[] = [];
      for (const {
        ask,
        ours: [name, args],
      } of SESSION_INTENTS) {
        expect(listed, `${ask}: ${name} is in the default list`).toContain(name);
        const res: any = await client.callTool({ name, arguments: args ?? {} });
        if (res.isError) failed.push(`${ask} (${name}): ${res.content?.[0]?.text}`);
      }
      expect(failed).toEqual([]);
    } finally {
      await client.close();
    }
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.length, requests.join('\n')).toBeLessThanOrEqual(3);
  }, 120_000);
});
