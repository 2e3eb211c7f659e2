/**
 * Runs `ynab-mcp serve` as a real child process over stdio and talks to it with the real MCP
 * client, through a small transport that keeps every byte the process wrote to stdout and stderr
 * (so tests can search them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { cliArgs } from './cli.js';

const ROOT = join(import.meta.dirname, '..', '..');

interface JsonRpcTransport {
  start(): Promise<void>;
  send(message: unknown): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: any) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}

export class RecordingStdioTransport implements JsonRpcTransport {
  stdout = '';
  stderr = '';
  private child: ChildProcess | undefined;
  private buffer = '';
  onmessage?: (message: any) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  constructor(
    private readonly args: string[],
    private readonly env: Record<string, string | undefined>,
  ) {}

  async start(): Promise<void> {
    const child = spawn(process.execPath, [...cliArgs(), ...this.args], {
      cwd: ROOT,
      env: this.env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      this.stdout += chunk;
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) !== -1) {
        const line = this.buffer.slice(0, nl).trim();
        this.buffer = this.buffer.slice(nl + 1);
        if (!line) continue;
        try {
          this.onmessage?.(JSON.parse(line));
        } catch (e) {
          this.onerror?.(new Error(`stdout carried a line that is not JSON-RPC: ${line.slice(0, 200)} (${(e as Error).message})`));
        }
      }
    });
    child.stderr!.on('data', (chunk: string) => (this.stderr += chunk));
    child.on('exit', () => this.onclose?.());
    child.on('error', (e) => this.onerror?.(e));
  }

  async send(message: unknown): Promise<void> {
    this.child?.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

export async function cliMcp(
  args: string[],
  env: Record<string, string | undefined>,
  clientOptions: ConstructorParameters<typeof Client>[1] = {},
): Promise<{ client: Client; transport: RecordingStdioTransport }> {
  const transport = new RecordingStdioTransport(args, env);
  const client = new Client({ name: 'cli-test', version: '1.0.0' }, clientOptions);
  await client.connect(transport as never);
  return { client, transport };
}

/**
 * The environment `serve` gets in these tests: the sandbox's token and URL, state and config in
 * `dir`, no keychain (so a test never reads the machine's), and PATH alone of the parent's.
 */
export function sandboxEnv(sandbox: { accessToken: string; baseUrl: string }, dir: string): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    YNAB_ACCESS_TOKEN: sandbox.accessToken,
    YNAB_BASE_URL: sandbox.baseUrl,
    YNAB_MCP_STATE_DIR: join(dir, 'state'),
    YNAB_MCP_CONFIG_DIR: join(dir, 'config'),
    YNAB_MCP_KEYCHAIN: 'off',
  };
}
