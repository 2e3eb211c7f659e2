// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Events in hosted mode as ChatGPT reads them: signed in through the full authorization flow, the
 * raw `server/discover` at 2026-07-28 and the raw `initialize` of a 2025-era client (the official
 * client drops capability keys it does not know) each carry both declarations, the top-level
 * `capabilities.events` and `extensions["io.modelcontextprotocol/events"]`. A client naming itself
 * as ChatGPT does (`openai-mcp`) is answered in ChatGPT's codes, subscribes (its receiver confirms
 * the signed challenge first) and unsubscribes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxUser } from '../../src/sandbox/state.js';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { request } from '../events/helpers.js';
import { receiver, whsec } from '../events/receiver.js';

let d: Deployment;
let chatgpt: SignedIn;

beforeAll(async () => {
  d = await startDeployment({ instances: 1, sandbox: { users: 1 }, args: ['--max-staleness', '0'], env: { YNAB_MCP_WEBHOOK_ALLOW_LOOPBACK: '1' } });
  const [user] = d.sandbox.state.users as [SandboxUser];
  chatgpt = await signIn(d.mcpUrl, new MemoryOAuthProvider('openai-mcp'), { login: user.email, era: 'modern' });
}, 120_000);

afterAll(async () => {
  await chatgpt?.close().catch(() => undefined);
  await d?.close();
});

/** One raw JSON-RPC POST with the user's access token; the message, whether JSON or one SSE event. */
async function raw(body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const token = (await chatgpt.provider.tokens())!.access_token;
  const res = await fetch(d.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.headers.get('content-type')?.includes('text/event-stream')) return JSON.parse(text);
  const data = text.split('\n').filter((l) => l.startsWith('data: '));
  return JSON.parse(data[data.length - 1]!.slice(6));
}

describe('hosted Events as ChatGPT reads them', () => {
  it('declares both shapes in server/discover and initialize, and answers ChatGPT in its codes', async () => {
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'openai-mcp', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const discover = await raw(
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
    );
    expect(discover.result.capabilities.events).toEqual({});
    expect(discover.result.capabilities.extensions['io.modelcontextprotocol/events']).toEqual({});
    const init = await raw({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy-host', version: '1.0.0' } },
    });
    expect(init.result.capabilities.events).toEqual({});
    expect(init.result.capabilities.extensions['io.modelcontextprotocol/events']).toEqual({});

    await expect(request(chatgpt.client, 'events/poll', { name: 'nope.nothing', cursor: null })).rejects.toMatchObject({ code: -32011 });
    const secret = whsec();
    const rx = await receiver(secret);
    try {
      const key = { name: 'category.overspent', arguments: {} };
      const sub = await request(chatgpt.client, 'events/subscribe', {
        ...key,
        delivery: { mode: 'webhook', url: rx.url, secret },
        cursor: null,
        ttlMs: 600_000,
      });
      expect(sub.id).toMatch(/^sub_[0-9a-f]{16}$/);
      expect(typeof sub.refreshBefore).toBe('string');
      expect(rx.controls('verification')).toHaveLength(1);
      expect(rx.controls('verification')[0]!.valid).toBe(true);
      expect(await request(chatgpt.client, 'events/unsubscribe', { ...key, delivery: { url: rx.url } })).toMatchObject({});
      await expect(request(chatgpt.client, 'events/unsubscribe', { ...key, delivery: { url: rx.url } })).rejects.toMatchObject({ code: -32011 });
    } finally {
      await rx.close();
    }
  });
});
