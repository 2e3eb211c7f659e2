/**
 * What answers cost an assistant:
 *  - the tool definitions a host pays for at the start of every conversation (tools/list bytes:
 *    all tools, the 44 API tools, each toolset, the core profile, each tool);
 *  - twelve typical questions answered with the insight tools against the same questions answered
 *    with the API tools alone (as an assistant would chain them, following every page): calls,
 *    bytes returned (the text a model reads) and requests to YNAB, each question on a new server
 *    so the requests include loading the budget.
 *  - how long each insight takes to compute from a fresh copy, on budgets of 1,500 and 100,000
 *    transactions.
 * Self-contained: a sandbox, a server and a real MCP client per question.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { mcpConfig } from '../src/mcp/config.js';
import { buildServer } from '../src/mcp/server.js';
import { ServerState } from '../src/mcp/state.js';
import { MCP_TOOLSETS } from '../src/mcp/toolsets.js';
import { INSIGHT_TOOLS, TASK_TOOLS } from '../src/mcp/tools/definitions.js';
import { startSandbox, type RunningSandbox } from '../src/sandbox/app.js';
import { median, ms, timed } from './stats.js';

import type { BenchSection } from './section.js';

type Report = (row: Record<string, string | number>) => void;
type Call = (name: string, args?: Record<string, unknown>) => Promise<any>;

const bytes = (v: unknown) => Buffer.byteLength(typeof v === 'string' ? v : JSON.stringify(v), 'utf8');

interface Session {
  call: Call;
  listTools(): Promise<any[]>;
  /** Calls made, bytes of text returned and requests to YNAB so far. */
  figures(): { calls: number; bytes: number; requests: number };
  close(): Promise<void>;
}

