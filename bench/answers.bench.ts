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
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MCP_TOOLSETS } from '../src/mcp/tools/toolsets.js';
import { INSIGHT_TOOLS, TASK_TOOLS } from '../src/mcp/tools/definitions.js';
import { startSandbox, type RunningSandbox } from '../src/sandbox/app.js';
import { countingClient } from './counting-client.js';
import { day, QUESTIONS, type Call } from './questions.js';
import { median, ms, timed } from './stats.js';

import type { BenchSection } from './section.js';

/**
 * The same figures measured before issue 43's descriptions and claims (main at 4ab2bdd): tools/list
 * bytes per selection and per tool, and the bytes of each question's answers, so every run reports
 * them beside today's (issue 43 item 10). Written once from that run's RESULTS.md; not measured again.
 */
const BEFORE = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'answers-before.json'), 'utf8')) as {
  measured: string;
  lists: Record<string, number>;
  tools: Record<string, number>;
  intents: Record<string, { insights_bytes: number; api_bytes: number }>;
};

/** `now` against `before`, signed ("+12", "-40"), or empty when there is no before. */
const change = (now: number, before: number | undefined) => (before === undefined ? '' : `${now - before >= 0 ? '+' : ''}${now - before}`);

type Report = (row: Record<string, string | number>) => void;

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
  let calls = 0;
  let returned = 0;
  const counted = await countingClient(sb, dir, { toolsets, maxStalenessMs: 600_000 });
  const { client } = counted;
  return {
    async call(name, args = {}) {
      const res: any = await client.callTool({ name, arguments: args });
      calls += 1;
      returned += bytes(res.content?.[0]?.text ?? '');
      if (res.isError) throw new Error(`${name}: ${res.content?.[0]?.text}`);
      return res.structuredContent;
    },
    listTools: async () => (await client.listTools()).tools,
    figures: () => ({ calls, bytes: returned, requests: counted.requests() }),
    async close() {
      await counted.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function definitions(report: Report): Promise<void> {
  const s = await session(undefined);
  const all = await s.listTools();
  await s.close();
  const notApi = new Set([...INSIGHT_TOOLS, ...TASK_TOOLS].map((t) => t.name));
  const api = all.filter((t) => !notApi.has(t.name));
  const list = (selection: string, tools: any[]) =>
    report({
      section: 'answers',
      what: 'tools/list bytes',
      selection,
      tools: tools.length,
      bytes: bytes(tools),
      before: BEFORE.lists[selection] ?? '',
      change: change(bytes(tools), BEFORE.lists[selection]),
    });
  list('all (default)', all);
  list('the 44 API tools', api);
  for (const toolset of [...MCP_TOOLSETS, 'core']) {
    const t = await session(undefined, toolset);
    const tools = await t.listTools();
    await t.close();
    list(toolset, tools);
  }
  for (const t of [...all].sort((x, y) => bytes(y) - bytes(x)))
    report({
      section: 'answers',
      what: 'tool definition bytes',
      tool: t.name,
      bytes: bytes(t),
      before: BEFORE.tools[t.name] ?? '',
      change: change(bytes(t), BEFORE.tools[t.name]),
    });
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
        report({
          section: 'answers',
          what: 'insight time (fresh copy)',
          transactions: n,
          tool: name,
          args: JSON.stringify(args),
          p50: ms(median(times)),
          'first sync': ms(first),
        });
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
      // Bytes to the model for this intent, against the same question's before issue 43's descriptions.
      const before = BEFORE.intents[q.question]?.insights_bytes;
      row['insights bytes before'] = before ?? '';
      row['insights bytes change'] = change(Number(row['insights bytes']), before);
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
      'insights bytes before': Object.values(BEFORE.intents).reduce((s, i) => s + i.insights_bytes, 0),
      'before: measured': BEFORE.measured,
    });
  } finally {
    await sb.close();
  }
}

export const answersSection: BenchSection = {
  name: 'answers',
  title: 'What answers cost an assistant',
  about:
    'The tool definitions a host pays for at the start of every conversation (tools/list bytes: all tools, the API tools, each toolset, the core profile, each tool), each beside its figure before issue 43 (bench/fixtures/answers-before.json); typical questions answered with the insight tools against the API tools alone (calls, bytes returned, requests to YNAB; the bytes to the model per question beside its figure before); and how long each insight takes to compute at 1,500 and 100,000 transactions.',
  run: (r) => answersBench((row) => r.row(row)),
};
