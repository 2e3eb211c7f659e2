/**
 * What the MCP server exposes and how: default budget, toolsets, read-only mode, output limits.
 * Read from flags with environment fallbacks, so hosts that only pass env (MCPB) can configure it.
 */
import { MCP_TOOLSETS, type Selection } from './toolsets.js';

export interface McpConfig {
  /** The budget a tool uses when none is given: --budget / YNAB_BUDGET_ID, else "last-used". */
  defaultBudget: string;
  /** Where defaultBudget was set (for errors about it), or undefined for the built-in "last-used". */
  defaultBudgetFrom?: '--budget' | 'YNAB_BUDGET_ID';
  /** Serving the sandbox's demo budgets: writes change only throwaway local data. */
  demo: boolean;
  /** Toolsets and/or the `core` profile (see toolsets.ts). */
  toolsets: Selection;
  /** Configured read-only (--read-only / YNAB_READ_ONLY=1). */
  readOnly: boolean;
  /** Largest tool result text, in characters; larger results are paged with a notice. */
  maxResultChars: number;
}

export class ConfigError extends Error {}

const CHOICES: readonly string[] = [...MCP_TOOLSETS, 'core'];

export function parseToolsets(value: string | undefined): Selection {
  if (!value || value.trim() === '' || value.trim() === 'all') return new Set(MCP_TOOLSETS);
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !CHOICES.includes(n));
  if (unknown.length) {
    throw new ConfigError(`unknown toolset${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')}; expected a comma-separated list of ${MCP_TOOLSETS.join(', ')}, or the profile "core" (or "all")`);
  }
  return new Set(names as (typeof MCP_TOOLSETS[number] | 'core')[]);
}

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());

export function mcpConfig(
  flags: { budget?: string; toolsets?: string; readOnly?: boolean; maxResultChars?: number; demo?: boolean },
  env: Record<string, string | undefined> = process.env,
): McpConfig {
  const fromEnv = env.YNAB_BUDGET_ID?.trim() || undefined;
  return {
    defaultBudget: flags.budget ?? fromEnv ?? 'last-used',
    defaultBudgetFrom: flags.budget !== undefined ? '--budget' : fromEnv !== undefined ? 'YNAB_BUDGET_ID' : undefined,
    demo: flags.demo === true,
    toolsets: parseToolsets(flags.toolsets ?? env.YNAB_MCP_TOOLSETS),
    readOnly: flags.readOnly === true || truthy(env.YNAB_READ_ONLY),
    maxResultChars: flags.maxResultChars ?? 60_000,
  };
}
