/**
 * Replays one opening of test/mcp/openings.ts against the real server (`ynab-mcp serve --sandbox`
 * from the current sources, over stdio or Streamable HTTP) through to tools/list and a first tool
 * call, get_month of the current month. Over stdio the server runs behind
 * test/fixtures/openings/record-stdio.mjs, which keeps what the client sent and what the server
 * wrote on stderr; over HTTP the test sends every request itself and reads the server's stderr.
 */
import { execFile, spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import * as z from 'zod';
import { childEnv, cliArgs, REPO_ROOT, startCli } from '../helpers/cli.js';
import { INSPECTOR } from '../helpers/inspector.js';
import type { Opening } from './openings.js';

export interface Replay {
  /** The client's first request as it went on the wire. */
  first: any;
  /** What the server declared to the client: discover's or initialize's result (raw, where the test sends it). */
  declared?: any;
  tools: string[];
  /** get_month's structured answer. */
  month: any;
  /** events/list's answer, for a client that reads Events. */
  events?: any;
  /** A first events/poll, from now (a null cursor), for the SEP client. */
  poll?: any;
  stderr: string;
}

export const FIRST_CALL = { name: 'get_month', arguments: { month: 'current' } };
const EVENTS_ID = 'io.modelcontextprotocol/events';
const RECORDER = join(REPO_ROOT, 'test', 'fixtures', 'openings', 'record-stdio.mjs');

/** The environment of a server a host starts: a home of its own, no keychain, the demo budgets. */
function serverEnv(home: string): Record<string, string> {
  const env = childEnv({ HOME: home, YNAB_MCP_STATE_DIR: join(home, 'state'), YNAB_MCP_CONFIG_DIR: join(home, 'config'), YNAB_MCP_KEYCHAIN: 'off' });
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** The command a host runs, behind the recorder that writes `<log>.sent` and `<log>.stderr`. */
function recorded(log: string): string[] {
  return [RECORDER, log, process.execPath, ...cliArgs(), 'serve', '--sandbox'];
}

function readRecord(log: string): { sent: any[]; stderr: string } {
  const sent = readFileSync(`${log}.sent`, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((m) => m.started === undefined);
  return { sent, stderr: readFileSync(`${log}.stderr`, 'utf8') };
}

/** The 2026-07-28 `_meta` claim a request carries in place of initialize. */
function envelope(o: Opening): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': o.protocolVersion,
    'io.modelcontextprotocol/clientCapabilities': o.capabilities,
    'io.modelcontextprotocol/clientInfo': o.clientInfo,
  };
}

/** A client's requests as its recording has them: the envelope on each in the 2026 era, initialize first in the 2025 era. */
async function rawConversation(
  o: Opening,
  send: (method: string, params?: object, notify?: boolean) => Promise<any>,
): Promise<Omit<Replay, 'first' | 'stderr'>> {
  const modern = o.method === 'server/discover';
  // A 2025-era request with nothing to say has no params, as the SDKs send it.
  const request = (method: string, params?: Record<string, unknown>) => send(method, modern ? { ...params, _meta: envelope(o) } : params);
  if (o.refusedFirst) {
    const refused = await send(o.refusedFirst, {});
    if (refused.error?.code !== -32601) throw new Error(`${o.refusedFirst} was not refused with -32601: ${JSON.stringify(refused)}`);
  }
  const opened = modern
    ? await request('server/discover')
    : await send('initialize', { protocolVersion: o.protocolVersion, capabilities: o.capabilities, clientInfo: o.clientInfo });
  if (!opened.result) throw new Error(`${o.method} failed: ${JSON.stringify(opened)}`);
  if (!modern) await send('notifications/initialized', undefined, true);
  const tools = (await request('tools/list')).result.tools.map((t: any) => t.name);
  const call = (await request('tools/call', FIRST_CALL)).result;
  if (call.isError) throw new Error(`get_month failed: ${JSON.stringify(call.content)}`);
  const events = o.events ? (await request('events/list')).result : undefined;
  return { declared: opened.result, tools, month: call.structuredContent, events };
}

/** A recorded client's lines sent over a pipe to the server, as Claude Code and Codex do. */
async function rawStdio(o: Opening, home: string): Promise<Replay> {
  const log = join(home, 'raw');
  const child = spawn(process.execPath, recorded(log), { cwd: REPO_ROOT, env: serverEnv(home), stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map<number, (m: any) => void>();
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      waiting.get(message.id)?.(message);
    }
  });
  let id = 0; // Claude Code and Codex number their requests from 0.
  const send = (method: string, params?: object, notify = false) => {
    const message = notify ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', id, method, ...(params && { params }) };
    const answered = notify ? Promise.resolve(undefined) : new Promise((resolve) => waiting.set(id++, resolve));
    child.stdin.write(`${JSON.stringify(message)}\n`);
    return answered;
  };
  try {
    const replay = await rawConversation(o, send);
    return { ...replay, ...firstAndStderr(await closed(child, log), o) };
  } finally {
    child.kill('SIGKILL');
  }
}

/** Ends the server as a host does (stdin closed) and reads the recording. */
async function closed(child: ReturnType<typeof spawn>, log: string): Promise<{ sent: any[]; stderr: string }> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin!.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
  return readRecord(log);
}

/** The request that opened the conversation: the one after the refused discover of a fallback. */
function firstAndStderr(record: { sent: any[]; stderr: string }, o: Opening): { first: any; stderr: string } {
  const requests = record.sent.filter((m) => m.id !== undefined);
  return { first: requests[o.refusedFirst ? 1 : 0], stderr: record.stderr };
}

