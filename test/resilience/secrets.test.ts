/**
 * The token never shows. With distinctive tokens, full sessions of the real CLI over stdio meet
 * every kind of error — 500s, dropped connections, a server that echoes the Authorization header
 * back in an error detail, 429, 403.3 (read-only scope) and 401 — and the token appears nowhere:
 * not on stdout (every MCP message), not on stderr (logs), not in any tool result or error text.
 * The files left in the state directory (request ledger, encrypted replicas, key) hold no token
 * and are private (0600).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliMcp } from '../helpers/cli-mcp.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';

const TOKEN = 'ynabtok_DISTINCTIVE_7f3a9c1e5b2d4086aa';
const READ_ONLY = 'ynabro_DISTINCTIVE_1c9e0b7d3f5a2468bb';
const WRONG = 'ynabbad_DISTINCTIVE_5e7a1c3b9d0f2468cc';
const SECRETS = [TOKEN, READ_ONLY, WRONG, 'DISTINCTIVE_7f3a9c', 'DISTINCTIVE_1c9e0b', 'DISTINCTIVE_5e7a1c'];

let sb: TestSandbox;
let root: string;

beforeAll(async () => {
  sb = await testSandbox({ seed: 'secrets', token: TOKEN, readOnlyToken: READ_ONLY, faults: 'echo-auth=0.25,500=0.1,reset=0.05', rateLimit: 70 });
  root = mkdtempSync(join(tmpdir(), 'ynab-mcp-secrets-'));
});

afterAll(async () => {
  await sb.close();
  rmSync(root, { recursive: true, force: true });
});

function env(token: string): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: root,
    YNAB_ACCESS_TOKEN: token,
    YNAB_BASE_URL: sb.baseUrl,
    YNAB_MCP_STATE_DIR: join(root, 'state'),
    YNAB_MCP_CONFIG_DIR: join(root, 'config'),
    YNAB_MCP_KEYCHAIN: 'off',
  };
}

const seen: string[] = [];
function leaks(text: string): string[] {
  return SECRETS.filter((s) => text.includes(s));
}

async function session(token: string, calls: (call: (name: string, args?: Record<string, unknown>) => Promise<any>) => Promise<void>) {
  const { client, transport } = await cliMcp(['serve', '--max-staleness', '0'], env(token));
  const results: any[] = [];
  try {
    await calls(async (name, args = {}) => {
      const r = await client.callTool({ name, arguments: args }).catch((e: Error) => ({ thrown: e.message }));
      results.push(r);
      return r;
    });
  } finally {
    await client.close();
    await transport.close();
  }
  seen.push(transport.stdout, transport.stderr, JSON.stringify(results));
  return { results, stdout: transport.stdout, stderr: transport.stderr };
}

describe('a session full of errors', () => {
  it('with the full token: faults, an echoing server, and the hourly limit', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const { results, stdout, stderr } = await session(TOKEN, async (call) => {
      for (let i = 0; i < 70; i++) {
        await call(i % 3 === 0 ? 'list_transactions' : i % 3 === 1 ? 'get_user' : 'list_accounts', i % 3 === 0 ? { limit: 2 } : {});
      }
      const accounts = await call('list_accounts');
      const account = accounts.structuredContent?.accounts?.[0]?.id;
      // Writes report every attempt that went wrong (the echoed header among them) in their notices.
      for (let i = 0; i < 12; i++) {
        if (account) await call('create_transactions', { transactions: [{ account_id: account, date: today, amount: -1 - i, payee_name: 'Secret Test' }] });
        await call('create_payee', { name: `Secret payee ${i}` });
      }
    });
    const texts = results.map((r) => JSON.stringify(r));
    // The echoing server did send the token back, and it was removed before reaching anyone.
    expect(texts.some((t) => t.includes('[redacted]'))).toBe(true);
    // The other errors happened too.
    expect(texts.some((t) => /500 internal_server_error|YNAB had a problem/.test(t))).toBe(true);
    expect(texts.some((t) => /hourly request limit|No request to YNAB is possible|next request possible/.test(t))).toBe(true);
    expect(leaks(stdout)).toEqual([]);
    expect(leaks(stderr)).toEqual([]);
    expect(texts.flatMap(leaks)).toEqual([]);
  }, 180_000);

  it('with a read-only token: 403.3', async () => {
    const { results } = await session(READ_ONLY, async (call) => {
      const accounts = await call('list_accounts');
      const account = accounts.structuredContent?.accounts?.[0]?.id ?? '00000000-0000-4000-8000-000000000000';
      for (let i = 0; i < 3; i++) {
        await call('create_payee', { name: `Secret payee ${i}` });
        await call('create_transactions', { transactions: [{ account_id: account, date: new Date().toISOString().slice(0, 10), amount: -1 }] });
      }
    });
    expect(results.some((r) => JSON.stringify(r).includes('403.3') || JSON.stringify(r).includes('read-only'))).toBe(true);
  }, 120_000);

  it('with a wrong token: 401', async () => {
    const { results } = await session(WRONG, async (call) => {
      await call('list_accounts');
      await call('get_user');
    });
    expect(results.every((r) => r.isError)).toBe(true);
    expect(JSON.stringify(results)).toMatch(/401 not_authorized/);
  }, 60_000);

  it('left no token anywhere, and nothing but private files', () => {
    expect(seen.flatMap(leaks)).toEqual([]);
    const files = readdirSync(join(root, 'state'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.some((f) => f.name.endsWith('.replica'))).toBe(true);
    expect(files.some((f) => f.parentPath.includes('quota'))).toBe(true);
    for (const f of files) {
      const path = join(f.parentPath, f.name);
      expect(leaks(readFileSync(path, 'latin1')), path).toEqual([]);
      expect(statSync(path).mode & 0o077, `${path} is readable by others`).toBe(0);
    }
  });
});
