/**
 * The warm-up's mcp step (src/hosted/warm-mcp.ts) serves whole tool calls, in process, for a
 * made-up user with a fresh copy of the made-up budget: every read a session starts with is
 * answered (not an error), round after round, and nothing reaches YNAB, not even a server at
 * YNAB_BASE_URL (a counting receiver on loopback here). Needs nothing: no Redis, no network.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TOOL_DEFINITIONS } from '../../src/mcp/tools/definitions.js';
import { mcpConfig } from '../../src/mcp/state/config.js';
import { WARM_CALLS, warmRequests } from '../../src/hosted/warm-mcp.js';

/** A stand-in for YNAB on loopback: every request it is sent, answered 500. */
let ynab: Server;
const sent: string[] = [];
const before = process.env.YNAB_BASE_URL;

beforeAll(async () => {
  ynab = createServer((req, res) => {
    sent.push(`${req.method} ${req.url}`);
    res.writeHead(500).end();
  });
  await new Promise<void>((r) => ynab.listen(0, '127.0.0.1', r));
  process.env.YNAB_BASE_URL = `http://127.0.0.1:${(ynab.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  if (before === undefined) delete process.env.YNAB_BASE_URL;
  else process.env.YNAB_BASE_URL = before;
  await new Promise((r) => ynab?.close(r));
});

describe("the warm-up's mcp step", () => {
  it('answers every read a session starts with, whole, in rounds, and sends nothing to YNAB', async () => {
    const config = { ...mcpConfig({}, {}), localFiles: false }; // as a hosted instance's (serve.ts)
    // Zero time: only the least rounds asked for, each tool twice (a round that answered an error would reject).
    const rounds = await warmRequests(config, 0, WARM_CALLS.length * 2);
    expect(rounds).toBe(WARM_CALLS.length * 2);
    expect(sent).toEqual([]);
  });

  it('calls only tools the server has, and only reads', () => {
    for (const [tool] of WARM_CALLS) {
      const def = TOOL_DEFINITIONS.find((d) => d.name === tool);
      expect(def, tool).toBeDefined();
      expect(def!.annotations.readOnlyHint, tool).toBe(true);
    }
  });
});
