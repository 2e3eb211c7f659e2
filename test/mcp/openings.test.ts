/**
 * Every client's opening, replayed (issue 59 item 4): each row of test/mcp/openings.ts (Claude
 * Code's server/discover and its fallback to initialize, Codex CLI's initialize at 2025-06-18, a
 * ChatGPT-style client over HTTP reading Events at the top level, the MCP Inspector's CLI, the AI
 * SDK's client, a 2026-07-28 client with Events) is driven against the real server through
 * tools/list and a first tool call. Each gets the default tools, a month whose figures are the
 * sandbox API's own (a sandbox of the same seed, read raw), and a server that wrote nothing on
 * stderr but its start-up notices.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVE_SANDBOX_SEED } from '../../src/commands/sandbox-seed.js';
import { killAllCli } from '../helpers/cli.js';
import { skipWithoutInspector } from '../helpers/inspector.js';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { listed } from '../helpers/tools-list.js';
import { EVENTS_ID, replay, type Replay } from './opening-drivers.js';
import { OPENINGS, type Opening } from './openings.js';

/** What `serve --sandbox` says as it starts, over stdio and over HTTP; anything else on stderr is a warning. */
const NOTICES = [
  /^ynab-mcp: serving the sandbox's demo budgets \(no account needed; nothing is sent to YNAB\)$/,
  /^ynab-mcp: MCP endpoint at http:\/\/127\.0\.0\.1:\d+\/mcp$/,
  /^ynab-mcp: connect with Claude Code: claude mcp add --transport http /,
];

// Without the Inspector (test/inspector), its opening skips and says how to get it.
const noInspector = skipWithoutInspector();

let home: string;
let sb: TestSandbox;
/** The default list's names, in its order (every era gets the same list). */
let defaultTools: string[];
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'ynab-mcp-openings-'));
  // The same demo budgets the server serves: its figures read raw from the API.
  sb = await testSandbox({ seed: SERVE_SANDBOX_SEED, rateLimit: 100_000 });
  defaultTools = (await listed()).map((t) => t.name);
});
afterAll(async () => {
  await killAllCli();
  await sb?.close();
  rmSync(home, { recursive: true, force: true });
});

/** The first request's method, protocol version, capabilities and clientInfo, wherever its era puts them. */
function opening(first: any): Pick<Opening, 'method' | 'protocolVersion' | 'capabilities' | 'clientInfo'> {
  const meta = first.params?._meta ?? {};
  if (first.method === 'initialize')
    return {
      method: first.method,
      protocolVersion: first.params.protocolVersion,
      capabilities: first.params.capabilities,
      clientInfo: first.params.clientInfo,
    };
  return {
    method: first.method,
    protocolVersion: meta['io.modelcontextprotocol/protocolVersion'],
    capabilities: meta['io.modelcontextprotocol/clientCapabilities'],
    clientInfo: meta['io.modelcontextprotocol/clientInfo'],
  };
}

/** The month as the API has it, for the budget the answer names. */
async function rawMonth(budgetId: string) {
  const budgets = (await sb.get('/budgets')).body.data.budgets;
  const month = (await sb.get(`/budgets/${budgetId}/months/current`)).body.data.month;
  return { budget: budgets.find((b: any) => b.id === budgetId)?.name, ...month };
}

const replays = new Map<string, Promise<Replay>>();
/** One replay per opening, shared by its checks. */
function replayed(o: Opening): Promise<Replay> {
  if (!replays.has(o.client)) replays.set(o.client, replay(o, mkdtempSync(join(home, 'client-'))));
  return replays.get(o.client)!;
}

describe.each(OPENINGS.map((o) => [o.client, o] as const))('%s', (_client, o) => {
  it.skipIf(o.driver === 'inspector' && noInspector)(
    'opens as its source records it, gets the tools and a correct first answer, and the server warns of nothing',
    async () => {
      const r = await replayed(o);
      expect(opening(r.first)).toEqual({ method: o.method, protocolVersion: o.protocolVersion, capabilities: o.capabilities, clientInfo: o.clientInfo });
      if (r.declared) expect(r.declared.protocolVersion ?? r.declared.supportedVersions?.[0]).toBe(o.protocolVersion);
      expect(r.tools).toEqual(defaultTools);
      const raw = await rawMonth(r.month.budget.id);
      expect(r.month.budget.name).toBe(raw.budget);
      expect(r.month.month).toEqual({
        ...r.month.month,
        month: raw.month,
        income: raw.income,
        assigned: raw.budgeted,
        activity: raw.activity,
        ready_to_assign: raw.to_be_budgeted,
      });
      const warnings = r.stderr.split('\n').filter((line) => line.trim() && !NOTICES.some((n) => n.test(line)));
      expect(warnings).toEqual([]);
    },
    180_000,
  );
});

const byEvents = (where: Opening['events']) => OPENINGS.filter((o) => o.events === where).map((o) => [o.client, o] as const);

describe('Events, where each client reads them', () => {
  it.each(byEvents('top-level'))(
    '%s reads them at the top-level capabilities.events, as ChatGPT does, and is offered webhook delivery',
    async (_client, o) => {
      const r = await replayed(o);
      expect(r.declared.supportedVersions).toContain('2026-07-28');
      expect(r.declared.capabilities.events).toBeTypeOf('object');
      expect(r.events.events.length).toBeGreaterThan(0);
      for (const e of r.events.events) expect(e.delivery).toContain('webhook');
    },
    180_000,
  );

  it.each(byEvents('extension'))(
    '%s reads them under extensions, as SEP-3415 defines them, lists them and polls from now',
    async (_client, o) => {
      const r = await replayed(o);
      expect(r.declared.capabilities.extensions[EVENTS_ID]).toBeTypeOf('object');
      expect(r.events.events.map((e: any) => e.name)).toContain('price.increased');
      // A first poll starts from now: nothing yet, and a cursor to ask again with.
      expect(r.poll.events).toEqual([]);
      expect(r.poll.cursor).toBeTypeOf('string');
    },
    180_000,
  );
});
