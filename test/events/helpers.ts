/**
 * What the events tests share: a served MCP endpoint over a sandbox whose state (store and seal
 * key) outlives a restart, a real 2026-07-28 MCP client, the extension's requests, and changes
 * made through the sandbox's API (what a user does in YNAB) with the expectations read from the
 * API's raw data.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { ServerState } from '../../src/mcp/state/state.js';
import { serveHttp, type HttpServer } from '../../src/transport/http.js';
import type { StackOptions } from '../../src/stack/stack.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { connect } from '../mcp/http-harness.js';

export interface Endpoint {
  http: HttpServer;
  state: ServerState;
  client: Client;
  close(): Promise<void>;
}

/** A state directory and seal key that survive restarts of the server (one per test file). */
export function lasting(): { dir: string; key: Buffer; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-events-'));
  return { dir, key: randomBytes(32), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `serve` over the sandbox (with these command-line flags), every read synced first (max staleness 0), and a modern client connected. */
export async function endpoint(
  sb: TestSandbox,
  keep: { dir: string; key: Buffer },
  stack: Partial<StackOptions> = {},
  token?: string,
  flags: Parameters<typeof mcpConfig>[0] = {},
): Promise<Endpoint> {
  const state = new ServerState(
    mcpConfig(flags, {}),
    async () => ({ credentials: { token: async () => sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: sb.baseUrl }),
    { stateDir: keep.dir, persist: false, maxStalenessMs: 0, keySource: { key: async () => keep.key }, ...stack },
  );
  const http = await serveHttp(state, { port: 0, ...(token ? { token } : {}) });
  const client = await connect(http.url, 'modern', token);
  return {
    http,
    state,
    client,
    async close() {
      await client.close();
      await http.close();
      await state.close();
    },
  };
}

const Any = z.any();

export function request(client: Client, method: string, params: Record<string, unknown> = {}): Promise<any> {
  return client.request({ method, params } as never, Any);
}

export interface PollAnswer {
  events: { eventId: string; name: string; timestamp: string; data: Record<string, any> }[];
  cursor: string;
  truncated: boolean;
  hasMore: boolean;
  /** How many more match after this page (beyond the SEP's fields). */
  remaining: number;
  nextPollMs: number;
}

export function poll(
  client: Client,
  name: string,
  cursor: string | null,
  args: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Promise<PollAnswer> {
  return request(client, 'events/poll', { name, arguments: args, cursor, ...extra });
}

/** The sandbox's budget the server uses by default (last used), its checking account and the current month's categories. */
export async function budgetFacts(sb: TestSandbox) {
  const budget = (await sb.get('/budgets/last-used')).body.data.budget;
  const id: string = budget.id;
  const month = (await sb.get(`/budgets/${id}/months/current`)).body.data.month;
  const groups = (await sb.get(`/budgets/${id}/categories`)).body.data.category_groups as any[];
  const internal = new Set(
    groups.filter((g) => g.name === 'Internal Master Category' || g.name === 'Credit Card Payments').flatMap((g) => g.categories.map((c: any) => c.id)),
  );
  const accounts = (await sb.get(`/budgets/${id}/accounts`)).body.data.accounts as any[];
  const checking = accounts.find((a) => a.type === 'checking' && !a.closed && !a.deleted && a.on_budget);
  return {
    id,
    checking,
    accounts,
    categories: (month.categories as any[]).filter((c) => !c.deleted && !c.hidden && !internal.has(c.id)),
    overspent: new Set((month.categories as any[]).filter((c) => !c.deleted && c.balance < 0 && !internal.has(c.id)).map((c) => c.id as string)),
  };
}

/** A transaction today (what a user enters in YNAB). */
export async function spend(sb: TestSandbox, budgetId: string, body: Record<string, unknown>): Promise<any> {
  const today = new Date().toISOString().slice(0, 10);
  const res = await sb.call('POST', `/budgets/${budgetId}/transactions`, { transaction: { date: today, cleared: 'cleared', approved: true, ...body } });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.transaction;
}

/** Sets what is assigned to a category this month. */
export async function assign(sb: TestSandbox, budgetId: string, categoryId: string, budgeted: number): Promise<void> {
  const res = await sb.call('PATCH', `/budgets/${budgetId}/months/current/categories/${categoryId}`, { category: { budgeted } });
  if (res.status !== 200) throw new Error(`assign failed: ${res.status} ${JSON.stringify(res.body)}`);
}
