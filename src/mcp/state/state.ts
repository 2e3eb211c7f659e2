/**
 * State shared by every MCP server instance of one process (stdio pins one instance; Streamable
 * HTTP builds one per request): the API stack with its replicas and ledger, and whether the
 * server is read-only now. Creating it is lazy: starting the server touches no keychain, file or
 * network (hosts may start it twice to negotiate), and does not even load that code; the first
 * tool call does.
 */
import type { Connection, TokenInfo } from '../../auth/session.js';
import type { Stack, StackOptions } from '../../stack/stack.js';
import type { YnabService } from '../../sync/service.js';
import type { McpConfig, ReadOnlySource } from './config.js';
import { SessionBudget } from './session-budget.js';

export { NoTokenError, type Connection, type TokenInfo } from '../../auth/session.js';

const READ_ONLY_REASONS: Record<ReadOnlySource, string> = {
  '--read-only': 'started with --read-only',
  YNAB_READ_ONLY: 'YNAB_READ_ONLY is set in its environment',
  '--writes off': 'started with --writes off',
  YNAB_MCP_WRITES: 'YNAB_MCP_WRITES is off in its environment',
};

/** What undoes each configured read-only mode (the host's configuration holds the flags and variables). */
const READ_ONLY_REMEDIES: Record<ReadOnlySource, string> = {
  '--read-only': "to make changes, start the server again without --read-only (in the host's configuration of ynab-mcp)",
  YNAB_READ_ONLY: "to make changes, remove YNAB_READ_ONLY from the server's environment (the host's configuration of ynab-mcp) and start it again",
  '--writes off': 'to make changes, start the server again with --writes direct or --writes confirm',
  YNAB_MCP_WRITES: 'to make changes, set YNAB_MCP_WRITES to direct or confirm and start the server again',
};
const TOKEN_REMEDY =
  'to make changes, give the server a token with full access: sign in again with `ynab-mcp login` (OAuth without --scope read-only, or a personal access token), or in hosted mode connect again and allow changes, then start a new session';

/** How long after a client connects the first call's code is loaded, if no call came first. */
const WARM_UP_DELAY_MS = 250;

export class ServerState {
  private stack: Promise<Stack> | undefined;
  private connection: Connection | undefined;
  private scopeReadOnly = false;
  private readonly readOnlyListeners = new Set<() => void>();

  constructor(
    readonly config: McpConfig,
    private readonly connect: () => Promise<Connection>,
    private readonly stackOptions: Partial<StackOptions> = {},
    /**
     * The scope of the stored grant as recorded at sign-in, known before connecting (so a
     * read-only grant never lists write tools); what the connection says replaces it.
     */
    private readonly startScope?: 'full' | 'read-only',
    /** The session's default budget when it is `last-used` (session-budget.ts; hosted: kept in the store). */
    readonly session: SessionBudget = new SessionBudget(),
  ) {}

  private get grantScope(): 'full' | 'read-only' | undefined {
    return this.connection ? this.connection.info.scope : this.startScope;
  }

  /** Read-only as configured, as granted (read-only OAuth scope), or as the service said (403.3). */
  get readOnly(): boolean {
    return this.config.readOnly || this.scopeReadOnly || this.grantScope === 'read-only';
  }

  /** The setting that made the server read-only, when one did (a config made without its source: the flags'). */
  private configuredReadOnly(): ReadOnlySource | undefined {
    if (!this.config.readOnly) return undefined;
    return this.config.readOnlyFrom ?? (this.config.writes === 'off' ? '--writes off' : '--read-only');
  }

  /** A write refused because the server is read-only: what, why and how to change that. Nothing was sent. */
  readOnlyRefusal(tool: string): string {
    return `${tool} changes the budget, and this server is read-only (${this.readOnlyReason()}): ${this.readOnlyRemedy()}. Nothing was changed, and no request was sent to YNAB.`;
  }

  /** Why the server is read-only, for tool results and ynab://status. */
  readOnlyReason(): string | undefined {
    const from = this.configuredReadOnly();
    if (from) return READ_ONLY_REASONS[from];
    if (this.grantScope === 'read-only') return 'the token was granted read-only access';
    if (this.scopeReadOnly) return 'YNAB refused a change because the token only has read-only scope (403.3)';
    return undefined;
  }

  /** How to make the server writable again, for a refused write: the setting, or the token, to change. */
  readOnlyRemedy(): string | undefined {
    const from = this.configuredReadOnly();
    if (from) return READ_ONLY_REMEDIES[from];
    if (this.grantScope === 'read-only' || this.scopeReadOnly) return TOKEN_REMEDY;
    return undefined;
  }