async function session(sb: RunningSandbox | undefined, toolsets?: string): Promise<Session> {
  const dir = mkdtempSync(join(tmpdir(), 'ynab-mcp-bench-answers-'));
  let requests = 0;
  let calls = 0;
  let returned = 0;
  const state = new ServerState(
    mcpConfig({ toolsets }, {}),
    async () => {
      if (!sb) throw new Error('no sandbox');
      return { tokens: { token: async () => sb.accessToken }, info: { source: 'sandbox', kind: 'personal' }, baseUrl: sb.baseUrl };
    },
    { stateDir: dir, persist: false, maxStalenessMs: 600_000, quotaLimit: 10_000_000, onRequest: () => (requests += 1) },
  );
  const server = buildServer(state);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(b);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(a);
  return {
    async call(name, args = {}) {
      const res: any = await client.callTool({ name, arguments: args });
      calls += 1;
      returned += bytes(res.content?.[0]?.text ?? '');
      if (res.isError) throw new Error(`${name}: ${res.content?.[0]?.text}`);
      return res.structuredContent;
    },
    listTools: async () => (await client.listTools()).tools,
    figures: () => ({ calls, bytes: returned, requests }),
    async close() {
      await client.close();
      await server.close();
      await state.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every page of a paged list tool, as an assistant following next_cursor would fetch them. */
async function allPages(call: Call, name: string, args: Record<string, unknown>): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await call(name, { ...args, ...(cursor ? { cursor } : {}) });
    items.push(...(page.transactions ?? page.scheduled_transactions ?? page.payees ?? []));
    cursor = page.has_more ? page.next_cursor : undefined;
  } while (cursor);
  return items;
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const monthStart = (offset: number) => {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1)).toISOString().slice(0, 10);
};
const monthEnd = (offset: number) => new Date(Date.parse(`${monthStart(offset + 1)}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
const yearStart = () => `${new Date().getUTCFullYear()}-01-01`;

/** A question, and how it is answered with insights and with the API tools alone. */
interface Question {
  question: string;
  insights: (call: Call) => Promise<unknown>;
  api: (call: Call) => Promise<unknown>;
}

const payeeId = async (call: Call, name: string) => (await allPages(call, 'list_payees', {})).find((p: any) => p.name === name)?.id;
const categoryId = async (call: Call, name: string) => (await call('list_categories', { include_all: true })).category_groups.flatMap((g: any) => g.categories).find((c: any) => c.name === name)?.id;

const QUESTIONS: Question[] = [
  {
    question: 'What did we spend on dining out last month?',
    insights: (call) => call('spending_summary', { month: monthStart(-1), category_id: 'Dining Out' }),
    api: (call) => call('get_month', { month: monthStart(-1) }),
  },
  {
    question: 'Where did our money go this month?',
    insights: (call) => call('spending_summary', {}),
    api: (call) => call('get_month', { month: 'current' }),
  },
  {
    question: 'What needs my attention?',
    insights: (call) => call('needs_attention'),
    api: async (call) => {
      await allPages(call, 'list_transactions', { type: 'unapproved', since_date: '2000-01-01' });
      await allPages(call, 'list_transactions', { type: 'uncategorized', since_date: '2000-01-01' });
      await call('get_month', { month: 'current' });
      await call('list_accounts');
      await allPages(call, 'list_scheduled_transactions', {});
    },
  },
  {
    question: 'How much have we spent at Costco this year?',
    insights: (call) => call('search_transactions', { query: 'costco', since_date: yearStart(), limit: 5 }),
    api: async (call) => allPages(call, 'list_payee_transactions', { payee_id: await payeeId(call, 'Costco'), since_date: yearStart() }),
  },
  {
    question: 'Which coffee purchases last month were over $5?',
    insights: (call) => call('search_transactions', { category_id: 'Coffee', min_amount: 5, direction: 'outflow', since_date: monthStart(-1), until_date: monthEnd(-1) }),
    api: async (call) => allPages(call, 'list_category_transactions', { category_id: await categoryId(call, 'Coffee'), since_date: monthStart(-1), until_date: monthEnd(-1) }),
  },
  {
    question: 'Are we earning more than we spend (last 6 months)?',
    insights: (call) => call('cash_flow'),
    api: (call) => call('list_months'),
  },
  {
    question: 'What bills are due in the next two weeks?',
    insights: (call) => call('upcoming', { days: 14 }),
    api: async (call) => allPages(call, 'list_scheduled_transactions', {}),
  },
  {
    question: 'Will checking cover everything scheduled this month?',
    insights: (call) => call('upcoming', { days: 30 }),
    api: async (call) => {
      await call('list_accounts');
      await allPages(call, 'list_scheduled_transactions', {});
    },
  },
  {
    question: 'Which categories are overspent?',
    insights: (call) => call('needs_attention'),
    api: (call) => call('get_month', { month: 'current' }),
  },
  {
    question: 'How much did groceries cost each month this year?',
    insights: (call) => call('spending_summary', { since_date: yearStart(), until_date: monthEnd(0), group_by: 'month', category_id: 'Groceries' }),
    api: async (call) => allPages(call, 'list_category_transactions', { category_id: await categoryId(call, 'Groceries'), since_date: yearStart() }),
  },
  {
    question: 'What did we pay Dr. Patel, and when?',
    insights: (call) => call('search_transactions', { query: 'patel' }),
    api: async (call) => allPages(call, 'list_payee_transactions', { payee_id: await payeeId(call, 'Dr. Patel Dental'), since_date: '2000-01-01' }),
  },
  {
    question: 'How has our net worth changed over the year?',
    insights: (call) => call('cash_flow', { months: 12 }),
    api: async (call) => {
      await call('list_accounts');
      await allPages(call, 'list_transactions', { since_date: day(-365) });
    },
  },
];

async function definitions(report: Report): Promise<void> {
  const s = await session(undefined);
  const all = await s.listTools();
  await s.close();
  const notApi = new Set([...INSIGHT_TOOLS, ...TASK_TOOLS].map((t) => t.name));
  const api = all.filter((t) => !notApi.has(t.name));
  report({ section: 'answers', what: 'tools/list bytes', selection: 'all (default)', tools: all.length, bytes: bytes(all) });
  report({ section: 'answers', what: 'tools/list bytes', selection: 'the 44 API tools', tools: api.length, bytes: bytes(api) });
  for (const toolset of [...MCP_TOOLSETS, 'core']) {
    const t = await session(undefined, toolset);
    const tools = await t.listTools();
    await t.close();
    report({ section: 'answers', what: 'tools/list bytes', selection: toolset, tools: tools.length, bytes: bytes(tools) });
  }
  for (const t of [...all].sort((x, y) => bytes(y) - bytes(x))) report({ section: 'answers', what: 'tool definition bytes', tool: t.name, bytes: bytes(t) });
}

/** Each insight's time through the MCP client on a fresh copy (the first call pays the sync). */
async function latency(report: Report): Promise<void> {
  const calls: [string, Record<string, unknown>][] = [
    ['spending_summary', {}],
    ['spending_summary', { since_date: day(-365), group_by: 'payee' }],
    ['search_transactions', { query: 'market', min_amount: 20 }],
    ['needs_attention', {}],
    ['cash_flow', { months: 12 }],
    ['upcoming', { days: 30 }],
  ];
  for (const n of [1_500, 100_000]) {
    const sb = await startSandbox({ seed: 'bench', transactions: n, rateLimit: 10_000_000, log: () => {} });
    const s = await session(sb);
    try {
      const [, first] = await timed(() => s.call('list_accounts'));
      for (const [name, args] of calls) {
        const times: number[] = [];
        for (let i = 0; i < 5; i++) times.push((await timed(() => s.call(name, args)))[1]);
        report({ section: 'answers', what: 'insight time (fresh copy)', transactions: n, tool: name, args: JSON.stringify(args), 'p50': ms(median(times)), 'first sync': ms(first) });
      }
      report({ section: 'answers', what: 'insight requests (fresh copy)', transactions: n, requests: s.figures().requests });
    } finally {
      await s.close();
      await sb.close();
    }
  }
}

export async function answersBench(report: Report): Promise<void> {
  await definitions(report);
  await latency(report);
  const sb = await startSandbox({ seed: 'bench', rateLimit: 10_000_000, log: () => {} });
  try {
    const totals = { insights: { calls: 0, bytes: 0, requests: 0 }, api: { calls: 0, bytes: 0, requests: 0 } };
    for (const [i, q] of QUESTIONS.entries()) {
      const row: Record<string, string | number> = { section: 'answers', what: 'question', n: i + 1, question: q.question };
      for (const way of ['insights', 'api'] as const) {
        const s = await session(sb);
        try {
          await q[way](s.call);
          const f = s.figures();
          row[`${way} calls`] = f.calls;
          row[`${way} bytes`] = f.bytes;
          row[`${way} requests`] = f.requests;
          for (const k of ['calls', 'bytes', 'requests'] as const) totals[way][k] += f[k];
        } finally {
          await s.close();
        }
      }
      row['bytes api/insights'] = (Number(row['api bytes']) / Number(row['insights bytes'])).toFixed(1);
      report(row);
    }
    report({
      section: 'answers',
      what: 'twelve questions',
      'insights calls': totals.insights.calls,
      'insights bytes': totals.insights.bytes,
      'insights requests': totals.insights.requests,
      'api calls': totals.api.calls,
      'api bytes': totals.api.bytes,
      'api requests': totals.api.requests,
      'bytes api/insights': (totals.api.bytes / totals.insights.bytes).toFixed(1),
    });
  } finally {
    await sb.close();
  }
}

export const answersSection: BenchSection = {
  name: 'answers',
  title: 'What answers cost an assistant',
  about: 'The tool definitions a host pays for at the start of every conversation (tools/list bytes: all tools, the API tools, each toolset, the core profile, each tool); typical questions answered with the insight tools against the API tools alone (calls, bytes returned, requests to YNAB); and how long each insight takes to compute at 1,500 and 100,000 transactions.',
  run: (r) => answersBench((row) => r.row(row)),
};