/** A ChatGPT-style client over Streamable HTTP: every request a POST with the 2026-07-28 headers and envelope. */
async function rawHttp(o: Opening, home: string): Promise<Replay> {
  const tokenFile = join(home, 'http-token');
  const token = 'openings-test-token-7Hq2-distinctive';
  writeFileSync(tokenFile, token);
  chmodSync(tokenFile, 0o600);
  const server = startCli(['serve', '--sandbox', '--transport', 'http', '--port', '0', '--http-token-file', tokenFile], { env: serverEnv(home) });
  try {
    const [, url] = (await server.waitFor('stderr', /MCP endpoint at (http:\/\/127\.0\.0\.1:\d+\/mcp)/)) as [string, string];
    const sent: any[] = [];
    let id = 0;
    const send = async (method: string, params?: object) => {
      const body = { jsonrpc: '2.0', id: id++, method, ...(params && { params }) };
      sent.push(body);
      const name: Record<string, string> = method === 'tools/call' ? { 'mcp-name': FIRST_CALL.name } : {};
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          'mcp-protocol-version': o.protocolVersion,
          'mcp-method': method,
          ...name,
        },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      // A JSON body, or an event stream whose data line is the answer.
      return JSON.parse(res.headers.get('content-type')?.includes('event-stream') ? /^data: (.*)$/m.exec(text)![1]! : text);
    };
    const replay = await rawConversation(o, send);
    await server.stop();
    return { ...replay, first: sent[0], stderr: server.stderr };
  } finally {
    await server.stop();
  }
}

/** The MCP Inspector's CLI, once for tools/list and once for the call, as a user runs it. */
async function inspector(o: Opening, home: string): Promise<Replay> {
  const run = (log: string, args: string[]) =>
    new Promise<any>((resolve, reject) =>
      execFile(
        INSPECTOR,
        ['--cli', '--format', 'json', ...args, process.execPath, ...recorded(log)],
        { cwd: REPO_ROOT, env: serverEnv(home), timeout: 120_000, maxBuffer: 32 * 1024 * 1024 },
        (error, stdout, stderr) => (error ? reject(new Error(`the Inspector failed: ${error.message}; ${stderr}`)) : resolve(JSON.parse(stdout))),
      ),
    );
  const listed = await run(join(home, 'list'), ['--method', 'tools/list']);
  const called = await run(join(home, 'call'), [
    '--method',
    'tools/call',
    '--tool-name',
    FIRST_CALL.name,
    '--tool-args-json',
    JSON.stringify(FIRST_CALL.arguments),
  ]);
  const list = readRecord(join(home, 'list'));
  const call = readRecord(join(home, 'call'));
  return {
    first: list.sent[0],
    tools: listed.result.tools.map((t: any) => t.name),
    month: called.result.structuredContent,
    stderr: list.stderr + call.stderr,
  };
}

/** The AI SDK's client over stdio, its tools used as an AI SDK app uses them. */
async function aiSdk(o: Opening, home: string): Promise<Replay> {
  const { createMCPClient } = await import('@ai-sdk/mcp');
  const { Experimental_StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
  const log = join(home, 'ai-sdk');
  const client = await createMCPClient({
    transport: new Experimental_StdioMCPTransport({ command: process.execPath, args: recorded(log), env: serverEnv(home), cwd: REPO_ROOT }),
  });
  try {
    const tools = await client.tools();
    const result: any = await tools[FIRST_CALL.name]!.execute!(FIRST_CALL.arguments, { toolCallId: 'first', messages: [] });
    if (result.isError) throw new Error(`get_month failed: ${JSON.stringify(result.content)}`);
    await client.close();
    const record = readRecord(log);
    return { first: record.sent[0], tools: Object.keys(tools), month: result.structuredContent, stderr: record.stderr };
  } finally {
    await client.close();
  }
}

/** The MCP SDK's client, negotiating 2026-07-28 and declaring the Events extension. */
async function sdkClient(o: Opening, home: string): Promise<Replay> {
  const log = join(home, 'sdk');
  const client = new Client(o.clientInfo as { name: string; version: string }, { versionNegotiation: { mode: 'auto' }, capabilities: o.capabilities as never });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: recorded(log), env: serverEnv(home), cwd: REPO_ROOT }));
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const call: any = await client.callTool(FIRST_CALL);
    if (call.isError) throw new Error(`get_month failed: ${JSON.stringify(call.content)}`);
    const events = await client.request({ method: 'events/list', params: {} } as never, z.any());
    const poll = await client.request({ method: 'events/poll', params: { name: 'price.increased', cursor: null } } as never, z.any());
    const declared = { protocolVersion: client.getNegotiatedProtocolVersion(), capabilities: client.getServerCapabilities() };
    await client.close();
    const record = readRecord(log);
    return { first: record.sent[0], declared, tools, month: call.structuredContent, events, poll, stderr: record.stderr };
  } finally {
    await client.close();
  }
}

const DRIVERS = {
  raw: (o: Opening, home: string) => (o.transport === 'http' ? rawHttp(o, home) : rawStdio(o, home)),
  inspector,
  'ai-sdk': aiSdk,
  sdk: sdkClient,
};

export function replay(o: Opening, home: string): Promise<Replay> {
  return DRIVERS[o.driver](o, home);
}

export { EVENTS_ID };