  onReadOnly(listener: () => void): () => void {
    this.readOnlyListeners.add(listener);
    return () => this.readOnlyListeners.delete(listener);
  }

  tokenInfo(): TokenInfo | undefined {
    return this.connection?.info;
  }

  /** Loads what finding the credentials needs (set by whoever supplies `connect`). */
  prepare?: () => Promise<unknown>;
  private warmed = false;

  /**
   * Loads the code of the first tool call (`load`: the tools' definitions and what answers them;
   * the HTTP client, replicas, credentials) in the background,
   * a moment after a client connected: starting stays as quick as a bare server, and a first call
   * made after that moment (a person reading the tools, then asking) does not wait for it. A call
   * made sooner loads it itself, without a second load competing with it.
   */
  warmUp(load?: () => Promise<unknown>): void {
    if (this.warmed) return;
    this.warmed = true;
    setTimeout(() => {
      void load?.().catch(() => {});
      if (this.stack) return;
      void import('../../stack/stack.js').catch(() => {});
      void this.prepare?.().catch(() => {});
    }, WARM_UP_DELAY_MS).unref();
  }

  /** The rehearsal apply_rehearsal applies (src/writes/rehearsal/), when one is configured. */
  get rehearsal(): StackOptions['rehearsal'] {
    return this.stackOptions.rehearsal;
  }

  /** A rehearsal to apply is configured: apply_rehearsal is offered (src/mcp/server.ts). */
  get rehearsing(): boolean {
    return this.stackOptions.rehearsal !== undefined;
  }

  /**
   * `serve --rehearse`: the real budget's state, given the copy's journal as its rehearsal. The
   * copy's server offers apply_rehearsal and runs it there (src/mcp/server.ts); it connects to
   * YNAB only when the apply is asked for.
   */
  applyState?: ServerState;

  /** Set by close(): a call still running then (one past its HTTP deadline) starts no stack. */
  private closed = false;
  private readonly stackListeners = new Set<(stack: Stack) => void>();

  /** Told of each stack as it is made (Streamable HTTP hears of alerts through it: http.ts). */
  onStack(listener: (stack: Stack) => void): () => void {
    this.stackListeners.add(listener);
    return () => this.stackListeners.delete(listener);
  }

  /** Whether the stack's start is over (ready() then waits on nothing). */
  private stackUp = false;

  /** The API stack, created on first use. */
  async ready(): Promise<Stack> {
    if (this.closed) throw new Error('The server has closed; this call was still running and ends here, with nothing written.');
    // Another call's start of the stack: a wait (hosted: the request's admission slot goes on meanwhile).
    const starting = this.stack && !this.stackUp ? this.stack : undefined;
    if (starting && this.stackOptions.aside) return this.stackOptions.aside(() => starting);
    this.stack ??= (async () => {
      // The HTTP client, replicas and ledger are loaded with the first call: tools/list needs none.
      const [connection, { createStack }] = await Promise.all([this.connect(), import('../../stack/stack.js')]);
      const wasReadOnly = this.readOnly;
      this.connection = connection;
      const stack = createStack({
        ...this.stackOptions,
        credentials: connection.credentials,
        identity: connection.identity,
        baseUrl: connection.baseUrl ?? this.stackOptions.baseUrl,
        readOnly: this.readOnly,
        onReadOnlyScope: () => {
          if (this.scopeReadOnly) return;
          this.scopeReadOnly = true;
          for (const l of this.readOnlyListeners) l();
        },
      });
      // Learned only now (a sign-in recorded before the scope was): one change, told once.
      if (this.readOnly && !wasReadOnly) for (const l of this.readOnlyListeners) l();
      for (const l of this.stackListeners) l(stack);
      this.stackUp = true;
      return stack;
    })().catch((e: unknown) => {
      // A failed start (no token yet) is retried on the next call, e.g. after `ynab-mcp login`.
      this.stack = undefined;
      throw e;
    });
    return this.stack;
  }

  async service(): Promise<YnabService> {
    return (await this.ready()).service;
  }

  /** The stack if it was started, without starting it (status must not cause side effects). */
  async started(): Promise<Stack | undefined> {
    if (!this.stack) return undefined;
    try {
      return await this.stack;
    } catch {
      return undefined;
    }
  }

  /** Nothing is written to the state directory once this has returned (storage/closing.ts). */
  async close(): Promise<void> {
    this.closed = true;
    const stack = await this.started();
    await stack?.close();
  }
}
