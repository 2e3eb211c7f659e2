// @module-tag redis (needs redis-server: skipped without it, see test/helpers/services.ts)
/**
 * Hosted mode, three instances behind a round-robin proxy: a 2025-era client announcing MCP Apps
 * gets its views whichever instance answers, because its session id is signed with a key every
 * instance derives from the shared data key; nothing about it is kept anywhere. The id is bound to
 * the user it was given to: presented by another user, it carries nothing.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryOAuthProvider, signIn, startDeployment, type Deployment, type SignedIn } from '../helpers/hosted.js';
import { UI_CAPABILITIES } from '../helpers/views.js';

let d: Deployment;
const users: SignedIn[] = [];

beforeAll(async () => {
  d = await startDeployment({ instances: 3, sandbox: { users: 2 } });
  for (const [i, sb] of d.sandbox.state.users.entries()) {
    users.push(
      await signIn(d.mcpUrl, new MemoryOAuthProvider(`Sessions Test ${i}`, `http://127.0.0.1:${7790 + i}/callback`), {
        login: sb.email,
        capabilities: UI_CAPABILITIES,
      }),
    );
  }
}, 120_000);

afterAll(async () => {
  for (const u of users) await u.close().catch(() => undefined);
  await d?.close();
});

/** tools/list asked directly (a resuming client never heard the server's capabilities). */
async function viewTools(client: Client): Promise<string[]> {
  const { tools } = (await client.request({ method: 'tools/list', params: {} })) as { tools: { name: string; _meta?: { ui?: unknown } }[] };
  expect(tools.length).toBeGreaterThan(20);
  return tools
    .filter((t) => t._meta?.ui)
    .map((t) => t.name)
    .sort();
}

describe('2025-era clients across instances', () => {
  it('a client announcing MCP Apps gets its views, ui:// resources and result _meta from every instance', async () => {
    const [a] = users;
    expect(a!.client.getProtocolEra()).toBe('legacy');
    expect(a!.transport.sessionId).toBeDefined();
    const before = new Map(d.proxy.forwarded);
    for (let i = 0; i < 3; i++) {
      expect(await viewTools(a!.client)).toEqual(['cash_flow', 'debt_payoff', 'forecast', 'get_month', 'needs_attention', 'spending_summary']);
      expect((await a!.client.readResource({ uri: 'ui://ynab/month' })).contents[0]!.mimeType).toBe('text/html;profile=mcp-app');
      const res: any = await a!.call('get_month', { month: 'current' });
      expect(res.isError, res.content?.[0]?.text).toBeFalsy();
      expect(res._meta?.['ynab-mcp/view']?.budget_id).toBeDefined();
    }
    // Nine requests, three instances: each answered some.
    for (const inst of d.instances) expect((d.proxy.forwarded.get(inst!.url) ?? 0) - (before.get(inst!.url) ?? 0)).toBeGreaterThanOrEqual(2);
  });

  it("another user's session id carries nothing: that user is served without views (and as themself)", async () => {
    const [a, b] = users;
    const stolen = a!.transport.sessionId!;
    const transport = new StreamableHTTPClientTransport(new URL(d.mcpUrl), { authProvider: b!.provider, sessionId: stolen, protocolVersion: '2025-11-25' });
    const client = new Client({ name: 'thief', version: '1' }, { capabilities: UI_CAPABILITIES });
    await client.connect(transport);
    try {
      for (let i = 0; i < 3; i++) expect(await viewTools(client)).toEqual([]);
      await expect(client.readResource({ uri: 'ui://ynab/month' })).rejects.toThrow(/not found/i);
      // Their own id, presented the same way, does carry their views.
      const own = new Client({ name: 'own', version: '1' });
      await own.connect(
        new StreamableHTTPClientTransport(new URL(d.mcpUrl), { authProvider: b!.provider, sessionId: b!.transport.sessionId!, protocolVersion: '2025-11-25' }),
      );
      expect(await viewTools(own)).toHaveLength(6);
      await own.close();
    } finally {
      await client.close();
    }
  });
});
