/**
 * What the MCP server exposes and how: default budget, toolsets, read-only mode, how writes are
 * confirmed, output limits. Read from flags with environment fallbacks, so hosts that only pass
 * env (MCPB) can configure it.
 */
import { ConfigError } from '../../api/client/errors.js';
import { WRITE_MODES, type WriteMode } from '../../writes/pipeline/policy.js';
import { DEFAULT_TOOLSETS, MCP_TOOLSETS, type Selection } from '../tools/toolsets.js';

/** Where a configured read-only mode comes from. */
export type ReadOnlySource = '--read-only' | 'YNAB_READ_ONLY' | '--writes off' | 'YNAB_MCP_WRITES';

export interface McpConfig {
  /** The budget a tool uses when none is given: --budget / YNAB_BUDGET_ID, else "last-used". */
  defaultBudget: string;
  /** Where defaultBudget was set (for errors about it), or undefined for the built-in "last-used". */
  defaultBudgetFrom?: '--budget' | 'YNAB_BUDGET_ID';
  /** Serving the sandbox's demo budgets: writes change only throwaway local data. */
  demo: boolean;
  /** Toolsets and/or the `default` or `core` profile (see toolsets.ts). */
  toolsets: Selection;
  /** Configured read-only (--read-only / YNAB_READ_ONLY=1, or --writes off). */
  readOnly: boolean;
  /** What made it read-only, when configured so (a refused write names it, and how to undo it). */
  readOnlyFrom?: ReadOnlySource;
  /** How writes are confirmed (--writes / YNAB_MCP_WRITES). */
  writes: WriteMode;
  /**
   * Ask the user through the client's form elicitation, where the client declares it, before a
   * held write (--elicitation / YNAB_MCP_ELICITATION; default on). The confirm_token path works
   * either way.
   */
  elicitation: boolean;
  /**
   * How long a 2025-era client's dialog may stay unanswered before the write answers with its
   * preview and confirm_token instead (--elicitation-timeout SECONDS / YNAB_MCP_ELICITATION_TIMEOUT;
   * default 120 s): some hosts never show the dialog, and never answer it.
   */
  elicitationTimeoutMs: number;
  /** Largest tool result text, in characters; larger results are paged with a notice. */
  maxResultChars: number;
  /**
   * The server runs for one local user (stdio, or HTTP bound to loopback), so a tool may read a
   * file of theirs by `path` (a bank statement). Never in hosted mode or beyond loopback: there a
   * path would read the server's files, not the user's.
   */
  localFiles: boolean;
  /** Serving a rehearsal copy of a real budget (`serve --rehearse`, docs/rehearsal.md): every answer says so. */
  rehearsal?: RehearsalCopy;
}

/** The rehearsal copy served: which budget, when it was taken, its Ready to Assign then. */
export interface RehearsalCopy {
  budget: { id: string; name: string };
  /** When the copy was taken (ISO, UTC). */
  taken_at: string;
  /** YNAB's server_knowledge in the export read: what applying the rehearsal compares against (a change in YNAB since). */
  server_knowledge: number;
  /** The latest month's Ready to Assign in the copy as taken, in milliunits. */
  ready_to_assign: { month: string; amount: number };
}

/** The one notice every answer of a rehearsal carries: short, so that it can be quoted. */
export const rehearsalNotice = (r: RehearsalCopy): string =>
  `rehearsal copy of ${JSON.stringify(r.budget.name)} taken ${r.taken_at.slice(0, 16).replace('T', ' ')} UTC; nothing changes in YNAB`;

const CHOICES: readonly string[] = [...MCP_TOOLSETS, 'core', 'default'];

export function parseToolsets(value: string | undefined): Selection {
  if (!value || value.trim() === '') return new Set(DEFAULT_TOOLSETS);
  if (value.trim() === 'all') return new Set(MCP_TOOLSETS);
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !CHOICES.includes(n));
  if (unknown.length) {
    throw new ConfigError(
      `unknown toolset${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')}; expected a comma-separated list of ${MCP_TOOLSETS.join(', ')}, or the profile "default" or "core" (or "all")`,
    );
  }
  return new Set(names as ((typeof MCP_TOOLSETS)[number] | 'core' | 'default')[]);
}

export function parseWriteMode(value: string | undefined, source: string): WriteMode {
  const v = value?.trim().toLowerCase();
  if (!v) return 'direct';
  if ((WRITE_MODES as readonly string[]).includes(v)) return v as WriteMode;
  throw new ConfigError(`${source} must be one of ${WRITE_MODES.join(', ')}, got ${JSON.stringify(value)}`);
}

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
const falsy = (v: string | undefined) => v !== undefined && /^(0|false|no|off)$/i.test(v.trim());

export interface ConfigFlags {
  budget?: string;
  toolsets?: string;
  readOnly?: boolean;
  writes?: string;
  elicitation?: string;
  elicitationTimeout?: string;
  maxResultChars?: number;
  demo?: boolean;
  /** See McpConfig.localFiles; default false (set only where the server is known to be local). */
  localFiles?: boolean;
}

function readOnlySource(flags: ConfigFlags, env: Record<string, string | undefined>, writes: WriteMode): ReadOnlySource | undefined {
  if (flags.readOnly === true) return '--read-only';
  if (truthy(env.YNAB_READ_ONLY)) return 'YNAB_READ_ONLY';
  if (writes !== 'off') return undefined;
  return flags.writes !== undefined ? '--writes off' : 'YNAB_MCP_WRITES';
}

export function mcpConfig(flags: ConfigFlags, env: Record<string, string | undefined> = process.env): McpConfig {
  const writes = flags.writes !== undefined ? parseWriteMode(flags.writes, '--writes') : parseWriteMode(env.YNAB_MCP_WRITES, 'YNAB_MCP_WRITES');
  const elicit = flags.elicitation ?? env.YNAB_MCP_ELICITATION;
  if (elicit !== undefined && !truthy(elicit) && !falsy(elicit)) {
    throw new ConfigError(`${flags.elicitation !== undefined ? '--elicitation' : 'YNAB_MCP_ELICITATION'} must be on or off, got ${JSON.stringify(elicit)}`);
  }
  const timeoutText = flags.elicitationTimeout ?? env.YNAB_MCP_ELICITATION_TIMEOUT;
  const timeoutS = timeoutText === undefined ? 120 : Number(timeoutText);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0 || timeoutS > 3600) {
    throw new ConfigError(
      `${flags.elicitationTimeout !== undefined ? '--elicitation-timeout' : 'YNAB_MCP_ELICITATION_TIMEOUT'} must be a number of seconds between 0 and 3600, got ${JSON.stringify(timeoutText)}`,
    );
  }
  const fromEnv = env.YNAB_BUDGET_ID?.trim() || undefined;
  return {
    defaultBudget: flags.budget ?? fromEnv ?? 'last-used',
    defaultBudgetFrom: flags.budget !== undefined ? '--budget' : fromEnv !== undefined ? 'YNAB_BUDGET_ID' : undefined,
    demo: flags.demo === true,
    toolsets: parseToolsets(flags.toolsets ?? env.YNAB_MCP_TOOLSETS),
    readOnly: flags.readOnly === true || truthy(env.YNAB_READ_ONLY) || writes === 'off',
    readOnlyFrom: readOnlySource(flags, env, writes),
    writes,
    elicitation: !falsy(elicit),
    elicitationTimeoutMs: Math.round(timeoutS * 1000),
    maxResultChars: flags.maxResultChars ?? 60_000,
    localFiles: flags.localFiles === true,
  };
}
