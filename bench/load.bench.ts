/**
 * Load over Streamable HTTP: 20 concurrent MCP clients, 100 mixed calls each, against one server
 * on the sandbox; then the same with the sandbox injecting faults. Reports errors, 429s, p50/p99.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mcpConfig } from '../src/mcp/state/config.js';
import { serveHttp } from '../src/transport/http.js';
import { ServerState } from '../src/mcp/state/state.js';
import { startSandbox } from '../src/sandbox/app.js';
import type { BenchSection } from './section.js';
import { median, ms, percentile } from './stats.js';

async function run(faults: string, report: (row: Record<string, string | number>) => void): Promise<void> {
  const sb = await startSandbox({ seed: 'load', faults, rateLimit: 200, log: () => {} });
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-load-'));
  const state = new ServerState(
    mcpConfig({}, {}),
    async () => ({ credentials: { token: async () => sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: sb.baseUrl }),
    {
      stateDir: dir,
      persist: false,
      maxStalenessMs: 60_000,
      retry: { baseDelayMs: 20, maxDelayMs: 200 },
    },
  );
  const http = await serveHttp(state, { port: 0 });
  const today = new Date().toISOString().slice(0, 10);
  const latencies: number[] = [];
  let errors = 0;
  let rateLimited = 0;
  let held = 0;
  const messages = new Map<string, number>();
  const clients = await Promise.all(
    Array.from({ length: 20 }, async (_, c) => {
      const client = new Client({ name: `load-${c}`, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      return client;
    }),
  );
  const accounts = ((await clients[0]!.callTool({ name: 'list_accounts', arguments: {} })) as any).structuredContent.accounts;
  const account = accounts.find((a: any) => a.type === 'checking').id;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client, c) => {
      for (let i = 0; i < 100; i++) {
        // An assistant's mix: mostly questions, now and then logging a purchase (2% writes). Each
        // purchase has its own amount: the same amount at a similar payee within 3 days is held by
        // the duplicate guard, which is right for an agent and wrong for a load test.
        const n = c * 100 + i;
        const pick = n % 10;
        const [name, args]: [string, Record<string, unknown>] =
          n % 50 === 0
            ? [
                'create_transactions',
                { transactions: [{ account_id: account, date: today, amount: -(1 + n / 100), payee_name: `Load ${c}`, memo: `load ${c}-${i}` }] },
              ]
            : pick < 3
              ? ['list_transactions', { limit: 20 }]
              : pick < 5
                ? ['list_accounts', {}]
                : pick < 7
                  ? ['get_month', { month: 'current', limit: 20 }]
                  : pick < 9
                    ? ['list_categories', { fields: ['balance_formatted'] }]
                    : ['list_payees', { limit: 20 }];
        const t0 = performance.now();
        const res: any = await client.callTool({ name, arguments: args }).catch((e: Error) => ({ isError: true, content: [{ text: e.message }] }));
        latencies.push(performance.now() - t0);
        if (res.structuredContent?.duplicate_candidates) held += 1;
        if (res.isError) {
          errors += 1;
          const text = String(res.content?.[0]?.text ?? '');
          if (/429|hourly request limit/.test(text)) rateLimited += 1;
          const key = text.slice(0, 80);
          messages.set(key, (messages.get(key) ?? 0) + 1);
        }
      }
    }),
  );
  const wall = performance.now() - started;
  const created = [...sb.state.budgets[0]!.rec.transactions.values()].filter((t) => !t.deleted && t.memo?.startsWith('load ')).length;
  report({
    faults: faults || 'none',
    calls: latencies.length,
    errors,
    '429s': rateLimited,
    p50: ms(median(latencies)),
    p99: ms(percentile(latencies, 99)),
    'calls/s': Math.round(latencies.length / (wall / 1000)),
    'writes landed (of 40)': created,
    'held as duplicates': held,
  });
  if (messages.size) for (const [m, n] of messages) process.stderr.write(`  ${n} x ${m}\n`);
  await Promise.all(clients.map((c) => c.close()));
  await http.close();
  await state.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
}

export async function loadBench(report: (row: Record<string, string | number>) => void): Promise<void> {
  await run('', report);
  await run('500=0.05,503=0.05,reset=0.02', report);
}

export const loadSection: BenchSection = {
  name: 'load',
  title: 'Load over Streamable HTTP',
  about:
    '20 concurrent MCP clients, 100 mixed calls each (2% writes), against one server on the sandbox; then the same with the sandbox injecting 5% 500s, 5% 503s and 2% connection resets.',
  run: (r) => loadBench((row) => r.row(row)),
};
