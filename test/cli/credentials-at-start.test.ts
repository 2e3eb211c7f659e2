/**
 * What the server knows about its sign-in before the first call, through the real CLI against a
 * sandbox: a read-only OAuth grant (recorded by `login`) lists no write tools from the very first
 * tools/list, with no notification; a token that turns out read-only at run time (403.3) withdraws
 * the write tools with one tools/list_changed, not one per tool; and without a keychain, the
 * warning that says so is printed once per process, on one line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../auth/cli-run.js';
import { cliSuite } from '../auth/cli-suite.js';
import { authorize } from '../auth/oauth-fixtures.js';
import { cliMcp } from '../helpers/cli-mcp.js';
import { childEnv } from '../helpers/cli.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { defaultListCounts } from '../helpers/tools-list.js';

/** Every tool, and the read-only ones: what a default and a read-only server list. */
/** What the default toolsets offer (src/mcp/tools/toolsets.ts). */
// The default list: its few tools and call_api (test/helpers/tools-list.ts).
const { all: ALL, reads: READS } = await defaultListCounts();

let sb: TestSandbox;
const dirs = cliSuite((started) => {
  sb = started;
});

const WRITE = /^(create|update|delete|import)_/;

/** `serve` over stdio with these directories, as a host starts it. */
function serve(d: { configDir: string; stateDir: string }, extra: Record<string, string | undefined> = {}) {
  return cliMcp(
    ['serve'],
    childEnv({
      YNAB_MCP_CONFIG_DIR: d.configDir,
      YNAB_MCP_STATE_DIR: d.stateDir,
      YNAB_MCP_KEYCHAIN: 'off',
      YNAB_ACCESS_TOKEN: undefined,
      YNAB_BASE_URL: undefined,
      ...extra,
    }),
  );
}

describe('a read-only OAuth grant', () => {
  it('is known from what login recorded: write tools are never listed, and nothing is withdrawn later', async () => {
    const d = dirs();
    const login = startCli(
      [
        'login',
        '--oauth',
        '--no-browser',
        '--client-id',
        sb.oauthClientId,
        '--client-secret-stdin',
        '--scope',
        'read-only',
        '--app-url',
        sb.appUrl,
        '--base-url',
        sb.baseUrl,
        '--port',
        '0',
      ],
      { ...d, stdin: `${sb.oauthClientSecret}\n` },
    );
    const [, url] = await login.waitFor('stderr', /(http:\/\/\S+\/oauth\/authorize\?\S+)/);
    await fetch(await authorize(url!));
    expect((await login.exited).code).toBe(0);
    // What the server reads at start: no secret in it.
    const info = JSON.parse(readFileSync(join(d.configDir, 'profiles', 'default.json'), 'utf8'));
    expect(info).toEqual({ kind: 'oauth', scope: 'read-only' });

    const { client, transport } = await serve(d);
    try {
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
      const first = (await client.listTools()).tools.map((t) => t.name);
      expect(first).toHaveLength(READS);
      expect(first.filter((n) => WRITE.test(n))).toEqual([]);
      expect(client.getInstructions()).toMatch(/read-only \(the token was granted read-only access\)/);
      const res: any = await client.callTool({ name: 'list_accounts', arguments: { limit: 1 } });
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
      expect(res.structuredContent.read_only).toMatch(/granted read-only/);
      // A write called by name anyway: why, and how to change it (not "Tool … not found").
      const write: any = await client.callTool({ name: 'create_payee', arguments: { name: 'Nope' } });
      expect([write.isError, write.content[0].text]).toEqual([
        true,
        expect.stringMatching(/read-only \(the token was granted read-only access\): to make changes, give the server a token with full access/),
      ]);
      await new Promise((r) => setTimeout(r, 100));
      expect(changed).toBe(0);
      expect((await client.listTools()).tools).toHaveLength(READS);
    } finally {
      await client.close();
      await transport.close();
    }

    // logout removes the record with the sign-in.
    expect((await runCli(['logout'], d)).code).toBe(0);
    expect(existsSync(join(d.configDir, 'profiles', 'default.json'))).toBe(false);
  });

  it('does not apply while YNAB_ACCESS_TOKEN is set (that token is not the grant)', async () => {
    const d = dirs();
    const { client, transport } = await serve(d, { YNAB_ACCESS_TOKEN: sb.accessToken, YNAB_BASE_URL: sb.baseUrl });
    try {
      expect((await client.listTools()).tools).toHaveLength(ALL);
    } finally {
      await client.close();
      await transport.close();
    }
  });
});

describe('a token found read-only at run time (403.3)', () => {
  it('withdraws every write tool with one tools/list_changed', async () => {
    const d = dirs();
    const { client, transport } = await serve(d, { YNAB_ACCESS_TOKEN: sb.readOnlyToken, YNAB_BASE_URL: sb.baseUrl });
    try {
      let changed = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => void (changed += 1));
      expect((await client.listTools()).tools).toHaveLength(ALL);
      const res: any = await client.callTool({ name: 'create_payee', arguments: { name: 'Nope' } });
      expect(res.isError).toBe(true);
      expect(res.content[0].text).toMatch(/403\.3/);
      await new Promise((r) => setTimeout(r, 200));
      expect(changed).toBe(1);
      expect((await client.listTools()).tools).toHaveLength(READS);
    } finally {
      await client.close();
      await transport.close();
    }
  });
});

describe('without an OS keychain', () => {
  it('says so once per process, on one line, and serves from the secrets file', async () => {
    const d = dirs();
    const login = await runCli(['login', '--token-stdin', '--base-url', sb.baseUrl], { ...d, stdin: `${sb.accessToken}\n` });
    expect(login.code, login.stderr).toBe(0);
    // The keychain is allowed but cannot work: its D-Bus session does not exist.
    const { client, transport } = await serve(d, { YNAB_MCP_KEYCHAIN: undefined, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/ynab-mcp-test-bus' });
    try {
      for (const name of ['list_accounts', 'list_payees', 'get_account']) {
        const res: any = await client.callTool({
          name,
          arguments: name === 'get_account' ? { account_id: '00000000-0000-4000-8000-000000000000' } : { limit: 1 },
        });
        if (name !== 'get_account') expect(res.isError, res.content?.[0]?.text).toBeFalsy();
      }
    } finally {
      await client.close();
      await transport.close();
    }
    const lines = transport.stderr.split('\n').filter((l) => /keychain/i.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ynab-mcp: warning: No OS keychain was available \(.+\)\. Secrets are stored in the file .*secrets\.json/);
  });
});
